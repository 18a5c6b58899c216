"""PyTorch's zip checkpoint format: interop with real PyTorch both ways, bit for bit, and a reader
that cannot be made to run code, hang or over-allocate (malicious pickles, truncation, fuzzing)."""
import _repo
import io
import os
import pickle
import random
import struct
import time
import tracemalloc
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import tinytorch
from tinytorch.serialization import SerializationError, _torchzip, load, save
from tinytorch.tensor import Tensor

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def tt_tensors(seed=0):
    """One tensor per dtype in every layout tinytorch and PyTorch share: contiguous, 0-d, empty,
    transposed, strided, a view at an offset."""
    rng = np.random.default_rng(seed)
    out = OrderedDict()
    for name in DTYPES:
        npd = np.dtype(name)
        raw = rng.integers(0, 256, size=48 * npd.itemsize, dtype=np.uint8)
        base = (raw[:48] & 1).astype(bool) if name == "bool" else raw.view(npd).copy()
        t = tinytorch.from_numpy(base.reshape(4, 12))
        out[f"{name}.c"] = t
        out[f"{name}.0d"] = tinytorch.from_numpy(base[:1].reshape(()).copy())
        out[f"{name}.empty"] = tinytorch.from_numpy(base[:0].reshape(0, 3).copy())
        out[f"{name}.t"] = t.t()
        out[f"{name}.strided"] = t[::2, 1::3]
        out[f"{name}.offset"] = t[1:3, 5]
    return out


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def assert_torch_equal(tt: Tensor, th, torch):
    """Same dtype, shape, strides, bytes and requires_grad in tinytorch and PyTorch."""
    assert str(th.dtype).split(".")[1] == tt.dtype.name
    assert tuple(th.shape) == tuple(tt.shape)
    assert bits(th.detach().numpy()) == bits(tt._data)
    if th.numel() > 1:
        assert th.stride() == tt.stride()
    assert th.requires_grad is tt.requires_grad


# ------------------------------------------------------------------- tinytorch -> PyTorch

def test_tinytorch_checkpoint_opens_in_torch_load_with_defaults(torch, tmp_path):
    obj = tt_tensors()
    path = tmp_path / "tt.pt"
    save(obj, path)
    got = torch.load(path)  # weights_only=True is PyTorch's default
    assert list(got) == list(obj)
    for k in obj:
        assert_torch_equal(obj[k], got[k], torch)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(path) == []
    mapped = torch.load(path, mmap=True)  # needs PyTorch's 64-byte record alignment
    assert bits(mapped["float64.strided"].numpy()) == bits(obj["float64.strided"]._data)
    # views of one base come back sharing one storage
    base_ptr = got["float32.c"].untyped_storage().data_ptr()
    for k in ("float32.t", "float32.strided", "float32.offset"):
        assert got[k].untyped_storage().data_ptr() == base_ptr
    assert got["float32.offset"].storage_offset() == obj["float32.offset"]._data.__array_interface__[
        "data"][0] // 4 - obj["float32.c"]._data.__array_interface__["data"][0] // 4


def test_special_values_and_containers_reach_torch(torch, tmp_path):
    nan_payload = struct.unpack("<d", struct.pack("<Q", 0x7FF0_0000_0000_0ABC))[0]
    f32 = np.array([0x7FC00001, 0xFF800000, 0x80000000], np.uint32).view(np.float32)
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    obj = {"floats": [-0.0, nan_payload, float("inf")], "f32": tinytorch.from_numpy(f32),
           "big": 2**100, "neg": -(2**40), "s": "ü\u2603", "b": b"\x00\xff", "none": None,
           "t": (1, (2.5, "x")), "od": OrderedDict(b=1, a=2), "set": {3, 1, 2},
           "counter": Counter({2: 1, 4: 2}), "w": w, "size": tinytorch.Size([2, 3]),
           "dtype": tinytorch.float16, "int_keys": {1: "a", -2: "b"}, "c": 1 + 2j}
    path = tmp_path / "c.pt"
    save(obj, path)
    got = torch.load(path)
    assert struct.pack("<d", got["floats"][0]) == struct.pack("<d", -0.0)
    assert struct.pack("<d", got["floats"][1]) == struct.pack("<d", nan_payload)
    assert bits(got["f32"].numpy()) == bits(f32)
    assert got["w"].requires_grad and got["w"].is_leaf
    assert got["size"] == torch.Size([2, 3]) and got["dtype"] is torch.float16
    for k in ("big", "neg", "s", "b", "none", "t", "od", "set", "counter", "int_keys", "c"):
        assert got[k] == obj[k] and type(got[k]) is type(obj[k]), k
    assert list(got["od"]) == ["b", "a"]


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_optimizer_and_model_state_dicts_go_to_torch(torch, tmp_path, kind):
    tinytorch.manual_seed(0)
    model = tinytorch.nn.Sequential(tinytorch.nn.Linear(4, 3), tinytorch.nn.ReLU(),
                                    tinytorch.nn.Linear(3, 2))
    opt = (tinytorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9) if kind == "sgd"
           else tinytorch.optim.Adam(model.parameters(), lr=1e-3))
    for _ in range(2):
        model(tinytorch.ones(5, 4)).sum().backward()
        opt.step()
        opt.zero_grad()
    path = tmp_path / "ck.pth"
    save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 2}, path)
    ck = torch.load(path)
    th_model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    th_model.load_state_dict(ck["model"])
    th_opt = (torch.optim.SGD(th_model.parameters(), lr=0.1, momentum=0.9) if kind == "sgd"
              else torch.optim.Adam(th_model.parameters(), lr=1e-3))
    th_opt.load_state_dict(ck["optimizer"])
    for k, v in model.state_dict().items():
        assert bits(th_model.state_dict()[k].numpy()) == bits(v._data)
    tt_state = opt.state_dict()["state"]
    for i, st in th_opt.state_dict()["state"].items():
        for name, value in st.items():
            assert bits(value.numpy()) == bits(tt_state[i][name]._data), name


# ------------------------------------------------------------------- PyTorch -> tinytorch

def torch_tensors(torch):
    g = torch.Generator().manual_seed(0)
    out = OrderedDict()
    for name in DTYPES:
        dt = getattr(torch, name)
        raw = torch.randint(0, 256, (48 * dt.itemsize,), dtype=torch.uint8, generator=g)
        base = (raw[:48] & 1).bool() if name == "bool" else raw.view(dt)
        t = base.reshape(4, 12)
        out[f"{name}.c"] = t
        out[f"{name}.0d"] = base[0].clone()
        out[f"{name}.empty"] = base[:0].reshape(0, 3).clone()
        out[f"{name}.t"] = t.t()
        out[f"{name}.strided"] = t[::2, 1::3]
        out[f"{name}.offset"] = t[1:3, 5]
        out[f"{name}.expanded"] = base[:3].clone().reshape(3, 1).expand(3, 4)
    out["param"] = torch.nn.Parameter(torch.ones(2, 3))
    out["frozen"] = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    out["leaf"] = torch.zeros(3, requires_grad=True)
    return out


@pytest.mark.parametrize("map_location", [None, "cpu", {"cpu": "cpu"}])
def test_torch_checkpoint_loads_bit_exact(torch, tmp_path, map_location):
    obj = torch_tensors(torch)
    path = tmp_path / "th.pt"
    torch.save(obj, path)
    got = load(path, map_location=map_location)
    assert list(got) == list(obj)
    for k in obj:
        assert_torch_equal(got[k], obj[k], torch)
    assert type(got["param"]) is tinytorch.nn.Parameter and got["param"].requires_grad
    assert type(got["frozen"]) is tinytorch.nn.Parameter and not got["frozen"].requires_grad
    c = got["float32.c"]._data
    for k in ("float32.t", "float32.strided", "float32.offset"):
        assert np.shares_memory(got[k]._data, c)  # one storage, as in the file
    c[1, 5] = 7.0
    assert got["float32.offset"]._data[0] == 7.0


def test_torch_containers_load_as_themselves(torch, tmp_path):
    obj = {"od": OrderedDict(b=1, a=[1.5, None]), "t": (1, ("x", b"\x00\xff")), "set": {1, 2},
           "counter": Counter("aab"), "size": torch.Size([2, 3]), "dtype": torch.int64,
           "big": 2**90, "nan": float("nan"), "c": 1 - 2j, "cpu": torch.device("cpu")}
    path = tmp_path / "c.pt"
    torch.save(obj, path)
    got = load(path)
    assert got["od"] == obj["od"] and type(got["od"]) is OrderedDict
    for k in ("t", "set", "counter", "big", "c"):
        assert got[k] == obj[k] and type(got[k]) is type(obj[k])
    assert got["size"] == tinytorch.Size([2, 3]) and type(got["size"]) is tinytorch.Size
    assert got["dtype"] is tinytorch.int64 and got["nan"] != got["nan"]
    assert str(got["cpu"]) == "cpu"


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_torch_optimizer_state_dict_loads_and_trains_on(torch, tmp_path, kind):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))
    make = {"sgd": lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9),
            "adam": lambda lib, p: lib.optim.Adam(p, lr=1e-2)}[kind]
    opt = make(torch, model.parameters())
    x = torch.linspace(-1, 1, 20).reshape(5, 4)
    for _ in range(2):
        model(x).pow(2).sum().backward()
        opt.step()
        opt.zero_grad()
    path = tmp_path / "th.pth"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    ck = load(path)
    tt_model = tinytorch.nn.Sequential(tinytorch.nn.Linear(4, 3), tinytorch.nn.Tanh(),
                                       tinytorch.nn.Linear(3, 2))
    tt_model.load_state_dict(ck["model"])
    tt_opt = make(tinytorch, tt_model.parameters())
    tt_opt.load_state_dict(ck["optimizer"])
    # one more step on both sides: the loaded state drives the same update
    model(x).pow(2).sum().backward()
    opt.step()
    tt_model(tinytorch.from_numpy(x.numpy().copy())).pow(2).sum().backward()
    tt_opt.step()
    for (k, v), tv in zip(model.state_dict().items(), tt_model.state_dict().values()):
        np.testing.assert_allclose(tv._data, v.numpy(), rtol=1e-6, atol=1e-7, err_msg=k)


def test_storage_saved_on_another_device_needs_map_location(torch, tmp_path):
    path = tmp_path / "th.pt"
    torch.save({"w": torch.ones(2)}, path)
    data = zipfile.ZipFile(path).read("th/data.pkl")
    for tag, error in ((b"cuda:0", RuntimeError), (b"xpu", SerializationError)):
        # retag the storage as saved on that device, as a GPU machine's torch.save would
        retagged = data.replace(b"X\x03\x00\x00\x00cpu", b"X" + struct.pack("<I", len(tag)) + tag)
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("th/data.pkl", retagged)
            z.writestr("th/data/0", torch.ones(2).numpy().tobytes())
            z.writestr("th/version", b"3\n")
        with pytest.raises(error) as got:
            load(path)
        if tag == b"cuda:0" and not torch.cuda.is_available():
            with pytest.raises(RuntimeError) as expected:
                torch.load(path)
            assert str(got.value) == str(expected.value).replace("torch.", "tinytorch.")
        for location in ("cpu", {"cuda:0": "cpu"}, lambda storage, loc: storage):
            assert load(path, map_location=location)["w"]._data.tolist() == [1.0, 1.0]


def test_legacy_format_loads_weights_only(torch, tmp_path):
    path = tmp_path / "legacy.pt"
    torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=False)
    assert load(path)["w"].tolist() == torch.load(path)["w"].tolist() == [1.0, 1.0]


# ----------------------------------------------------------------------------- determinism

def test_same_object_same_bytes(tmp_path):
    tinytorch.manual_seed(0)
    model = tinytorch.nn.Linear(3, 2)
    obj = {"model": model.state_dict(), "s": {"b", "a", "c"}, "x": [1.5, None]}
    # the archive's folder is the file's stem as in torch.save (a file object's is "archive"): equal stems,
    # equal bytes
    (tmp_path / "sub").mkdir()
    blobs = []
    for name in ("a.pt", "sub/a.pth", "archive.pt"):
        save(obj, tmp_path / name)
        blobs.append((tmp_path / name).read_bytes())
    buf = io.BytesIO()
    save(obj, buf)
    blobs.append(buf.getvalue())
    assert blobs[0] == blobs[1] and blobs[2] == blobs[3]
    assert zipfile.ZipFile(tmp_path / "a.pt").namelist()[0] == "a/data.pkl"
    infos = zipfile.ZipFile(tmp_path / "a.pt").infolist()
    assert {i.date_time for i in infos} == {(1980, 0, 0, 0, 0, 0)}
    for info in infos:  # stored, and each record's data starts on a 64-byte boundary as torch's
        assert info.compress_type == zipfile.ZIP_STORED
        blob = blobs[0]
        name_len, extra_len = struct.unpack("<HH", blob[info.header_offset + 26:
                                                        info.header_offset + 30])
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0


def test_set_of_strings_same_bytes_in_any_process(tmp_path):
    import subprocess
    import sys

    code = ("import io, tinytorch; b = io.BytesIO(); tinytorch.save({'s': {'x', 'y', 'zz', 'w'}}, b);"
            " print(b.getvalue().hex())")
    repo = _repo.ROOT
    outs = {subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(seed))).stdout
            for seed in (1, 2)}
    assert len(outs) == 1 and outs != {""}


def test_zip64_records_read_back(torch, tmp_path, monkeypatch):
    monkeypatch.setattr(_torchzip, "ZIP64_LIMIT", 100)  # every record past byte 100 is zip64
    obj = {"w": tinytorch.arange(40.0), "b": tinytorch.ones(3)}
    path = tmp_path / "z64.pt"
    save(obj, path)
    assert zipfile.ZipFile(path).testzip() is None
    got = load(path)
    assert got["w"]._data.tolist() == list(range(40)) and got["b"]._data.tolist() == [1, 1, 1]
    assert torch.load(path)["w"].tolist() == list(range(40))


# ------------------------------------------------------------------------ malicious pickles

class Evil:
    def __init__(self, marker, how):
        self.marker, self.how = str(marker), how

    def __reduce__(self):
        if self.how == "os.system":
            return (os.system, (f"touch {self.marker}",))
        if self.how == "builtins.eval":
            return (eval, (f"open({self.marker!r}, 'w')",))
        return (open, (self.marker, "w"))


def pickle_zip(data: bytes, storages=()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", data)
        for i, raw in enumerate(storages):
            z.writestr(f"archive/data/{i}", raw)
        z.writestr("archive/version", "3\n")
    return buf.getvalue()


def hand_pickles(marker):
    m = repr(str(marker)).encode()
    return {
        # GLOBAL + REDUCE, the classic
        "global_reduce": b"\x80\x02cposix\nsystem\nX" + struct.pack("<I", len(f"touch {marker}"))
                         + f"touch {marker}".encode() + b"\x85R.",
        # STACK_GLOBAL (protocol 4)
        "stack_global": b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93\x8c" + bytes([len(m) + 12])
                        + b"open(" + m + b", 'w')" + b"\x85R.",
        # INST and OBJ build instances without REDUCE
        "inst": b"(S'" + str(marker).encode() + b"'\nS'w'\nibuiltins\nopen\n.",
        "obj": b"\x80\x02(cbuiltins\nopen\nX" + struct.pack("<I", len(str(marker)))
               + str(marker).encode() + b"X\x01\x00\x00\x00wo.",
        # BUILD on an allowed object: __setstate__ must never run
        "build": b"\x80\x02ccollections\nOrderedDict\n)R}X\x01\x00\x00\x00xK\x01sb.",
        # NEWOBJ of an allowed class
        "newobj": b"\x80\x02ccollections\nOrderedDict\n)\x81.",
        # a global smuggled through a torch-looking module name
        "torch_lookalike": b"\x80\x02ctorch.serialization\nos\n.",
        "ext": b"\x80\x02\x82\x01.",
        "persid_text": b"P1\n.",
    }


@pytest.mark.parametrize("how", ["os.system", "builtins.eval", "io.open"])
def test_torch_checkpoint_with_reduce_payload_runs_only_with_weights_only_false(torch, tmp_path,
                                                                                how):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "evil": Evil(marker, how)}, path)
    with pytest.raises(pickle.UnpicklingError) as expected:
        torch.load(path)
    with pytest.raises(SerializationError) as got:
        load(path)
    assert str(got.value) == str(expected.value)  # PyTorch's words, naming the global
    assert not marker.exists()
    blob = pickle_zip(pickle.dumps(Evil(marker, how), protocol=2))
    with pytest.raises(SerializationError, match="was not an allowed global|is blocked"):
        load(io.BytesIO(blob))
    assert not marker.exists()
    load(path, weights_only=False)  # as torch.load: the trusted-source path unpickles
    assert marker.exists()


@pytest.mark.parametrize("name", list(hand_pickles("m")))
def test_hand_written_malicious_pickles_are_refused(tmp_path, name):
    marker = tmp_path / "pwned"
    data = hand_pickles(marker)[name]
    with pytest.raises(SerializationError):
        load(io.BytesIO(pickle_zip(data)))
    assert not marker.exists()


def test_refusal_names_the_global_and_imports_nothing(tmp_path):
    import sys

    sys.modules.pop("antigravity", None)
    blob = pickle_zip(b"\x80\x02cantigravity\nfly\n.")
    with pytest.raises(SerializationError) as e:
        load(io.BytesIO(blob))
    assert "antigravity.fly" in str(e.value)
    assert "antigravity" not in sys.modules


# ----------------------------------------------------------------------------------- fuzzing

def sample_files(torch):
    """Small checkpoints in PyTorch's format, written by tinytorch and by PyTorch, and one in
    safetensors (whose reader is fuzzed here too)."""
    tinytorch.manual_seed(0)
    model = tinytorch.nn.Linear(3, 2)
    opt = tinytorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(tinytorch.ones(1, 3)).sum().backward()
    opt.step()
    base = tinytorch.arange(6.0).reshape(2, 3)
    obj = {"model": model.state_dict(), "opt": opt.state_dict(), "views": [base, base.t()],
           "meta": OrderedDict(a=(1, 2.5), b={"x", "y"}, c=b"z", d=2**70)}
    buf = io.BytesIO()
    save(obj, buf)
    files = {"tinytorch": buf.getvalue()}
    st = io.BytesIO()
    obj["views"][1] = obj["views"][1].contiguous()
    obj["meta"] = OrderedDict(a=(1, 2.5), b=[None, True, "y"], d=2**70, e=float("nan"))
    save(obj, st, format="safetensors")
    assert st.getvalue()[:8] != b"tinytorc"  # a real safetensors file, not the pickle fallback
    files["safetensors"] = st.getvalue()
    if torch is not None:
        th = io.BytesIO()
        torch.save({"w": torch.arange(4.0), "b": torch.tensor([True]), "sd": OrderedDict(
            n=torch.nn.Parameter(torch.ones(2))), "s": "x"}, th)
        files["torch"] = th.getvalue()
    return files


def _load_or_refuse(blob):
    try:
        load(io.BytesIO(blob))
    except SerializationError:
        pass


@pytest.fixture(scope="module")
def samples():
    try:
        import torch
    except ImportError:
        torch = None
    return sample_files(torch)


def test_truncated_at_every_offset(samples):
    for blob in samples.values():
        load(io.BytesIO(blob))
        for cut in range(len(blob)):
            with pytest.raises(SerializationError):
                load(io.BytesIO(blob[:cut]))


def _mutate(rng, blob: bytes) -> bytes:
    b = bytearray(blob)
    for _ in range(rng.randint(1, 4)):
        what = rng.random()
        i = rng.randrange(len(b))
        if what < 0.5:
            b[i] = rng.randrange(256)
        elif what < 0.7:
            b[i] ^= 1 << rng.randrange(8)
        elif what < 0.8:  # plausible integers: sizes, counts, offsets
            b[i:i + 4] = struct.pack("<I", rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(b)]))
        elif what < 0.9:
            del b[i:i + rng.randint(1, 8)]
        else:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(b)


def _mutate_pickle(rng, blob: bytes) -> bytes:
    """Mutate only data.pkl and rewrite the zip, so the pickle interpreter itself is fuzzed
    (mutating the archive mostly hits the CRC check)."""
    z = zipfile.ZipFile(io.BytesIO(blob))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for info in z.infolist():
            data = z.read(info)
            if info.filename.endswith("data.pkl"):
                data = _mutate(rng, data)
            w.writestr(info.filename, data)
    return out.getvalue()


def _mutate_structure(rng, blob: bytes) -> bytes:
    """Replace one node of a safetensors file's structure tree (a valid header otherwise):
    which is how its unchecked node tags were found."""
    import json

    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    tree = json.loads(header["__metadata__"]["tinytorch.structure"])
    nodes = [(None, None, tree)]
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, child in enumerate(node):
                nodes.append((node, i, child))
                stack.append(child)
    parent, i, _ = rng.choice(nodes)
    junk = rng.choice([[], [[]], [{}], [1], ["list", [[1]]], {"a": 1}, ["dict", [1], 2],
                       ["tensor"], ["tensor", 1], ["tensor", "nope"], ["int", 5], ["float", 1],
                       ["odict", "k"], None, -1, "tensor", 2**70, ["counter", ["list"], 1]])
    if parent is None:
        tree = junk
    else:
        parent[i] = junk
    header["__metadata__"]["tinytorch.structure"] = json.dumps(tree)
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + blob[8 + n:]


@pytest.mark.parametrize("where", ["archive", "pickle", "structure"])
def test_random_mutations_load_or_raise_serialization_error(samples, where):
    rng = random.Random(1234)
    deadline = time.monotonic() + 3.0  # a time budget, not a count: CI stays fast
    n, slowest = 0, 0.0
    mutate = {"archive": _mutate, "pickle": _mutate_pickle, "structure": _mutate_structure}[where]
    files = [blob for name, blob in samples.items()
             if where == "archive" or (where == "structure") == (name == "safetensors")]
    tracemalloc.start()
    try:
        while time.monotonic() < deadline:
            for blob in files:
                bad = mutate(rng, blob)
                t0 = time.perf_counter()
                _load_or_refuse(bad)  # anything but SerializationError propagates and fails
                slowest = max(slowest, time.perf_counter() - t0)
                n += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n > 30  # a floor that a loaded CI machine still reaches in the budget
    assert slowest < 1.0  # no hang
    assert peak < 20_000_000  # no allocation beyond what the small files claim


def test_crafted_sizes_are_refused_before_allocation():
    storage_pid = (b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000"
                   b"X\x03\x00\x00\x00cpu")
    cases = {
        # a storage claiming 2**40 elements against a 16-byte record
        "storage_numel": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + storage_pid
                         + b"\x8a\x06\x00\x00\x00\x00\x00\x01tQK\x00K\x04\x85K\x01\x85\x89tR.",
        # a tensor reaching past its storage
        "tensor_past_storage": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + storage_pid
                               + b"K\x04tQK\x00K\x05\x85K\x01\x85\x89tR.",
        # a huge stride
        "stride": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + storage_pid
                  + b"K\x04tQK\x00K\x02\x85\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x3f\x85\x89tR.",
        # a LONG4 length far past the pickle
        "long4": b"\x80\x02\x8b\xff\xff\xff\x7f.",
        "binunicode": b"\x80\x02X\xff\xff\xff\x7f.",
        "deep_tuple_key": b"\x80\x02}" + b"K\x01\x85" + b"\x85" * 5000 + b"K\x01s.",
        "unhashable_key": b"\x80\x02}]K\x01s.",
        "no_stop": b"\x80\x02K\x01",
        "two_values": b"\x80\x02K\x01K\x02.",
        "mark_left_open": b"\x80\x02(K\x01.",
        "memo_unset": b"\x80\x02h\x05.",
        "append_to_dict": b"\x80\x02}K\x01a.",
        "reduce_non_callable": b"\x80\x02K\x01)R.",
        "storage_type_as_value": b"\x80\x02]ctorch\nFloatStorage\na.",
        "bfloat16": b"\x80\x02ctorch\nBFloat16Storage\n.",
        "hooks": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + storage_pid
                 + b"K\x04tQK\x00K\x01\x85K\x01\x85\x89ccollections\nOrderedDict\n)R"
                   b"K\x01K\x02stR.",
        "int_requires_grad": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + storage_pid.replace(
            b"FloatStorage", b"LongStorage") + b"K\x02tQK\x00K\x01\x85K\x01\x85\x88tR.",
    }
    for name, data in cases.items():
        blob = pickle_zip(data, [bytes(16)])

        def attempt():
            with pytest.raises(SerializationError):
                load(io.BytesIO(blob))

        tracemalloc.start()
        try:
            attempt()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 5_000_000, name


def test_archive_level_defects_are_named():
    good = pickle_zip(b"\x80\x02K\x07.")
    assert load(io.BytesIO(good)) == 7
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data.pkl", b"\x80\x02K\x07.")
    with pytest.raises(SerializationError, match="compressed"):
        load(io.BytesIO(buf.getvalue()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/data.pkl", b"\x80\x02K\x07.")
        z.writestr("b/version", b"3\n")
    with pytest.raises(SerializationError, match="two top folders"):
        load(io.BytesIO(buf.getvalue()))
    with pytest.raises(SerializationError, match="no data.pkl"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("archive/other", b"")
        load(io.BytesIO(buf.getvalue()))
    with pytest.raises(SerializationError, match="CRC"):
        blob = bytearray(good)
        blob[blob.index(b"\x80\x02K\x07.") + 3] = 8
        load(io.BytesIO(bytes(blob)))


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_interpreter_agrees_with_pickle_on_plain_data(protocol):
    # Python's own pickler exercises the opcodes torch.save never emits (SETITEM, APPEND, DICT,
    # LIST, EMPTY_SET/ADDITEMS, BINBYTES, SHORT_BINUNICODE, MEMOIZE, FRAME, LONG4, DUP...)
    shared = [1, 2]
    obj = {"a": [1, -1, 255, 256, 65536, -(2**31), 2**31, 2**64, -(2**2100)],
           "b": (1.5, -0.0, float("inf"), "ü\u2603", "", b"", b"\x00" * 300, None),
           "c": OrderedDict(x=shared, y=shared), "d": {1, 2, (3, "x")}, "e": Counter("aab"),
           ("t", 1): {"nested": [{"k": ()}, (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)]},
           "single": {"k": 1}, "list1": [None], "long": "x" * 70000, True: False, 1.25: 3 + 4j}
    blob = pickle.dumps(obj, protocol=protocol)
    from tinytorch.serialization._unpickler import unpickle

    got = unpickle(blob, lambda pid: pytest.fail("no persistent ids here"))
    assert repr(got) == repr(obj)
    assert got["c"]["x"] is got["c"]["y"]  # the memo keeps shared objects shared
    for tiny in (b"\x80\x02}K\x01K\x02s.", b"\x80\x02]K\x01a.", b"\x80\x02(K\x01K\x02d.",
                 b"\x80\x02(K\x01l.", b"\x80\x02K\x012\x86."):
        assert unpickle(tiny, None) == pickle.loads(tiny)


def test_state_dict_metadata_survives_both_ways(tmp_path):
    torch = pytest.importorskip("torch")
    model = tinytorch.nn.Sequential(tinytorch.nn.Linear(2, 3), tinytorch.nn.BatchNorm1d(3))
    sd = model.state_dict()
    path = str(tmp_path / "m.pt")
    save(sd, path)
    expected = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3)).state_dict()._metadata
    assert load(path)._metadata == sd._metadata == expected
    assert torch.load(path)._metadata == expected
    torch.save(torch.nn.BatchNorm1d(3).state_dict(), path)
    assert load(path)._metadata == OrderedDict([("", {"version": 2})])
