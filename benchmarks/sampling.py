"""Random fills and samplers: ember beside PyTorch, per-call medians (1M elements unless named).
THREADS=n sets both libraries' thread count. Run: scripts/bench sampling (not "random": that would shadow the
standard module)"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

T = int(os.environ.get("THREADS", "0"))
S = (
    ("lib.set_num_threads(%d)\n" % T if T else "")
    + "x = lib.empty(1000000); xd = lib.empty(1000000, dtype=lib.float64)\n"
    "rate = lib.rand(1000000) * 5; alpha = lib.rand(1000000) + 0.5\n"
)
CASES = [
    ("uniform_ float32", S, "x.uniform_()"),
    ("normal_ float32", S, "x.normal_()"),
    ("normal_ float64", S, "xd.normal_()"),
    ("randn(1000, 1000)", S, "lib.randn(1000, 1000)"),
    ("bernoulli_(0.3)", S, "x.bernoulli_(0.3)"),
    ("exponential_", S, "x.exponential_()"),
    ("geometric_(0.3)", S, "x.geometric_(0.3)"),
    ("cauchy_", S, "x.cauchy_()"),
    ("log_normal_", S, "x.log_normal_()"),
    ("poisson(rate)", S, "lib.poisson(rate)"),
    ("_standard_gamma(alpha)", S, "lib._standard_gamma(alpha)"),
    ("randperm(1M)", S, "lib.randperm(1000000)"),
    ("dropout p=0.5", S, "lib.nn.functional.dropout(x, 0.5)"),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
