"""The three ways a bucket travels in tetrad's DDP comm hook (tetrad.torch).

Each function takes the bucket's flat float32 tensor (CPU), a per-bucket
CompressorState and the HookState, and returns a torch.futures.Future whose
value is the same tensor holding the average of every rank's decoded
contribution:

  allreduce  summable compressors whose wire torch can reduce (none, fp16,
             randomk): encode_summable -> dist.all_reduce (float32, or
             float16 for fp16: 16 bits travel) -> expand_summed -> / p.
             Asynchronous: the decode runs in the Future's callback.
  allgather  gather compressors (topk, qsgd, terngrad, natural, onebit,
             efsign, threshold, dgc): encode -> all_gather of the packet
             lengths, then of the packets padded to the longest -> decode
             every rank's packet in rank order -> / p, exactly tetrad's
             aggregate() gather path (bit-identical result).
  tetrad     custom protocols (sign's majority vote, gtopk, powersgd) and
             bf16 (gloo has no bfloat16 sum): tetrad's own aggregate() over a
             Transport on torch.distributed isend/irecv. Synchronous: the
             Future is complete when it is returned.

Collectives are issued from the hook's thread in bucket order (DDP calls
hooks in that order on every rank), never from a Future callback, so every
rank issues the same sequence.
"""
import time

import numpy
import torch
import torch.distributed as dist

from tetrad import _tetrad

# What a ring of p ranks sends per rank (gloo picks its own algorithms; this
# is the model the stats report, labelled as such in docs/python.md).
def ring_allreduce_bytes(nbytes, p):
    return 0 if p == 1 else 2 * (p - 1) * nbytes // p


def completed(value):
    """A torch Future that already holds `value`."""
    future = torch.futures.Future()
    future.set_result(value)
    return future


def path_of(compressor):
    """'allreduce', 'allgather' or 'tetrad' for a Compressor (see the module doc)."""
    if compressor.aggregation == "summable":
        return "tetrad" if compressor.summable_wire == "bf16" else "allreduce"
    if compressor.aggregation == "gather":
        return "allgather"
    return "tetrad"


def scratch_buffer(scratch, name, numel, dtype):
    """A buffer kept per bucket across iterations: fresh memory costs page faults."""
    buffer = scratch.get(name)
    if buffer is None or buffer.numel() != numel:
        buffer = scratch[name] = torch.empty(numel, dtype=dtype)
    return buffer


def allreduce(hook, tensor, state, scratch, source=None, average=True):
    """source: None (encode `tensor`) or (int16 view, 'fp16'|'bf16') of a half bucket whose
    values are encoded as they are read; `tensor` then only receives the result. average
    False leaves the sum (the caller divides)."""
    p, compressor = hook.world_size, hook.compressor
    start = time.perf_counter()
    if source is not None:
        wire = torch.from_numpy(compressor.encode_summable_half(source[0], source[1], state,
                                                                     tensor.numpy()))
        if compressor.summable_wire == "fp16":
            wire = scratch_buffer(scratch, "fp16", wire.numel(), torch.float16).copy_(wire)
    elif compressor.is_identity:
        # Zero-copy like aggregate(): the bucket itself is all-reduced; the
        # aggregation still consumes a step.
        state.step += 1
        wire = tensor
    else:
        wire = torch.from_numpy(compressor.encode_summable(tensor.numpy(), state))
        if compressor.summable_wire == "fp16":
            # Exact: the values are fp16 numbers.
            wire = scratch_buffer(scratch, "fp16", wire.numel(), torch.float16).copy_(wire)
    encoded = time.perf_counter()
    hook.count(encode_s=encoded - start,
               bytes_sent=ring_allreduce_bytes(wire.numel() * wire.element_size(), p))
    work = dist.all_reduce(wire, group=hook.group, async_op=True)

    def finish(_):
        begin = time.perf_counter()
        out = tensor.numpy()
        if not compressor.is_identity:
            summed = wire
            if wire.dtype != torch.float32:
                summed = scratch_buffer(scratch, "fp32", wire.numel(), torch.float32).copy_(wire)
            compressor.expand_summed(summed.numpy(), state, out)
        _tetrad.finish_reduction(out, p, average)
        hook.count(decode_s=time.perf_counter() - begin)
        return tensor

    return work.get_future().then(finish)


def allreduce_as_is(hook, tensor, state, fmt):
    """A plain cast (fp16) on a bucket of its own precision: the encoded path would send
    the bucket's own values, so the bucket itself is summed and then divided in place,
    the same bits as encode -> all-reduce -> expand -> average -> narrow. The step the
    encode would consume is consumed."""
    p = hook.world_size
    state.step += 1
    hook.count(bytes_sent=ring_allreduce_bytes(2 * tensor.numel(), p))
    work = dist.all_reduce(tensor, group=hook.group, async_op=True)

    def finish(_):
        begin = time.perf_counter()
        if p > 1:
            _tetrad.divide_half(tensor.view(torch.int16).numpy(), fmt, float(p))
        hook.count(decode_s=time.perf_counter() - begin)
        return tensor

    return work.get_future().then(finish)


def allgather(hook, tensor, state, source=None, average=True):
    """source and average: as allreduce's."""
    p, compressor, group = hook.world_size, hook.compressor, hook.group
    start = time.perf_counter()
    if source is None:
        packet = compressor.encode(tensor.numpy(), state)
    else:
        packet = compressor.encode_half(source[0], source[1], state, tensor.numpy())
    encoded = time.perf_counter()
    # Lengths first (packets of threshold, dgc and qsgd:S:elias vary).
    length = torch.tensor([len(packet)], dtype=torch.int64)
    lengths = [torch.zeros(1, dtype=torch.int64) for _ in range(p)]
    dist.all_gather(lengths, length, group=group)
    sizes = [int(x[0]) for x in lengths]
    longest = max(sizes)
    mine = torch.zeros(longest, dtype=torch.uint8)
    mine.numpy()[:len(packet)] = numpy.frombuffer(packet, dtype=numpy.uint8)
    gathered = [torch.empty(longest, dtype=torch.uint8) for _ in range(p)]
    hook.count(encode_s=encoded - start, bytes_sent=(p - 1) * (longest + 8))
    work = dist.all_gather(gathered, mine, group=group, async_op=True)

    def finish(_):
        begin = time.perf_counter()
        packets = [g.numpy()[:n] for g, n in zip(gathered, sizes)]
        compressor.decode_sum(packets, tensor.numpy(), average)
        hook.count(decode_s=time.perf_counter() - begin)
        return tensor

    return work.get_future().then(finish)


def over_tetrad(hook, tensor, segments, average=True):
    """tetrad's aggregate() over the torch.distributed Transport, one call per segment
    (average False: the sum, for a caller that divides)."""
    transport = hook.transport
    sent, messages = transport.bytes_sent, transport.messages_sent
    start = time.perf_counter()
    flat = tensor.numpy()
    for offset, count, state in segments:
        _tetrad.aggregate(transport, hook.compressor, flat[offset:offset + count], state,
                          tag=hook.tag, average=average, allreduce="ring")
    # Payload bytes plus the endpoint's 8-byte length per message.
    framed = (transport.bytes_sent - sent) + 8 * (transport.messages_sent - messages)
    hook.count(protocol_s=time.perf_counter() - start, bytes_sent=framed)
    return completed(tensor)
