"""python -m ember.distributed.run: torchrun's static launcher. Starts --nproc_per_node copies of a script (or
module, or command with --no_python) with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
GROUP_RANK, MASTER_ADDR, MASTER_PORT, ...), waits for them, and when one fails stops the others and exits with
its exit code. No elastic restarts (--max_restarts must be 0)."""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

__all__ = ["get_args_parser", "parse_args", "run", "main"]


def _add(parser, name, **kw):
    # torchrun takes both spellings: --nproc_per_node and --nproc-per-node.
    names = ["--" + name]
    if "_" in name:
        names.append("--" + name.replace("_", "-"))
    parser.add_argument(*names, **kw)


def get_args_parser():
    p = argparse.ArgumentParser(
        prog="python -m ember.distributed.run",
        description="Starts a distributed job: nproc_per_node processes on this node.",
    )
    _add(p, "nnodes", type=str, default="1", help="number of nodes (an integer; MIN:MAX ranges are not supported)")
    _add(p, "nproc_per_node", type=str, default="1", help="processes per node (an integer, 'cpu', 'gpu' or 'auto')")
    _add(p, "node_rank", type=int, default=0, help="this node's rank (0 .. nnodes-1)")
    _add(p, "master_addr", type=str, default="127.0.0.1", help="the address of node 0")
    _add(p, "master_port", type=int, default=None, help="a free port on node 0 (default 29500; --standalone: any)")
    _add(p, "standalone", action="store_true", help="one node, a free port chosen here")
    _add(p, "max_restarts", type=int, default=0, help="must be 0: ember's launcher does not restart workers")
    _add(p, "monitor_interval", type=float, default=0.1, help="seconds between checks of the workers")
    _add(p, "rdzv_backend", type=str, default="static", help="accepted for compatibility; only static")
    _add(p, "rdzv_endpoint", type=str, default="", help="host:port, as --master_addr/--master_port")
    _add(p, "rdzv_id", type=str, default="none", help="the job id (TORCHELASTIC_RUN_ID)")
    _add(p, "role", type=str, default="default", help="the workers' role name")
    _add(p, "no_python", action="store_true", help="run the script as an executable, not with python")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    _add(p, "run_path", action="store_true", help="run the script with runpy.run_path")
    p.add_argument("training_script", type=str, help="the script (or module / command) to run")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    return get_args_parser().parse_args(args)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value == "gpu":
        from .. import cuda

        n = cuda.device_count()
        if n == 0:
            raise ValueError("--nproc_per_node=gpu: no CUDA devices")
        return n
    n = int(value)
    if n < 1:
        raise ValueError("--nproc_per_node must be positive, got {}".format(n))
    return n


def _command(args, local_rank, use_env_arg):
    cmd = []
    if not args.no_python:
        cmd = [sys.executable, "-u"]
        if args.module:
            cmd.append("-m")
    elif args.module:
        raise ValueError("Don't use both the '--no_python' flag and the '--module' flag at the same time.")
    cmd.append(args.training_script)
    if use_env_arg:
        cmd.append("--local_rank={}".format(local_rank))
    return cmd + list(args.training_script_args)


def _stop(procs, grace=5.0):
    for p in procs:
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + grace
    for p in procs:
        left = deadline - time.monotonic()
        try:
            p.wait(timeout=max(left, 0.01))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run(args, pass_local_rank=False):
    """Starts the workers and waits; returns the exit code (the first failing worker's, else 0)."""
    if args.max_restarts != 0:
        raise ValueError("ember.distributed.run does not restart workers: --max_restarts must be 0")
    if ":" in args.nnodes:
        lo, _, hi = args.nnodes.partition(":")
        if lo != hi:
            raise ValueError("elastic --nnodes ranges ({}) are not supported".format(args.nnodes))
        args.nnodes = lo
    nnodes = int(args.nnodes)
    nproc = _nproc(args.nproc_per_node)
    if not 0 <= args.node_rank < nnodes:
        raise ValueError("--node_rank {} is not in [0, {})".format(args.node_rank, nnodes))
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        addr, port = (host or addr), int(p) if p else port
    if args.standalone:
        if nnodes != 1:
            raise ValueError("--standalone runs one node")
        addr, port = "127.0.0.1", _free_port() if port is None else port
    if port is None:
        port = 29500
    world = nnodes * nproc
    run_id = args.rdzv_id if args.rdzv_id != "none" else str(uuid.uuid4())
    base = dict(os.environ)
    if nproc > 1 and "OMP_NUM_THREADS" not in base:
        base["OMP_NUM_THREADS"] = "1"
    procs = []
    for local in range(nproc):
        rank = args.node_rank * nproc + local
        env = dict(base)
        env.update(
            {
                "RANK": str(rank),
                "LOCAL_RANK": str(local),
                "WORLD_SIZE": str(world),
                "LOCAL_WORLD_SIZE": str(nproc),
                "GROUP_RANK": str(args.node_rank),
                "ROLE_RANK": str(rank),
                "ROLE_NAME": args.role,
                "ROLE_WORLD_SIZE": str(world),
                "GROUP_WORLD_SIZE": str(nnodes),
                "MASTER_ADDR": addr,
                "MASTER_PORT": str(port),
                "TORCHELASTIC_RUN_ID": run_id,
                "TORCHELASTIC_RESTART_COUNT": "0",
                "TORCHELASTIC_MAX_RESTARTS": "0",
            }
        )
        procs.append(subprocess.Popen(_command(args, local, pass_local_rank), env=env))

    def forward(signum, frame):
        _stop(procs)
        sys.exit(128 + signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                i, code = failed[0]
                print(
                    "ember.distributed.run: local rank {} (global rank {}) exited with code {}; stopping the "
                    "others".format(i, args.node_rank * nproc + i, code),
                    file=sys.stderr,
                    flush=True,
                )
                _stop(procs)
                return code if code > 0 else 128 - code  # killed by signal n: 128 + n, as a shell reports
            if all(c == 0 for c in codes):
                return 0
            time.sleep(args.monitor_interval)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def main(args=None):
    sys.exit(run(parse_args(sys.argv[1:] if args is None else args)))


if __name__ == "__main__":
    main()
