"""Whole-model checkpoints as PyTorch writes them: ``torch.save(model)`` is PyTorch's zip format
naming the modules' classes; ``load`` builds them only when allowed (``safe_globals``) or with
``weights_only=False``; PyTorch's files load as tinytorch modules and the other way round."""
import io
import pickle

import numpy as np
import pytest

import tinytorch as tt
from tinytorch.serialization import SerializationError

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def builders(nn):
    """The same models, built from PyTorch's nn or tinytorch's."""
    return {
        "linear": lambda: nn.Linear(3, 4),
        "conv": lambda: nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Flatten()),
        "lstm": lambda: nn.LSTM(3, 5, num_layers=2, batch_first=True),
        "gru": lambda: nn.GRU(3, 5),
        "embedding": lambda: nn.Sequential(nn.Embedding(10, 3), nn.LayerNorm(3), nn.Dropout(0.1)),
        "transformer": lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
    }


INPUTS = {"linear": ("f", (2, 3)), "conv": ("f", (2, 2, 4, 4)), "lstm": ("f", (2, 4, 3)),
          "gru": ("f", (4, 2, 3)), "embedding": ("i", (2, 5)), "transformer": ("f", (2, 3, 8))}


def example(name):
    kind, shape = INPUTS[name]
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 10, shape) if kind == "i" else rng.standard_normal(shape, np.float32)
    return torch.from_numpy(arr), tt.tensor(arr)


def first(out):
    return out[0] if isinstance(out, tuple) else out


def saved(save, obj) -> bytes:
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


def classes(model):
    return sorted({type(m) for m in model.modules()}, key=lambda c: c.__qualname__)


@pytest.mark.parametrize("name", list(builders(torch.nn)))
def test_pytorch_whole_model_loads_as_tinytorch_modules(name):
    torch.manual_seed(0)
    theirs = builders(torch.nn)[name]().eval()
    blob = saved(torch.save, theirs)
    x_torch, x_tt = example(name)
    expected = first(theirs(x_torch)).detach().numpy()
    # PyTorch's TransformerEncoderLayer keeps F.relu, which must be allowed too
    ours_classes = classes(builders(tt.nn)[name]()) + [tt.nn.functional.relu]
    for how in ("unsafe", "allowed"):
        if how == "unsafe":
            ours = tt.load(io.BytesIO(blob), weights_only=False)
        else:
            with tt.serialization.safe_globals(ours_classes):
                ours = tt.load(io.BytesIO(blob))
        assert [type(m).__module__ + "." + type(m).__qualname__ for m in ours.modules()] == [
            "tiny" + type(m).__module__ + "." + type(m).__qualname__ for m in theirs.modules()]
        assert not ours.training
        np.testing.assert_allclose(first(ours(x_tt)).detach().numpy(), expected, rtol=1e-5,
                                   atol=1e-6)
    assert tt.serialization.get_safe_globals() == []


@pytest.mark.parametrize("name", list(builders(torch.nn)))
def test_tinytorch_whole_model_round_trips_and_opens_in_pytorch(name):
    tt.manual_seed(0)
    ours = builders(tt.nn)[name]().eval()
    blob = saved(tt.save, ours)
    assert blob[:4] == b"PK\x03\x04"  # PyTorch's zip format, not a private pickle
    x_torch, x_tt = example(name)
    expected = first(ours(x_tt)).detach().numpy()
    with tt.serialization.safe_globals(classes(ours) + [tt.nn.functional.relu]):
        again = tt.load(io.BytesIO(blob))
    np.testing.assert_array_equal(first(again(x_tt)).detach().numpy(), expected)
    again = tt.load(io.BytesIO(blob), weights_only=False)
    np.testing.assert_array_equal(first(again(x_tt)).detach().numpy(), expected)
    # PyTorch opens it too (tinytorch's classes are importable here): its state tensors are
    # PyTorch tensors that a PyTorch model of the same shape takes as its weights
    opened = torch.load(io.BytesIO(blob), weights_only=False)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL tinytorch.nn.modules"):
        torch.load(io.BytesIO(blob))  # PyTorch's own weights-only load names our class
    # PyTorch keys a safe global by its __module__: F.relu is made in tinytorch._ops, so it is
    # named by the path the file uses
    relu = (tt.nn.functional.relu, "tinytorch.nn.functional.relu")
    with torch.serialization.safe_globals(classes(ours) + [relu]):
        allowed = torch.load(io.BytesIO(blob))
    assert [k for k in allowed.state_dict()] == [k for k in opened.state_dict()]
    state = opened.state_dict()
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    theirs = builders(torch.nn)[name]().eval()
    theirs.load_state_dict(state)
    np.testing.assert_allclose(first(theirs(x_torch)).detach().numpy(), expected, rtol=1e-5,
                               atol=1e-6)


def test_refusal_is_pytorchs_unpickling_error_naming_the_class():
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    ours = tt.nn.Sequential(tt.nn.Linear(2, 3), tt.nn.ReLU())
    for allowed in ([], ["Sequential"]):
        with pytest.raises(pickle.UnpicklingError) as expected:
            with torch.serialization.safe_globals([getattr(torch.nn, c) for c in allowed]):
                torch.load(io.BytesIO(saved(torch.save, theirs)))
        for blob in (saved(tt.save, ours), saved(torch.save, theirs)):
            with pytest.raises(pickle.UnpicklingError) as got:
                with tt.serialization.safe_globals([getattr(tt.nn, c) for c in allowed]):
                    tt.load(io.BytesIO(blob))
            assert isinstance(got.value, SerializationError)
            message = str(expected.value)
            if blob[:200].find(b"tinytorch") >= 0:  # our file names our classes
                message = message.replace("torch.nn.modules", "tinytorch.nn.modules")
            assert str(got.value) == message


def test_safe_globals_registry_behaves_as_pytorchs():
    for ns in (torch.serialization, tt.serialization):
        ns.clear_safe_globals()
        assert ns.get_safe_globals() == []
        ns.add_safe_globals([int])
        with ns.safe_globals([float, (str, "my.str")]):
            assert set(ns.get_safe_globals()) == {int, float, (str, "my.str")}
        assert ns.get_safe_globals() == [int]
        ns.clear_safe_globals()
        assert ns.get_safe_globals() == []


def test_safe_global_under_a_given_path_and_bad_entries():
    blob = saved(tt.save, tt.nn.Linear(2, 2))
    with tt.serialization.safe_globals([(tt.nn.Linear, "tinytorch.nn.modules.linear.Linear")]):
        assert type(tt.load(io.BytesIO(blob))) is tt.nn.Linear
    for bad, error in (((tt.nn.Linear,), ValueError), ((tt.nn.Linear, 3), TypeError)):
        with pytest.raises(error) as theirs, torch.serialization.safe_globals([bad]):
            torch.load(io.BytesIO(saved(torch.save, torch.nn.Linear(2, 2))))
        with pytest.raises(error) as ours, tt.serialization.safe_globals([bad]):
            tt.load(io.BytesIO(blob))
        assert str(ours.value) == str(theirs.value)


class RNNModel(tt.nn.Module):
    """pytorch/examples' word_language_model model: encoder, RNN, decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.drop = tt.nn.Dropout(0.2)
        self.encoder = tt.nn.Embedding(ntoken, ninp)
        self.rnn = tt.nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
        self.decoder = tt.nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
        return self.decoder(self.drop(out)), hidden


def test_word_language_model_save_and_reload(tmp_path):
    torch_ns = tt  # the example's code, with `import tinytorch as torch`
    model = RNNModel(20, 6, 8, 2).eval()
    path = tmp_path / "model.pt"
    with open(path, "wb") as f:
        torch_ns.save(model, f)
    x = tt.tensor(np.arange(10).reshape(5, 2) % 20)
    h = (tt.zeros(2, 2, 8), tt.zeros(2, 2, 8))
    expected = model(x, h)[0].detach().numpy()
    with open(path, "rb") as f:
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL test_serialization_models.RNNModel"):
            torch_ns.load(f)
    safe = [RNNModel, tt.nn.Dropout, tt.nn.Embedding, tt.nn.LSTM, tt.nn.Linear]
    with open(path, "rb") as f, torch_ns.serialization.safe_globals(safe):
        loaded = torch_ns.load(f)
    loaded.rnn.flatten_parameters()
    np.testing.assert_array_equal(loaded(x, h)[0].detach().numpy(), expected)
    with open(path, "rb") as f:
        loaded = torch_ns.load(f, weights_only=False)
    loaded.rnn.flatten_parameters()
    np.testing.assert_array_equal(loaded(x, h)[0].detach().numpy(), expected)


def test_state_dict_metadata_survives_both_ways():
    ours = tt.nn.Sequential(tt.nn.Linear(2, 3), tt.nn.BatchNorm1d(3)).state_dict()
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3)).state_dict()
    assert ours._metadata == theirs._metadata
    for blob in (saved(tt.save, ours), saved(torch.save, theirs)):
        assert tt.load(io.BytesIO(blob))._metadata == theirs._metadata
        assert torch.load(io.BytesIO(blob))._metadata == theirs._metadata


def test_unknown_pytorch_class_says_what_to_do():
    class Odd(torch.nn.Module):
        pass

    blob = saved(torch.save, torch.nn.Sequential(torch.nn.Identity(), torch.nn.Hardshrink()))
    ns = tt.nn
    if not hasattr(ns, "Hardshrink"):
        with pytest.raises(SerializationError, match="torch.nn.modules.activation.Hardshrink"):
            tt.load(io.BytesIO(blob), weights_only=False)
    else:
        assert type(tt.load(io.BytesIO(blob), weights_only=False)[1]) is ns.Hardshrink


def test_safetensors_metadata_says_format_pt(tmp_path):
    # what transformers' save_pretrained writes and its loader checks (safetensors.torch 0.8's
    # save_file itself writes no metadata); the file stays readable by safetensors.torch
    safetensors = pytest.importorskip("safetensors")
    st_torch = pytest.importorskip("safetensors.torch")
    ours = tmp_path / "ours.safetensors"
    tt.save({"w": tt.ones(2)}, ours)
    with safetensors.safe_open(str(ours), "pt") as f:
        assert f.metadata()["format"] == "pt"
        assert f.keys() == ["w"]
    assert torch.equal(st_torch.load_file(str(ours))["w"], torch.ones(2))
    assert tt.load(ours)["w"].tolist() == [1.0, 1.0]


def test_legacy_format_loads_as_pytorch_loads_it():
    torch.manual_seed(0)
    base = torch.arange(12.0).reshape(3, 4)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()).eval()
    obj = {"a": base, "view": base[1:, 1:], "p": torch.nn.Parameter(torch.ones(2)),
           "i": torch.tensor([1, 2]), "b": torch.tensor([True, False]), "model": model}
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=False)
    blob = buf.getvalue()
    with pytest.raises(pickle.UnpicklingError) as expected:
        torch.load(io.BytesIO(blob))
    with pytest.raises(pickle.UnpicklingError) as got:
        tt.load(io.BytesIO(blob))
    assert str(got.value) == str(expected.value)  # the model's class, named as PyTorch names it
    del obj["model"]
    plain = io.BytesIO()
    torch.save(obj, plain, _use_new_zipfile_serialization=False)
    for weights_only, data in ((True, plain.getvalue()), (False, blob)):
        got = tt.load(io.BytesIO(data), weights_only=weights_only)
        np.testing.assert_array_equal(got["a"].numpy(), base.numpy())
        np.testing.assert_array_equal(got["view"].numpy(), base[1:, 1:].numpy())
        assert type(got["p"]) is tt.nn.Parameter and got["p"].requires_grad
        assert got["i"].dtype == tt.int64 and got["b"].tolist() == [True, False]
        got["a"][1, 1] = 100.0  # views of one storage still share it
        assert got["view"][0, 0].item() == 100.0
    x = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(got["model"](tt.tensor(x)).detach().numpy(),
                               model(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)
    data = plain.getvalue()
    for cut in range(0, len(data), 7):  # truncated: an error, never a half-filled tensor
        with pytest.raises(SerializationError):
            tt.load(io.BytesIO(data[:cut]))


def test_legacy_format_mutations_raise_only_serialization_error():
    buf = io.BytesIO()
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "v": [1, "x", (2.5, None)]}, buf,
               _use_new_zipfile_serialization=False)
    blob = buf.getvalue()
    rng = np.random.default_rng(0)
    for _ in range(400):
        data = bytearray(blob)
        for _ in range(int(rng.integers(1, 4))):
            data[int(rng.integers(len(data)))] = int(rng.integers(256))
        try:
            tt.load(io.BytesIO(bytes(data)))
        except SerializationError:
            pass
