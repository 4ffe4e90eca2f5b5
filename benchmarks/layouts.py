"""A ResNet-50 training step in both memory layouts (issue 21): batch 8 of 128x128 images, SGD with momentum, the model
and batch row-major, and the same with model.to(memory_format=channels_last) and a channels-last batch (convolution,
batch norm, pooling and elementwise ops keep that layout; Note [Channels-last pooling] in ember/backend/cpu/pool.cpp).
ember beside PyTorch. Run: scripts/bench layouts"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps  # noqa: E402
from common import main  # noqa: E402

SETUP = """
lib.manual_seed(0)
fmt = {}
model = vision.resnet50().to(memory_format=fmt)
opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x, target = lib.randn(8, 3, 128, 128).contiguous(memory_format=fmt), lib.randint(0, 1000, (8,))
out = lambda: model(x)
"""

CASES = [
    ("ResNet-50 train b8 row-major", SETUP.format("lib.contiguous_format"), steps._TRAIN),
    ("ResNet-50 train b8 chan-last", SETUP.format("lib.channels_last"), steps._TRAIN),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
