"""Wrapper subclasses (``Tensor._make_wrapper_subclass`` with ``__torch_dispatch__``), ``Tensor.module_load`` and
``tinytorch.__future__``'s swap of module parameters on conversion and loading: the swap_tensors recipe's steps,
run with both libraries, print the same lines. tinytorch's side runs in a process of its own: the first wrapper
subclass wraps Tensor's op methods for the rest of its process (``utils/_python_dispatch.py``)."""
import contextlib
import io
import os
import subprocess
import sys

import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _wrapper_class(T):
    aten = T.ops.aten
    seen = []

    class QuantizedWeight(T.Tensor):
        @staticmethod
        def __new__(cls, elem, scale):
            return T.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, layout=elem.layout,
                                                   device=elem.device, strides=elem.stride(),
                                                   storage_offset=elem.storage_offset())

        def __init__(self, elem, scale):
            self.elem, self.scale = elem, scale

        def __repr__(self):
            return f"QuantizedWeight({self.elem}, scale={self.scale})"

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            seen.append((str(func), sorted(kwargs)))
            if func in (aten.detach.default, aten._to_copy.default):
                return cls(func(args[0].elem, *args[1:], **kwargs), args[0].scale)
            raise NotImplementedError(f"Unsupported function {func}")
    return QuantizedWeight, seen


def _recipe(T):
    nn = T.nn
    QuantizedWeight, seen = _wrapper_class(T)
    T.manual_seed(0)
    for swap in (False, True):
        T.__future__.set_swap_module_params_on_conversion(swap)
        m = nn.Linear(3, 5, dtype=T.float32)
        m.weight = nn.Parameter(QuantizedWeight(m.weight, 0.5))
        ids = id(m.weight), id(m.bias)
        m.bfloat16()
        print(ids == (id(m.weight), id(m.bias)), m.weight.dtype, m.weight.elem.dtype, m.bias.dtype,
              type(m.weight).__name__, isinstance(m.weight, nn.Parameter))
    T.__future__.set_swap_module_params_on_conversion(False)

    @classmethod
    def loading(cls, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func is T.Tensor.module_load:
            dest, src = args[0], args[1]
            assert type(dest) is cls and type(src) is T.Tensor
            return QuantizedWeight(src, dest.scale)
        with T._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)
    QuantizedWeight.__torch_function__ = loading

    def to_subclass(module):
        if isinstance(module, nn.Linear):
            module.weight = nn.Parameter(QuantizedWeight(module.weight, 0.5), requires_grad=module.weight.requires_grad)
    with T.device("meta"):
        m = nn.Linear(3, 5)
        m.apply(to_subclass)
    T.__future__.set_swap_module_params_on_conversion(True)
    try:
        ids = id(m.weight), id(m.bias)
        print(m.state_dict())
        m.load_state_dict(nn.Linear(3, 5).state_dict(), assign=True)
        print(ids == (id(m.weight), id(m.bias)))
        print(m.state_dict())
    finally:
        T.__future__.set_swap_module_params_on_conversion(False)
    print(seen)


def _printed(T) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _recipe(T)
    return out.getvalue().replace("tinytorch.", "torch.")


def test_swap_tensors_recipe_prints_pytorchs(torch):
    code = ("import os, sys; sys.path[:0] = [sys.argv[1], os.path.dirname(sys.argv[1])]; "  # (and tests/: _oracle)
            "import tinytorch, test_utils_python_dispatch as t; "
            "print(t._printed(tinytorch), end='')")
    ours = subprocess.run([sys.executable, "-c", code, os.path.dirname(__file__)], capture_output=True, text=True,
                          check=True).stdout
    assert ours == _printed(torch)


def test_wrapper_without_dispatch_is_refused():
    class NoDispatch(tinytorch.Tensor):
        pass
    with pytest.raises(RuntimeError, match="__torch_dispatch__"):
        tinytorch.Tensor._make_wrapper_subclass(NoDispatch, (2,))


def test_module_load_default_and_refusals():
    for T in (tinytorch, torch):
        p, v = T.nn.Parameter(T.zeros(2)), T.ones(2)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            p.module_load(v)
        with T.no_grad():
            assert p.module_load(v).tolist() == [1.0, 1.0] and p.tolist() == [1.0, 1.0]
            assert p.module_load(v * 2, assign=True).tolist() == [2.0, 2.0] and p.tolist() == [1.0, 1.0]
    m = tinytorch.nn.Linear(2, 2)
    keep = m.weight
    tinytorch.__future__.set_swap_module_params_on_conversion(True)
    try:
        m.load_state_dict({"weight": tinytorch.ones(2, 2), "bias": tinytorch.zeros(2)})
        m.double()
    finally:
        tinytorch.__future__.set_swap_module_params_on_conversion(False)
    assert keep is m.weight and keep.dtype is tinytorch.float64 and keep.tolist() == [[1.0, 1.0], [1.0, 1.0]]
