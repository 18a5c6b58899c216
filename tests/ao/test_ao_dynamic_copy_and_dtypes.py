"""A dynamically quantized model deep-copies (its packed weights included) and the copy computes what the model
does; an input that is not float32 is refused with PyTorch's error, as fbgemm reads float32 only."""
import copy
import warnings

import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _quantized(lib, layers):
    lib.manual_seed(0)
    model = layers(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.ao.quantization.quantize_dynamic(model, {lib.nn.Linear, lib.nn.LSTM}, dtype=lib.qint8)


MODELS = {
    "linear": lambda lib: lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2)),
    "lstm": lambda lib: lib.nn.LSTM(4, 3, batch_first=True),
}


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_deepcopy_of_a_dynamically_quantized_model(name):
    x = np.random.default_rng(0).standard_normal((2, 5, 4) if name == "lstm" else (2, 4)).astype(np.float32)
    model = _quantized(tinytorch, MODELS[name])
    twin = copy.deepcopy(model)
    assert repr(twin) == repr(model)
    got = _first(model(tinytorch.tensor(x))).detach().numpy()
    np.testing.assert_array_equal(_first(twin(tinytorch.tensor(x))).detach().numpy(), got)
    want = _first(_quantized(torch, MODELS[name])(torch.tensor(x))).detach().numpy()
    # (the quantized LSTM's float gates may differ from PyTorch's by an ulp: not this test's subject)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int64"])
def test_input_that_is_not_float32(dtype):
    x = np.ones((2, 4))
    with pytest.raises(RuntimeError) as want:
        _quantized(torch, MODELS["linear"])(torch.tensor(x).to(getattr(torch, dtype)))
    with pytest.raises(RuntimeError) as got:
        _quantized(tinytorch, MODELS["linear"])(tinytorch.tensor(x).to(getattr(tinytorch, dtype)))
    assert str(got.value) == str(want.value)
