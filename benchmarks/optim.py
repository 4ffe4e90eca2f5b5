"""One optimizer step, ember beside PyTorch (issue 6): a model of 100 parameters totalling 10M floats (sizes from
1K to ~400K, like a mid-sized CNN), gradients present, for SGD with momentum, Adam, AdamW and RMSprop; and 100
small parameters (1K floats each), where per-parameter overhead dominates. ember makes one fused C++ call per group
(ember/optim/fused.cpp); PyTorch 1.13's CPU default is its single-tensor loop. Run: scripts/bench optim"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

# 100 sizes summing to exactly 10,000,000: 1K, 2K, ..., rising linearly, the remainder added to the last.
SETUP = """
lib.manual_seed(0)
sizes = [1000 + 1980 * i for i in range(100)]
sizes[-1] += 10_000_000 - sum(sizes)
params = [lib.randn(n, requires_grad=True) for n in sizes]
for p in params:
    p.grad = lib.randn(p.numel()) * 1e-3
opt = {make}
opt.step()
"""
SMALL = """
lib.manual_seed(0)
params = [lib.randn(1000, requires_grad=True) for _ in range(100)]
for p in params:
    p.grad = lib.randn(1000) * 1e-3
opt = {make}
opt.step()
"""
OPTS = [
    ("SGD momentum", "lib.optim.SGD(params, lr=0.01, momentum=0.9)"),
    ("Adam", "lib.optim.Adam(params, lr=1e-3)"),
    ("AdamW amsgrad", "lib.optim.AdamW(params, lr=1e-3, amsgrad=True)"),
    ("RMSprop", "lib.optim.RMSprop(params, lr=1e-3)"),
]
CASES = [(f"{name} 100 params 10M", SETUP.format(make=make), "opt.step()") for name, make in OPTS]
CASES += [(f"{name} 100 params x 1K", SMALL.format(make=make), "opt.step()") for name, make in OPTS[:2]]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
