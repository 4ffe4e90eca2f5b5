"""Training steps under CPU bfloat16 autocast, ember beside PyTorch: a small MLP and a small CNN, each in float32
and under torch.autocast("cpu") (+ a GradScaler("cpu") step for the MLP on ember, whose PyTorch 1.13 reference
has no CPU GradScaler, so that case runs a plain step in PyTorch), then micro cases: 512^3 matmul and a 64->64
3x3 convolution in float32 and bfloat16, and float32 <-> 16-bit casts. Run: .venv/bin/python benchmarks/amp.py"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

MLP = """
nn = lib.nn
lib.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
opt = lib.optim.SGD(model.parameters(), lr=1e-2)
x = lib.randn(128, 256)
y = lib.randint(0, 10, (128,))
F = lib.nn.functional
has_cpu_scaler = hasattr(lib, "amp") and hasattr(lib.amp, "GradScaler") and lib.__name__ == "ember"
scaler = lib.amp.GradScaler("cpu") if has_cpu_scaler else None
"""
CNN = """
nn = lib.nn
lib.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1),
                      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 8 * 8, 10))
opt = lib.optim.SGD(model.parameters(), lr=1e-2)
x = lib.randn(32, 3, 32, 32)
y = lib.randint(0, 10, (32,))
F = lib.nn.functional
"""
FP32 = """
loss = F.cross_entropy(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
"""
AUTOCAST = """
with lib.autocast("cpu", dtype=lib.bfloat16):
    loss = F.cross_entropy(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
"""
AUTOCAST_SCALER = """
with lib.autocast("cpu", dtype=lib.bfloat16):
    loss = F.cross_entropy(model(x), y)
opt.zero_grad()
if scaler is not None:
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
else:
    loss.backward()
    opt.step()
"""
# Micro cases: the 16-bit kernels autocast runs (oneDNN's matmul and convolution) and the casts around them.
MICRO = """
lib.manual_seed(0)
a32, b32 = lib.randn(512, 512), lib.randn(512, 512)
a16, b16 = a32.to(lib.bfloat16), b32.to(lib.bfloat16)
x32, w32 = lib.randn(32, 64, 32, 32), lib.randn(64, 64, 3, 3)
x16, w16 = x32.to(lib.bfloat16), w32.to(lib.bfloat16)
big = lib.randn(512, 512)
bigh = big.to(lib.bfloat16)
bigf = big.to(lib.float16)
F = lib.nn.functional
"""
MICRO_CASES = [
    ("mm 512^3 fp32", "a32 @ b32"),
    ("mm 512^3 bf16", "a16 @ b16"),
    ("conv 32x64x32x32 3x3 fp32", "F.conv2d(x32, w32, padding=1)"),
    ("conv 32x64x32x32 3x3 bf16", "F.conv2d(x16, w16, padding=1)"),
    ("cast 262K fp32->bf16", "big.to(lib.bfloat16)"),
    ("cast 262K bf16->fp32", "bigh.float()"),
    ("cast 262K fp32->fp16", "big.to(lib.float16)"),
    ("cast 262K fp16->fp32", "bigf.float()"),
]

CASES = [
    ("MLP step fp32 b128", MLP, FP32),
    ("MLP step bf16 autocast", MLP, AUTOCAST),
    ("MLP step autocast+scaler", MLP, AUTOCAST_SCALER),
    ("CNN step fp32 b32", CNN, FP32),
    ("CNN step bf16 autocast", CNN, AUTOCAST),
] + [(name, MICRO, stmt) for name, stmt in MICRO_CASES]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
