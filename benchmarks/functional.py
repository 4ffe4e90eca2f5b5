"""softmax, layer_norm, batch_norm, dropout and activations: ember beside PyTorch (issue 5), per-call medians.
THREADS=n sets both libraries' thread count. Run: scripts/bench functional"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

T = int(os.environ.get("THREADS", "0"))
S = (
    "F = lib.nn.functional\n"
    + ("lib.set_num_threads(%d)\n" % T if T else "")
    + "x = lib.randn(64, 1024); w = lib.randn(1024); b = lib.randn(1024); g = lib.randn(64, 1024)\n"
    "xg = lib.randn(64, 1024).requires_grad_(); wg = lib.randn(1024).requires_grad_()\n"
    "bg = lib.randn(1024).requires_grad_()\n"
)
CASES = [
    ("softmax [64,1024] dim=-1", S, "lib.softmax(x, -1)"),
    ("log_softmax [64,1024] dim=-1", S, "lib.log_softmax(x, -1)"),
    ("softmax [64,1024] dim=0", S, "lib.softmax(x, 0)"),
    ("softmax fwd+bwd [64,1024]", S, "lib.softmax(xg, -1).backward(g)"),
    ("layer_norm [64,1024] w,b", S, "F.layer_norm(x, (1024,), w, b)"),
    ("layer_norm fwd+bwd [64,1024]", S, "F.layer_norm(xg, (1024,), wg, bg).backward(g)"),
    (
        "batch_norm train [64,1024]",
        S + "rm = lib.zeros(1024); rv = lib.ones(1024)",
        "F.batch_norm(x, rm, rv, w, b, True)",
    ),
    (
        "batch_norm train [16,64,32,32]",
        S + "x4 = lib.randn(16, 64, 32, 32); w4 = lib.ones(64); b4 = lib.zeros(64)",
        "F.batch_norm(x4, None, None, w4, b4, True)",
    ),
    (
        "cross_entropy [256,1000] fwd+bwd",
        S + "z = lib.randn(256, 1000).requires_grad_(); t = lib.randint(0, 1000, (256,))",
        "F.cross_entropy(z, t).backward()",
    ),
    ("leaky_relu [64,1024]", S, "F.leaky_relu(x, 0.1)"),
    ("elu [64,1024]", S, "F.elu(x)"),
    ("hardswish [64,1024]", S, "F.hardswish(x)"),
    ("dropout p=0.5 [64,1024]", S, "F.dropout(x, 0.5)"),
    ("dropout fwd+bwd [64,1024]", S, "F.dropout(xg, 0.5).backward(g)"),
    ("gelu [64,1024]", S, "F.gelu(x)"),
    ("gelu tanh [64,1024]", S, "F.gelu(x, approximate='tanh')"),
    ("gelu float64 [64,1024]", S + "xd = x.double()", "F.gelu(xd)"),
    ("gelu fwd+bwd [64,1024]", S, "F.gelu(xg).backward(g)"),
    ("gelu tanh fwd+bwd [64,1024]", S, "F.gelu(xg, approximate='tanh').backward(g)"),
    ("elu fwd+bwd [64,1024]", S, "F.elu(xg).backward(g)"),
    ("silu fwd+bwd [64,1024]", S, "F.silu(xg).backward(g)"),
    ("mish fwd+bwd [64,1024]", S, "F.mish(xg).backward(g)"),
    ("softplus fwd+bwd [64,1024]", S, "F.softplus(xg).backward(g)"),
    ("hardswish fwd+bwd [64,1024]", S, "F.hardswish(xg).backward(g)"),
    ("leaky_relu fwd+bwd [64,1024]", S, "F.leaky_relu(xg, 0.1).backward(g)"),
]

if __name__ == "__main__":
    main(__file__, CASES)
