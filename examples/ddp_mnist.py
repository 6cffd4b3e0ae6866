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

Instead of reducing gradients every step (examples/_lab_modes.py has the details,
byte counts included):
  --average local:H|post-local:T:H|hier:H1:H2   periodic model averaging, DDP
        syncing nothing once local SGD starts; --average-impl tetrad (default:
        tetrad.torch.ModelAverager, the model delta compressed with --compress
        SPEC; hier over node groups of --group-size G ranks, default 2) or torch
        (torch's PostLocalSGDOptimizer and model averagers, for comparison).
        Bytes: tetrad's HookStates for the compressed averagings, a ring
        all-reduce of the model for each exact averaging and each gradient
        all-reduce of post-local's first T steps; torch's averagers the same ring
        count for theirs.
  --gossip TOPO   decentralised training of a plain module (no DDP) with
        tetrad.torch.GossipOptimizer: --gossip-algorithm dpsgd (default) or choco
        (--compress SPEC, --gamma). Evaluation reads rank 0's model; bytes are
        the optimizer's own count (GossipOptimizer.stats()). The JSON line of
        both also holds the final consensus distance.
Conflicting options (--gossip with --average, --hook with either, torch's
averagers with --compress, ...) are refused with one line.

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

import _lab_modes  # --average and --gossip (examples/_lab_modes.py)

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
    """The split's images (uint8, N x 28 x 28: see pixels()) and labels."""
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data, f"{prefix}-labels-idx1-ubyte.gz")).long()
    return images, labels


def pixels(images):
    """Normalised network input (N x 1 x 28 x 28) of uint8 images: (x / 255 - MEAN) / STD,
    computed in place (the same values) batch by batch, so that a rank does not convert
    all 60 000 training images up front."""
    return images.float().div_(255.0).sub_(MEAN).div_(STD).unsqueeze(1)


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


class HookTraining:
    """DDP reducing gradients through the comm hook of --hook/--compress. The set-ups of
    --average and --gossip (_lab_modes.build) offer the same: model (what forward calls),
    module (what evaluation reads), zero_grad(), step(), traffic(iters), finish()
    (collective, off the clock), describe() (JSON fields) and label()."""

    def __init__(self, args, module, make_optimizer):
        self.args, self.module = args, module
        self.model = DistributedDataParallel(module, bucket_cap_mb=args.bucket_mb)
        self.hook = register_hook(self.model, args)
        self.optimizer = make_optimizer(self.model.parameters())

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self):
        self.optimizer.step()

    def traffic(self, iters):
        """(bytes rank 0 sent per iteration, seconds in the hook per iteration or None)."""
        if self.hook is not None:
            stats = self.hook.stats()
            overhead = stats["encode_s"] + stats["decode_s"] + stats["protocol_s"]
            return stats["bytes_sent"] / iters, overhead / iters
        elements = sum(p.numel() for p in self.module.parameters())
        wire = 2 if self.args.hook == "torch-fp16" else 4
        return _lab_modes.ring_bytes(elements, dist.get_world_size(), wire), None

    def finish(self):
        return {}

    def describe(self):
        tetrad = self.args.hook == "tetrad"
        return {"hook": self.args.hook, "compress": self.args.compress if tetrad else None}

    def label(self):
        return self.args.compress if self.args.hook == "tetrad" else self.args.hook


def make_training(args):
    """The model, its optimizer (SGD with momentum) and how its gradients or models meet."""
    torch.manual_seed(args.seed)  # every rank starts from the same model, DDP or not

    def sgd(params):
        return torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=5e-4)
    if args.average or args.gossip:
        return _lab_modes.build(args, Cnn(), sgd)
    return HookTraining(args, Cnn(), sgd)


def worker(rank, args, master):
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo", init_method=f"tcp://{master}", rank=rank,
                            world_size=args.ranks, timeout=datetime.timedelta(seconds=600))
    training = make_training(args)
    images, labels = load(args.data, "train")
    if rank == 0:  # the only rank that evaluates (with gossip: rank 0's model)
        test_images, test_labels = load(args.data, "test")
        if args.test_samples:
            test_images = test_images[:args.test_samples]
            test_labels = test_labels[:args.test_samples]
        test_images = pixels(test_images)
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
        training.zero_grad()
        output = training.model(pixels(images.index_select(0, index)))
        loss = F.cross_entropy(output, labels.index_select(0, index))
        loss.backward()
        training.step()
        if rank == 0 and args.log_every and (step + 1) % args.log_every == 0:
            seconds = time.perf_counter() - start - paused
            print(f"iter {step + 1}/{iters}  loss {loss.item():.4f}  "
                  f"{(step + 1) * args.batch * args.ranks / seconds:.1f} samples/s", flush=True)
        if args.eval_every and (step + 1) % args.eval_every == 0 and step + 1 < iters:
            dist.barrier()
            stop = time.perf_counter()
            if rank == 0:  # off the clock, on every core (the other ranks wait)
                torch.set_num_threads(os.cpu_count() or 1)
                accuracy = evaluate(training.module, test_images, test_labels)
                torch.set_num_threads(args.threads)
                evals.append([step + 1, round(stop - start - paused, 4), round(accuracy, 4)])
            dist.barrier()
            paused += time.perf_counter() - stop
    dist.barrier()
    seconds = time.perf_counter() - start - paused
    extra = training.finish()  # collective (consensus distance), off the clock
    if rank == 0:
        accuracy = evaluate(training.module, test_images, test_labels)
        evals.append([iters, round(seconds, 4), round(accuracy, 4)])
        report(args, training, iters, seconds, accuracy, loss.item(), evals, extra)
    dist.destroy_process_group()


def report(args, training, iters, seconds, accuracy, loss, evals, extra):
    """Rank 0's summary line and JSON line."""
    reached = [e for e in evals if args.target_accuracy and e[2] >= args.target_accuracy]
    sent, overhead = training.traffic(iters)
    p = args.ranks
    result = dict.fromkeys(["hook", "compress", "average", "average_impl", "group_size",
                            "gossip", "gossip_algorithm", "gamma"])
    result.update(training.describe())
    result.update({
        "ranks": p, "batch": args.batch, "iters": iters, "seconds": round(seconds, 3),
        "samples_per_s": round(iters * args.batch * p / seconds, 1),
        "test_accuracy": round(accuracy, 4), "final_loss": round(loss, 4),
        "bytes_per_iteration": round(sent),
        "parameters": sum(q.numel() for q in training.module.parameters()),
        "hook_ms_per_iteration": None if overhead is None else round(1000 * overhead, 3),
        "target_accuracy": args.target_accuracy or None,
        "time_to_target": reached[0][1] if reached else None,
        "iterations_to_target": reached[0][0] if reached else None,
        "evals": evals,
    })
    result["consensus_distance"] = None
    result.update(extra)
    print(f"{training.label()}: {result['samples_per_s']} samples/s, test accuracy "
          f"{accuracy:.4f}, {sent / 1e6:.3f} MB sent per iteration (rank 0)", flush=True)
    print(json.dumps(result), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compress", default="none", help="tetrad compressor spec")
    parser.add_argument("--hook", choices=["tetrad", "plain", "torch-fp16"], default=None,
                        help="how DDP reduces gradients (default tetrad)")
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
    _lab_modes.add_arguments(parser)
    args = parser.parse_args()
    problem = _lab_modes.check(args)
    if problem:
        parser.exit(2, f"{parser.prog}: error: {problem}\n")
    if not (args.average or args.gossip):
        args.hook = args.hook or "tetrad"
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
    if args.compress != "none":
        import tetrad
        try:  # a bad spec fails here, before any process starts
            tetrad.Compressor(args.compress)
        except ValueError as e:
            parser.exit(2, f"{parser.prog}: error: --compress: {e}\n")
    if args.rank >= 0:
        worker(args.rank, args, args.master)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, f"127.0.0.1:{port}"), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
