"""``python -m tinytorch.explain OP`` names every CPU path bound below the op, however deep the reference's calls go:
conv2d's reference reaches ``_conv_arrays`` through ``_convnd`` and ``_conv``, and its node's formula reaches
``_conv_grads_arrays``; each of those steps is a kernel ``_cpu/conv.py`` binds. A path that no op's explanation names
is a path a reader cannot find from the op: only the engine's and the optimizers' kernels (they sit below no op) may
be unnamed."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tinytorch import explain
from tinytorch._ops._core import paths
from tinytorch._ops._core.registry import ATEN_ONLY, REGISTRY

pytestmark = pytest.mark.skipif(paths.REFERENCE, reason="TINYTORCH_REFERENCE=1 binds no CPU path")

# the modules whose kernels are below no op (the engine's loop, the optimizers' updates), and the sparse arrays'
# multiply-add (``_cpu/sparse.py``), which the sparse handlers reach through the layout's dispatch and shared
# helpers of another module, where an op's explanation does not follow
_BELOW_NO_OP = ("engine", "sgd", "arrays")


def _listed(key: str) -> list:
    ref = explain.declared(key)[0]
    return explain.paths_of(key, ref, explain.nodes_of(ref))


def test_conv2d_names_the_convolution_kernels():
    targets = {p.target for p in _listed(explain.find("conv2d"))}
    assert {"conv._conv_arrays", "conv._conv_t_arrays", "conv._conv_w_arrays", "conv._conv_grads_arrays"} <= targets
    text = subprocess.run([sys.executable, "-m", "tinytorch.explain", "--brief", "conv2d"], capture_output=True,
                          text=True, check=True).stdout
    assert "none: the reference runs" not in text and "tinytorch._cpu.conv:" in text
    assert "ConvolutionBackward0: backward formula at" in text


def test_every_bound_path_is_named_by_some_op():
    keys = list(REGISTRY) + [explain.find(f"ops.aten.{name}") for name in ATEN_ONLY]
    named = {(p.target, p.kind) for key in keys for p in _listed(key)}
    unnamed = sorted(f"{p.kind} {p.target}" for ps in paths.PATHS.values() for p in ps
                     if (p.target, p.kind) not in named and p.target.partition(".")[0] not in _BELOW_NO_OP)
    assert not unnamed, f"no op's explanation reaches these paths: {unnamed}"


def test_a_shared_helper_brings_no_other_ops_paths():
    """relu's explanation names its own two steps (``_cpu/relu.py``: the forward's and the backward's) and no kernel
    of the index machinery or the convolution (the walk follows the op's own module only)."""
    assert sorted(p.target for p in _listed(explain.find("relu"))) == \
        ["activation._relu", "activation._threshold_backward_array"]


def test_the_onednn_lstm_layer_names_the_recurrent_kernels():
    """nn.LSTM's layer is the ATen operator ``mkldnn_rnn_layer`` (no public op): its explanation reaches the layer's
    array step from the reference and the gradients' step through its node's base class (``super().backward``)."""
    assert explain.find("torch.ops.aten.mkldnn_rnn_layer.default") == "ops.aten.mkldnn_rnn_layer"
    assert {p.target for p in _listed("ops.aten.mkldnn_rnn_layer")} == {"rnn._layer_arrays", "rnn._layer_grads"}
    text = subprocess.run([sys.executable, "-m", "tinytorch.explain", "--brief", "mkldnn_rnn_layer"],
                          capture_output=True, text=True, check=True).stdout
    assert "torch.ops.aten.mkldnn_rnn_layer: declared at tinytorch/_ops/nn/rnn.py" in text
    assert "kernel rnn._layer_grads -> tinytorch._cpu.rnn:" in text
