"""Trains a small CNN on Fashion-MNIST with ember, as one would with PyTorch: ember.vision's dataset and
transforms, a DataLoader with worker processes, AdamW with a one-cycle schedule, a checkpoint after every epoch
(atomic), `--resume` that continues exactly where a run stopped, and a PNG plot of the curves.

    python examples/python/fashion_mnist.py --epochs 5 --out runs/fmnist
    python examples/python/fashion_mnist.py --epochs 8 --out runs/fmnist --resume   # continues the run above

The data is Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist); scripts/demo installs it.
"""

import argparse
import hashlib
import os
import sys
import time

import numpy as np

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader
from ember.vision import datasets, transforms

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's pixel statistics (training set)


class Net(nn.Module):
    """Two conv blocks and a two-layer classifier: about 420K parameters."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.25),
            nn.Linear(64 * 7 * 7, 128),
            nn.ReLU(inplace=True),
            nn.Dropout(0.25),
            nn.Linear(128, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class Progress:
    """tqdm when it is installed, otherwise one self-rewriting line: samples done, elapsed, samples/s, postfix."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done, self.start, self.last = total, desc, 0, time.perf_counter(), 0.0
        self.postfix = ""
        try:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="img", unit_scale=True, leave=True, file=sys.stdout)
        except ImportError:
            self.bar = None

    def update(self, n, **postfix):
        self.done += n
        text = " ".join(f"{k}={v}" for k, v in postfix.items())
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(n)
            return
        now = time.perf_counter()
        if now - self.last < 0.25 and self.done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        width = 30
        filled = int(width * self.done / self.total)
        print(
            f"\r{self.desc} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {elapsed:5.1f}s "
            f"{self.done / max(elapsed, 1e-9):7.0f} img/s {text}",
            end="",
            flush=True,
        )

    def close(self):
        if self.bar is not None:
            self.bar.close()
        else:
            print()


def evaluate(model, loader):
    model.eval()
    correct, total, loss = 0, 0, 0.0
    with ember.no_grad():
        for x, y in loader:
            out = model(x)
            loss += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            total += y.numel()
    return loss / total, correct / total


def plot(history, path):
    """Loss (left axis) and accuracy (right axis) per epoch, with labels, ticks, a legend and a title, drawn by
    matplotlib (an optional dependency of this example, installed by scripts/setup; not one of ember's). Returns
    False, saying why, when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: matplotlib is not installed (pip install matplotlib); the curves were not drawn")
        return False
    epochs = np.arange(1, len(history["train_loss"]) + 1)
    fig, loss_ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    acc_ax = loss_ax.twinx()
    lines = loss_ax.plot(epochs, history["train_loss"], "o-", color="tab:blue", label="train loss")
    lines += acc_ax.plot(epochs, history["train_acc"], "s-", color="tab:orange", label="train accuracy")
    lines += acc_ax.plot(epochs, history["test_acc"], "^-", color="tab:green", label="test accuracy")
    loss_ax.set_xlabel("epoch")
    loss_ax.set_ylabel("cross-entropy loss")
    acc_ax.set_ylabel("accuracy")
    loss_ax.set_xticks(epochs)
    loss_ax.grid(alpha=0.3)
    loss_ax.legend(lines, [ln.get_label() for ln in lines], loc="center right")
    loss_ax.set_title(f"Fashion-MNIST CNN on ember: test accuracy {history['test_acc'][-1]:.2%}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def checksum(model):
    digest = hashlib.sha256()
    for name, t in model.state_dict().items():
        digest.update(name.encode())
        digest.update(t.contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of the one-cycle schedule")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/fashion_mnist", help="output directory (checkpoint, plot)")
    p.add_argument("--data", default=None, help="dataset root (default: Debian's /usr/share/datasets/fashion-mnist)")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--limit", type=int, default=None, help="use only the first N training images (quick runs)")
    p.add_argument(
        "--stop-after",
        type=int,
        default=None,
        help="stop after this many epochs of this run, as if interrupted (then use --resume)",
    )
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "checkpoint.pt")

    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((MEAN,), (STD,))])
    root = {} if args.data is None else {"root": args.data}
    train_set = datasets.FashionMNIST(train=True, transform=tf, **root)
    test_set = datasets.FashionMNIST(train=False, transform=tf, **root)
    if args.limit:
        train_set = ember.utils.data.Subset(train_set, range(args.limit))
    test_loader = DataLoader(test_set, batch_size=1000, num_workers=args.workers)

    ember.manual_seed(args.seed)
    model = Net()
    opt = ember.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps_per_epoch = (len(train_set) + args.batch_size - 1) // args.batch_size
    sched = ember.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=steps_per_epoch
    )
    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": [], "seconds": []}
    start_epoch = 0
    if args.resume:
        if not os.path.exists(ckpt_path):
            sys.exit(f"--resume: no checkpoint at {ckpt_path}")
        ckpt = ember.load(ckpt_path)
        if ckpt["epochs"] != args.epochs:
            sys.exit(
                f"--resume: the checkpoint belongs to a {ckpt['epochs']}-epoch run (the schedule depends on it); "
                f"pass --epochs {ckpt['epochs']}"
            )
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        sched.load_state_dict(ckpt["scheduler"])
        ember.set_rng_state(ckpt["rng_state"])
        history, start_epoch = ckpt["history"], ckpt["epoch"] + 1
        print(f"resumed from {ckpt_path} after epoch {ckpt['epoch'] + 1}")

    print(
        f"ember {ember.__version__}: {len(train_set)} training and {len(test_set)} test images, "
        f"{sum(p.numel() for p in model.parameters())} parameters, {ember.get_num_threads()} threads, "
        f"{args.workers} loader worker(s)"
    )
    last_epoch = args.epochs if args.stop_after is None else min(args.epochs, start_epoch + args.stop_after)
    for epoch in range(start_epoch, last_epoch):
        # The shuffle order depends only on (seed, epoch), so a resumed run sees the same batches.
        gen = ember.Generator()
        gen.manual_seed(args.seed * 1000 + epoch)
        loader = DataLoader(
            train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers, generator=gen
        )
        model.train()
        bar = Progress(len(train_set), f"epoch {epoch + 1}/{args.epochs}")
        t0 = time.perf_counter()
        seen, correct, loss_sum = 0, 0, 0.0
        for x, y in loader:
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            n = y.numel()
            seen += n
            loss_sum += loss.item() * n
            correct += (out.argmax(1) == y).sum().item()
            bar.update(n, loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.4f}")
        bar.close()
        seconds = time.perf_counter() - t0
        test_loss, test_acc = evaluate(model, test_loader)
        for k, v in [
            ("train_loss", loss_sum / seen),
            ("train_acc", correct / seen),
            ("test_loss", test_loss),
            ("test_acc", test_acc),
            ("seconds", seconds),
        ]:
            history[k].append(v)
        print(
            f"epoch {epoch + 1}: train loss {loss_sum / seen:.4f} acc {correct / seen:.4f} | test loss "
            f"{test_loss:.4f} acc {test_acc:.4f} | {seconds:.1f}s, {seen / seconds:.0f} img/s"
        )
        ember.save(
            {
                "epoch": epoch,
                "epochs": args.epochs,
                "model": model.state_dict(),
                "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict(),
                "rng_state": ember.get_rng_state(),
                "history": history,
            },
            ckpt_path,
        )
    plot_path = os.path.join(args.out, "curves.png")
    if history["train_loss"]:
        plot(history, plot_path)
    total = sum(history["seconds"])
    print(
        f"training time {total:.1f}s over {len(history['seconds'])} epochs "
        f"({'within' if total <= 600 else 'OVER'} the 10-minute budget)"
    )
    if history["test_acc"]:
        print(f"final test accuracy {history['test_acc'][-1]:.4f}; curves: {plot_path}; checkpoint: {ckpt_path}")
    print(f"parameter checksum {checksum(model)}")
    return history


if __name__ == "__main__":
    main()
