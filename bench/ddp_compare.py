#!/usr/bin/env python3
"""Training throughput of PyTorch DDP (gloo backend) on tetrad's models.

The baseline of bench/ddp_compare.sh: the same model (tetrad's cnn or mlp,
layer for layer), data (Fashion-MNIST from the Debian package), batch per
rank, optimizer (SGD, momentum 0.9, weight decay 5e-4) and LibTorch threads
per rank as `tetrad train --cluster mpi`. Prints one line:
    ddp <model> ranks=N batch=B iters=I samples_per_s=X
samples/s counts every rank's samples over the wall time of the training
iterations (after process-group set-up, between two barriers), as tetrad's
summary.json throughput does.

Optional: needs python3-torch (Debian's package); never part of `make test`.
"""
import argparse
import gzip
import os
import struct
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    _, _, dims = struct.unpack(">HBB", data[:4])
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


class Cnn(nn.Module):  # tetrad's cnn (src/tetrad/train/compute/models.cc)
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 5, padding=2)
        self.conv2 = nn.Conv2d(32, 64, 5, padding=2)
        self.fc1 = nn.Linear(64 * 7 * 7, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class Mlp(nn.Module):  # tetrad's mlp
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc3(F.relu(self.fc2(x)))


def worker(rank, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    torch.manual_seed(args.seed)
    model = Cnn() if args.model == "cnn" else Mlp()
    ddp = DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    images = read_idx(os.path.join(args.data, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(args.data, "train-labels-idx1-ubyte.gz")).long()
    images = ((images.float() / 255.0) - 0.2860) / 0.3530
    images = images.unsqueeze(1)
    generator = torch.Generator().manual_seed(args.seed)
    order = torch.randperm(images.shape[0], generator=generator)[rank::args.ranks]
    per_epoch = order.numel() // args.batch
    dist.barrier()
    start = time.perf_counter()
    for step in range(args.iters):
        at = (step % per_epoch) * args.batch
        index = order[at:at + args.batch]
        x, y = images.index_select(0, index), labels.index_select(0, index)
        optimizer.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()
        optimizer.step()
    dist.barrier()
    seconds = time.perf_counter() - start
    if rank == 0:
        samples = args.ranks * args.batch * args.iters
        print(f"ddp {args.model} ranks={args.ranks} batch={args.batch} iters={args.iters} "
              f"samples_per_s={samples / seconds:.1f} loss={loss.item():.4f}", flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=["cnn", "mlp"], default="cnn")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bucket-mb", type=float, default=25.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=29517)
    parser.add_argument("--data", default=DATA)
    args = parser.parse_args()
    mp.spawn(worker, args=(args,), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
