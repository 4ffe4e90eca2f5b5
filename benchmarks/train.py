"""One training step of the main job's CNN (examples/python/fashion_mnist.py: two conv-BN-ReLU-pool blocks, dropout,
two linear layers; 420K parameters) on a batch of 128 28x28 images: forward, cross-entropy, backward, AdamW step.
ember beside PyTorch. Run: scripts/bench train"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

SETUP = """
nn = lib.nn
lib.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(2),
    nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(inplace=True), nn.Dropout(0.25),
    nn.Linear(128, 10))
opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
x = lib.randn(128, 1, 28, 28)
y = lib.randint(0, 10, (128,))
"""
STEP = """
loss = lib.nn.functional.cross_entropy(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
"""
EVAL = "with lib.no_grad():\n    model.eval()\n    model(x)\n    model.train()"
CASES = [
    ("CNN train step b128", SETUP, STEP),
    ("CNN inference b128", SETUP, EVAL),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
