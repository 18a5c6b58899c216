"""Legacy and deprecated spellings still met in published code, compared with PyTorch: the legacy
constructors (``torch.Tensor(torch.Size([2, 3]))`` and ``torch.Tensor(2, 3)`` are uninitialised tensors of
that shape, not data; ``t.new(...)``) and the deprecated ``(Number, Tensor)`` overloads
(``t.add_(2, other)``, ``torch.addcmul(t, 0.5, a, b)``, ``m.addmm(beta, alpha, a, b)``, ...) with PyTorch's
deprecation warning, which PyTorch gives once per process (``TORCH_WARN_ONCE``)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tinytorch
from _messages import normalise


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# -- legacy constructors (values of uninitialised tensors are not compared) --------------------------
CONSTRUCTORS = {
    "Tensor_Size": lambda lib: lib.Tensor(lib.Size([2, 3])),
    "Tensor_Size_0d": lambda lib: lib.Tensor(lib.Size([])),
    "Tensor_sizes": lambda lib: lib.Tensor(2, 3),
    "Tensor_one_size": lambda lib: lib.Tensor(3),
    "Tensor_empty": lambda lib: lib.Tensor(),
    "Tensor_list": lambda lib: lib.Tensor([2, 3]),
    "Tensor_tuple": lambda lib: lib.Tensor((2.5, 3)),
    "Tensor_nested": lambda lib: lib.Tensor([[1, 2], [3, 4]]),
    "Tensor_numpy": lambda lib: lib.Tensor(np.array([1, 2])),
    "Tensor_float_tensor": lambda lib: lib.Tensor(lib.tensor([1.0, 2.0])),
    "Tensor_long_tensor": lambda lib: lib.Tensor(lib.tensor([1, 2])),
    "Tensor_device": lambda lib: lib.Tensor(2, device="cpu"),
    "FloatTensor_Size": lambda lib: lib.FloatTensor(lib.Size([2])),
    "DoubleTensor_Size": lambda lib: lib.DoubleTensor(lib.Size([1, 2])),
    "LongTensor_sizes": lambda lib: lib.LongTensor(2, 3),
    "LongTensor_list": lambda lib: lib.LongTensor([2, 3]),
    "new_Size": lambda lib: lib.ones(2, dtype=lib.float64).new(lib.Size([3])),
    "new_sizes": lambda lib: lib.ones(2).new(2, 2),
    "new_list": lambda lib: lib.ones(2, dtype=lib.int64).new([2, 2]),
    "new_nothing": lambda lib: lib.ones(2).new(),
}
FILLED = {"Tensor_list", "Tensor_tuple", "Tensor_nested", "Tensor_numpy", "Tensor_float_tensor", "Tensor_long_tensor",
          "LongTensor_list", "new_list", "Tensor_empty", "new_nothing"}
REFUSED = {
    "negative_size": lambda lib: lib.Tensor(-1),
    "Size_and_int": lambda lib: lib.Tensor(lib.Size([2]), 3),
    "Size_and_Size": lambda lib: lib.Tensor(lib.Size([2]), lib.Size([1])),
    "number": lambda lib: lib.Tensor(2.5),
    "string": lambda lib: lib.Tensor("ab"),
}


def _describe(t, lib, filled: bool):
    out = (tuple(t.shape), str(t.dtype).split(".")[-1], type(t).__name__, t.requires_grad)
    return out + (t.tolist(),) if filled else out


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_legacy_constructors_as_pytorch(torch, name):
    expected = _describe(CONSTRUCTORS[name](torch), torch, name in FILLED)
    got = _describe(CONSTRUCTORS[name](tinytorch), tinytorch, name in FILLED)
    assert got == expected


def test_tensor_of_a_tensor_is_an_alias(torch):
    for lib in (torch, tinytorch):
        src = lib.tensor([1, 2])
        alias = lib.Tensor(src)
        alias[0] = 7
        assert src.tolist() == [7, 2] and alias._version == src._version


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_legacy_constructor_refusals_as_pytorch(torch, name):
    with pytest.raises(Exception) as expected:
        REFUSED[name](torch)
    with pytest.raises(Exception) as got:
        REFUSED[name](tinytorch)
    assert type(got.value) is type(expected.value)
    assert normalise(str(got.value)) == str(expected.value)


# -- deprecated (Number, Tensor) overloads -----------------------------------------------------------
OVERLOADS = [
    "a.add_(2, b)", "a.add(2, b)", "torch.add(a, 2, b)", "torch.add(a, 2, b, out=o)", "a.sub_(2, b)", "a.sub(2, b)",
    "torch.sub(a, 2, b)", "a.addcmul_(2, b, b)", "a.addcmul(0.5, b, b)", "torch.addcmul(a, 2, b, b)",
    "a.addcdiv_(2, b, b)", "a.addcdiv(2, b, b)", "torch.addcdiv(a, 2, b, b)", "m.addmm(2, m, m)",
    "m.addmm(2, 3, m, m)", "c.addmm_(2, 3, m, m)", "torch.addmm(2, m, 3, m, m)", "torch.addmm(2, m, m, m)",
    "a.addmv(2, 3, m, a)", "a.addmv(2, m, a)", "v.addmv_(2, 3, m, a)", "torch.addmv(2, a, 3, m, a)",
    "m.addr(2, 3, a, a)", "m.addr(2, a, a)", "torch.addr(2, m, 3, a, a)", "m.addbmm(2, 3, bm, bm)",
    "torch.addbmm(2, m, 3, bm, bm)", "bm.baddbmm(2, 3, bm, bm)", "cb.baddbmm_(2, bm, bm)",
    "torch.baddbmm(2, bm, 3, bm, bm)",
]
NOT_OVERLOADS = ["a.add(b, 2)", "a.add_(b, 2)", "torch.add(a, b, 2)", "m.addmm(m, 2, m)", "a.addcmul(b, 2, b)"]

_SCRIPT = textwrap.dedent("""
    import json, os, sys, warnings
    import {lib} as torch
    out = {{}}
    for expr in json.loads(sys.argv[1]):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # a fresh child per call: the warning is once per process
            os.close(r)
            a = torch.ones(2, dtype=torch.float64); b = torch.full((2,), 3.0, dtype=torch.float64)
            m = torch.ones(2, 2, dtype=torch.float64) * 0.5; bm = torch.ones(1, 2, 2, dtype=torch.float64)
            o = torch.empty(2, dtype=torch.float64)
            c, v, cb = m * 3, a * 2, bm * 5  # in-place targets that alias no input
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    res = eval(expr)
                    value = ["ok", res.tolist(), a.tolist(), m.tolist(), bm.tolist(), c.tolist(), v.tolist(),
                             cb.tolist()]
                except Exception as e:
                    value = ["raised", type(e).__name__, str(e)]
            msgs = [(c.category.__name__, str(c.message), os.path.basename(c.filename)) for c in caught]
            os.write(w, json.dumps([value, msgs]).encode())
            os._exit(0)
        os.close(w)
        data = b""
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
        os.waitpid(pid, 0)
        out[expr] = json.loads(data)
    print(json.dumps(out))
""")


def _run(lib: str, exprs: list) -> dict:
    res = subprocess.run([sys.executable, "-c", _SCRIPT.format(lib=lib), json.dumps(exprs)], capture_output=True,
                         text=True, check=True, timeout=600)
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def overload_outcomes(torch):
    exprs = OVERLOADS + NOT_OVERLOADS
    return _run("torch", exprs), _run("tinytorch", exprs)


@pytest.mark.parametrize("expr", OVERLOADS + NOT_OVERLOADS)
def test_deprecated_overloads_as_pytorch(overload_outcomes, expr):
    expected, got = (o[expr] for o in overload_outcomes)
    (e_value, e_warns), (g_value, g_warns) = expected, got
    if e_value[0] == "raised":  # the modern signatures' own refusals: the same type
        assert g_value[:2] == e_value[:2], (g_value, e_value)
        return
    assert g_value == e_value
    assert [(c, normalise(m), f) for c, m, f in g_warns] == [(c, normalise(m), f) for c, m, f in e_warns]


def test_the_deprecation_warning_comes_once_per_process(torch):
    a, b = tinytorch.ones(2), tinytorch.ones(2)
    from tinytorch._ops._core import deprecated

    deprecated._warned[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a.add_(2, b)
        a.sub_(2, b)
        tinytorch.addcmul(a, 2, b, b)
    assert len(caught) == 1 and "add_(Number alpha, Tensor other)" in str(caught[0].message)
    assert caught[0].filename == __file__


def test_deprecated_overload_gradients_as_pytorch(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, -1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z = x.add(2, y).addcmul(0.5, x, y)
            z.sum().backward()
        return z.grad_fn.name(), z.tolist(), x.grad.tolist(), y.grad.tolist()

    assert run(tinytorch) == run(torch)
