"""Bad input raises a clear Python exception naming the problem."""
import datetime

import numpy
import pytest
import torch
import torch.distributed as dist

import tetrad
import tetrad.torch as tt
from distributed import free_port, run


@pytest.fixture(scope="module")
def one_rank():
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0,
                            world_size=1, timeout=datetime.timedelta(seconds=30))
    yield
    dist.destroy_process_group()


def test_unknown_spec(one_rank):
    with pytest.raises(tetrad.InvalidArgument, match="nosuch"):
        tt.HookState(None, compress="nosuch:3")
    with pytest.raises(ValueError, match="ratio"):  # InvalidArgument is a ValueError
        tt.HookState(None, compress="topk:0")
    with pytest.raises(tetrad.InvalidArgument, match="onebit"):
        tt.HookState(None, compress="onebit,ef")  # error feedback is built in
    with pytest.raises(TypeError, match="spec string"):
        tt.HookState(None, compress=None)


def test_non_float_bucket(one_rank):
    state = tt.HookState(None, compress="topk:0.1")
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        state.reduce(torch.zeros(10, dtype=torch.float64), "b", [[10]])
    with pytest.raises(TypeError, match="float64"):
        state.reduce(torch.zeros(10, dtype=torch.float64), "b", [[10]])
    with pytest.raises(ValueError, match="elements"):
        state.reduce(torch.zeros(10), "b", [[11]])


def test_non_float32_model_in_ddp(one_rank):
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2).double())
    model.register_comm_hook(tt.HookState(None, compress="fp16"), tt.comm_hook)
    with pytest.raises(Exception, match="float32"):
        model(torch.zeros(3, 4, dtype=torch.float64)).sum().backward()


def test_arrays_are_never_converted():
    compressor = tetrad.Compressor("qsgd:4")
    state = tetrad.CompressorState(1, 0)
    with pytest.raises(TypeError, match="float32.*float64"):
        compressor.encode(numpy.zeros(8), state)
    packet = compressor.encode(numpy.ones(8, numpy.float32), state)
    with pytest.raises(ValueError, match="read-only"):
        out = numpy.zeros(8, numpy.float32)
        out.setflags(write=False)
        compressor.decode_add(packet, out)
    with pytest.raises(tetrad.ProtocolError):
        compressor.decode_add(packet[:-3], numpy.zeros(8, numpy.float32))
    with pytest.raises(tetrad.ProtocolError):
        tetrad.CompressorState.deserialize(b"not a state")


def disagreeing_spec(rank, world):
    import tetrad.torch as tt
    tt.HookState(None, compress="fp16" if rank == 0 else "bf16")


def test_ranks_that_disagree():
    with pytest.raises(AssertionError, match="ranks disagree: rank 0 has compress='fp16'.*"
                                             "rank 1 has compress='bf16'"):
        run(2, disagreeing_spec)
