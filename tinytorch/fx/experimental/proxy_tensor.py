"""``torch.fx.experimental.proxy_tensor.make_fx``: run a program once and record every op it runs as an fx graph of
PyTorch's ATen operators (``torch.ops.aten.mul.Tensor``, ``aten.addmm.default``...), below autograd, as PyTorch's
dispatcher shows them. The recording is the capture that export, jit and torch.compile share (``_capture.py``).

``tracing_mode="fake"`` runs the program in a ``FakeTensorMode`` on fake tensors made like the inputs (shapes,
dtypes, strides and device, no data: ``tinytorch/_subclasses/fake_tensor.py``), so nothing is computed; a real
tensor the program reads (a module's weight) is refused as PyTorch refuses it, or converted with
``_allow_non_fake_inputs=True``; ``"real"`` runs it on the inputs themselves. ``"symbolic"``
(symbolic sizes) is refused. Where autograd records, an op whose backward saves its own output shows PyTorch's
``detach`` of it (an unused node), and a program that calls ``torch.autograd.grad`` records its backward's ops,
as the engine runs them."""
from __future__ import annotations

import contextlib
import inspect

from ..._subclasses.fake_tensor import FakeTensorMode
from ...tensor import Tensor
from ...utils import _pytree as pytree
from .. import graph as _graph
from ..graph_module import GraphModule
from ._capture import Recording, capturing

__all__ = ["make_fx", "get_proxy_mode", "Recording", "capturing"]


# -- make_fx ---------------------------------------------------------------------------------------------
def get_proxy_mode():
    """None: tinytorch's capture is no dispatch mode (libraries ask this before a path tracing cannot follow)."""
    return None


def _placeholder_names(f, args) -> list:
    """make_fx's names for the inputs' leaves: ``<parameter>_<k>`` (``x_1``; ``params_1``, ``params_2``... for the
    leaves of a structured argument), ``arg<i>_<k>`` past the named parameters."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i].name if i < len(params) else f"arg{i}"
        names += [f"{base}_{k + 1}" for k in range(len(pytree.tree_leaves(a)))]
    return names


def make_fx(f, decomposition_table=None, tracing_mode: str = "real", _allow_non_fake_inputs: bool = False, *,
            pre_dispatch: bool = False, record_module_stack: bool = False, _allow_fake_constant: bool = False,
            _error_on_data_dependent_ops: bool = True, record_stack_traces: bool = False):
    """``make_fx(f, tracing_mode=...)(*args)``: the GraphModule of the ATen ops ``f(*args)`` runs."""
    if tracing_mode == "symbolic":
        raise NotImplementedError("make_fx(tracing_mode='symbolic'): tinytorch has no symbolic sizes; trace with "
                                  "tracing_mode='real' or 'fake'")
    if tracing_mode not in ("real", "fake"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")

    def wrapped(*args):
        leaves, spec = pytree.tree_flatten(args)
        names = _placeholder_names(f, args)
        fake = contextlib.nullcontext()
        if tracing_mode == "fake":  # the inputs as fake tensors, and the program run in their mode
            fake = FakeTensorMode(allow_non_fake_inputs=_allow_non_fake_inputs)
            leaves = [fake.from_tensor(x) if isinstance(x, Tensor) else x for x in leaves]
        rec = Recording(predispatch=pre_dispatch)
        rec.strict_backward = True
        rec.fake_mode = fake if tracing_mode == "fake" else None
        for leaf, name in zip(leaves, names):
            node = rec.graph.placeholder(name)
            if isinstance(leaf, Tensor):
                rec.bind(leaf, node)
            else:
                node.meta["val"] = leaf
        with capturing(rec), fake:
            out = f(*pytree.tree_unflatten(leaves, spec))
        out_leaves, out_spec = pytree.tree_flatten(out)
        structured = any(not pytree.tree_flatten(a)[1].is_leaf() for a in args)
        if structured:
            rec.graph.output(rec.node(list(out_leaves)))
            info = _graph._PyTreeInfo(_positional_names(f, len(args)), spec, out_spec)
            rec.graph._codegen = _graph._PyTreeCodeGen(info)
        else:
            rec.graph.output(rec.node(out))
        root = {name: t for name, t in rec.constants.items()}
        return GraphModule(root, rec.graph)
    return wrapped


def _positional_names(f, n: int) -> list:
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"arg{i}" for i in range(n)]
