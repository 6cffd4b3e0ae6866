"""Runs a function on N gloo ranks in spawned processes and returns their results.

    results = run(2, fn, arg)   # fn(rank, world, arg) on every rank, results[rank]

Each rank is a fresh interpreter (multiprocessing "spawn") with a gloo process
group on a free local port; one thread per rank. A rank that raises makes
run() raise with that rank's traceback; a rank that hangs past `timeout_s`
is killed and reported.
"""
import datetime
import multiprocessing
import os
import socket
import traceback


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _main(rank, world, port, fn, args, queue):
    try:
        import torch
        import torch.distributed as dist
        torch.set_num_threads(1)
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=world, timeout=datetime.timedelta(seconds=60))
        result = fn(rank, world, *args)
        dist.barrier()
        dist.destroy_process_group()
        queue.put((rank, True, result))
    except BaseException:  # noqa: BLE001 -- reported to the parent
        queue.put((rank, False, traceback.format_exc()))


def run(world, fn, *args, timeout_s=120):
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    port = free_port()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    processes = [context.Process(target=_main, args=(r, world, port, fn, args, queue))
                 for r in range(world)]
    for p in processes:
        p.start()
    results, errors = {}, []
    try:
        for _ in range(world):
            rank, ok, value = queue.get(timeout=timeout_s)
            if ok:
                results[rank] = value
            else:
                errors.append(f"rank {rank}:\n{value}")
                break
    except Exception as error:  # queue.Empty: a rank hung
        errors.append(f"no answer from ranks {sorted(set(range(world)) - set(results))} "
                      f"within {timeout_s} s ({type(error).__name__})")
    finally:
        for p in processes:
            p.join(timeout=5 if not errors else 0.5)
            if p.is_alive():
                p.kill()
                p.join()
    if errors:
        raise AssertionError("\n".join(errors))
    return [results[r] for r in range(world)]
