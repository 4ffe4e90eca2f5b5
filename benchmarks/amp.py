"""Training steps under CPU bfloat16 autocast, ember beside PyTorch: a small MLP and a small CNN, each in float32
and under torch.autocast("cpu") (+ a GradScaler("cpu") step for the MLP on ember, whose PyTorch 1.13 reference
has no CPU GradScaler, so that case runs a plain step in PyTorch). Run: .venv/bin/python benchmarks/amp.py"""
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
CASES = [
    ("MLP step fp32 b128", MLP, FP32),
    ("MLP step bf16 autocast", MLP, AUTOCAST),
    ("MLP step autocast+scaler", MLP, AUTOCAST_SCALER),
    ("CNN step fp32 b32", CNN, FP32),
    ("CNN step bf16 autocast", CNN, AUTOCAST),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
