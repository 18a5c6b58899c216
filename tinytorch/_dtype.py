"""dtypes: thin named wrappers over numpy dtypes, and PyTorch's type-promotion rules."""
from __future__ import annotations

import numpy as np

from ._meta_array import MetaArray

# the package's name in reprs (``tinytorch.float32``, ``tinytorch.Size([2])``, ``dtype=`` in a tensor's): "torch"
# once ``install_as_torch()`` has made the package answer to that name, so programs written for PyTorch print
# PyTorch's text
SHOWN_AS = ["tinytorch"]


class dtype:
    """A tensor element type (``tinytorch.float32`` ...), backed by a numpy dtype."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category", "_legacy",
                 "_scalar")
    __module__ = "tinytorch"

    def __init__(self, name: str, np_dtype, category: int, legacy: str, itemsize: int = 0):
        self.name = name
        # None: the storage type's package is missing (bfloat16 without ml_dtypes); the dtype still exists
        self.np = None if np_dtype is None else np.dtype(np_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex: promotion compares these
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        # float8_e8m0fnu holds powers of two only, no sign bit
        self.is_signed = not name.startswith(("uint", "float8_e8m0", "quint")) and name != "bool"
        self.itemsize = itemsize or self.np.itemsize
        self._legacy = legacy  # the old type name PyTorch prints in some errors
        self._scalar = legacy[:-len("Tensor")]  # c10's ScalarType name in its errors: Float, Long, ComplexHalf

    def __repr__(self) -> str:
        return f"{SHOWN_AS[0]}.{self.name}"

    def __reduce__(self):
        return self.name  # unpickles as the module-level singleton

    def to_real(self) -> "dtype":
        """The real dtype of a complex dtype's parts; any other dtype itself."""
        return _REAL_OF.get(self, self)

    def to_complex(self) -> "dtype":
        """The complex dtype whose parts are this floating dtype (a complex dtype gives itself)."""
        if self.is_complex:
            return self
        found = _COMPLEX_OF.get(self)
        if found is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {self._scalar}")
        return found


bool_ = dtype("bool", np.bool_, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int8 = dtype("int8", np.int8, 1, "CharTensor")
int16 = dtype("int16", np.int16, 1, "ShortTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
float16 = dtype("float16", np.float16, 2, "HalfTensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDoubleTensor")
# PyTorch's "barebones" unsigned dtypes: tensors of them hold and compute as numpy's; promotion with any other
# integer or bool dtype is an error, as in PyTorch (with a floating or complex dtype it gives that one)
uint16 = dtype("uint16", np.uint16, 1, "UInt16Tensor")
uint32 = dtype("uint32", np.uint32, 1, "UInt32Tensor")
uint64 = dtype("uint64", np.uint64, 1, "UInt64Tensor")
BAREBONES_UNSIGNED = (uint16, uint32, uint64)

# bfloat16 is stored as ml_dtypes' numpy bfloat16 (importing it costs ~30 ms once numpy is loaded);
# without the package the dtype exists and making a tensor of it raises, naming the extra to install
try:
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - ml_dtypes is the [bf16] extra
    _ml_dtypes = None
bfloat16 = dtype("bfloat16", None if _ml_dtypes is None else _ml_dtypes.bfloat16, 2, "BFloat16Tensor", 2)


def _ml(name: str):
    return None if _ml_dtypes is None else getattr(_ml_dtypes, name)


# the float8 dtypes are stored as ml_dtypes' types too, and like bfloat16 exist (refusing tensors) without it.
# PyTorch's CPU build converts to and from them and runs a handful of ops on them (copies, views, indexing,
# mul, abs, mm, comparisons for equality); most arithmetic refuses, and promotion with any other dtype too
float8_e4m3fn = dtype("float8_e4m3fn", _ml("float8_e4m3fn"), 2, "Float8_e4m3fnTensor", 1)
float8_e5m2 = dtype("float8_e5m2", _ml("float8_e5m2"), 2, "Float8_e5m2Tensor", 1)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", _ml("float8_e4m3fnuz"), 2, "Float8_e4m3fnuzTensor", 1)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", _ml("float8_e5m2fnuz"), 2, "Float8_e5m2fnuzTensor", 1)
float8_e8m0fnu = dtype("float8_e8m0fnu", _ml("float8_e8m0fnu"), 2, "Float8_e8m0fnuTensor", 1)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)

# complex32 (PyTorch's experimental ComplexHalf): numpy has no complex type of two halves, so its storage is a
# structured dtype of two float16 fields, four bytes an element as PyTorch's; numpy computes nothing on it,
# so the conversions (_dtype_casts.py) and the few ops PyTorch runs on it (_ops/_core/narrow_dtypes.py) go through
# complex64 and round each part to half
C32_NP = np.dtype([("real", np.float16), ("imag", np.float16)])
complex32 = dtype("complex32", C32_NP, 3, "ComplexHalfTensor", 4)

# the quantized dtypes: a quantized tensor (tinytorch/_quantized/tensor.py) stores each element as this integer type, with
# its scale and zero point beside; they are no numpy dtype of their own, so FROM_NP never answers with them
qint8 = dtype("qint8", np.int8, 1, "QInt8Tensor")
quint8 = dtype("quint8", np.uint8, 1, "QUInt8Tensor")
qint32 = dtype("qint32", np.int32, 1, "QInt32Tensor")
QUANTIZED = (qint8, quint8, qint32)


def named_constants(kind: str, doc: str) -> type:
    """A class of named singletons (``tinytorch.per_tensor_affine``, ``tinytorch.strided``,
    ``tinytorch.channels_last``): each instance is known by its name alone, prints as ``tinytorch.<name>`` (or
    ``torch.<name>``) and unpickles as the module-level object of that name. One definition serves the three kinds
    PyTorch has (``qscheme``, ``layout``, ``memory_format``), each a class of its own directly under ``object``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"{SHOWN_AS[0]}.{self.name}"

    def __reduce__(self):
        return self.name  # the module-level singleton of that name

    return type(kind, (), {"__doc__": doc, "__module__": "tinytorch", "__slots__": ("name",),
                           "__init__": __init__, "__repr__": __repr__, "__reduce__": __reduce__})


qscheme = named_constants("qscheme", "How a quantized tensor maps integers to reals: ``tinytorch.per_tensor_affine``"
                                     " (one scale and zero point)...")
per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")
QSCHEMES = (per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric,
            per_channel_affine_float_qparams)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128, uint16, uint32,
       uint64, complex32) + (
    (bfloat16,) + FLOAT8 if bfloat16.np else ())
# numpy dtype -> tinytorch dtype
FROM_NP = {d.np: d for d in ALL}
BY_NAME = {d.name: d for d in ALL}
BY_NAME.update(float=float32, double=float64, half=float16, long=int64, int=int32, short=int16,
               cfloat=complex64, cdouble=complex128, bfloat16=bfloat16, chalf=complex32)
BY_NAME.update((d.name, d) for d in FLOAT8)  # listed by name even without ml_dtypes (they refuse tensors)
BY_NAME.update((d.name, d) for d in QUANTIZED)
# a real dtype's complex counterpart and back (half's is complex32, as PyTorch's)
TO_COMPLEX = {float16.np: C32_NP, float32.np: complex64.np, float64.np: complex128.np,
              complex64.np: complex64.np, complex128.np: complex128.np, C32_NP: C32_NP}
TO_REAL = {complex64.np: float32.np, complex128.np: float64.np, C32_NP: float16.np}
_REAL_OF = {complex32: float16, complex64: float32, complex128: float64}
_COMPLEX_OF = {float16: complex32, bfloat16: complex64, float32: complex64, float64: complex128}
BF16_NP = bfloat16.np  # None without ml_dtypes
# the float8 storages (empty without ml_dtypes): most ops refuse them, as PyTorch's CPU kernels do
F8_NP = frozenset(d.np for d in FLOAT8 if d.np is not None)
# numpy dtypes of floating tensors: ml_dtypes' bfloat16 has numpy kind "V", so test membership, not kind
FLOATING_NP = frozenset(d.np for d in ALL if d.is_floating_point)
# half and bfloat16: stored narrow, computed in float32 and rounded once per op (PyTorch's CPU kernels)
LOWP_NP = frozenset(d.np for d in ALL if d.is_floating_point and d.itemsize == 2)
# storages numpy's ufuncs must not compute on directly (float8: PyTorch refuses most ops; complex32: numpy
# has no arithmetic for its structured dtype): the ops' fast paths leave them to their general paths
NARROW_NP = F8_NP | {C32_NP}
BF16_MISSING = ("tinytorch.bfloat16 tensors are stored with the ml_dtypes package, which is not installed (a "
                "dependency of tinytorch-numpy, left out by `pip install --no-deps`); install it with "
                "`pip install ml_dtypes`")
# floating or complex: the dtypes that carry gradients
INEXACT_NP = FLOATING_NP | {complex64.np, complex128.np, C32_NP}

_default_float = float32


def get_default_dtype() -> dtype:
    """The dtype Python floats become (float32 unless changed)."""
    return _default_float


def default_complex_np() -> np.dtype:
    """The dtype Python complex numbers become: complex128 when the default float is float64."""
    return complex128.np if _default_float is float64 else complex64.np


def set_default_dtype(d: dtype) -> None:
    """Make ``d`` (float32 or float64) the dtype of new floating tensors."""
    global _default_float
    if d not in (float16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


def to_np(d) -> np.dtype:
    """A numpy dtype for a tinytorch dtype or a Python type (as PyTorch reads one: ``float`` is float64,
    ``complex`` complex128), or for a numpy dtype (tinytorch's own callers); anything else, a string
    included, is PyTorch's TypeError."""
    if type(d) is dtype:
        if d.np is None:
            raise ImportError(BF16_MISSING.replace("bfloat16", d.name, 1))
        return d.np
    found = _PYTHON_TYPES.get(d) if isinstance(d, type) else None
    if found is not None:
        return found.np
    if isinstance(d, np.dtype):
        if d not in FROM_NP:
            raise TypeError(f"unsupported dtype {d!r}; tinytorch supports {', '.join(x.name for x in ALL)}")
        return d
    # the outermost public function puts its name in front, as PyTorch's parser does (_ops/_core/arguments.py)
    error = TypeError(f"argument 'dtype' must be tinytorch.dtype, not {type(d).__name__}")
    error.argument_error = error.args[0]
    raise error


_PYTHON_TYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def _promote_same_priority(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a._category != b._category:
        hi, lo = (a, b) if a._category > b._category else (b, a)
        if hi._category == 3 and lo._category == 2:  # float64 + complex64 -> complex128; bfloat16 + complex32 too
            return _promote_same_priority(_REAL_OF[hi], lo).to_complex()
        return hi
    if a._category == 2:
        if a.itemsize == b.itemsize:  # bfloat16 with float16: neither holds the other, so float32
            return float32
        return a if a.itemsize > b.itemsize else b
    if a._category == 3:
        return a if a.itemsize >= b.itemsize else b
    # integers: numpy's rule matches PyTorch's (uint8 + int8 -> int16)
    return FROM_NP[np.promote_types(a.np, b.np)]


class _PromoteTable(dict):
    """(numpy dtype, numpy dtype) -> numpy dtype; a missing pair is one PyTorch refuses to promote: a float8
    dtype beside any other, or a barebones unsigned dtype beside another integer, bool or complex dtype."""

    def __missing__(self, key):
        a, b = FROM_NP[key[0]], FROM_NP[key[1]]
        kind = "Float8 Types" if a in FLOAT8 or b in FLOAT8 else "uint16, uint32, uint64 types"
        raise RuntimeError(f"Promotion for {kind} is not supported, attempted to promote "
                           f"{a._scalar} and {b._scalar}")


def _build_table():
    table = _PromoteTable()
    for a in ALL:
        for b in ALL:
            if a is not b and (a in FLOAT8 or b in FLOAT8):
                continue
            if a is not b and (a in BAREBONES_UNSIGNED or b in BAREBONES_UNSIGNED) and \
                    a._category != 2 and b._category != 2:
                continue
            table[a.np, b.np] = _promote_same_priority(a, b).np
    return table


# (numpy dtype, numpy dtype) -> numpy dtype, for operands of the same priority
PROMOTE = _build_table()


def result_np_dtype(a, b) -> np.dtype:
    """PyTorch's result dtype for a binary op; operands are ndarrays or Python scalars.

    Tensors with dimensions outrank 0-dim tensors, which outrank Python scalars: a lower-ranked
    operand changes the result only when it is of a higher category (bool < int < float)."""
    a_arr = type(a) is np.ndarray or type(a) is MetaArray
    b_arr = type(b) is np.ndarray or type(b) is MetaArray
    if a_arr and b_arr:
        da, db = a.dtype, b.dtype
        if da is db or da == db:
            return da
        a_dims, b_dims = a.ndim > 0, b.ndim > 0
        if a_dims == b_dims:
            return PROMOTE[da, db]
        hi, lo = (da, db) if a_dims else (db, da)
        lo_cat, hi_cat = FROM_NP[lo]._category, FROM_NP[hi]._category
        if lo_cat > hi_cat:
            # a 0-dim complex tensor keeps a floating tensor's precision: float32 + cdouble(0-dim) -> cfloat
            return TO_COMPLEX[hi] if lo_cat == 3 and hi_cat == 2 else lo
        return hi
    try:
        if a_arr:
            return _with_scalar(a.dtype, b)
        if b_arr:
            return _with_scalar(b.dtype, a)
        return np.result_type(_scalar_np(a), _scalar_np(b))
    except TypeError:
        # a tensor's data that is not a plain ndarray: a file's memmap (UntypedStorage.from_file, shared
        # files), or the numpy scalar a ufunc gives for 0-d operands; as the arrays they are
        if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
            return result_np_dtype(_plain_array(a), _plain_array(b))
        raise


def _plain_array(x):
    return np.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _scalar_np(s) -> np.dtype:
    if isinstance(s, bool):
        return bool_.np
    if isinstance(s, int):
        return int64.np
    if isinstance(s, float):
        return _default_float.np
    if isinstance(s, (complex, np.complexfloating)):
        return default_complex_np()
    raise TypeError(f"unsupported operand type {type(s).__name__}")


def _with_scalar(d: np.dtype, s) -> np.dtype:
    cat = FROM_NP[d]._category
    if isinstance(s, bool):
        return d
    if isinstance(s, int):
        return d if cat >= 1 else int64.np
    if isinstance(s, float):
        return d if cat >= 2 else _default_float.np
    if isinstance(s, (complex, np.complexfloating)):
        if cat == 2:
            return TO_COMPLEX[d]
        return d if cat == 3 else default_complex_np()
    raise TypeError(f"unsupported operand type {type(s).__name__}")


# the C++ type names PyTorch's error texts print for a dtype (``expected dtype float ... got dtype double``)
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
              "uint64": "unsigned long", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>", "complex32": "c10::complex<c10::Half>",
              "float8_e4m3fn": "c10::Float8_e4m3fn", "float8_e5m2": "c10::Float8_e5m2",
              "float8_e4m3fnuz": "c10::Float8_e4m3fnuz", "float8_e5m2fnuz": "c10::Float8_e5m2fnuz",
              "float8_e8m0fnu": "c10::Float8_e8m0fnu"}


def cpp_name(dt) -> str:
    """PyTorch's C++ name of a dtype (tinytorch's or numpy's) in error texts: float, double, long int, ..."""
    name = dt.name if isinstance(dt, dtype) else np.dtype(dt).name
    return _CPP_NAMES.get(name, name)
