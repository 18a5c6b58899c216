"""In-place edge cases, each compared with PyTorch: an in-place op whose error is found late (result
dtype, broadcast shape, an index out of range) leaves the tensor as it was; operands that partly alias
the written-to tensor are refused ("some elements of the input tensor and the written-to tensor refer
to a single memory location") while an exact alias is fine; writes into an expanded tensor are refused
("more than one element of the written-to tensor ...") except masked_fill_/index_fill_, which PyTorch
still performs with a deprecation warning."""
import warnings

import pytest

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
import tinytorch as tt  # noqa: E402


def _f(lib):
    return lib.arange(6.0).view(2, 3)


def _i(lib):
    return lib.arange(6).view(2, 3)


def _v(lib):
    return lib.arange(5.0)


def _e(lib):
    return lib.arange(3.0).expand(2, 3)


# name -> (make the tensor, the in-place call)
CASES = {
    # errors found after the result is computed: nothing written
    "int div_": (_i, lambda lib, a: a.div_(2)),
    "int mul_ float": (_i, lambda lib, a: a.mul_(1.5)),
    "int add_ float tensor": (_i, lambda lib, a: a.add_(lib.ones(2, 3))),
    "int sqrt_": (_i, lambda lib, a: a.sqrt_()),
    "int exp_": (_i, lambda lib, a: a.exp_()),
    "int pow_ negative": (_i, lambda lib, a: a.pow_(-1)),
    "add_ broadcast larger": (_f, lambda lib, a: a[0].add_(lib.ones(2, 3))),
    "copy_ bad shape": (_f, lambda lib, a: a.copy_(lib.ones(4))),
    "masked_fill_ bad mask": (_f, lambda lib, a: a.masked_fill_(lib.ones(4, dtype=lib.bool), 1.0)),
    "masked_fill_ 1-d value": (_f, lambda lib, a: a.masked_fill_(a > 2, lib.ones(2))),
    "addcmul_ bad shape": (_f, lambda lib, a: a.addcmul_(lib.ones(2, 3), lib.ones(4))),
    "addcmul bad shape": (_f, lambda lib, a: lib.addcmul(lib.ones(3), lib.ones(2, 1), lib.ones(4))),
    "lerp_ bad shape": (_f, lambda lib, a: a.lerp_(lib.ones(4), 0.5)),
    "index_add_ out of range": (_f, lambda lib, a: a.index_add(0, lib.tensor([0, 3]), lib.ones(2, 3))),
    "index_add_ negative out of range": (_f, lambda lib, a: a.index_add(0, lib.tensor([0, -3]), lib.ones(2, 3))),
    "index_fill out of range": (_f, lambda lib, a: a.index_fill(1, lib.tensor([0, 7]), -1.0)),
    "index_copy out of range": (_f, lambda lib, a: a.index_copy(0, lib.tensor([1, 4]), lib.ones(2, 3))),
    # partial overlap between an operand and the written-to tensor
    "add_ overlapping slice": (_v, lambda lib, a: a[1:].add_(a[:-1])),
    "copy_ overlapping slice": (_v, lambda lib, a: a[1:].copy_(a[:-1])),
    "copy_ own transpose": (lambda lib: lib.arange(4.0).view(2, 2), lambda lib, a: a.copy_(a.t())),
    "mul_ own transpose": (lambda lib: lib.arange(4.0).view(2, 2), lambda lib, a: a.mul_(a.t())),
    "add_ row with whole": (_f, lambda lib, a: a[0].add_(a)),
    "sub_ shifted view": (_v, lambda lib, a: a[:-1].sub_(a[1:], alpha=2)),
    "addcmul_ overlapping": (_v, lambda lib, a: a[1:].addcmul_(a[:-1], lib.ones(4))),
    "add_ strided partly overlapping": (_v, lambda lib, a: a[:4:2].add_(a[1:3])),  # not dense: PyTorch lets it be
    # exact aliases are fine, and a flipped copy is not an alias
    "add_ self": (_v, lambda lib, a: a.add_(a)),
    "add_ same view": (_v, lambda lib, a: a.add_(a.view(5))),
    "copy_ self": (_v, lambda lib, a: a.copy_(a)),
    "add_ flip": (_f, lambda lib, a: a.add_(a.flip(0))),
    "mul_ disjoint halves": (_v, lambda lib, a: a[:2].mul_(a[3:])),
    # an expanded written-to tensor
    "add_ expanded": (_e, lambda lib, a: a.add_(1)),
    "mul_ expanded": (_e, lambda lib, a: a.mul_(2)),
    "relu_ expanded": (_e, lambda lib, a: a.relu_()),
    "copy_ expanded": (_e, lambda lib, a: a.copy_(lib.ones(2, 3))),
    "scatter_ expanded": (_e, lambda lib, a: a.scatter_(1, lib.tensor([[0], [1]]), 5.0)),
    "uniform_ expanded": (_e, lambda lib, a: a.uniform_()),
    "out= expanded": (_e, lambda lib, a: lib.add(lib.ones(2, 3), 1, out=a)),
    "zero_ expanded": (_e, lambda lib, a: a.zero_()),
    "fill_ expanded": (_e, lambda lib, a: a.fill_(2)),
    "setitem row expanded": (_e, lambda lib, a: a.__setitem__(0, 5.0)),
    "add_ expanded size 1": (lambda lib: lib.arange(3.0).expand(1, 3), lambda lib, a: a.add_(1)),
    "masked_fill_ expanded": (_e, lambda lib, a: a.masked_fill_(a > 1, 0.0)),
    "index_fill_ expanded": (_e, lambda lib, a: a.index_fill_(1, lib.tensor([0]), 5.0)),
}


def _outcome(lib, name, grad):
    make, call = CASES[name]
    a = make(lib)
    if grad and a.is_floating_point():
        leaf = a.detach().clone().requires_grad_()
        a = leaf * 1 if a.is_contiguous() else (leaf[0] * 1).expand(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call(lib, a)
            result = "ok"
        except (RuntimeError, IndexError, ValueError, TypeError) as e:
            result = (type(e).__name__, str(e))
    messages = sorted(str(w.message).split(" (Triggered internally")[0] for w in caught)
    return result, a.detach().tolist(), messages, a._version, type(a.grad_fn).__name__ if a.grad_fn else None


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("name", list(CASES))
def test_inplace_edge_matches_pytorch(name, grad):
    want = _outcome(torch, name, grad)
    got = _outcome(tt, name, grad)
    assert got[0] == want[0]
    assert got[1] == want[1]  # the tensor after the call: untouched when it raised
    assert got[2] == want[2]
    if want[0] != "ok":  # a refused op leaves the version counter and the history as they were
        assert got[3:] == want[3:]


def test_overlap_is_refused_before_anything_is_written_or_recorded():
    for lib in (torch, tt):
        leaf = lib.arange(5.0, requires_grad=True)
        a = leaf * 1
        fn = a.grad_fn
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
            a[1:].mul_(a[:-1])
        assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and a.grad_fn is fn and a._version == 0
