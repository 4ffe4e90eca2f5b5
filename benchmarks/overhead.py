"""Fixed per-call cost of tensor-core operations from Python, ember beside PyTorch.

Goal (issues 2 and 3): at most half of PyTorch's cost. Run: scripts/bench overhead
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

# 100 elementwise ops alternating add, mul, sin, mul-by-number (the mix of a small model's pointwise work).
CHAIN = """
def chain(x):
    y = x
    for _ in range(25):
        y = (y + x) * x
        y = y.sin() * 0.5
    return y
"""

CASES = [
    ("empty(1)", "", "lib.empty(1)"),
    ("zeros(2, 3)", "", "lib.zeros(2, 3)"),
    ("x.view(2, 3)", "x = lib.empty(6)", "x.view(2, 3)"),
    ("x.view(1)  [1 element]", "x = lib.empty(1)", "x.view(1)"),
    ("x[0]", "x = lib.empty(2, 3)", "x[0]"),
    ("x[:, 1:3]", "x = lib.empty(4, 4)", "x[:, 1:3]"),
    ("x.t()", "x = lib.empty(2, 3)", "x.t()"),
    ("x.shape", "x = lib.empty(2, 3)", "x.shape"),
    ("tensor([1.0])", "", "lib.tensor([1.0])"),
    ("tensor([[1, 2], [3, 4]])", "", "lib.tensor([[1, 2], [3, 4]])"),
    ("x.to(float64)", "x = lib.empty(4)", "x.to(lib.float64)"),
    ("rand(4)", "", "lib.rand(4)"),
    ("a + b  [1 element]", "a = lib.ones(1); b = lib.ones(1)", "a + b"),
    ("relu(a)  [1 element]", "a = lib.ones(1)", "lib.relu(a)"),
    ("a.sum()  [1 element]", "a = lib.ones(1)", "a.sum()"),
    ("a * 2.5  [1 element]", "a = lib.ones(1)", "a * 2.5"),
    ("a.add_(b)  [1 element]", "a = lib.ones(1); b = lib.ones(1)", "a.add_(b)"),
    ("a > b  [1 element]", "a = lib.ones(1); b = lib.ones(1)", "a > b"),
    ("a.exp()  [1 element]", "a = lib.ones(1)", "a.exp()"),
    ("a.max(0)  [2x3]", "a = lib.ones(2, 3)", "a.max(0)"),
    # Autograd (issue 4): a 100-op elementwise chain on 1-element tensors; divide by 100 for the cost per op.
    # Goal: per op at most half of PyTorch's (1.13: 3.3 us forward+backward, 1.7 us forward alone).
    ("chain100 fwd, requires_grad", "x = lib.ones(1, requires_grad=True)\n" + CHAIN, "chain(x)"),
    ("chain100 fwd+bwd", "x = lib.ones(1, requires_grad=True)\n" + CHAIN, "chain(x).backward()"),
    ("chain100 fwd, no_grad", "x = lib.ones(1)\n" + CHAIN, "chain(x)"),
]

if __name__ == "__main__":
    main(__file__, CASES)
