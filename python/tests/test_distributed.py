"""ember.distributed: the collectives in real processes (world sizes 2 and 3 over Gloo, started by the launcher;
the per-rank checks are in _dist_worker.py), the stores, the API's error paths, the launcher's environment and exit
codes. NCCL: its argument checks only (the GPU test is in test_cuda_ops.py)."""

import ast
import json
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
import threading
import time
from datetime import timedelta

import numpy as np
import pytest

import ember
import ember.distributed as dist

HERE = pathlib.Path(__file__).parent
WORKER = HERE / "_dist_worker.py"
CHECK_NAMES = [
    f.name
    for f in ast.parse(WORKER.read_text()).body
    if isinstance(f, ast.FunctionDef) and any(getattr(d, "id", "") == "check" for d in f.decorator_list)
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(nproc, args, port=None, extra=(), module="ember.distributed.run", **kw):
    cmd = [
        sys.executable,
        "-m",
        module,
        "--nproc_per_node={}".format(nproc),
        "--master_port={}".format(port or free_port()),
        *extra,
        *map(str, args),
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def finish(proc, timeout):
    """The launcher's output once it exits; past timeout it is stopped (it stops its workers) and the test fails."""
    try:
        return proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        proc.terminate()
        log = proc.communicate(timeout=30)[0]
        pytest.fail("the launcher ran past {} s:\n{}".format(timeout, log))


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    """Runs the worker with 2 ranks (env:// rendezvous) and 3 ranks (tcp://) at once; {world: [rank results]}."""
    runs = {}
    for world, init in [(2, "env://"), (3, "tcp://127.0.0.1:{}".format(free_port()))]:
        out = tmp_path_factory.mktemp("world{}".format(world))
        runs[world] = (out, launch(world, [WORKER, out, init]))
    results = {}
    for world, (out, proc) in runs.items():
        log = finish(proc, 120)
        assert proc.returncode == 0, log
        results[world] = [json.loads((out / "rank{}.json".format(r)).read_text()) for r in range(world)]
    return results


@pytest.mark.parametrize("world", [2, 3])
@pytest.mark.parametrize("name", CHECK_NAMES)
def test_collective(worlds, world, name):
    for rank, res in enumerate(worlds[world]):
        assert res.get(name) == "ok", "rank {} of {}:\n{}".format(rank, world, res.get(name))


# ---- one process: the API without peers


@pytest.fixture
def single():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


UNINIT = "Default process group has not been initialized, please make sure to call init_process_group."


@pytest.mark.parametrize(
    "call",
    [
        lambda: dist.get_rank(),
        lambda: dist.get_world_size(),
        lambda: dist.get_backend(),
        lambda: dist.all_reduce(ember.zeros(2)),
        lambda: dist.broadcast(ember.zeros(2), 0),
        lambda: dist.barrier(),
        lambda: dist.new_group([0]),
        lambda: dist.all_gather_object([None], 1),
        lambda: dist.destroy_process_group(),
        lambda: dist.send(ember.zeros(1), 1),
    ],
)
def test_uninitialized(call):
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="^" + UNINIT.replace(".", r"\.") + "$"):
        call()


def test_availability():
    assert dist.is_available() and dist.is_gloo_available()
    assert not dist.is_mpi_available()
    assert dist.is_nccl_available() == ember._C._distributed._nccl_is_built()
    assert not dist.is_torchelastic_launched() or "TORCHELASTIC_RUN_ID" in os.environ


def test_backend_names():
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.NCCL == "nccl"
    with pytest.raises(ValueError, match="Invalid backend: 'foo'"):
        dist.Backend("foo")
    with pytest.raises(ValueError, match="Invalid backend: 'foo'"):
        dist.init_process_group("foo", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(ValueError, match="Invalid backend string"):
        dist.init_process_group("cpu:mpi", store=dist.HashStore(), rank=0, world_size=1)
    assert not dist.is_initialized()


def test_init_argument_errors(monkeypatch):
    with pytest.raises(ValueError, match="Cannot specify both init_method and store."):
        dist.init_process_group("gloo", init_method="env://", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(ValueError, match="world_size must be positive if using store"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0)
    with pytest.raises(ValueError, match="rank must be non-negative if using store"):
        dist.init_process_group("gloo", store=dist.HashStore(), world_size=1)
    with pytest.raises(TypeError, match="timedelta"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1, timeout=5)
    for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="environment variable RANK expected, but not set"):
        dist.init_process_group("gloo")
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="rank parameter missing"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", world_size=1, rank=-1)
    with pytest.raises(RuntimeError, match="No rendezvous handler for foo://"):
        dist.init_process_group("gloo", init_method="foo://x", world_size=1, rank=0)
    assert not dist.is_initialized()


def test_nccl_without_gpu():
    # A CPU-only build says it was built without CUDA; a CUDA build on a machine without a GPU says so too.
    if ember.cuda.is_available():
        pytest.skip("a GPU is present: the NCCL path is tested in test_cuda_ops.py")
    with pytest.raises(RuntimeError, match="CUDA"):
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    assert not dist.is_initialized()


def test_single_process_group(single):
    assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
    assert dist.get_backend() == "gloo"
    with pytest.raises(RuntimeError, match="twice"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    x = ember.tensor([1.0, -2.0, 3.0])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.AVG, dist.ReduceOp.PRODUCT):
        dist.all_reduce(x, op=op)
        np.testing.assert_array_equal(x.numpy(), [1.0, -2.0, 3.0])
    outs = [ember.zeros(3)]
    dist.all_gather(outs, x)
    np.testing.assert_array_equal(outs[0].numpy(), x.numpy())
    objs = [None]
    dist.all_gather_object(objs, {"a": 1})
    assert objs == [{"a": 1}]
    lst = [1, "two"]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [1, "two"]
    w = dist.all_reduce(x, async_op=True)
    assert isinstance(w, dist.Work) and w.wait() is True and w.is_completed()
    np.testing.assert_array_equal(w.get_future().wait()[0].numpy(), x.numpy())
    with pytest.raises(TypeError, match="Invalid ``op``"):
        dist.all_reduce(x, op="sum")
    with pytest.raises(TypeError, match="expected a tensor"):
        dist.all_reduce([1.0])
    with pytest.raises(ValueError, match="invalid root rank 1"):
        dist.broadcast(x, src=1)
    with pytest.raises(ValueError, match="destination rank"):
        dist.send(x, 0)
    g = dist.new_group([0])
    assert dist.get_world_size(g) == 1 and dist.get_rank(g) == 0
    with pytest.raises(ValueError, match="Invalid rank 3"):
        dist.new_group([0, 3])
    dist.destroy_process_group()
    assert not dist.is_initialized() and dist.group.WORLD is None


def test_cuda_tensor_to_gloo(single):
    if not ember.cuda.is_available():
        pytest.skip("needs a CUDA device to make a CUDA tensor")
    with pytest.raises(RuntimeError, match=r"\[all_reduce\] the gloo backend takes CPU tensors"):
        dist.all_reduce(ember.zeros(2, device="cuda"))


def test_backend_device_map():
    dist.init_process_group("cpu:gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        assert dist.get_backend() == "cpu:gloo"
        x = ember.ones(2)
        dist.all_reduce(x)
        np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])
    finally:
        dist.destroy_process_group()


# ---- stores


def check_store_basics(a, b):
    """a and b: two handles on one store."""
    a.set("k", "v")
    assert b.get("k") == b"v"
    b.set("bin", b"\x00\xff")
    assert a.get("bin") == b"\x00\xff"
    assert a.add("n", 5) == 5 and b.add("n", -2) == 3 and a.get("n") == b"3"
    assert a.compare_set("cs", "", "v1") == b"v1"
    assert b.compare_set("cs", "x", "v2") == b"v1"
    assert b.compare_set("cs", "v1", "v3") == b"v3"
    assert a.compare_set("absent", "x", "y") == b"x"
    assert a.check(["k", "n"]) and not a.check(["k", "nope"])
    n = a.num_keys()
    assert a.delete_key("k") and not b.delete_key("k") and b.num_keys() == n - 1
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="Wait timeout.*nope'"):
        b.wait(["nope"], timedelta(milliseconds=150))
    assert time.monotonic() - t0 < 5
    threading.Timer(0.1, lambda: a.set("late", "x")).start()
    b.wait(["late"])  # wakes when another handle sets it
    assert b.get("late") == b"x"
    with pytest.raises(RuntimeError, match="not an integer"):
        a.add("bin", 1)


def test_tcp_store():
    master = dist.TCPStore("127.0.0.1", 0, 2, True, timedelta(seconds=10), wait_for_workers=False)
    client = dist.TCPStore("127.0.0.1", master.port, 2, False, timedelta(seconds=10))
    check_store_basics(master, client)
    assert master.timeout == timedelta(seconds=10)
    client.set_timeout(timedelta(milliseconds=100))
    with pytest.raises(RuntimeError, match="TCPStore.*timed out after 100 ms"):
        client.get("never")
    with pytest.raises(RuntimeError, match="address already in use"):
        dist.TCPStore("127.0.0.1", master.port, 1, True, timedelta(seconds=1))
    with pytest.raises(TypeError):
        master.set("k", 3)


def test_tcp_store_waits_for_workers():
    port = free_port()
    with pytest.raises(RuntimeError, match="waiting for 2 workers"):
        dist.TCPStore("127.0.0.1", port, 2, True, timedelta(milliseconds=200))
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="could not connect"):
        dist.TCPStore("127.0.0.1", free_port(), 2, False, timedelta(milliseconds=200))
    assert time.monotonic() - t0 < 5


def test_file_store(tmp_path):
    path = str(tmp_path / "store")
    a = dist.FileStore(path, 2)
    b = dist.FileStore(path, 2)
    check_store_basics(a, b)
    a.set_timeout(timedelta(milliseconds=50))
    with pytest.raises(RuntimeError, match="FileStore.*Wait timeout"):
        a.get("never")
    del a
    assert os.path.exists(path)
    del b  # the last of world_size handles removes the file
    assert not os.path.exists(path)


def test_prefix_and_hash_store():
    base = dist.HashStore()
    p = dist.PrefixStore("pre", base)
    p.set("k", "v")
    assert base.get("pre/k") == b"v" and p.get("k") == b"v"
    assert not base.check(["k"]) and p.check(["k"])
    assert dist.PrefixStore("x", p).underlying_store is p
    check_store_basics(dist.PrefixStore("a", base), dist.PrefixStore("a", base))


# ---- the launcher

ENV_SCRIPT = textwrap.dedent("""
    import json, os, sys, time
    import ember, ember.distributed as dist
    keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK"]
    dist.init_process_group("gloo", init_method="file://" + sys.argv[1] + ".rdzv",
                            rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
    x = ember.tensor([float(dist.get_rank())])
    dist.all_reduce(x)
    info = {k: os.environ[k] for k in keys}
    info["sum"] = x.item()
    info["argv"] = sys.argv[2:]
    with open(sys.argv[1] + os.environ["RANK"], "w") as f:
        json.dump(info, f)
    dist.destroy_process_group()
    if len(sys.argv) > 2 and sys.argv[2] == "fail" and os.environ["RANK"] == "1":
        sys.exit(3)
    if len(sys.argv) > 2 and sys.argv[2] == "fail":
        time.sleep(60)
""")


def test_launcher_environment(tmp_path):
    script = tmp_path / "envs.py"
    script.write_text(ENV_SCRIPT)
    port = free_port()
    proc = launch(2, [script, tmp_path / "out", "--flag", "x"], port=port)
    log = finish(proc, 60)
    assert proc.returncode == 0, log
    for r in range(2):
        info = json.loads((tmp_path / "out{}".format(r)).read_text())
        assert info["RANK"] == info["LOCAL_RANK"] == str(r)
        assert info["WORLD_SIZE"] == info["LOCAL_WORLD_SIZE"] == "2" and info["GROUP_RANK"] == "0"
        assert info["MASTER_ADDR"] == "127.0.0.1" and info["MASTER_PORT"] == str(port)
        assert info["sum"] == 1.0 and info["argv"] == ["--flag", "x"]


def test_launcher_propagates_failure(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text(ENV_SCRIPT)
    t0 = time.monotonic()
    proc = launch(2, [script, tmp_path / "out", "fail"])
    log = finish(proc, 60)
    assert proc.returncode == 3, log
    assert "exited with code 3" in log
    assert time.monotonic() - t0 < 30  # rank 0 (sleeping 60 s) was stopped


def test_launch_alias_passes_local_rank(tmp_path):
    script = tmp_path / "lr.py"
    script.write_text(
        "import json, os, sys\n"
        "with open(sys.argv[-1] + os.environ['LOCAL_RANK'], 'w') as f: json.dump(sys.argv[1:-1], f)\n"
    )
    out = tmp_path / "argv"
    proc = launch(2, [script, "a", out], module="ember.distributed.launch")
    log = finish(proc, 60)
    assert proc.returncode == 0, log
    assert "deprecated" in log
    for r in range(2):
        assert json.loads((tmp_path / "argv{}".format(r)).read_text()) == ["--local_rank={}".format(r), "a"]
    proc = launch(1, [script, "a", out], module="ember.distributed.launch", extra=["--use_env"])
    log = finish(proc, 60)
    assert proc.returncode == 0, log
    assert json.loads((tmp_path / "argv0").read_text()) == ["a"]


def test_launcher_argument_errors():
    from ember.distributed import run

    with pytest.raises(ValueError, match="max_restarts must be 0"):
        run.run(run.parse_args(["--max_restarts=1", "x.py"]))
    with pytest.raises(ValueError, match="node_rank"):
        run.run(run.parse_args(["--nnodes=2", "--node_rank=2", "x.py"]))
    ns = run.parse_args(["--nproc-per-node=3", "--master-port=1234", "s.py", "--lr", "1"])
    assert ns.nproc_per_node == "3" and ns.master_port == 1234 and ns.training_script_args == ["--lr", "1"]
