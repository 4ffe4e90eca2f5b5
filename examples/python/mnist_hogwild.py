"""Hogwild training (the PyTorch paper, section 5.4): N processes train one model whose parameters live in shared
memory, each with its own optimizer and data order, updating the shared weights without locks.

The data is Fashion-MNIST (Debian's dataset-fashion-mnist: gzipped IDX files in /usr/share/datasets/fashion-mnist),
read here with NumPy and gzip. On two idle cores the defaults (all 60,000 training images, 3 epochs) train in
about 20 s (about a minute when the cores are busy with other work) and reach about 88% test accuracy;
--train-size 12000 --epochs 2 takes a few seconds for about 81%.

    python examples/python/mnist_hogwild.py [--num-processes 2] [--epochs 3] [--train-size 60000] [--start-method fork]
"""

import argparse
import gzip
import os
import sys
import time

import numpy as np

import ember
import ember.multiprocessing as mp
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset


def read_idx(path):
    """An IDX file (gzipped or not) as a NumPy array: magic (0, 0, dtype code, ndim), big-endian dims, data."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError("%s is not an IDX file of unsigned bytes" % path)
    ndim = raw[3]
    dims = np.frombuffer(raw, dtype=">u4", count=ndim, offset=4).astype(np.int64)
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError("%s: %d bytes of data for dims %s" % (path, data.size, tuple(dims)))
    return data.reshape(tuple(dims))


def load(root, split, limit):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(root, prefix + "-images-idx3-ubyte.gz"))[:limit]
    labels = read_idx(os.path.join(root, prefix + "-labels-idx1-ubyte.gz"))[:limit]
    # Normalised with Fashion-MNIST's mean and standard deviation.
    x = (ember.from_numpy(images.astype(np.float32)).unsqueeze(1) / 255.0 - 0.2860) / 0.3530
    return TensorDataset(x, ember.from_numpy(labels.astype(np.int64)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = F.relu(self.fc1(x.flatten(1)))
        return F.log_softmax(self.fc2(x), dim=1)


def train(rank, args, model, dataset):
    ember.set_num_threads(1)  # one core per trainer
    ember.manual_seed(args.seed + rank)  # each process its own data order
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    optimizer = ember.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    model.train()
    for epoch in range(1, args.epochs + 1):
        for i, (data, target) in enumerate(loader):
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()  # writes straight into the shared parameters, without a lock
            if i % args.log_interval == 0:
                # One write per line, so that the processes' lines do not interleave.
                sys.stdout.write(
                    "[process %d] epoch %d [%5d/%d] loss %.4f\n"
                    % (rank, epoch, i * len(data), len(dataset), loss.item())
                )
                sys.stdout.flush()


def test(model, dataset):
    model.eval()
    correct, total_loss = 0, 0.0
    with ember.no_grad():
        for data, target in DataLoader(dataset, batch_size=1000):
            out = model(data)
            total_loss += F.nll_loss(out, target, reduction="sum").item()
            correct += (out.argmax(1) == target).sum().item()
    n = len(dataset)
    print("test: average loss %.4f, accuracy %d/%d (%.1f%%)" % (total_loss / n, correct, n, 100.0 * correct / n))
    return correct / n


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--num-processes", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--train-size", type=int, default=60000)
    p.add_argument("--test-size", type=int, default=10000)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log-interval", type=int, default=200)
    p.add_argument("--start-method", default="fork", choices=["fork", "spawn", "forkserver"])
    args = p.parse_args()

    ember.manual_seed(args.seed)
    train_set = load(args.root, "train", args.train_size)
    test_set = load(args.root, "test", args.test_size)
    model = Net()
    model.share_memory()  # parameters move into shared memory; every process updates the same ones
    assert all(p.is_shared() for p in model.parameters())

    ctx = mp.get_context(args.start_method)
    start = time.perf_counter()
    procs = [ctx.Process(target=train, args=(rank, args, model, train_set)) for rank in range(args.num_processes)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    failed = [proc.exitcode for proc in procs if proc.exitcode != 0]
    if failed:
        raise SystemExit("a training process failed (exit codes %s)" % failed)
    print("trained with %d processes in %.1f s" % (args.num_processes, time.perf_counter() - start))
    test(model, test_set)


if __name__ == "__main__":
    main()
