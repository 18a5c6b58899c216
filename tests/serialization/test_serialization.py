"""tinytorch.save / load: bit-exact round trips in both formats (PyTorch's zip, safetensors),
strict validation, no unpickling, atomic writes. The PyTorch-format reader's fuzzing and the
interop with real PyTorch are in test_serialization_torch.py."""
import _repo
import io
import json
import math
import os
import pickle
import signal
import struct
import subprocess
import sys
import textwrap
import time
import tracemalloc
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinytorch
from tinytorch.serialization import MAX_HEADER_BYTES, SerializationError, load, save
from tinytorch.tensor import Tensor

REPO = _repo.ROOT
DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
          np.float16, np.float32, np.float64]
FORMATS = ["pytorch", "safetensors"]


def T(arr) -> Tensor:
    return tinytorch.from_numpy(np.asarray(arr))


def round_trip(obj, fmt="pytorch", **load_kwargs):
    buf = io.BytesIO()
    save(obj, buf, format=fmt)
    buf.seek(0)
    return load(buf, **load_kwargs)


def float_bits(x: float) -> bytes:
    return struct.pack("<d", x)


def assert_same(expected, got, fmt="safetensors"):
    """Equal values, identical types, float bits and tensor bytes; dict order included. The
    safetensors format loads every tensor C-contiguous, PyTorch's keeps the strides."""
    if isinstance(expected, Tensor):
        assert type(got) is type(expected)
        assert got._data.dtype == expected._data.dtype
        assert got._data.shape == expected._data.shape
        assert got._data.tobytes() == expected._data.tobytes()
        assert got.requires_grad is expected.requires_grad
        assert got._data.flags.writeable
        if fmt == "safetensors":
            assert got._data.flags.c_contiguous
        elif expected.numel() > 1:
            assert got.stride() == expected.stride()
        return
    assert type(got) is type(expected), (expected, got)
    if isinstance(expected, float):
        assert float_bits(got) == float_bits(expected)
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert_same(e, g, fmt)
    elif isinstance(expected, dict):
        assert len(got) == len(expected)
        for (ek, ev), (gk, gv) in zip(expected.items(), got.items()):
            assert_same(ek, gk, fmt)
            assert_same(ev, gv, fmt)
    else:
        assert got == expected


# ------------------------------------------------------------------------------- round trips

@st.composite
def arrays(draw):
    dt = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    layout = draw(st.sampled_from(["c", "transposed", "strided"]))
    base_shape = {"c": shape, "transposed": shape[::-1],
                  "strided": shape[:-1] + (2 * shape[-1],) if shape else shape}[layout]
    nbytes = math.prod(base_shape) * dt.itemsize
    raw = np.frombuffer(draw(st.binary(min_size=nbytes, max_size=nbytes)), dtype=np.uint8)
    if dt == np.bool_:
        base = (raw & 1).astype(np.bool_).reshape(base_shape)
    else:  # any bit pattern: NaN payloads, -0.0, subnormals, infinities
        base = raw.view(dt).reshape(base_shape).copy()
    if layout == "transposed":
        return base.T
    if layout == "strided" and shape:
        return base[..., ::2]
    return base


any_float = st.floats() | st.integers(0, 2**64 - 1).map(
    lambda b: struct.unpack("<d", b.to_bytes(8, "little"))[0])
scalars = (st.none() | st.booleans() | st.integers() | st.integers(-2**300, 2**300) | any_float
           | st.text(max_size=8))
keys = st.text(max_size=6) | st.integers(-2**70, 2**70) | st.booleans() | st.none() | any_float
leaves = scalars | arrays().map(T)
nested = st.recursive(
    leaves,
    lambda kids: (st.lists(kids, max_size=4) | st.lists(kids, max_size=4).map(tuple)
                  | st.dictionaries(keys, kids, max_size=4)
                  | st.dictionaries(keys, kids, max_size=4).map(OrderedDict)),
    max_leaves=12)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=nested)
def test_nested_round_trip_is_exact(fmt, obj):
    assert_same(obj, round_trip(obj, fmt), fmt)


@pytest.mark.parametrize("suffix", [".safetensors", ".pt"])
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_shape_and_layout(dt, tmp_path, suffix):
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, size=4 * 6 * 8, dtype=np.uint8)
    base = (raw[:24] & 1).astype(np.bool_) if dt is np.bool_ else raw.view(dt)[:24].copy()
    cases = {"c": base.reshape(4, 6), "transposed": base.reshape(4, 6).T,
             "strided": base.reshape(4, 6)[::2, 1::3], "scalar": base[0].reshape(()),
             "empty": base[:0].reshape(0, 3), "empty_middle": base[:0].reshape(2, 0, 5)}
    obj = {k: T(v) for k, v in cases.items()}
    path = tmp_path / f"all{suffix}"
    save(obj, path)
    assert path.read_bytes()[:2] == (b"PK" if suffix == ".pt" else path.read_bytes()[:2])
    got = load(path)
    assert_same(obj, got, "pytorch" if suffix == ".pt" else "safetensors")
    for k, v in cases.items():
        assert got[k].dtype is tinytorch._dtype.FROM_NP[np.dtype(dt)]
        assert got[k]._data.dtype == v.dtype and got[k]._data.shape == v.shape


def test_special_floats_are_bit_exact():
    payload_nan = struct.unpack("<d", struct.pack("<Q", 0xFFF0_0000_0000_0ABC))[0]
    values = [-0.0, 0.0, math.inf, -math.inf, math.nan, payload_nan, 5e-324, 1e308]
    f32 = np.array([0x7FC00001, 0xFF800000, 0x80000000, 0x7F800001], np.uint32).view(np.float32)
    f16 = np.array([0x7E01, 0x8000, 0xFC00, 0x0001], dtype=np.uint16).view(np.float16)
    obj = {"py": values, "f32": T(f32), "f16": T(f16), "f64": T(np.array(values))}
    for fmt in FORMATS:
        assert_same(obj, round_trip(obj, fmt), fmt)


def test_optimizer_state_dict_keeps_int_keys_tuples_and_order():
    state = {
        "state": {1: {"step": T(np.array(3.0, np.float32)),
                      "exp_avg": T(np.ones((2, 3), np.float32))},
                  0: {"step": T(np.array(3.0, np.float32)), "exp_avg": T(np.zeros(3, np.float32))}},
        "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0,
                          "amsgrad": False, "foreach": None, "params": [0, 1],
                          "initial_lr": 0.1, "big": 2**80, "neg": -(2**63)}],
    }
    for fmt in FORMATS:
        got = round_trip(state, fmt)
        assert_same(state, got, fmt)
        assert list(got["state"]) == [1, 0]
    a, b = got["state"][0]["exp_avg"], got["state"][1]["exp_avg"]
    assert not np.shares_memory(a._data, b._data)
    a._data[:] = 7  # writable, own memory: nothing else changes
    assert b._data.sum() == 6


def test_model_state_dict_opens_in_safetensors(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    sd = OrderedDict([("linear_relu_stack.0.weight", T(weight)),
                      ("linear_relu_stack.0.bias", T(np.array([0.5, -0.0], np.float32))),
                      ("mask", T(np.array([True, False])))])
    path = tmp_path / "model.safetensors"
    save(sd, path)
    other = safetensors_numpy.load_file(str(path))
    assert set(other) == set(sd)
    for k, v in sd.items():
        assert other[k].dtype == v._data.dtype and other[k].tobytes() == v._data.tobytes()
    assert_same(sd, load(path))


def test_awkward_names_get_unique_safetensors_keys(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    t = T(np.arange(2.0))
    obj = {"__metadata__": t, "a.b": t, "a": {"b": t}, "\ud800": t, "s": "\udfff"}
    path = tmp_path / "names.pt"
    save(obj, path, format="safetensors")
    keys = set(safetensors_numpy.load_file(str(path)))
    assert len(keys) == 4 and "__metadata__" not in keys and "a.b" in keys
    assert_same(obj, load(path))


def test_safetensors_file_from_another_tool_loads_as_dict(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    arrays_in = {"b": np.arange(5, dtype=np.int64), "a": np.array([[1.5, -2.0]], np.float16)}
    path = tmp_path / "foreign.safetensors"
    safetensors_numpy.save_file(arrays_in, str(path), metadata={"format": "np"})
    got = load(path)
    assert set(got) == {"a", "b"}
    for k, v in arrays_in.items():
        assert got[k]._data.dtype == v.dtype and got[k]._data.tobytes() == v.tobytes()


def test_pytorch_state_dict_via_safetensors_torch(torch, tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    torch.manual_seed(0)
    sd = torch.nn.Linear(4, 3).state_dict()
    path = tmp_path / "torch.safetensors"
    safetensors_torch.save_file(sd, str(path))
    got = load(path)
    for k, v in sd.items():
        np.testing.assert_array_equal(got[k]._data, v.numpy())


@pytest.mark.parametrize("fmt", FORMATS)
def test_requires_grad_is_kept(fmt):
    t = T(np.array([1.0, 2.0], np.float32))
    t.requires_grad_(True)
    p = tinytorch.nn.Parameter(T(np.array([3.0], np.float32)))
    frozen = tinytorch.nn.Parameter(T(np.array([4.0], np.float32)), requires_grad=False)
    got = round_trip({"w": t, "p": p, "frozen": frozen, "plain": T(np.ones(2))}, fmt)
    assert got["w"].requires_grad is True and got["w"].is_leaf and got["w"]._data.tolist() == [1, 2]
    assert got["plain"].requires_grad is False
    if fmt == "pytorch":  # PyTorch's format keeps Parameters as Parameters
        assert type(got["p"]) is tinytorch.nn.Parameter and got["p"].requires_grad
        assert type(got["frozen"]) is tinytorch.nn.Parameter and not got["frozen"].requires_grad
    else:
        assert type(got["p"]) is Tensor and got["p"].requires_grad
        assert not got["frozen"].requires_grad


def test_shared_tensor_is_stored_twice_in_safetensors():
    t = T(np.arange(3.0))
    got = round_trip([t, t, {"again": t}], "safetensors")
    assert_same([t, t, {"again": t}], got)
    assert not np.shares_memory(got[0]._data, got[1]._data)


def test_views_of_one_base_share_one_storage_in_pytorch_format():
    base = T(np.arange(12.0).reshape(3, 4))
    views = [base, base, base[1], base.t(), base[:, 1:3], base.reshape(-1)[5:6]]
    buf = io.BytesIO()
    save(views, buf)
    import zipfile
    storages = [n for n in zipfile.ZipFile(buf).namelist() if "/data/" in n]
    assert storages == ["archive/data/0"]  # one base: one storage
    buf.seek(0)
    got = load(buf)
    assert got[0] is got[1]  # the same tensor object comes back as one object, as in PyTorch
    for e, g in zip(views, got):
        assert g._data.tolist() == e._data.tolist() and g.stride() == e.stride()
    got[0]._data[1, 1] = -1.0  # they share memory as the saved views did
    assert got[2]._data[1] == -1.0 and got[3]._data[1, 1] == -1.0 and got[5]._data[0] == -1.0


def test_file_object_at_an_offset_and_unseekable_stream():
    buf = io.BytesIO()
    buf.write(b"prefix")
    save({"x": T(np.arange(4))}, buf)
    buf.seek(6)
    assert load(buf)["x"]._data.tolist() == [0, 1, 2, 3]

    class ReadOnly:
        def __init__(self, data):
            self._inner = io.BytesIO(data)

        def read(self, n=-1):
            return self._inner.read(n)

    with pytest.raises(AttributeError, match="You can only torch.load from a file that is seekable"):
        load(ReadOnly(buf.getvalue()[6:]))  # PyTorch's refusal (test_serialization_unsafe_globals.py compares)
    buf = io.BytesIO(b"prefix")
    buf.seek(6)
    save({"x": T(np.arange(4))}, buf, format="safetensors")
    buf.seek(6)
    assert load(buf)["x"]._data.tolist() == [0, 1, 2, 3]


# --------------------------------------------------------------------- pickles and whole objects

class Model:
    """Not a plain structure: ``save`` falls back to pickle."""

    def __init__(self):
        self.weight = T(np.arange(3.0))


class Evil:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))  # unpickling creates the marker file


def test_whole_object_needs_weights_only_false_or_safe_globals(tmp_path):
    path = tmp_path / "model.pt"
    save(Model(), path)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL test_serialization.Model was not"):
        load(path)
    with tinytorch.serialization.safe_globals([Model]):
        assert load(path).weight._data.tolist() == [0.0, 1.0, 2.0]
    got = load(path, weights_only=False)
    assert type(got) is Model and got.weight._data.tolist() == [0.0, 1.0, 2.0]
    assert load(path, pickle_module=pickle).weight._data.tolist() == [0.0, 1.0, 2.0]


def test_cycle_and_unsupported_leaf_fall_back_to_pickle():
    cyclic = [1]
    cyclic.append(cyclic)
    deep = "leaf"
    for _ in range(250):
        deep = [deep]
    for obj in (cyclic, {"a": np.float64(1.0)}, {(1, 2): 3}, {1, 2}, deep):
        with pytest.raises(SerializationError):
            round_trip(obj, "safetensors")
        assert repr(round_trip(obj, "safetensors", weights_only=False)) == repr(obj)
    # PyTorch's format holds what torch.load(weights_only=True) accepts: cycles through lists,
    # tuple keys and sets too; numpy scalars and deeper nesting still need a full pickle
    # and, as torch.save, deeper nesting; numpy scalars need weights_only=False
    for obj in (cyclic, {(1, 2): 3}, {1, 2}, deep):
        assert repr(round_trip(obj)) == repr(obj)
    with pytest.raises(SerializationError, match="numpy"):
        round_trip({"a": np.float64(1.0)})
    back = round_trip({"a": np.float64(1.0)}, weights_only=False)
    assert back == {"a": 1.0} and type(back["a"]) is np.float64  # (its repr is numpy's: NEP 51 changed it in 2.0)


def test_reduce_payload_never_runs_with_weights_only(tmp_path):
    marker = tmp_path / "pwned"
    raw = tmp_path / "raw.pkl"
    raw.write_bytes(pickle.dumps(Evil(marker), protocol=2))
    ours = tmp_path / "ours.pt"
    save(Evil(marker), ours)
    assert not marker.exists()
    for path in (raw, ours):
        with pytest.raises(SerializationError, match="pickle|not an allowed global"):
            load(path)
    with pytest.raises(SerializationError, match="pickle"):
        load(raw, weights_only=False)  # a bare pickle: not a checkpoint, never unpickled
    assert not marker.exists()
    load(ours, weights_only=False)  # the documented unsafe path really does unpickle
    assert marker.exists()


@pytest.mark.parametrize("zipfile", [True, False], ids=["zip", "legacy"])
def test_pytorch_pt_file_unpickles_only_with_weights_only_false(torch, tmp_path, zipfile):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "evil": Evil(marker)}, path,
               _use_new_zipfile_serialization=zipfile)
    with pytest.raises(SerializationError, match="GLOBAL io.open was not an allowed global"):
        load(path)
    assert not marker.exists()
    load(path, weights_only=False)  # unpickles, as torch.load does: the payload runs
    assert marker.exists()


def test_pickle_module_with_weights_only_matches_pytorch(torch):
    for fn in (torch.load, load):
        with pytest.raises(RuntimeError) as e:
            fn(io.BytesIO(b""), pickle_module=pickle, weights_only=True)
        assert str(e.value) == ("Can not safely load weights when explicit pickle_module "
                                "is specified")


# ------------------------------------------------------------------------------ malformed files

def craft(header=None, data=b"", *, raw=None, length=None) -> bytes:
    body = raw if raw is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(body) if length is None else length) + body + data


def f32(offsets, shape=(1,), dtype="F32"):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


def with_structure(structure, tensors=None, data=b"", version="1"):
    header = {"__metadata__": {"tinytorch.version": version,
                               "tinytorch.structure": json.dumps(structure)}}
    header.update(tensors or {})
    return craft(header, data)


def load_bytes(blob, **kwargs):
    return load(io.BytesIO(blob), **kwargs)


@pytest.mark.parametrize("fmt", FORMATS)
def test_small_checkpoint_truncated_at_every_offset(tmp_path, fmt):
    obj = {"w": T(np.arange(6, dtype=np.float32).reshape(2, 3)), "b": T(np.array(True)),
           "meta": [1, -0.0, None, "x", (2**70,)]}
    buf = io.BytesIO()
    save(obj, buf, format=fmt)
    blob = buf.getvalue()
    assert_same(obj, load_bytes(blob), fmt)
    for cut in range(len(blob)):
        with pytest.raises(SerializationError):
            load_bytes(blob[:cut])
    path = tmp_path / "cut.pt"
    for cut in (0, 7, 8, len(blob) // 2, len(blob) - 1):
        path.write_bytes(blob[:cut])
        with pytest.raises(SerializationError):
            load(path)


def test_pickle_checkpoint_truncated_at_every_offset():
    buf = io.BytesIO()
    save(Model(), buf)
    blob = buf.getvalue()
    for cut in range(len(blob)):
        with pytest.raises(SerializationError):
            load_bytes(blob[:cut])


def _peak_bytes_while(fn):
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_header_length_beyond_file_rejected_before_allocation():
    blob = craft(raw=b'{"a": 1}', length=90_000_000)

    def attempt():
        with pytest.raises(SerializationError, match="exceeds the 8 bytes"):
            load_bytes(blob)

    assert _peak_bytes_while(attempt) < 1_000_000


def test_header_length_over_100mb_rejected_before_allocation(tmp_path):
    path = tmp_path / "huge.safetensors"
    with open(path, "wb") as fh:  # sparse: the size is real, the disk use is not
        fh.write(struct.pack("<Q", MAX_HEADER_BYTES + 1) + b"{")  # a JSON header follows: a safetensors file
        fh.truncate(MAX_HEADER_BYTES + 64)

    def attempt():
        with pytest.raises(SerializationError, match="100 MB"):
            load(path)

    assert _peak_bytes_while(attempt) < 1_000_000


BAD_FILES = {
    "overlap": craft({"a": f32([0, 8], (2,)), "b": f32([4, 12], (2,))}, bytes(12)),
    "gap": craft({"a": f32([0, 4]), "b": f32([8, 12])}, bytes(12)),
    "out_of_range": craft({"a": f32([0, 8], (2,))}, bytes(4)),
    "shape_dtype_mismatch": craft({"a": f32([0, 8], (3,))}, bytes(8)),
    "dtype_size_mismatch": craft({"a": f32([0, 8], (2,), "F64")}, bytes(8)),
    "trailing_bytes": craft({"a": f32([0, 4])}, bytes(5)),
    "trailing_without_tensors": craft({}, b"x"),
    "not_starting_at_zero": craft({"a": f32([4, 8])}, bytes(8)),
    "dims_overflow_int64": craft({"a": f32([0, 0], (2**62, 4), "I64")}),
    "dim_beyond_int64_with_zero": craft({"a": f32([0, 0], (0, 2**63), "U8")}),
    "negative_dim": craft({"a": f32([0, 0], (-1,))}),
    "two_negative_dims": craft({"a": f32([0, 16], (-2, -2))}, bytes(16)),
    "too_many_dims": craft({"a": f32([0, 4], (1,) * 33)}, bytes(4)),
    "unknown_dtype_f8": craft({"a": f32([0, 1], (1,), "F8_E4M3")}, bytes(1)),
    "unknown_dtype_name": craft({"a": f32([0, 4], (1,), "float32")}, bytes(4)),
    "dtype_not_string": craft({"a": f32([0, 4], (1,), 7)}, bytes(4)),
    "bool_dim": craft({"a": f32([0, 4], (True,))}, bytes(4)),
    "float_dim": craft({"a": f32([0, 4], (1.0,))}, bytes(4)),
    "offsets_three": craft({"a": f32([0, 4, 4])}, bytes(4)),
    "offsets_reversed": craft({"a": f32([4, 0])}, bytes(4)),
    "missing_field": craft({"a": {"dtype": "F32", "shape": [1]}}, bytes(4)),
    "extra_field": craft({"a": dict(f32([0, 4]), extra=1)}, bytes(4)),
    "info_not_object": craft({"a": [1, 2]}),
    "metadata_not_strings": craft({"__metadata__": {"k": 1}}),
    "bool_byte_not_0_or_1": craft({"a": f32([0, 1], (1,), "BOOL")}, b"\x02"),
    "duplicate_tensor": craft(raw=b'{"a":' + json.dumps(f32([0, 4])).encode() + b',"a":'
                              + json.dumps(f32([0, 4])).encode() + b"}", data=bytes(4)),
    "duplicate_field": craft(raw=b'{"a":{"dtype":"F32","dtype":"F32","shape":[1],'
                                 b'"data_offsets":[0,4]}}',
                             data=bytes(4)),
    "duplicate_metadata": craft(raw=b'{"__metadata__":{"k":"1","k":"2"}}'),
    "not_utf8": craft(raw=b'{"\xff\xfe":' + json.dumps(f32([0, 4])).encode() + b"}", data=bytes(4)),
    "not_json": craft(raw=b"{this is not json}"),
    "json_array": craft(raw=b"[1, 2]"),
    "nan_constant": craft(raw=b'{"a":{"dtype":"F32","shape":[NaN],"data_offsets":[0,4]}}',
                          data=bytes(4)),
    "utf8_bom": craft(raw=b"\xef\xbb\xbf{}"),
    "deep_json": craft(raw=b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "huge_int_literal": craft(raw=b'{"a":{"dtype":"F32","shape":[' + b"9" * 5000
                              + b'],"data_offsets":[0,4]}}'),
    "random_garbage": b"\x13\x37" * 40,
    "empty": b"",
    "seven_bytes": b"\x02\x00\x00\x00\x00\x00\x00",
    "structure_version": with_structure(["list"], version="2"),
    "structure_missing_tensor": with_structure(["tensor", "nope"]),
    "structure_tensor_twice": with_structure(["list", ["tensor", "a"], ["tensor", "a"]],
                                             {"a": f32([0, 4])}, bytes(4)),
    "structure_unplaced_tensor": with_structure(["list"], {"a": f32([0, 4])}, bytes(4)),
    "structure_unknown_tag": with_structure(["set", 1, 2]),
    "structure_empty_node": with_structure([]),
    "structure_bare_float": with_structure(["list", 1.5]),
    "structure_float_not_canonical": with_structure(["float", "1.50"]),
    "structure_float_nan_word": with_structure(["float", "nan"]),
    "structure_nan_bits_not_nan": with_structure(["float", "nan:7ff0000000000000"]),
    "structure_int_prefix": with_structure(["int", "0x10"]),
    "structure_int_upper": with_structure(["int", "FF"]),
    "structure_int_minus_zero": with_structure(["int", "-0"]),
    "structure_duplicate_dict_key": with_structure(["dict", 1, "a", 1, "b"]),
    "structure_small_int_as_hex": with_structure(["int", "10"]),
    "structure_bool_int_key_clash": with_structure(["dict", True, "a", 1, "b"]),
    "structure_list_as_key": with_structure(["dict", ["list"], 1]),
    "structure_key_without_value": with_structure(["dict", "a"]),
    "structure_not_json": craft({"__metadata__": {"tinytorch.version": "1",
                                                  "tinytorch.structure": "["}}),
    "structure_deep_json": craft({"__metadata__": {"tinytorch.version": "1",
                                                   "tinytorch.structure": "[" * 50_000
                                                                          + "]" * 50_000}}),
    "structure_too_nested": with_structure(json.loads('["list",' * 300 + '"x"' + "]" * 300)),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_malformed_file_raises_serialization_error(name, tmp_path):
    with pytest.raises(SerializationError):
        load_bytes(BAD_FILES[name])
    with pytest.raises(SerializationError):
        load_bytes(BAD_FILES[name], weights_only=False)
    path = tmp_path / "bad.safetensors"  # a path: the library reads the file memory-mapped
    path.write_bytes(BAD_FILES[name])
    with pytest.raises(SerializationError):
        load(path)


def test_serialization_error_is_a_value_error():
    assert issubclass(SerializationError, ValueError)


# ------------------------------------------------------------------------------- atomic writes

def _old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    save({"old": T(np.arange(5.0))}, path)
    return path, path.read_bytes()


CHILD = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import tinytorch
    from tinytorch.serialization import save
    real_write = os.write
    def write_half_then_stop(fd, data):
        real_write(fd, memoryview(data)[: len(data) // 2])
        if sys.argv[2] == "exit":
            os._exit(17)
        real_write(1, b"ready\\n")
        time.sleep(60)
    os.write = write_half_then_stop
    save({"new": tinytorch.from_numpy(np.ones(2_000_000))}, sys.argv[1])
""")


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_crash_mid_save_leaves_old_file_intact(tmp_path, how):
    path, old = _old_checkpoint(tmp_path)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), how], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if how == "sigkill":
        line = proc.stdout.readline()  # the child is now stuck mid-write
        assert line == b"ready\n", proc.stderr.read().decode()
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    expected_rc = 17 if how == "exit" else -signal.SIGKILL
    assert proc.returncode == expected_rc, proc.stderr.read().decode()
    assert path.read_bytes() == old
    assert load(path)["old"]._data.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    temps = [p for p in os.listdir(tmp_path) if p != path.name]
    assert len(temps) == 1 and os.path.getsize(tmp_path / temps[0]) > 0  # the half-written temp


def test_failing_replace_or_write_keeps_old_file_and_no_litter(tmp_path, monkeypatch):
    path, old = _old_checkpoint(tmp_path)

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    for target in ("replace", "write"):
        with monkeypatch.context() as m:
            m.setattr(os, target, refuse)
            with pytest.raises(OSError, match="No space"):
                save({"new": T(np.ones(10))}, path)
        assert path.read_bytes() == old
        assert os.listdir(tmp_path) == [path.name]
    with monkeypatch.context() as m:
        m.setattr(os, "replace", refuse)
        with pytest.raises(OSError):
            save(Model(), path)  # the pickle path is atomic too
    assert path.read_bytes() == old and os.listdir(tmp_path) == [path.name]


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_save_replaces_and_keeps_symlink(tmp_path):
    real = tmp_path / "real.pt"
    save([1], real)
    link = tmp_path / "link.pt"
    link.symlink_to(real)
    save([2], link)
    assert link.is_symlink() and load(real) == [2]


def test_missing_parent_directory_matches_pytorch(torch, tmp_path):
    target = str(tmp_path / "nope" / "x.pt")
    for fn in (torch.save, save):
        with pytest.raises(RuntimeError) as e:
            fn({}, target)
        assert str(e.value) == f"Parent directory {tmp_path / 'nope'} does not exist."


# ------------------------------------------------------------------------- signature extras

class CpuDevice:
    def __str__(self):
        return "cpu"


@pytest.mark.parametrize("location", [None, "cpu", "cpu:0", CpuDevice(), {"cuda:0": "cpu"},
                                      lambda storage, loc: storage])
def test_map_location_cpu_forms_are_accepted(location):
    assert round_trip([T(np.ones(2))], map_location=location)[0]._data.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("location", ["cuda", "cuda:1", {"cpu": "cuda:0"}, "meta"])
def test_map_location_elsewhere_is_refused(location):
    with pytest.raises(RuntimeError):
        round_trip([1], map_location=location)


def test_mmap_argument(torch, tmp_path):
    path = tmp_path / "m.pt"
    save({"a": T(np.arange(3))}, path)
    assert load(path, mmap=True)["a"]._data.tolist() == [0, 1, 2]
    torch_buf = io.BytesIO()
    torch.save({"a": torch.arange(3)}, torch_buf)
    for fn, buf in ((torch.load, torch_buf), (load, io.BytesIO(path.read_bytes()))):
        buf.seek(0)
        with pytest.raises(ValueError) as e:
            fn(buf, mmap=True)
        assert str(e.value) == "f must be a file path in order to use the mmap argument"


def test_counter_round_trips_as_a_counter(tmp_path):
    # lr_scheduler.MultiStepLR keeps its milestones in a Counter; its state_dict must load by default
    import collections

    path = tmp_path / "sched.pth"
    opt = tinytorch.optim.SGD([tinytorch.zeros(2, requires_grad=True)], lr=0.1)
    sched = tinytorch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4, 4])
    tinytorch.save(sched.state_dict(), path)
    loaded = tinytorch.load(path)
    assert type(loaded["milestones"]) is collections.Counter
    assert loaded["milestones"] == collections.Counter({2: 1, 4: 2})


# ------------------------------------------------------------------------ hostile and broken files

# a checkpoint written by tinytorch before the PyTorch format existed (safetensors, format 1)
OLD_CHECKPOINT_HEX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tinytorch_safetensors_v1.hex")


def test_checkpoint_from_the_safetensors_only_version_still_loads():
    with open(OLD_CHECKPOINT_HEX) as fh:
        got = load(io.BytesIO(bytes.fromhex(fh.read().strip())))
    assert type(got["model"]) is OrderedDict and list(got["model"]) == ["0.weight", "0.bias"]
    assert float_bits(float(got["model"]["0.weight"]._data[0, 1])) == float_bits(-0.0)
    assert got["optimizer"]["state"][0]["momentum_buffer"]._data.tolist() == [[0.25, 0.5]]
    assert got["optimizer"]["param_groups"] == [{"lr": 0.1, "params": [0, 1], "nesterov": False}]
    assert got["epoch"] == 3 and got["rng_state"]._data.tolist() == [0, 1, 2, 3]


# a PyTorch-format checkpoint written by tinytorch before it wrote torch.save's bytes: no data descriptors, no
# serialization id, the folder always "archive", strings and tuples not memoized
OLD_ZIP_HEX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tinytorch_zip_v1.hex")


def test_zip_checkpoint_from_before_torch_saves_layout_still_loads():
    with open(OLD_ZIP_HEX) as fh:
        blob = bytes.fromhex(fh.read().strip())
    got = load(io.BytesIO(blob))
    assert list(got) == ["model", "optimizer", "epoch", "views", "q", "s", "b"]
    assert list(got["model"]) == ["weight", "bias"] and got["model"]._metadata == {"": {"version": 1}}
    assert got["optimizer"]["state"][1]["momentum_buffer"]._data.tolist() == [1.0, 1.0]
    assert got["optimizer"]["param_groups"][0]["params"] == [0, 1] and got["epoch"] == 3
    base, view = got["views"]
    view._data[0] = -1.0  # one storage, as saved
    assert base._data.tolist() == [0.0, 1.0, -1.0, 3.0, 4.0, 5.0]
    assert got["q"].int_repr()._data.tolist() == [3, 0] and got["s"] == {"a", "b"} and got["b"] == b"xy"
    torch = pytest.importorskip("torch")
    theirs = torch.load(io.BytesIO(blob))
    assert theirs["model"]["weight"].numpy().tobytes() == got["model"]["weight"]._data.tobytes()
    assert theirs["q"].int_repr().tolist() == [3, 0]


@pytest.mark.parametrize("structure", [[["list"], 1], ["list", [{"a": 1}]], [{"k": "v"}],
                                       ["dict", "a", [[1], 2]], [["tensor", "a"]]])
def test_structure_node_tag_that_is_not_a_string(structure):
    # an unhashable tag raised TypeError instead of SerializationError
    with pytest.raises(SerializationError):
        load_bytes(with_structure(structure))


def test_header_of_a_huge_number_of_empty_tensors_is_refused_cheaply():
    # 1.65M empty tensors in a legal header took 28 s and 1.6 GB
    from tinytorch.serialization import MAX_TENSORS

    entry = '"t%d":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}'
    body = ("{" + ",".join(entry % i for i in range(MAX_TENSORS + 2)) + "}").encode()
    blob = craft(raw=body)
    del body

    def attempt():
        with pytest.raises(SerializationError, match=f"more than the {MAX_TENSORS}"):
            load_bytes(blob)

    t0 = time.perf_counter()
    peak = _peak_bytes_while(attempt)
    assert time.perf_counter() - t0 < 2.0
    assert peak < 2 * len(blob) + 1_000_000  # the header bytes themselves, not objects per entry


def test_many_tensors_below_the_cap_still_load():
    header = {f"t{i}": f32([4 * i, 4 * i + 4]) for i in range(2000)}
    got = load_bytes(craft(header, bytes(8000)))
    assert len(got) == 2000


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals and flock")
def test_next_save_removes_temp_files_of_killed_saves(tmp_path):
    # every SIGKILL mid-save left a temp file behind, for good
    path, old = _old_checkpoint(tmp_path)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), "sigkill"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout.readline() == b"ready\n"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    # each save removed the temp its killed predecessor left: one is left, not three
    assert len(os.listdir(tmp_path)) == 2
    other = tmp_path / ".other.pt.0123456789ab.tmp"  # another target's temp is not ours to take
    other.write_bytes(b"x")
    save({"new": T(np.ones(2))}, path)
    assert sorted(os.listdir(tmp_path)) == sorted([path.name, other.name])
    assert load(path)["new"]._data.tolist() == [1.0, 1.0]


@pytest.mark.skipif(os.name == "nt", reason="flock")
def test_temp_file_of_a_save_in_progress_is_left_alone(tmp_path):
    import fcntl

    path = tmp_path / "ckpt.pt"
    busy = tmp_path / ".ckpt.pt.00112233aabb.tmp"
    busy.write_bytes(b"half")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY);"
         " fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)", str(busy)],
        stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"locked\n"
        save([1], path)
        assert busy.exists()  # its writer is alive: the lock says so
    finally:
        holder.kill()
        holder.wait()
    save([2], path)
    assert not busy.exists() and load(path) == [2]
    del fcntl
