"""Small comparisons shared by the differential tests: one call under both libraries, what each returned
or raised."""
import numpy as np
import pytest


def same(ours, theirs, rtol=0.0, atol=0.0):
    """Same dtype name, shape and values (within rtol/atol) for a tinytorch and a PyTorch tensor."""
    torch = pytest.importorskip("torch")

    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    o, t = ours.detach(), theirs.detach().resolve_conj()
    if t.dtype == torch.bfloat16:
        o, t = o.float(), t.float()
    np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=rtol, atol=atol)


def raises_alike(fn):
    """``fn(torch)`` raises; ``fn(tinytorch)`` raises the same type with the same message."""
    torch = pytest.importorskip("torch")

    import tinytorch

    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(tinytorch)
    assert str(ours.value) == str(theirs.value)


def outcome(fn, m):
    """What ``fn(m)`` gives: (dtype name, values as lists) or (error type name, message)."""
    try:
        r = fn(m)
    except Exception as e:  # noqa: BLE001 - the error type and message are what is compared
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[-1], r.tolist()


def outcome_and_warnings(fn, m):
    """``outcome`` (values by their repr, so that NaN equals NaN) with the warnings ``fn(m)`` gave, each as
    (category, text up to PyTorch's "(Triggered internally at ...)")."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kind, value = outcome(fn, m)
    texts = sorted({(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in caught})
    return kind, repr(value), texts
