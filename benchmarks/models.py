"""Training and inference steps of the model families of the speed issue (benchmarks/steps.py): an MLP, neural
collaborative filtering, the demo's CNN, a small GPT, an LSTM language model and ResNet-18 on CIFAR-sized images
(training), and ResNet-18/50 and MobileNetV3 at batch 1 (inference, eval mode, no_grad). Run: scripts/bench models
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps  # noqa: E402
from common import main  # noqa: E402

CASES = steps.TRAIN_STEPS + steps.INFERENCE_STEPS

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
