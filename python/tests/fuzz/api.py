"""The Python API fuzzer (docs/fuzzing.md): calls ember's public callables with mutated arguments in worker processes;
prints the counts, and a minimized reproducer for each crash; exits 1 on a crash or a hang.

    python python/tests/fuzz/api.py --seconds 180 --seed 7
    python python/tests/fuzz/api.py --calls 2000 --target nn.functional.unfold --verbose
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from apifuzz.harness import Run  # noqa: E402


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=0, help="fuzz for this long (with --calls: whichever ends first)")
    p.add_argument("--calls", type=int, default=0, help="make this many calls (default 1000 without --seconds)")
    p.add_argument("--seed", type=int, default=0, help="call i of a run is determined by (seed, i) alone")
    p.add_argument("--start", type=int, default=0, help="the first call's index (to replay part of a run)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--timeout", type=float, default=10.0, help="seconds after which a call counts as hanging")
    p.add_argument("--rlimit-gb", type=float, default=4.0, help="workers' address-space cap (0: none, for ASan)")
    p.add_argument(
        "--minimize-seconds",
        type=float,
        default=120.0,
        help="time after the run for minimizing crashes and re-running hangs",
    )
    p.add_argument("--target", action="append", help="fuzz only this callable (e.g. nn.functional.pad, Tensor.view)")
    p.add_argument("--report", help="also write the results as JSON here")
    p.add_argument("--print-calls", action="store_true", help="print each call's source before making it")
    p.add_argument("--verbose", action="store_true", help="print the fuzzer's own setup errors")
    args = p.parse_args(argv)
    if not args.seconds and not args.calls:
        args.calls = 1000
    if args.target:
        args.target = ["torch." + t if "." not in t else t for t in args.target]
    return args


if __name__ == "__main__":
    sys.exit(Run(parse(sys.argv[1:])).main())
