#!/usr/bin/env python3
"""DDP on Fashion-MNIST with tetrad's compressors as the comm hook.

    PYTHONPATH=build/python /usr/bin/python3 examples/ddp_mnist.py --compress topk:0.01,ef

Trains tetrad's cnn (2 conv + pooling + 2 fully connected, as `tetrad train
--model cnn`) with PyTorch DistributedDataParallel on N processes (gloo, one
thread each), SGD with momentum, and reduces gradients with:
  --hook tetrad       tetrad.torch.comm_hook with --compress SPEC (default)
  --hook plain        DDP's own all-reduce (no hook)
  --hook torch-fp16   torch's built-in fp16_compress_hook
Prints progress, throughput (samples/s over the training iterations, every
rank's samples, evaluation excluded), test accuracy (all 10 000 test images)
and bytes per iteration sent by rank 0, and ends with one JSON line:
  {"test_accuracy": ..., "samples_per_s": ..., "bytes_per_iteration": ..., ...}
Bytes: tetrad's hook reports its own (HookState.stats(); docs/python.md);
plain DDP and torch's fp16 hook are counted as a ring all-reduce of the
gradient (2(p-1)/p of 4 or 2 bytes per element), the model tetrad's all-reduce
path uses too.

Periodic evaluation (--eval-every N, with --target-accuracy A) pauses the
clock, as tetrad train does: the JSON line then also holds the accuracy curve
("evals": [[iteration, seconds, accuracy], ...]), time_to_target and
iterations_to_target (null when not reached).

Across hosts (one process per host, e.g. network namespaces): --rank R
--master ADDR:PORT runs rank R alone instead of spawning --ranks processes on
this host; set GLOO_SOCKET_IFNAME to the interface between the hosts.

Data: the IDX files of Debian's dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist/*-ubyte.gz), nothing downloaded.
"""
import argparse
import datetime
import gzip
import json
import os
import socket
import struct
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's training pixels


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, kind, dims = struct.unpack(">HBB", data[:4])
    if zero != 0 or kind != 0x08:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    body = data[4 + 4 * dims:]
    expected = 1
    for d in shape:
        expected *= d
    if len(body) != expected:
        raise ValueError(f"{path}: {len(body)} bytes of data for shape {shape}")
    return torch.frombuffer(bytearray(body), dtype=torch.uint8).reshape(shape)


def load(data, split):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data, f"{prefix}-labels-idx1-ubyte.gz")).long()
    return ((images.float() / 255.0 - MEAN) / STD).unsqueeze(1), labels


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


def evaluate(model, images, labels):
    model.eval()
    correct = 0
    with torch.no_grad():
        for at in range(0, images.shape[0], 1000):
            out = model(images[at:at + 1000])
            correct += (out.argmax(1) == labels[at:at + 1000]).sum().item()
    model.train()
    return correct / images.shape[0]


def register_hook(ddp, args):
    """The comm hook of --hook/--compress; returns the tetrad HookState or None."""
    if args.hook == "plain":
        return None
    if args.hook == "torch-fp16":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        return None
    import tetrad.torch as tt
    state = tt.HookState(dist.group.WORLD, compress=args.compress, seed=args.seed)
    ddp.register_comm_hook(state, tt.comm_hook)
    return state


def worker(rank, args, master):
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo", init_method=f"tcp://{master}", rank=rank,
                            world_size=args.ranks, timeout=datetime.timedelta(seconds=600))
    torch.manual_seed(args.seed)
    ddp = DistributedDataParallel(Cnn(), bucket_cap_mb=args.bucket_mb)
    hook = register_hook(ddp, args)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    images, labels = load(args.data, "train")
    if rank == 0:  # the only rank that evaluates
        test_images, test_labels = load(args.data, "test")
        if args.test_samples:
            test_images = test_images[:args.test_samples]
            test_labels = test_labels[:args.test_samples]
    order = torch.randperm(images.shape[0], generator=torch.Generator().manual_seed(args.seed))
    shard = order[rank::args.ranks]
    per_epoch = shard.numel() // args.batch
    iters = args.iters or per_epoch
    evals = []  # [iteration, training seconds, accuracy]
    dist.barrier()
    start = time.perf_counter()
    paused = 0.0  # seconds spent evaluating, kept off the clock
    for step in range(iters):
        at = (step % per_epoch) * args.batch
        index = shard[at:at + args.batch]
        optimizer.zero_grad()
        loss = F.cross_entropy(ddp(images.index_select(0, index)), labels.index_select(0, index))
        loss.backward()
        optimizer.step()
        if rank == 0 and args.log_every and (step + 1) % args.log_every == 0:
            seconds = time.perf_counter() - start - paused
            print(f"iter {step + 1}/{iters}  loss {loss.item():.4f}  "
                  f"{(step + 1) * args.batch * args.ranks / seconds:.1f} samples/s", flush=True)
        if args.eval_every and (step + 1) % args.eval_every == 0 and step + 1 < iters:
            dist.barrier()
            stop = time.perf_counter()
            if rank == 0:  # off the clock, on every core (the other ranks wait)
                torch.set_num_threads(os.cpu_count() or 1)
                accuracy = evaluate(ddp.module, test_images, test_labels)
                torch.set_num_threads(args.threads)
                evals.append([step + 1, round(stop - start - paused, 4), round(accuracy, 4)])
            dist.barrier()
            paused += time.perf_counter() - stop
    dist.barrier()
    seconds = time.perf_counter() - start - paused
    if rank == 0:
        accuracy = evaluate(ddp.module, test_images, test_labels)
        evals.append([iters, round(seconds, 4), round(accuracy, 4)])
        reached = [e for e in evals if args.target_accuracy and e[2] >= args.target_accuracy]
        elements = sum(p.numel() for p in ddp.module.parameters())
        p = args.ranks
        if hook is not None:
            stats = hook.stats()
            sent = stats["bytes_sent"] / iters
            overhead = (stats["encode_s"] + stats["decode_s"] + stats["protocol_s"]) / iters
        else:
            wire = 2 if args.hook == "torch-fp16" else 4
            sent = 2 * (p - 1) * elements * wire / p
            overhead = None
        result = {
            "hook": args.hook, "compress": args.compress if args.hook == "tetrad" else None,
            "ranks": p, "batch": args.batch, "iters": iters, "seconds": round(seconds, 3),
            "samples_per_s": round(iters * args.batch * p / seconds, 1),
            "test_accuracy": round(accuracy, 4), "final_loss": round(loss.item(), 4),
            "bytes_per_iteration": round(sent), "parameters": elements,
            "hook_ms_per_iteration": None if overhead is None else round(1000 * overhead, 3),
            "target_accuracy": args.target_accuracy or None,
            "time_to_target": reached[0][1] if reached else None,
            "iterations_to_target": reached[0][0] if reached else None,
            "evals": evals,
        }
        label = args.compress if args.hook == "tetrad" else args.hook
        print(f"{label}: {result['samples_per_s']} samples/s, test accuracy "
              f"{accuracy:.4f}, {sent / 1e6:.3f} MB sent per iteration (rank 0)", flush=True)
        print(json.dumps(result), flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compress", default="none", help="tetrad compressor spec")
    parser.add_argument("--hook", choices=["tetrad", "plain", "torch-fp16"], default="tetrad")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64, help="per rank")
    parser.add_argument("--iters", type=int, default=0, help="0: one epoch")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    parser.add_argument("--bucket-mb", type=float, default=25.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log-every", type=int, default=100)
    parser.add_argument("--test-samples", type=int, default=0,
                        help="evaluate on the first N test images (0: all 10 000)")
    parser.add_argument("--eval-every", type=int, default=0,
                        help="also evaluate every N iterations (clock paused)")
    parser.add_argument("--target-accuracy", type=float, default=0.0,
                        help="report the training time at which test accuracy first reached this")
    parser.add_argument("--rank", type=int, default=-1,
                        help="run only this rank (with --master; one process per host)")
    parser.add_argument("--master", default="",
                        help="ADDR:PORT of rank 0's rendezvous, with --rank")
    parser.add_argument("--data", default=DATA)
    args = parser.parse_args()
    if (args.rank >= 0) != bool(args.master):
        sys.exit("ddp_mnist: --rank and --master go together")
    if args.rank >= args.ranks:
        sys.exit(f"ddp_mnist: --rank {args.rank} is not below --ranks {args.ranks}")
    if args.eval_every < 0 or not 0.0 <= args.target_accuracy <= 1.0:
        sys.exit("ddp_mnist: --eval-every wants N >= 0 and --target-accuracy a value in [0, 1]")
    for name in ("train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"):
        if not os.path.exists(os.path.join(args.data, name)):
            sys.exit(f"ddp_mnist: {os.path.join(args.data, name)} is missing "
                     "(apt-get install dataset-fashion-mnist, or --data DIR)")
    if args.hook == "tetrad":
        import tetrad
        tetrad.Compressor(args.compress)  # a bad spec fails here, before any process starts
    if args.rank >= 0:
        worker(args.rank, args, args.master)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, f"127.0.0.1:{port}"), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
