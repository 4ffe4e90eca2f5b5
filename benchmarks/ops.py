"""Ops that had been several times slower than PyTorch, ember beside PyTorch, per-call medians: tril/triu (their own
kernel), reflect/replicate/circular padding (Note [Padding as a map of indices]), casts (backend/cpu/cast.cpp),
smooth_l1 and huber losses (binary rows of their own), bool masks (Note [Branch-free nonzero]), sorting (Note [Radix
sort]), prod, pow by a number (Note [Pow by a number]), glu, binary_cross_entropy_with_logits' backward and
grid_sample (Note [Sampling kernel without a gradient]), repeat_interleave along the last dim (Note [Repeating each
element]), pooling by rows (Note [Separable max pooling]), remainder at AVX-512 width, clamp_ and nan_to_num_
in place, float64 -> int casts (Note [Floating to integer]), erf, log_sigmoid and logaddexp (Notes [Inline float32
erf], [Inline float32 softplus]), topk of short rows (Note [Top k by insertion]), pdist and cdist (Note [Distances over
transposed rows]), broadcasts over short runs, kron, masked_scatter_ and
1-d sums by index (Note [Sums into a short dst]). Run: scripts/bench ops"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

S = (
    "lib.manual_seed(0); F = lib.nn.functional\n"
    "x = lib.randn(64, 1024); y = lib.randn(64, 1024); m = x > 0; xp = x.abs() + 0.5\n"
    "s = lib.randn(8, 512, 512); im = lib.randn(8, 32, 32, 32); u8 = (x * 50).to(lib.uint8)\n"
    "h = x.to(lib.float16); labels = lib.randint(0, 1024, (65536,)); codes = lib.randint(0, 9, (64, 1024))\n"
    "grid = lib.rand(8, 16, 16, 2) * 2 - 1\n"
    "xg = lib.randn(64, 1024, requires_grad=True); t01 = (y > 0).float()\n"
    "bce = F.binary_cross_entropy_with_logits(xg, t01)\n"
    "seq = lib.randn(16, 64, 256); rgb = lib.randn(8, 3, 224, 224); act = lib.randn(8, 64, 56, 56)\n"
    "xd = x.double() * 1000; r32 = lib.randn(2048, 32); r8 = lib.randn(8192, 8); pts = lib.randn(256, 32)\n"
    "c1 = lib.randn(500, 128); c2 = lib.randn(400, 128); a4 = lib.randn(32, 64, 4, 4); b4 = lib.randn(1, 64, 1, 1)\n"
    "k1 = lib.randn(32, 32); k2 = lib.randn(16, 16); src = lib.randn(65536)\n"
    "p16 = lib.randn(1024, 16); p100 = lib.randn(300, 100); q1 = lib.randn(500, 3); q2 = lib.randn(400, 3)\n"
    "bins = lib.zeros(1024)\n"
)
CASES = [
    ("tril [8,512,512]", S, "s.tril()"),
    ("triu(1) [64,1024]", S, "x.triu(1)"),
    ("pad reflect [8,32,32,32] 1", S, "F.pad(im, (1, 1, 1, 1), mode='reflect')"),
    ("pad replicate [8,32,32,32] 2", S, "F.pad(im, (2, 2, 2, 2), mode='replicate')"),
    ("pad circular [8,32,32,32] 1", S, "F.pad(im, (1, 1, 1, 1), mode='circular')"),
    ("float32 -> int32", S, "x.int()"),
    ("uint8 -> int8", S, "u8.to(lib.int8)"),
    ("float16 -> float64", S, "h.double()"),
    ("bool -> int32", S, "m.int()"),
    ("smooth_l1_loss", S, "F.smooth_l1_loss(x, y)"),
    ("huber_loss", S, "F.huber_loss(x, y)"),
    ("nonzero [64,1024]", S, "m.nonzero()"),
    ("x[mask]", S, "x[m]"),
    ("x[mask] = 1.0", S, "x[m] = 1.0"),
    ("sort 64K int64", S, "labels.sort()"),
    ("unique 64K int64", S, "labels.unique()"),
    ("sort(1) [64,1024]", S, "x.sort(1)"),
    ("mode(1) [64,1024] int64", S, "codes.mode(1)"),
    ("prod(1) [64,1024]", S, "xp.prod(1)"),
    ("pow(2)", S, "x.pow(2)"),
    ("pow(3)", S, "x.pow(3)"),
    ("pow(0.5)", S, "xp.pow(0.5)"),
    ("glu [64,1024]", S, "F.glu(x, 1)"),
    ("bce_with_logits backward", S, "bce.backward(retain_graph=True)"),
    ("grid_sample [8,32,32,32]", S, "F.grid_sample(im, grid, align_corners=False)"),
    ("repeat_interleave(2, 1) [64,1024]", S, "x.repeat_interleave(2, 1)"),
    ("max_pool1d [16,64,256] 2", S, "F.max_pool1d(seq, 2)"),
    ("avg_pool1d [16,64,256] 2", S, "F.avg_pool1d(seq, 2)"),
    ("max_pool2d [8,3,224,224] 2", S, "F.max_pool2d(rgb, 2)"),
    ("max_pool2d [8,64,56,56] 2", S, "F.max_pool2d(act, 2)"),
    ("remainder [64,1024] % 3.0", S, "x % 3.0"),
    ("clamp_(-1, 1) [64,1024]", S, "y.clamp_(-1, 1)"),
    ("nan_to_num_ [64,1024]", S, "y.nan_to_num_()"),
    ("float64 -> int32", S, "xd.int()"),
    ("float64 -> int16", S, "xd.short()"),
    ("erf [64,1024]", S, "x.erf()"),
    ("logsigmoid [64,1024]", S, "F.logsigmoid(x)"),
    ("logaddexp [64,1024]", S, "x.logaddexp(y)"),
    ("topk(4) [2048,32]", S, "r32.topk(4, 1)"),
    ("topk(2) [8192,8]", S, "r8.topk(2, 1)"),
    ("pdist [256,32]", S, "F.pdist(pts)"),
    ("pdist [1024,16]", S, "F.pdist(p16)"),
    ("pdist p=1 [300,100]", S, "F.pdist(p100, p=1)"),
    ("pdist p=inf [300,100]", S, "F.pdist(p100, p=float('inf'))"),
    ("cdist p=1 [500,3] [400,3]", S, "lib.cdist(q1, q2, p=1)"),
    ("cdist p=1 [500,128] [400,128]", S, "lib.cdist(c1, c2, p=1)"),
    ("cdist p=inf [500,128] [400,128]", S, "lib.cdist(c1, c2, p=float('inf'))"),
    ("[32,64,4,4] * [1,64,1,1]", S, "a4 * b4"),
    ("kron 32x32 16x16", S, "lib.kron(k1, k2)"),
    ("masked_scatter_ [64,1024]", S, "x.masked_scatter_(m, src)"),
    ("scatter_add_ 1d 64K into 1024", S, "bins.scatter_add_(0, labels, src)"),
    ("index_add_ 1d 64K into 1024", S, "bins.index_add_(0, labels, src)"),
]

if __name__ == "__main__":
    main(__file__, CASES)
