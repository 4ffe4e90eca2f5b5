"""The Fashion-MNIST CNN of fashion_mnist.py trained data-parallel: one process per replica, each on its shard of
every epoch (DistributedSampler), gradients averaged by DistributedDataParallel over gloo (CPU) or NCCL (GPU).
Start it with ember's launcher, as one would with torchrun:

    python -m ember.distributed.run --nproc_per_node=2 examples/python/fashion_mnist_ddp.py --epochs 2

Each process uses ember.get_num_threads() // nproc threads; rank 0 evaluates, prints and saves the checkpoint.
"""

import argparse
import hashlib
import os
import sys
import time

import ember
import ember.distributed as dist
import ember.nn.functional as F
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DataLoader
from ember.utils.data.distributed import DistributedSampler
from ember.vision import datasets, transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist import MEAN, STD, Net, evaluate  # noqa: E402


def param_checksum(model):
    """The parameters' digest. (BatchNorm's running statistics are per replica between forwards: each forward
    starts from rank 0's buffers and updates them with its own shard, as in PyTorch.)"""
    digest = hashlib.sha256()
    for name, t in model.named_parameters():
        digest.update(name.encode())
        digest.update(t.detach().contiguous().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64, help="per process")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=None, help="dataset root (default: Debian's /usr/share/datasets/fashion-mnist)")
    p.add_argument("--limit", type=int, default=None, help="use only the first N training images")
    p.add_argument("--out", default="runs/fashion_mnist_ddp")
    args = p.parse_args(argv)

    use_cuda = ember.cuda.is_available()
    dist.init_process_group("nccl" if use_cuda else "gloo")  # RANK, WORLD_SIZE, MASTER_ADDR/PORT from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    device = ember.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if use_cuda else ember.device("cpu")
    if not use_cuda:
        ember.set_num_threads(max(1, os.cpu_count() // int(os.environ.get("LOCAL_WORLD_SIZE", world))))

    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((MEAN,), (STD,))])
    root = {} if args.data is None else {"root": args.data}
    train_set = datasets.FashionMNIST(train=True, transform=tf, **root)
    if args.limit:
        train_set = ember.utils.data.Subset(train_set, range(args.limit))
    sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)

    ember.manual_seed(args.seed + rank)  # different on purpose: DDP broadcasts rank 0's weights
    model = DDP(Net().to(device), device_ids=[device.index] if use_cuda else None)
    opt = ember.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    if rank == 0:
        print(
            f"ember {ember.__version__}: {world} processes x {ember.get_num_threads()} threads, "
            f"{len(train_set)} training images, {len(sampler)} per process per epoch"
        )
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle every epoch, the same on every rank
        model.train()
        t0, seen, loss_sum = time.perf_counter(), 0, 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += y.numel()
            loss_sum += loss.item() * y.numel()
        # The epoch's mean training loss over all ranks.
        stats = ember.tensor([loss_sum, float(seen)], dtype=ember.float64, device=device)
        dist.all_reduce(stats)
        seconds = time.perf_counter() - t0
        if rank == 0:
            test_set = datasets.FashionMNIST(train=False, transform=tf, **root)
            test_loss, test_acc = evaluate(model.module, DataLoader(test_set, batch_size=1000))
            total = stats.tolist()
            print(
                f"epoch {epoch + 1}: train loss {total[0] / total[1]:.4f} | test loss {test_loss:.4f} "
                f"acc {test_acc:.4f} | {seconds:.1f}s, {total[1] / seconds:.0f} img/s over {world} processes"
            )
    # Every replica holds the same parameters; rank 0 writes the model.
    digests = [None] * world
    dist.all_gather_object(digests, param_checksum(model.module))
    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        ember.save(model.module.state_dict(), os.path.join(args.out, "model.pt"))
        print(
            f"parameter checksums {'identical' if len(set(digests)) == 1 else 'DIFFER'} on the {world} ranks: "
            f"{digests[0]}"
        )
    dist.destroy_process_group()
    return digests


if __name__ == "__main__":
    main()
