"""``torch.library.opcheck``: PyTorch's checks that an operator (``custom_op``, or ``Library.define`` with its
kernels) is registered correctly, each run on copies of the arguments given (skipped where an argument is
already a meta or fake tensor, as PyTorch skips them):

  * ``test_schema``: run the operator and hold it to its schema: an output that shares memory with an argument
    the schema gives no alias annotation (``Tensor(a)``) fails, then an argument whose values changed without
    being declared mutable (``Tensor(a!)``, ``mutates_args``); PyTorch's SchemaCheckMode messages.
  * ``test_autograd_registration``: when an argument requires grad, the operator must have autograd at an
    autograd key (``register_autograd``, every ``custom_op``, an ``Autograd``/``AutogradCPU`` or
    ``CompositeImplicitAutograd`` kernel); a backend kernel whose outputs come out requiring grad (it recorded
    the graph through its own ops) fails with PyTorch's AssertionError.
  * ``test_faketensor``: run the operator on fake copies of the arguments (``FakeTensorMode.from_tensor``: its fake
    implementation runs) and on the real ones, and compare what came out: the number of results, whether they
    alias the inputs, and each result's requires_grad, shape, dtype, device, significant strides and storage
    offset (PyTorch's MetadataMismatchError texts).
  * ``test_aot_dispatch_dynamic`` (PyTorch: compile through AOTAutograd with dynamic shapes and compare): here the
    call is captured with ``make_fx(tracing_mode="fake")`` (the operator one node, its fake implementation giving
    the shapes), the graph run on the real arguments and its results compared with the eager call's; where the
    results require grad, both are differentiated (a custom op without ``register_autograd`` fails there, with
    PyTorch's error) and the gradients compared. There are no dynamic shapes: the graph is traced at the
    arguments' sizes.
  * ``test_aot_dispatch_static``: the same check."""
from __future__ import annotations

import warnings

import numpy as np

from ._functorch import config as _aot_config
from ._meta_array import MetaArray
from ._op_namespace import OpOverload, OpOverloadPacket
from ._subclasses.fake_tensor import FakeTensorMode, MetadataMismatchError, _flat
from .autograd import grad as _grad
from .fx.experimental.proxy_tensor import make_fx
from .tensor import Tensor
from .testing import assert_close

__all__ = ["opcheck", "OpCheckError"]

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
_ALL = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_static",
        "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    pass


def _map(x, fn):
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_map(v, fn) for v in x)
    if isinstance(x, dict):
        return {k: _map(v, fn) for k, v in x.items()}
    return x


def _copy(x):
    """The arguments with every tensor a fresh leaf copy (same values, strides and requires_grad)."""
    def one(t):
        return t.detach().clone().requires_grad_(t.requires_grad)
    return _map(x, one)


def _abstract(args, kwargs) -> bool:
    return any(t._meta for t in _flat((args, kwargs), []))


# -- test_schema ---------------------------------------------------------------------------------------------
def _shares(a: Tensor, b: Tensor) -> bool:
    if a is b:
        return True
    da, db = a._data, b._data
    if type(da) is MetaArray or type(db) is MetaArray:
        return _root(a) is _root(b)
    return bool(np.may_share_memory(da, db))


def _root(t: Tensor) -> Tensor:
    while t._base is not None:
        t = t._base
    return t


def _schema_check(op: OpOverload, args, kwargs, **_):
    args, kwargs = _copy((args, kwargs))
    if _abstract(args, kwargs):
        return
    schema = op._schema
    bound = schema.bind(args, kwargs)
    before = [[(t, np.array(t._data, copy=True)) for t in _flat(v, [])] for v in bound]
    out = op(*args, **kwargs)
    outs = _flat(out, [])
    for arg, value in zip(schema.arguments, bound):
        if "(" in arg.type:  # an alias annotation: declared to alias or to be written
            continue
        if any(_shares(o, t) for t in _flat(value, []) for o in outs):
            raise RuntimeError(f"Argument {arg.name} is not defined to alias output but was aliasing")
    for arg, held in zip(schema.arguments, before):
        if "!" in arg.type:
            continue
        for t, old in held:
            if not np.array_equal(old, t._data, equal_nan=old.dtype.kind in "fc"):
                raise RuntimeError(f"Argument {arg.name} is not defined as mutable but was mutated")
    return out


# -- test_autograd_registration ------------------------------------------------------------------------------
_AUTOGRAD_KEYS = ("AutogradCPU", "Autograd", "CompositeImplicitAutograd")


def _autograd_registration_check(op: OpOverload, args, kwargs, **_):
    if _abstract(args, kwargs):
        return
    args, kwargs = _copy((args, kwargs))
    inputs = _flat((args, kwargs), [])
    if not any(t.requires_grad for t in inputs):
        return
    if op.autograd is not None or any(k in op.kernels for k in _AUTOGRAD_KEYS):
        return
    outs = _flat(op(*args, **kwargs), [])
    if any(o.requires_grad and not any(o is t for t in inputs) for o in outs):
        raise AssertionError(
            f"{op.name()}: at least one output of this operator has requires_grad=True but the operator does not "
            "have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). This could mean that "
            "you have incorrectly registered an autograd kernel to a non-Autograd DispatchKey, which may lead to "
            "silently incorrect results. If your operator consists of regular PyTorch operations, consider not using "
            "an operator at all or registering your operator as CompositeImplicitAutograd. If you have an "
            "autograd.Function registered to a backend (CPU/CUDA/XPU) key, the correct location for it is the "
            "Autograd key.")


# -- test_faketensor -----------------------------------------------------------------------------------------
def _alias_any(outs: list, inputs: list) -> bool:
    return any(_shares(o, t) for o in outs for t in inputs)


def _is_any(outs: list, inputs: list) -> bool:
    return any(o is t for o in outs for t in inputs)


def _each_other(outs: list) -> bool:
    return any(_shares(a, b) for i, a in enumerate(outs) for b in outs[i + 1:])


def _significant_stride_mismatch(a: Tensor, b: Tensor):
    for i, (n, sa, sb) in enumerate(zip(a.shape, a.stride(), b.stride())):
        if n > 1 and sa != sb:
            return i
    return None


def _compare_meta(real: Tensor, fake: Tensor, context: str) -> None:
    if real.requires_grad != fake.requires_grad:
        raise MetadataMismatchError(f"{context} mismatched requires_grad-ness of outputs. This usually means that you "
                                    "have added autograd support for your operator at a dispatch key other than "
                                    "Autograd, which will lead to problems")
    if real.storage_offset() != fake.storage_offset():
        raise MetadataMismatchError(f"{context} mismatched storage offset")
    if real.shape != fake.shape:
        raise MetadataMismatchError(f"Shapes {real.shape} and {fake.shape} are not equal!")
    if real.dtype != fake.dtype:
        raise MetadataMismatchError(f"Dtypes {real.dtype} and {fake.dtype} are not equal!")
    if real.device != fake.device:
        raise MetadataMismatchError(f"Devices {real.device} and {fake.device} are not equal!")
    idx = _significant_stride_mismatch(real, fake)
    if idx is not None:
        raise MetadataMismatchError(f"Stride mismatch! Strides are {real.stride()} and {fake.stride()} (mismatched at "
                                    f"{idx})!")


def _fake_check(op: OpOverload, args, kwargs, **_):
    if _abstract(args, kwargs):
        return
    args, kwargs = _copy((args, kwargs))
    mode = FakeTensorMode()
    fake_args, fake_kwargs = _map((args, kwargs), mode.from_tensor)
    with mode:
        fake_out = op(*fake_args, **fake_kwargs)
    context = f"When comparing the output of {op!r} on FakeTensor and concrete Tensors, found"
    out = op(*args, **kwargs)
    real, fakes = _leaves(out), _leaves(fake_out)
    if len(real) != len(fakes):
        raise AssertionError(f"{context} mismatch in number of returns {len(fakes)} != {len(real)}")
    r_in, f_in = _flat((args, kwargs), []), _flat((fake_args, fake_kwargs), [])
    r_t, f_t = [o for o in real if isinstance(o, Tensor)], [o for o in fakes if isinstance(o, Tensor)]
    for what, r_val, f_val in (("outputs_alias_inputs", _alias_any(r_t, r_in), _alias_any(f_t, f_in)),
                               ("outputs_are_inputs", _is_any(r_t, r_in), _is_any(f_t, f_in)),
                               ("outputs_alias_each_other", _each_other(r_t), _each_other(f_t))):
        if r_val != f_val:
            raise MetadataMismatchError(f"{context} mismatch in {what} check {f_val} != {r_val}")
    for idx, (r, f) in enumerate(zip(real, fakes)):
        if isinstance(r, Tensor) != isinstance(f, Tensor):
            raise AssertionError(f"{context} mismatched number of tensor outputs")
        if isinstance(r, Tensor):
            try:
                _compare_meta(r, f, context)
            except MetadataMismatchError as e:
                where = "" if len(real) == 1 else f" for output[{idx}]"
                raise MetadataMismatchError(f"{context} mismatched tensor metadata{where}: {e}") from e
    return out


def _leaves(out) -> list:
    if isinstance(out, (list, tuple)):
        return [leaf for v in out for leaf in _leaves(v)]
    return [] if out is None else [out]


# -- test_aot_dispatch_dynamic -------------------------------------------------------------------------------
def _aot_check(op: OpOverload, args, kwargs, rtol=None, atol=None, **_):
    if _abstract(args, kwargs):
        return
    flat = _flat((args, kwargs), [])

    def program(*tensors):
        it = iter(tensors)
        a, k = _map((args, kwargs), lambda t: next(it))
        return op(*a, **k)

    gm = make_fx(program, tracing_mode="fake")(*_copy(flat))
    eager_in, graph_in = _copy(flat), _copy(flat)
    eager, graph = program(*eager_in), gm(*graph_in)
    if _aot_config.check_custom_op_aliasing:
        _aliasing_check(op, eager_in, _flat(eager, []))
    e_out, g_out = _flat(eager, []), _flat(graph, [])
    tol = {} if rtol is None else {"rtol": rtol, "atol": atol}
    for e, g in zip(e_out, g_out):
        assert_close(g.detach(), e.detach(), equal_nan=True, **tol)
    e_diff = [o for o in e_out if o.requires_grad]
    if not e_diff:
        return
    g_diff = [o for o in g_out if o.requires_grad]
    wrt = [i for i, t in enumerate(flat) if t.requires_grad]
    e_grads = _grad(e_diff, [eager_in[i] for i in wrt], [o.detach().clone().fill_(1) for o in e_diff],
                    allow_unused=True)
    g_grads = _grad(g_diff, [graph_in[i] for i in wrt], [o.detach().clone().fill_(1) for o in g_diff],
                    allow_unused=True)
    for e, g in zip(e_grads, g_grads):
        if e is not None and g is not None:
            assert_close(g, e, equal_nan=True, **tol)


def _schema_allows_aliasing(op: OpOverload) -> bool:
    schema = op._schema
    return (any("(" in r for r in schema.returns)
            or any("(" in a.type and "!" not in a.type for a in schema.arguments))  # a view operator


def _aliasing_check(op: OpOverload, inputs: list, outs: list) -> None:
    """AOTAutograd's first-call check that a custom operator hands back no input and no memory an input or
    another result holds; an error where ``config.error_on_custom_op_aliasing`` is set, else a warning."""
    if op.namespace in ("aten", "prim", "prims", "_c10d_functional", "c10d", "onednn") or _schema_allows_aliasing(op):
        return
    if not any(_shares(o, t) for o in outs for t in inputs) and not _each_other(outs):
        return
    msg = (f"{op.name()} (with implementation in ???): The output of this custom operator (1) must not also be an "
           "input to this custom operator and (2) may not alias any inputs to this custom operator or other "
           "returns. The most common way to trigger this error is if we have y = custom_op(x) and y and x are the "
           "same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. return x.clone()) "
           "or refactor the custom operator to not return y.")
    if _aot_config.error_on_custom_op_aliasing:
        raise RuntimeError(msg)
    warnings.warn(msg + " This is deprecated and will become an error in a future version of PyTorch.", UserWarning,
                  stacklevel=3)


_TESTERS = {"test_schema": _schema_check, "test_autograd_registration": _autograd_registration_check,
            "test_faketensor": _fake_check, "test_aot_dispatch_static": _aot_check,
            "test_aot_dispatch_dynamic": _aot_check}


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception: bool = True,
            rtol: float | None = None, atol: float | None = None) -> dict:
    """Check ``op``'s registrations on ``args``: each of ``test_utils`` answers "SUCCESS" in the dict returned,
    or raises ``OpCheckError`` (with ``raise_exception=False``: its exception in the dict). See the module."""
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    kwargs = {} if kwargs is None else kwargs
    if isinstance(getattr(op, "_opoverload", None), OpOverload):  # a CustomOpDef (custom_op)
        op = op._opoverload
    if isinstance(op, OpOverloadPacket):
        overloads = op.overloads()
        if len(overloads) != 1:
            raise RuntimeError(f"This function only works for OpOverloadPacket with a single overload, got "
                               f"{op} with {len(overloads)} overloads")
        op = getattr(op, overloads[0])
    if not isinstance(op, OpOverload):
        raise ValueError(f"opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
                         f"torch.ops.aten.sin.default, got {type(op)}")
    if test_utils == "ALL":
        test_utils = _ALL
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils).issubset(_ALL):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of {_ALL} but "
                         "it was not")
    results = {}
    for name in test_utils:
        try:
            _TESTERS[name](op, args, kwargs, rtol=rtol, atol=atol)
            results[name] = "SUCCESS"
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") from ex
            results[name] = ex
    return results
