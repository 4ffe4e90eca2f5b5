"""examples/python/fashion_mnist.py (the main job) on a tiny Fashion-MNIST-format dataset written here: it trains,
checkpoints every epoch, writes the PNG of its curves, and a run stopped after one epoch and resumed ends bit for
bit where an uninterrupted run ends."""

import gzip
import importlib.util
import os
import struct

import numpy as np

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "fashion_mnist.py")


def _load_example():
    spec = importlib.util.spec_from_file_location("fashion_mnist_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write_idx(path, array):
    header = struct.pack(">BBBB", 0, 0, 8, array.ndim) + b"".join(struct.pack(">I", n) for n in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def _dataset(root, n_train=192, n_test=64):
    # Class k's images are brighter in row band k: learnable in a couple of epochs.
    rng = np.random.default_rng(0)
    for split, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n)
        images = rng.integers(0, 60, (n, 28, 28))
        for i, k in enumerate(labels):
            images[i, 2 * k : 2 * k + 3] += 190
        _write_idx(os.path.join(root, f"{split}-images-idx3-ubyte.gz"), images)
        _write_idx(os.path.join(root, f"{split}-labels-idx1-ubyte.gz"), labels)


def _check_plot(path, printed):
    try:
        import matplotlib.image
    except ImportError:  # an optional dependency of the example: it says so and draws nothing
        assert "matplotlib is not installed" in printed and not os.path.exists(path)
        return
    img = matplotlib.image.imread(str(path))
    assert img.shape[:2] == (462, 770)  # figsize (7, 4.2) at 110 dpi
    rgb = (img[..., :3] * 255).round()
    for color in ((31, 119, 180), (255, 127, 14), (44, 160, 44)):  # the three curves: tab:blue, orange, green
        assert (abs(rgb - color).sum(-1) < 6).sum() > 100, color


def test_demo_trains_checkpoints_and_resumes_exactly(tmp_path, capsys):
    demo = _load_example()
    data = tmp_path / "data"
    data.mkdir()
    _dataset(str(data))
    common = ["--epochs", "3", "--batch-size", "32", "--workers", "0", "--data", str(data), "--lr", "3e-3"]
    straight = demo.main(common + ["--out", str(tmp_path / "a")])
    first = capsys.readouterr().out
    assert straight["test_acc"][-1] > 0.5  # 10 classes: chance is 0.1
    _check_plot(tmp_path / "a" / "curves.png", first)

    demo.main(common + ["--out", str(tmp_path / "b"), "--stop-after", "1"])
    resumed = demo.main(common + ["--out", str(tmp_path / "b"), "--resume"])
    second = capsys.readouterr().out
    assert "resumed from" in second

    def results(h):
        return {k: v for k, v in h.items() if k != "seconds"}

    assert results(resumed) == results(straight)  # every epoch's losses and accuracies, bit for bit
    checksum = [line for line in first.splitlines() if line.startswith("parameter checksum")]
    assert checksum and checksum[0] in second
