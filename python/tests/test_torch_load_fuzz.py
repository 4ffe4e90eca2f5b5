"""A short run of the PyTorch checkpoint fuzzer (python/tests/fuzz/torch_zip.py) in the normal suite: 2,000
mutated fixtures each load or raise RuntimeError / pickle.UnpicklingError with ember.load's context, fast,
without allocating more than the file justifies."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import torch_zip  # noqa: E402


def test_fuzz_torch_checkpoints():
    counts, failures = torch_zip.run(2000, seed=12345, log=None)
    assert failures == []
    # the mutations reach all three outcomes: loads, format errors and refused pickles
    assert counts["loaded"] > 50 and counts["RuntimeError"] > 300 and counts["UnpicklingError"] > 300, counts
    assert counts["slowest_s"] < torch_zip.TIME_LIMIT_S
