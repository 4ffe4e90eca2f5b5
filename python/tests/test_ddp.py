"""DistributedDataParallel over real processes (gloo on the CPU). Each scenario runs in one spawn of WORLD ranks,
which check themselves against a reference computed in the same process without DDP: training on the full batch
equals DDP training on per-rank shards (mean losses, equal shard sizes), so the parameters must agree to rounding."""

import os

import numpy as np
import pytest

import ember
import ember.distributed as dist
import ember.multiprocessing as mp
from ember import nn

WORLD = 2

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="ember built without distributed support")


def _init(rank, store_path):
    dist.init_process_group("gloo", init_method="file://" + store_path, rank=rank, world_size=WORLD)


def _net(seed, unused_branch=False):
    ember.manual_seed(seed)
    net = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 3))
    if unused_branch:
        net.extra = nn.Linear(3, 3)
    return net.double()


def _data():
    g = np.random.default_rng(7)
    return g.standard_normal((8, 6)), g.standard_normal((8, 3))


def _train(model, xs, ys, steps, ddp=None, accumulate=1):
    """SGD on the mean squared error; with accumulate=k, k micro-batches per step (the first k-1 under no_sync)."""
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    runner = ddp if ddp is not None else model
    for _ in range(steps):
        opt.zero_grad()
        chunks = np.array_split(np.arange(len(xs)), accumulate)
        for k, idx in enumerate(chunks):
            ctx = ddp.no_sync() if (ddp is not None and k < accumulate - 1) else _null()
            with ctx:
                out = runner(ember.tensor(xs[idx]))
                loss = ((out - ember.tensor(ys[idx])) ** 2).mean() / accumulate
                loss.backward()
        opt.step()


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _params(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def _worker_training(rank, store_path):
    """With BatchNorm (per-shard statistics, as in PyTorch's DDP) the ranks' parameters stay identical, and each
    forward hands every rank rank 0's buffers."""
    _init(rank, store_path)
    xs, ys = _data()
    shard = slice(rank * 4, rank * 4 + 4)
    for cfg in ({}, {"bucket_cap_mb": 0.0005}, {"bucket_cap_mb": 0.0005, "gradient_as_bucket_view": True}):
        model = _net(rank)  # rank 1 starts from other weights: construction broadcasts rank 0's
        ddp = nn.parallel.DistributedDataParallel(model, **cfg)
        assert (len(ddp._buckets) > 1) == bool(cfg), (cfg, len(ddp._buckets))
        _train(model, xs[shard], ys[shard], steps=3, ddp=ddp)
        gathered = [None] * WORLD
        dist.all_gather_object(gathered, _params(model))
        for a, b in zip(gathered[0], gathered[1]):
            np.testing.assert_array_equal(a, b)
        ddp.eval()
        ddp(ember.tensor(xs[shard]))  # eval: BatchNorm keeps the broadcast statistics
        bufs = [b.numpy().copy() for b in model.buffers() if b.dtype == ember.float64]
        dist.all_gather_object(gathered, bufs)
        for a, b in zip(gathered[0], gathered[1]):
            np.testing.assert_array_equal(a, b)
        assert next(iter(ddp.state_dict())).startswith("module.")
    dist.destroy_process_group()


def _mlp(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3)).double()


def _worker_equivalence(rank, store_path):
    """Without per-shard statistics (no BatchNorm), DDP on shards == one process on the full batch."""
    _init(rank, store_path)
    xs, ys = _data()
    shard = slice(rank * 4, rank * 4 + 4)
    for cfg, accumulate in (
        ({}, 1),
        ({"bucket_cap_mb": 0.0002}, 1),
        ({"gradient_as_bucket_view": True}, 2),
        ({"bucket_cap_mb": 0.0002, "gradient_as_bucket_view": True}, 2),
    ):
        ref = _mlp(0)
        _train(ref, xs, ys, steps=3, accumulate=accumulate)
        model = _mlp(rank)  # rank 1 starts elsewhere; DDP broadcasts rank 0's weights
        ddp = nn.parallel.DistributedDataParallel(model, **cfg)
        _train(model, xs[shard], ys[shard], steps=3, ddp=ddp, accumulate=accumulate)
        for a, b in zip(_params(model), _params(ref)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=str(cfg))
    dist.destroy_process_group()


def _worker_comm_hooks(rank, store_path):
    """The default hooks give full-batch training's parameters (the compressing ones to their dtype's rounding)."""
    from ember.distributed.algorithms.ddp_comm_hooks import default_hooks as hooks

    _init(rank, store_path)
    xs, ys = _data()
    shard = slice(rank * 4, rank * 4 + 4)
    ref = _mlp(0)
    _train(ref, xs, ys, steps=2)

    def raw_future(state, bucket):  # a hook may hand back the collective's own future (its value: [tensor])
        bucket.buffer().div_(dist.get_world_size())
        assert bucket.is_last() == (bucket.index() == state["count"] - 1)
        assert sum(g.numel() for g in bucket.gradients()) == bucket.buffer().numel()
        return dist.all_reduce(bucket.buffer(), async_op=True).get_future()

    def user_future(state, bucket):  # a hook may reduce synchronously and hand back a Future it completed itself
        buffer = bucket.buffer()
        dist.all_reduce(buffer)
        fut = ember.futures.Future()
        fut.set_result(buffer.div_(dist.get_world_size()))
        return fut

    def chained_user_future(state, bucket):  # ... or one it completes later, seen through then()
        fut = ember.futures.Future()
        out = fut.then(lambda f: f.value().div_(dist.get_world_size()))
        work = dist.all_reduce(bucket.buffer(), async_op=True)
        work.wait()
        fut.set_result(bucket.buffer())
        return out

    for hook, tol in (
        (hooks.allreduce_hook, 1e-12),
        (raw_future, 1e-12),
        (user_future, 1e-12),
        (chained_user_future, 1e-12),
        (hooks.fp16_compress_hook, 2e-3),
        (hooks.bf16_compress_hook, 2e-2),
    ):
        model = _mlp(rank)
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.0002)
        ddp.register_comm_hook({"count": len(ddp._buckets)} if hook is raw_future else None, hook)
        with pytest.raises(RuntimeError, match="can only be called once"):
            ddp.register_comm_hook(None, hook)
        _train(model, xs[shard], ys[shard], steps=2, ddp=ddp)
        for a, b in zip(_params(model), _params(ref)):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=getattr(hook, "__name__", ""))
    dist.destroy_process_group()


def _worker_unused(rank, store_path):
    _init(rank, store_path)
    ember.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4).double()
            self.b = nn.Linear(4, 4).double()  # used by rank 0 only
            self.never = nn.Linear(4, 4).double()

        def forward(self, x, use_b):
            y = self.a(x)
            return self.b(y) if use_b else y

    x = ember.tensor(np.arange(8.0).reshape(2, 4) / 10 + rank)
    net = Net()
    ddp = nn.parallel.DistributedDataParallel(net, find_unused_parameters=True, bucket_cap_mb=0.0001)
    ddp(x, use_b=(rank == 0)).sum().backward()
    # Reference gradients: each rank's local gradient (zero where unused), averaged over the ranks.
    ref = Net()
    ref.load_state_dict(net.state_dict())
    ref(x, use_b=(rank == 0)).sum().backward()
    local = {n: (p.grad.numpy() if p.grad is not None else np.zeros(p.shape)) for n, p in ref.named_parameters()}
    everyone = [None] * WORLD
    dist.all_gather_object(everyone, local)
    for n, p in net.named_parameters():
        if n.startswith("never"):
            assert p.grad is None, n  # no rank used it
            continue
        want = sum(e[n] for e in everyone) / WORLD
        np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-12, atol=1e-14, err_msg=n)
    dist.destroy_process_group()


class _Idle(nn.Module):
    def __init__(self, out_features):
        super().__init__()
        self.used = nn.Linear(2, out_features)
        self.idle = nn.Linear(2, 2)

    def forward(self, x):
        return self.used(x)


class _Twice(nn.Module):
    """One Linear used outside and inside a reentrant checkpoint: its gradient is accumulated in two backward passes."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        from ember.utils.checkpoint import checkpoint

        return self.lin(checkpoint(self.lin, x, use_reentrant=True))


def _worker_errors(rank, store_path):
    _init(rank, store_path)
    ember.manual_seed(0)
    ddp = nn.parallel.DistributedDataParallel(_Twice())
    with pytest.raises(RuntimeError, match=r"parameter \d \(lin\.(weight|bias)\) being marked ready twice"):
        ddp(ember.ones(1, 2, requires_grad=True)).sum().backward()
    # A parameter without a gradient and no find_unused_parameters: the message names it.
    ddp = nn.parallel.DistributedDataParallel(_Idle(2))
    with pytest.raises(RuntimeError, match=r"not used in producing loss: idle\.weight, idle\.bias"):
        ddp(ember.ones(1, 2)).sum().backward()
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        nn.parallel.DistributedDataParallel(nn.ReLU())
    # Different models on the ranks.
    with pytest.raises(RuntimeError, match="DDP expects same model across all ranks"):
        nn.parallel.DistributedDataParallel(_Idle(3 if rank == 1 else 2))
    dist.destroy_process_group()


def _spawn(fn, tmp_path):
    mp.spawn(fn, args=(str(tmp_path / "store"),), nprocs=WORLD)


def test_ddp_matches_full_batch_training(tmp_path):
    _spawn(_worker_equivalence, tmp_path)


def test_ddp_keeps_ranks_identical_with_buffers_and_buckets(tmp_path):
    _spawn(_worker_training, tmp_path)


def test_ddp_comm_hooks(tmp_path):
    _spawn(_worker_comm_hooks, tmp_path)


def test_ddp_find_unused_parameters(tmp_path):
    _spawn(_worker_unused, tmp_path)


def test_ddp_errors_across_processes(tmp_path):
    _spawn(_worker_errors, tmp_path)


def test_ddp_needs_a_process_group_and_parameters():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


def test_assign_buckets_order_and_caps():
    from ember.nn.parallel.distributed import _assign_buckets

    ps = [ember.zeros(256), ember.zeros(256), ember.zeros(1024), ember.zeros(8, dtype=ember.float64), ember.zeros(256)]
    # 4-byte floats: 1 KiB, 1 KiB, 4 KiB, (float64), 1 KiB. Reverse order, first cap 1 KiB, then 2 KiB.
    got = _assign_buckets(ps, cap_bytes=2048, first_cap_bytes=1024)
    assert got == [[4], [2], [1, 0], [3]]


def test_fashion_mnist_ddp_example_under_the_launcher(tmp_path):
    """examples/python/fashion_mnist_ddp.py, started as a user would (ember's torchrun), on a tiny dataset: both
    ranks finish with the same weights and rank 0 writes them."""
    import subprocess
    import sys

    from test_demo import _dataset

    data = tmp_path / "data"
    data.mkdir()
    _dataset(str(data))
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    example = os.path.join(root, "examples", "python", "fashion_mnist_ddp.py")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ember.distributed.run",
            "--nproc_per_node=2",
            example,
            "--data",
            str(data),
            "--epochs",
            "2",
            "--batch-size",
            "32",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "parameter checksums identical on the 2 ranks" in out.stdout, out.stdout
    assert "epoch 2: train loss" in out.stdout
    state = ember.load(str(tmp_path / "run" / "model.pt"))
    assert set(state) == set(_net_keys())


def _net_keys():
    import importlib.util

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "fashion_mnist.py")
    spec = importlib.util.spec_from_file_location("fashion_mnist_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Net().state_dict().keys()
