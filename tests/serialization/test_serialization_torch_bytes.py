"""tinytorch.save writes torch.save's bytes: the same object gives the same file, byte for byte.

Each test saves one object with both libraries (tinytorch's built from the same numbers) and compares the files
whole: the zip container (records and their order, local headers, data descriptors, the padding extra field, the
central directory, the zip64 end records), the pickle (CPython's memo entries, batches, tuples), the archive's
folder named after the file, and ``.data/serialization_id``, which PyTorch computes from the record names and
CRCs (no byte is drawn at random: nothing is excluded from the comparison)."""
import io
import math
import os
import re
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tinytorch
from tinytorch.serialization import _torchzip

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def saved(T, obj, path=None) -> bytes:
    if path is None:
        buf = io.BytesIO()
        T.save(obj, buf)
        return buf.getvalue()
    T.save(obj, path)
    with open(path, "rb") as fh:
        return fh.read()


def same_file(make, tmp_path=None, name="model.pt", **kwargs):
    """torch.save's and tinytorch.save's files of ``make(T)``, to a file object or to ``name`` in two folders."""
    files = []
    for T in (torch, tinytorch):
        path = None
        if tmp_path is not None:
            (tmp_path / T.__name__).mkdir(exist_ok=True)
            path = tmp_path / T.__name__ / name
        obj = make(T)
        if kwargs:
            if path is None:
                buf = io.BytesIO()
                T.save(obj, buf, **kwargs)
                files.append(buf.getvalue())
                continue
            T.save(obj, path, **kwargs)
            files.append(path.read_bytes())
        else:
            files.append(saved(T, obj, path))
    theirs, ours = files
    assert len(ours) == len(theirs)
    if ours != theirs:  # name the first record that differs
        za, zb = zipfile.ZipFile(io.BytesIO(theirs)), zipfile.ZipFile(io.BytesIO(ours))
        assert [i.filename for i in zb.infolist()] == [i.filename for i in za.infolist()]
        for a, b in zip(za.infolist(), zb.infolist()):
            assert zb.read(b) == za.read(a), a.filename
        assert ours == theirs
    return ours


# -- tensors, models, optimizers -----------------------------------------------------------------------------
def _base(T, dtype="float32"):
    return T.tensor(np.arange(12, dtype=np.float64).reshape(3, 4)).to(getattr(T, dtype))


def _numpy_weights(T, model):
    """The model's weights drawn by numpy, the same in both libraries on every CPU path (PyTorch's own float32
    init rounds differently on its DEFAULT path, which would change the bytes compared, not the writer)."""
    rng = np.random.default_rng(0)
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
    return model


def _mlp(T):
    T.manual_seed(0)
    nn = T.nn
    return _numpy_weights(T, nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))


def _optimizer(T, kind):
    # one Linear layer fed ones: its gradients are exact sums, and Adam's betas powers of two's sums, so both
    # libraries hold the same numbers on every CPU path (with or without a fused multiply-add)
    T.manual_seed(0)
    model = T.nn.Linear(16, 4)
    opt = {"sgd": lambda p: T.optim.SGD(p, lr=0.1, momentum=0.9),
           "adam": lambda p: T.optim.Adam(p, lr=1e-3, betas=(0.5, 0.75))}[kind](model.parameters())
    for _ in range(2):
        opt.zero_grad()
        model(T.ones(3, 16)).sum().backward()
        opt.step()
    return opt.state_dict()


def _quantized_mlp(T):
    return T.ao.quantization.quantize_dynamic(_mlp(T), {T.nn.Linear}, dtype=T.qint8).state_dict()


def _quantized_lstm(T):
    T.manual_seed(0)
    m = _numpy_weights(T, T.nn.Sequential(T.nn.LSTM(8, 8, 2)))
    return T.ao.quantization.quantize_dynamic(m, {T.nn.LSTM}, dtype=T.qint8).state_dict()


OBJECTS = {
    "tensor": lambda T: T.arange(4, dtype=T.float32),
    "views of one storage": lambda T: (lambda b: [b, b[1], b.t(), b[:, 1:3], b.reshape(-1)[5:6], b, b.expand(2, 3, 4)])(
        _base(T)),
    "dtypes": lambda T: [_base(T, d) for d in ("float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32",
                                               "int64", "bool", "complex64", "complex128")],
    "float8 (untyped storages)": lambda T: [T.ones(3).to(T.float8_e4m3fn), T.ones(2).to(T.float8_e5m2)],
    "0-d and empty": lambda T: [T.tensor(3.5), T.zeros(0), T.zeros(2, 0)],
    "requires_grad and parameters": lambda T: (lambda p: [T.ones(2, requires_grad=True), p, p, {"p": p},
                                                          T.nn.Parameter(T.ones(2), requires_grad=False)])(
        T.nn.Parameter(T.ones(3))),
    "Size, dtype, device": lambda T: [T.Size([2, 3]), T.Size([]), T.float32, T.int64, T.device("cpu"),
                                      T.device("cpu")],
    "quantized tensor": lambda T: T.quantize_per_tensor(T.tensor([0.5, 1.0, -2.0]), 0.1, 3, T.qint8),
    "MLP state_dict": lambda T: _mlp(T).state_dict(),
    "SGD state_dict": lambda T: _optimizer(T, "sgd"),
    "Adam state_dict": lambda T: _optimizer(T, "adam"),
    "training checkpoint": lambda T: {"model": _mlp(T).state_dict(), "optimizer": _optimizer(T, "sgd"), "epoch": 3,
                                      "rng": T.arange(8, dtype=T.uint8)},
    "quantized MLP state_dict": _quantized_mlp,
    "quantized LSTM state_dict (packed weights)": _quantized_lstm,
}


@pytest.mark.parametrize("name", OBJECTS)
def test_same_file_as_torch_save(name, tmp_path):
    same_file(OBJECTS[name])  # a file object: the folder is "archive"
    same_file(OBJECTS[name], tmp_path, "checkpoint.pth")


def test_quantized_lstm_file_loads_both_ways(tmp_path):
    # the byte-identical file is PyTorch's: each library rebuilds the other's packed weights
    ours = same_file(_quantized_lstm)
    state = torch.load(io.BytesIO(ours), weights_only=False)
    assert isinstance(state["0._all_weight_values.1.param"], torch.ScriptObject)
    back = tinytorch.load(io.BytesIO(saved(torch, state)), weights_only=False)
    assert saved(tinytorch, back) == ours


# -- plain data: CPython's pickler, as torch.save runs it -----------------------------------------------------
SHARED = "a string written once"
SHARED_LIST = [1, 2]
_cycle = [1]
_cycle.append(_cycle)
_in_tuple: list = []
_in_tuple.append((_in_tuple,))  # a tuple reached again while its own items are written

PLAIN = {
    "nested": {"a": [1, (2, 3), {"b": None}], "c": (1, 2, 3, 4, 5), "d": -5, "e": 2 ** 70, "f": -2 ** 40,
               "g": 1.5, "h": True, "i": 300, "j": 70000},
    "shared references": [SHARED, SHARED, SHARED_LIST, SHARED_LIST, (SHARED_LIST, SHARED)],
    "cycle through a list": _cycle,
    "cycle through a tuple": _in_tuple[0],
    "dict of 1": {"x": 1},
    "dict of 1000 (an empty last batch)": {i: i for i in range(1000)},
    "dict of 1001": {i: i for i in range(1001)},
    "list of 1": [7],
    "list of 1000": list(range(1000)),
    "list of 1001": list(range(1001)),
    "bytes": [b"", b"a", b"hello", b"hello"],
    "complex": [1 + 2j, complex(0, -1)],
    "Counter": Counter("abracadabra"),
    "OrderedDict of 1": OrderedDict(a=1),
    "OrderedDict of 1000": OrderedDict((i, i) for i in range(1000)),
    "OrderedDict of 1001": OrderedDict((str(i), i) for i in range(1001)),
    "set of ints": {8, 1, 100, 3},
    "floats": [float("nan"), -0.0, math.inf, 1e-310],
    "empty containers": [[], {}, (), ""],
    "one-character strings": ["a", "a"[:1], "b", "", str(5)],
}


@pytest.mark.parametrize("name", PLAIN)
def test_plain_data_same_file_as_torch_save(name):
    obj = PLAIN[name]
    assert saved(tinytorch, obj) == saved(torch, obj)


_leaves = (st.none() | st.booleans() | st.integers(-2 ** 80, 2 ** 80) | st.floats(allow_nan=False)
           | st.text(max_size=4) | st.binary(max_size=4) | st.complex_numbers(allow_nan=False))
_keys = st.integers(-3, 300) | st.text(max_size=3) | st.tuples(st.integers(0, 3), st.text(max_size=2))
_trees = st.recursive(_leaves, lambda c: st.lists(c, max_size=5) | st.tuples(c, c) | st.tuples(c, c, c, c)
                      | st.dictionaries(_keys, c, max_size=5) | st.frozensets(st.integers(0, 50), max_size=4)
                      .map(set), max_leaves=25)


@settings(max_examples=60, deadline=None)
@given(_trees, st.lists(st.integers(0, 10), max_size=6))
def test_generated_plain_data_same_file_as_torch_save(tree, picks):
    # the tree, and some of its own parts again: the second time they are memo references (BINGET)
    parts = [tree]
    if isinstance(tree, (list, tuple, dict)):
        parts += list(tree.values() if isinstance(tree, dict) else tree)
    obj = [tree] + [parts[i % len(parts)] for i in picks]
    assert saved(tinytorch, obj) == saved(torch, obj)


def test_set_of_strings_in_a_fixed_order():
    # pickle writes a set in iteration order, which for strings changes with PYTHONHASHSEED (so PyTorch's bytes
    # do): tinytorch sorts such a set, and the file has the size of PyTorch's
    s = {"x", "y", "zz", "w"}
    ours, theirs = saved(tinytorch, s), saved(torch, s)
    assert len(ours) == len(theirs)
    assert "w" in zipfile.ZipFile(io.BytesIO(ours)).read("archive/data.pkl").decode("latin1")
    assert tinytorch.load(io.BytesIO(ours)) == s == torch.load(io.BytesIO(ours))


# -- the archive's name, byteorder record, serialization id ---------------------------------------------------
@pytest.mark.parametrize("name", ["model.pt", "a.b.c", "noext", "x.", "with space.pth", "ünï.pt"])
def test_archive_named_after_the_file_as_torch_save(name, tmp_path):
    ours = same_file(OBJECTS["tensor"], tmp_path, name)
    folder = zipfile.ZipFile(io.BytesIO(ours)).namelist()[0].split("/")[0]
    assert folder == ("archive" if name == "ünï.pt" else name.rsplit(".", 1)[0] if "." in name else name)


def test_archive_name_is_the_final_files_not_the_temp_files(tmp_path):
    # tinytorch writes a temp file and renames it; the folder is the given name's stem, through a symlink too
    (tmp_path / "real.pt").write_bytes(b"")
    os.symlink(tmp_path / "real.pt", tmp_path / "link.pt")
    tinytorch.save(tinytorch.ones(2), tmp_path / "link.pt")
    ours = (tmp_path / "real.pt").read_bytes()
    torch.save(torch.ones(2), tmp_path / "link.pt")
    assert ours == (tmp_path / "real.pt").read_bytes()
    assert zipfile.ZipFile(tmp_path / "real.pt").namelist()[0] == "link/data.pkl"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("name", [".pt", "sub/.pth"])
def test_a_name_without_a_stem_is_torch_saves_error(name, tmp_path):
    (tmp_path / "sub").mkdir()
    for T in (torch, tinytorch):
        with pytest.raises(RuntimeError, match=re.escape(f"invalid file name: {tmp_path / name}")):
            T.save(T.ones(1), tmp_path / name)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["sub"]  # nothing written


def test_disable_byteorder_record_as_torch_save(tmp_path):
    ours = same_file(OBJECTS["MLP state_dict"], tmp_path, _disable_byteorder_record=True)
    names = [n.split("/", 1)[1] for n in zipfile.ZipFile(io.BytesIO(ours)).namelist()]
    assert names[-3:] == ["version", "byteorder", ".data/serialization_id"]


@pytest.mark.parametrize("count", [0, 1, 8, 9, 10, 24, 25, 54, 55, 122, 123, 252, 253, 536, 537])
def test_serialization_id_as_torch_computes_it(count):
    # PyTorch hashes the record names in its unordered_set's order, which changes as the set grows (at 14, 30,
    # 60, 128, 258 and 542 records: 5 records besides the storages); the storages differ, so do their CRCs
    ours = same_file(lambda T: [T.full((2,), float(i)) for i in range(count)])
    z = zipfile.ZipFile(io.BytesIO(ours))
    assert z.namelist()[-1] == "archive/.data/serialization_id"
    assert len(z.read("archive/.data/serialization_id")) == 40


def test_serialization_id_counts_a_record_that_starts_like_a_data_descriptor():
    # PyTorch's write callback takes any write that starts with PK\x07\x08 for a descriptor and folds the CRC it
    # finds there into the id: here, a storage whose bytes start so
    same_file(lambda T: T.tensor(np.frombuffer(b"PK\x07\x08\x01\x02\x03\x04\x05", np.uint8).copy()))


def test_zip64_layout_when_past_the_limit(tmp_path, monkeypatch):
    # records past the zip64 limit carry miniz's zip64 extra field (sizes, offset) and 24-byte descriptors;
    # PyTorch reads them
    monkeypatch.setattr(_torchzip, "ZIP64_LIMIT", 200)
    path = tmp_path / "z64.pt"
    tinytorch.save({"w": tinytorch.arange(100.0)}, path)
    z = zipfile.ZipFile(path)
    assert z.testzip() is None
    infos = {i.filename.split("/", 1)[1]: i for i in z.infolist()}
    assert infos["data.pkl"].extra == b"" and infos["data/0"].extra[:4] == b"\x01\x00\x18\x00"
    raw = path.read_bytes()
    start = infos["data/0"].header_offset
    name_len, extra_len = np.frombuffer(raw[start + 26:start + 30], "<u2")
    data_at = start + 30 + name_len + extra_len
    assert data_at % 64 == 0 and raw[data_at + 400:data_at + 404] == b"PK\x07\x08"
    assert int.from_bytes(raw[data_at + 408:data_at + 416], "little") == 400  # 64-bit sizes
    assert torch.load(path)["w"].tolist() == list(range(100))
    assert tinytorch.load(path)["w"].tolist() == list(range(100))

