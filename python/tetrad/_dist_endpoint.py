"""DistEndpoint: the torch.distributed side of tetrad's Transport.

tetrad's C++ Transport over Python (python/src/py_transport.h) calls these
methods to move its messages; tetrad's own protocols (majority vote, gTop-k,
PowerSGD, the ring all-reduce with a 16-bit wire) then run unchanged over
torch.distributed point-to-point operations of one process group.

Framing: a message is an int64 length (tag 2*t) followed, when not empty, by
the payload as uint8 (tag 2*t+1), so that a receiver that does not know the
size (recv_message) can learn it. gloo aborts the process on a receive of
the wrong size, so payloads are received only after their length was read
and checked; a mismatch raises ValueError naming the peer, tag and sizes.
Views passed in are memoryviews of C++ buffers that stay valid until the
handle is waited for (the Transport contract).

Peers are ranks of the group. Threads: the caller holds the GIL (the C++
side takes it); one tetrad call at a time per endpoint.
"""
import datetime

import torch
import torch.distributed as dist


def global_rank(group, rank):
    """The global rank of `rank` of `group` (torch.distributed's p2p calls take global ranks)."""
    if group is None or group is dist.group.WORLD:
        return rank
    return dist.distributed_c10d._get_global_rank(group, rank)


class _Sent:
    def __init__(self, works, keep, timeout):
        self._works = works
        self._keep = keep  # tensors that must outlive the sends
        self._timeout = timeout

    def wait(self):
        for work in self._works:
            work.wait(self._timeout)
        self._keep = None

    def is_completed(self):
        return all(work.is_completed() for work in self._works)


class _Received:
    def __init__(self, endpoint, peer, tag, view):
        self._endpoint = endpoint
        self._peer = peer
        self._tag = tag
        self._view = view
        self._header = torch.zeros(1, dtype=torch.int64)
        self._work = dist.irecv(self._header, endpoint.to_global(peer), group=endpoint.group,
                                tag=2 * tag)

    def wait(self):
        self._work.wait(self._endpoint.timeout)
        size = int(self._header[0])
        if size != len(self._view):
            raise ValueError(f"message of {size} bytes from rank {self._peer} with tag "
                             f"{self._tag}, expected {len(self._view)}")
        if size:
            payload = torch.frombuffer(self._view, dtype=torch.uint8)
            self._endpoint.receive_payload(payload, self._peer, self._tag)

    def is_completed(self):
        # The length has arrived; wait() then receives the payload.
        return self._work.is_completed()


class DistEndpoint:
    """Point-to-point messages of tetrad's Transport over one torch.distributed group."""

    def __init__(self, group=None, timeout_s=300.0):
        self.group = dist.group.WORLD if group is None else group
        self.timeout = datetime.timedelta(seconds=timeout_s)
        self._global = [global_rank(self.group, r)
                        for r in range(dist.get_world_size(self.group))]

    def to_global(self, peer):
        return self._global[peer]

    def isend(self, peer, tag, view):
        dst = self.to_global(peer)
        header = torch.tensor([len(view)], dtype=torch.int64)
        works = [dist.isend(header, dst, group=self.group, tag=2 * tag)]
        keep = [header]
        if len(view):
            payload = torch.frombuffer(view, dtype=torch.uint8)
            works.append(dist.isend(payload, dst, group=self.group, tag=2 * tag + 1))
            keep.append(payload)
        return _Sent(works, keep, self.timeout)

    def irecv(self, peer, tag, view):
        return _Received(self, peer, tag, view)

    def receive_payload(self, payload, peer, tag):
        dist.irecv(payload, self.to_global(peer), group=self.group,
                   tag=2 * tag + 1).wait(self.timeout)

    def recv_message(self, peer, tag):
        header = torch.zeros(1, dtype=torch.int64)
        dist.irecv(header, self.to_global(peer), group=self.group,
                   tag=2 * tag).wait(self.timeout)
        size = int(header[0])
        payload = torch.empty(size, dtype=torch.uint8)
        if size:
            self.receive_payload(payload, peer, tag)
        return payload.numpy()
