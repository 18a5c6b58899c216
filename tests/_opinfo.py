"""Running PyTorch's own op test data (``op_db``'s OpInfos) against tinytorch, sample by sample.

For each OpInfo this finds tinytorch's counterpart of the op (by its qualified name, its builtin, or, for
a lambda written in PyTorch's test file, the same lambda with ``torch`` bound to ``tinytorch``),
converts every sample of ``sample_inputs`` (float32, float64, int64, bool, complex64 where PyTorch
supports the dtype) to tinytorch tensors, and compares: forward values, dtypes and shapes with
``torch.testing.assert_close``'s default tolerances; input gradients for one random cotangent. The
comparison of one sample gives ``"ok"`` or a short reason, which the tests check against the known
differences in ``opinfo_known.py``."""
from __future__ import annotations

import contextlib
import re
import types
import warnings

import numpy as np

import tinytorch as tt

DTYPES = ("float32", "float64", "int64", "bool", "complex64")
_MISSING_NAME = re.compile(r"^(module 'tinytorch[\w.]*'|'Tensor' object|type object 'Tensor'|'_OpNamespace' '\w+' object) "
                           r"has no attribute")
FLOAT = ("float32", "float64")
COMPLEX = ("complex64",)


def _resolve_path(root, dotted: str):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# entries whose tinytorch spelling exists only to refuse where PyTorch runs the op: not counted as present
REFUSED: set = set()

# entries PyTorch itself refuses on CPU (CUDA-only kernels): their samples (drawn in the dtypes PyTorch
# supports on CUDA when it lists none on CPU) are compared as refusals, the same exception type and message
# as PyTorch's on CPU ("Could not run 'aten::X'..." up to its build's list of backends)
CPU_REFUSED = frozenset({"torch.ops.aten._flash_attention_forward", "torch.ops.aten._efficient_attention_forward",
                         "jiterator_unary", "jiterator_binary", "jiterator_4inputs_with_extra_args",
                         "jiterator_binary_return_by_ref", "jiterator_2inputs_2outputs"})


def tinytorch_op(opinfo, torch):
    """tinytorch's callable for ``opinfo``, or None when tinytorch has none."""
    if opinfo.name in REFUSED:
        return None
    op = opinfo.op
    name = opinfo.name
    if isinstance(op, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        # torch.ops.aten.X(.overload): tinytorch's torch.ops.aten.X(.overload)
        packet = op.overloadpacket if isinstance(op, torch._ops.OpOverload) else op
        found = _resolve_path(tt.ops, f"{packet._qualified_op_name.replace('::', '.')}")
        if found is None or isinstance(op, torch._ops.OpOverloadPacket):
            return found
        return getattr(found, op._overloadname, None)
    if type(op).__name__ == "_JittedFunction":  # torch.cuda.jiterator's: the same source in tinytorch's
        jiterator = _resolve_path(tt, "cuda.jiterator")
        if jiterator is None:
            return None
        return jiterator._JittedFunction(op.code_string, op.return_by_ref, op.num_outputs, **op.kwargs_dict)
    if isinstance(op, (types.MethodDescriptorType, types.WrapperDescriptorType)):
        method = getattr(tt.Tensor, op.__name__, None)
        return None if method is None else (lambda self, *a, **k: method(self, *a, **k))
    if isinstance(op, types.BuiltinFunctionType):
        if name.startswith("torch."):  # an entry named by its full path (torch._scaled_mm)
            name = name[len("torch."):]
        if "." in name:
            return _resolve_path(tt, name)
        return getattr(tt, op.__name__, None)
    if isinstance(op, types.FunctionType):
        module = getattr(op, "__module__", "") or ""
        if module == "torch._tensor":  # a method PyTorch writes in Python (Tensor.__rdiv__)
            method = getattr(tt.Tensor, op.__name__, None)
            return None if method is None else (lambda self, *a, **k: method(self, *a, **k))
        if module.startswith("torch.") and not module.startswith("torch.testing"):
            # one of PyTorch's own Python functions: the same name in tinytorch
            return _resolve_path(tt, name) if "." in name else getattr(tt, op.__name__, None)
        return _rebound(op)
    return None


def _rebound(fn):
    """``fn`` (a helper from PyTorch's test file) with its global ``torch`` bound to tinytorch."""
    if fn.__closure__ and any(isinstance(c.cell_contents, types.ModuleType) for c in fn.__closure__
                              if _filled(c)):
        return None
    glb = dict(fn.__globals__)
    glb["torch"] = tt
    glb["F"] = tt.nn.functional
    if "wrapper_set_seed" in glb:
        glb["wrapper_set_seed"] = _tt_wrapper_set_seed
    new = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def _tt_wrapper_set_seed(op, *args, **kwargs):
    """op_db's ``wrapper_set_seed`` for tinytorch: PyTorch's seeds PyTorch's generator with 42 around
    the call of a random op (dropout, randint, ...), so the rebound lambda, which would call PyTorch's
    wrapper and leave tinytorch's generator at the walk's 1234, seeds tinytorch's the same way; the
    two streams are meant to agree bit for bit, so what then differs is a real difference."""
    state = tt.get_rng_state()
    try:
        tt.manual_seed(42)
        return op(*args, **kwargs)
    finally:
        tt.set_rng_state(state)


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - reading it is the probe
    except ValueError:
        return False
    return True


# -- converting samples and results ------------------------------------------------------------------
class Unsupported(Exception):
    """The sample holds something tinytorch has no counterpart for (complex, a generator, ...)."""


def to_tt(x, torch, leaves: dict):
    """A torch value as tinytorch's; a torch leaf that requires grad maps to one tinytorch leaf."""
    if isinstance(x, torch.Tensor):
        if x.dtype not in _TORCH_DTYPES(torch):
            raise Unsupported(f"dtype {x.dtype}")
        if x.layout != torch.strided:
            return _sparse_to_tt(x, torch, leaves)
        key = id(x)
        if key in leaves:
            return leaves[key][1]
        t = _storage_view(x, torch) if STORAGE_VIEWS[0] else None
        if t is None and x.dtype in _narrow_dtypes(torch):
            t = _narrow_to_tt(x.detach(), torch)
        if t is None:
            t = tt.from_numpy(x.detach().resolve_conj().resolve_neg().numpy().copy())
        if x.requires_grad:
            t.requires_grad_(True)
            if _unreachable_view(x, torch):
                # a view made under no_grad of a tensor that requires grad (op_db's istft samples
                # slice one window for several samples): PyTorch sends no gradient to such a view,
                # so tinytorch gets a view made the same way (of its own copy of the values)
                with tt.no_grad():
                    t = t.view(tuple(t.shape))
            leaves[key] = (x, t)
        return t
    if isinstance(x, torch.dtype):
        name = str(x).split(".")[1]
        if not hasattr(tt, name):
            raise Unsupported(f"dtype {name}")
        return getattr(tt, name)
    if isinstance(x, torch.Size):
        return tuple(x)
    if isinstance(x, torch.device):
        return "cpu"
    if isinstance(x, torch.Generator):
        raise Unsupported("generator")
    if isinstance(x, torch.memory_format):
        return getattr(tt, str(x).split(".")[1], None)
    if isinstance(x, (list, tuple)):
        items = [to_tt(v, torch, leaves) for v in x]
        return type(x)(items) if not hasattr(x, "_fields") else type(x)(*items)
    if isinstance(x, dict):
        return {k: to_tt(v, torch, leaves) for k, v in x.items()}
    if isinstance(x, slice):
        return slice(to_tt(x.start, torch, leaves), to_tt(x.stop, torch, leaves), to_tt(x.step, torch, leaves))
    if isinstance(x, torch.nn.Module):
        return _module_to_tt(x, torch)
    return x


def _sparse_to_tt(x, torch, leaves: dict):
    """A torch COO / CSR tensor as tinytorch's (its indices and values copied; a leaf that requires grad maps
    to one tinytorch leaf)."""
    key = id(x)
    if key in leaves:
        return leaves[key][1]
    d = x.detach()
    if x.layout == torch.sparse_coo:
        t = tt.sparse_coo_tensor(tt.from_numpy(d._indices().numpy().copy()), tt.from_numpy(d._values().numpy().copy()),
                                 tuple(x.shape), is_coalesced=x.is_coalesced())
    elif x.layout == torch.sparse_csr and x.dim() == 2 and x.dense_dim() == 0:
        t = tt.sparse_csr_tensor(tt.from_numpy(d.crow_indices().numpy().copy()),
                                 tt.from_numpy(d.col_indices().numpy().copy()), tt.from_numpy(d.values().numpy().copy()),
                                 tuple(x.shape))
    else:
        raise Unsupported(f"layout {x.layout}")
    if x.requires_grad:
        t.requires_grad_(True)
        leaves[key] = (x, t)
    return t


def _unreachable_view(x, torch) -> bool:
    """Whether ``x`` requires grad but autograd gives it no edge: a view made under no_grad of a tensor
    that requires grad, with no requires_grad_ of its own (a conjugated view that had one, as op_db's
    conjugated samples, does get its gradient). Probed: an op on it records no edge to it."""
    if not (x.is_leaf and x._is_view()):
        return False
    with torch.enable_grad():
        probe = x.mul(1)
    return probe.grad_fn is not None and probe.grad_fn.next_functions[0][0] is None


def _module_to_tt(module, torch):
    """A stateless torch module passed as an argument (triplet_margin_with_distance_loss's
    distance_function=nn.PairwiseDistance()) as tinytorch's module of the same class and settings."""
    if list(module.parameters()) or list(module.buffers()):
        raise Unsupported(f"module argument with state: {type(module).__name__}")
    cls = getattr(tt.nn, type(module).__name__, None)
    if cls is None:
        raise Unsupported(f"module {type(module).__name__}")
    new = cls.__new__(cls)
    tt.nn.Module.__init__(new)
    for name, value in vars(module).items():
        if not name.startswith("_"):
            setattr(new, name, value)
    return new


# set while converting the samples of an op that addresses its input's storage (as_strided and its
# family: their sizes, strides and storage offset count from the storage's start, not the tensor's);
# op_db hands those ops views into a larger storage (base[5:15]), so tinytorch gets the same storage
# and the same view of it, where every other op gets a plain copy of the values
STORAGE_VIEWS = [False]
STORAGE_OPS = frozenset({"as_strided", "as_strided_scatter", "as_strided_copy"})


def _storage_view(x, torch):
    """tinytorch's view of a copy of ``x``'s whole storage with ``x``'s sizes, strides and offset;
    None when ``x`` is no view into a larger storage."""
    numel = x.untyped_storage().nbytes() // x.element_size()
    if x.storage_offset() == 0 and numel == x.numel():
        return None
    whole = torch.as_strided(x.detach(), (numel,), (1,), 0).resolve_conj().resolve_neg()
    return tt.from_numpy(whole.numpy().copy()).as_strided(tuple(x.shape), x.stride(), x.storage_offset())


def _TORCH_DTYPES(torch):
    return (torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.int16, torch.int8,
            torch.uint8, torch.bool, torch.complex64, torch.complex128) + _narrow_dtypes(torch)


_NARROW = ("complex32", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")


def _narrow_dtypes(torch) -> tuple:
    """The dtypes numpy has no type for (tinytorch's complex32 and float8), passed over by their bits."""
    return tuple(getattr(torch, n) for n in _NARROW)


def _narrow_to_tt(x, torch):
    """A torch float8 / complex32 tensor as tinytorch's, bit for bit (torch's numpy() refuses them)."""
    dt = getattr(tt, str(x.dtype).split(".")[1])
    if x.dtype == torch.complex32:
        halves = torch.view_as_real(x).contiguous().numpy().copy()
        return tt.from_numpy(halves.view(dt.np).reshape(tuple(x.shape)))
    return tt.from_numpy(x.view(torch.uint8).numpy().copy().view(dt.np))


def _narrow_to_torch(x, torch):
    """tinytorch's float8 / complex32 tensor as torch's, bit for bit."""
    arr = np.ascontiguousarray(x.detach().numpy())
    if x.dtype is tt.complex32:
        halves = arr.view(np.float16).reshape(tuple(x.shape) + (2,)).copy()
        return torch.view_as_complex(torch.from_numpy(halves))
    return torch.from_numpy(arr.view(np.uint8).copy()).view(getattr(torch, x.dtype.name))


def to_torch(x, torch):
    """A tinytorch result as torch's, for assert_close."""
    if isinstance(x, tt.Tensor) and x.layout == tt.sparse_coo:
        return torch.sparse_coo_tensor(torch.from_numpy(x._indices().numpy().copy()),
                                       torch.from_numpy(x._values().detach().numpy().copy()), tuple(x.shape),
                                       is_coalesced=x.is_coalesced())
    if isinstance(x, tt.Tensor) and x.layout == tt.sparse_csr:
        return torch.sparse_csr_tensor(torch.from_numpy(x.crow_indices().numpy().copy()),
                                       torch.from_numpy(x.col_indices().numpy().copy()),
                                       torch.from_numpy(x.values().detach().numpy().copy()), tuple(x.shape))
    if isinstance(x, tt.Tensor):
        if x.dtype.name in _NARROW:
            return _narrow_to_torch(x, torch)
        if x.dtype is tt.bfloat16:  # torch.from_numpy has no bfloat16: through float32, exactly
            return torch.from_numpy(x.detach().float().numpy().copy()).to(torch.bfloat16)
        return torch.from_numpy(np.array(x.detach().resolve_conj().numpy(), copy=True))
    if isinstance(x, tt.Size):
        return torch.Size(tuple(x))
    if isinstance(x, tt.dtype):
        return getattr(torch, str(x).split(".")[1])
    if isinstance(x, (list, tuple)):
        return [to_torch(v, torch) for v in x]
    return x


def _flat_tensors(x, torch, cls):
    if isinstance(x, cls):
        return [x]
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(_flat_tensors(v, torch, cls))
        return out
    return []


# -- one sample --------------------------------------------------------------------------------------
@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            yield


@contextlib.contextmanager
def _quiet_but_numpy_errors():
    """For tinytorch's calls: other warnings are compared elsewhere, but a RuntimeWarning (numpy's inf/nan
    arithmetic, from tinytorch's frames or from the numpy/SciPy functions it calls) is an error: PyTorch
    computes those values silently, and tinytorch leaves the user's warning filters alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", category=RuntimeWarning)
        yield


def compare_sample(opinfo, tt_op, sample, torch, backward: bool) -> tuple[str, str | None]:
    """(forward verdict, backward verdict): "ok", "skip" or a reason; backward None when not checked."""
    try:
        leaves = {}
        STORAGE_VIEWS[0] = opinfo.name in STORAGE_OPS
        args = to_tt((sample.input,) + tuple(sample.args), torch, leaves)
        kwargs = to_tt(dict(sample.kwargs), torch, leaves)
    except Unsupported:
        return "skip", None
    finally:
        STORAGE_VIEWS[0] = False
    if opinfo.name in CPU_REFUSED:
        return _compare_refusal(opinfo, tt_op, sample, args, kwargs, torch), None
    with _quiet():
        try:
            torch.manual_seed(1234)  # random ops draw the same streams in both libraries
            expected = opinfo.op(sample.input, *sample.args, **sample.kwargs)
        except Exception:  # noqa: BLE001 - PyTorch refuses the sample: nothing to compare
            return "skip", None
    with _quiet_but_numpy_errors():
        try:
            tt.manual_seed(1234)
            got = tt_op(*args, **kwargs)
        except AttributeError as e:
            if _MISSING_NAME.search(str(e)):
                return "absent", None  # a name tinytorch lacks (in PyTorch's helper lambda): not a wrong value
            return f"raises AttributeError: {str(e)[:120]}", None
        except Exception as e:  # noqa: BLE001 - reported as the verdict
            return f"raises {type(e).__name__}: {str(e)[:120]}", None
    if opinfo.name in UNINITIALIZED:
        expected, got = _blank(expected, torch), _blank(got, tt)
    if opinfo.name in GAUGE:
        try:
            expected_cmp, got_cmp = sample.output_process_fn_grad(expected), sample.output_process_fn_grad(got)
        except Exception as e:  # noqa: BLE001 - tinytorch's outputs lack what the processing uses
            return f"gauge-invariant processing fails: {type(e).__name__}: {str(e)[:100]}", None
        verdict = _same(expected_cmp, got_cmp, torch)
    else:
        verdict = _same(expected, got, torch)
    if verdict != "ok" or not backward:
        return verdict, None
    return verdict, _compare_backward(opinfo, sample, expected, got, leaves, torch)


def _compare_refusal(opinfo, tt_op, sample, args, kwargs, torch) -> str:
    """"ok" when tinytorch refuses the sample as PyTorch does on CPU: the same exception type and message."""
    with _quiet():
        try:
            opinfo.op(sample.input, *sample.args, **sample.kwargs)
        except Exception as e:  # noqa: BLE001 - compared below
            theirs = e
        else:
            return "PyTorch runs it on CPU"
    with _quiet_but_numpy_errors():
        try:
            tt_op(*args, **kwargs)
        except AttributeError as e:
            if _MISSING_NAME.search(str(e)):
                return "absent"
            ours = e
        except Exception as e:  # noqa: BLE001 - compared below
            ours = e
        else:
            return f"runs; PyTorch raises {type(theirs).__name__}"
    if type(ours).__name__ != type(theirs).__name__:
        return f"raises {type(ours).__name__}, PyTorch {type(theirs).__name__}"
    a, b = str(ours), str(theirs)
    if b.startswith("Could not run"):  # the list of backends that follows is PyTorch's build's
        end = "possible resolutions."
        b = b[:b.index(end) + len(end)] if end in b else b
        a = a[:len(b)]
    return "ok" if a == b else f"raises another message: {a[:120]}"


# ops whose values are whatever memory held: only shapes and dtypes are compared
UNINITIALIZED = frozenset({"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided",
                           "empty_permuted"})


# decompositions whose vectors are unique only up to a sign (a phase) per vector, and whose trailing
# columns of a full U are any basis of the null space: the LAPACK behind PyTorch (MKL) and NumPy's pick
# different ones. op_db's samples carry gauge-invariant views of the outputs (|U|, S, (S, |Vh|), U @ Vh
# for SVD; eigenvalues and |eigenvectors| for eig/eigh) as output_process_fn_grad, which PyTorch's own
# tests compare; the walk compares those views for these entries, forward and backward alike
GAUGE = frozenset({"svd", "linalg.svd", "linalg.eig", "linalg.eigh", "svd_lowrank", "pca_lowrank"})


def _blank(x, lib):
    if isinstance(x, lib.Tensor):
        return lib.zeros(tuple(x.shape), dtype=x.dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_blank(v, lib) for v in x)
    return x


def _same(expected, got, torch) -> str:
    try:
        if isinstance(expected, torch.Tensor):
            if not isinstance(got, tt.Tensor):
                return f"returns {type(got).__name__}, not a tensor"
            torch.testing.assert_close(to_torch(got, torch), expected.detach(), equal_nan=True)
            return "ok"
        if isinstance(expected, (list, tuple)):
            if not isinstance(got, (list, tuple)) or len(got) != len(expected):
                return "returns another structure"
            for e, g in zip(expected, got):
                v = _same(e, g, torch)
                if v != "ok":
                    return v
            return "ok"
        if isinstance(expected, torch.Size):
            return "ok" if tuple(got) == tuple(expected) else "wrong size"
        if isinstance(expected, torch.dtype):
            return "ok" if str(got).split(".")[-1] == str(expected).split(".")[-1] else "wrong dtype"
        torch.testing.assert_close(to_torch(got, torch), expected, equal_nan=True)
        return "ok"
    except AssertionError as e:
        return "values differ: " + str(e).strip().splitlines()[0][:120]
    except Exception as e:  # noqa: BLE001
        return f"compare failed: {type(e).__name__}: {str(e)[:100]}"


def _compare_backward(opinfo, sample, expected, got, leaves, torch) -> str | None:
    if not leaves:
        return None
    out_t = [t for t in _flat_tensors(sample.output_process_fn_grad(expected), torch, torch.Tensor)
             if t.requires_grad and (t.dtype.is_floating_point or t.dtype.is_complex)]
    out_tt = [t for t in _flat_tensors(sample.output_process_fn_grad(got), torch, tt.Tensor)
              if t.requires_grad and (t.is_floating_point() or t.is_complex())]
    if not out_t:
        return None
    if len(out_tt) != len(out_t):
        return f"{len(out_tt)} differentiable outputs, PyTorch {len(out_t)}"
    gen = np.random.default_rng(0)
    cot_t = [torch.from_numpy(_cotangent(gen, tuple(t.shape), t.dtype.is_complex)).to(t.dtype) for t in out_t]
    cot_tt = [tt.from_numpy(c.float().numpy().copy()).bfloat16() if c.dtype == torch.bfloat16
              else _narrow_to_tt(c, torch) if c.dtype in _narrow_dtypes(torch)
              else tt.from_numpy(c.numpy().copy()) for c in cot_t]
    ins_t = [pair[0] for pair in leaves.values()]
    ins_tt = [pair[1] for pair in leaves.values()]
    with _quiet():
        try:
            g_t = torch.autograd.grad(out_t, ins_t, cot_t, allow_unused=True)
        except Exception:  # noqa: BLE001 - PyTorch cannot differentiate this sample
            return None
    with _quiet_but_numpy_errors():
        try:
            g_tt = tt.autograd.grad(out_tt, ins_tt, cot_tt, allow_unused=True)
        except Exception as e:  # noqa: BLE001
            return f"backward raises {type(e).__name__}: {str(e)[:100]}"
    for a, b, x in zip(g_t, g_tt, ins_t):
        a = torch.zeros_like(x) if a is None else a
        b_t = torch.zeros_like(x) if b is None else to_torch(b, torch)
        try:
            torch.testing.assert_close(b_t, a, equal_nan=True)
        except AssertionError as e:
            return "gradients differ: " + str(e).strip().splitlines()[0][:120]
    return "ok"


def _cotangent(gen, shape: tuple, is_complex: bool) -> np.ndarray:
    c = np.asarray(gen.standard_normal(shape), dtype=np.float64)
    return np.asarray(c + 1j * gen.standard_normal(shape)) if is_complex else c


def _differentiable(opinfo, dtype_name: str, torch) -> bool:
    """Whether the walk checks gradients for samples of this dtype (complex: where PyTorch does)."""
    if dtype_name in FLOAT:
        return opinfo.supports_autograd
    if dtype_name not in COMPLEX or not opinfo.supports_autograd:
        return False
    return getattr(torch, dtype_name) in opinfo.supported_backward_dtypes("cpu")


def _dtypes(opinfo, torch) -> tuple:
    """The dtypes walked: DTYPES; for a CPU_REFUSED entry with none of them on CPU or CUDA, the first dtype
    PyTorch supports it in on CUDA (its samples are drawn on CPU all the same)."""
    if opinfo.name not in CPU_REFUSED:
        cpu = set(opinfo.supported_dtypes("cpu"))
        if cpu and not any(getattr(torch, d) in cpu for d in DTYPES):
            # only dtypes the walk does not draw in (_scaled_mm's float8): the first of them, by name
            return tuple(sorted(str(d).split(".")[1] for d in cpu))[:1]
        return DTYPES
    there = set(opinfo.supported_dtypes("cpu")) | set(opinfo.supported_dtypes("cuda"))
    walked = tuple(d for d in DTYPES if getattr(torch, d) in there)
    return walked or tuple(sorted(str(d).split(".")[1] for d in there))[:1]


def samples(opinfo, torch, dtype_name: str, limit: int | None):
    dtype = getattr(torch, dtype_name)
    supported = set(opinfo.supported_dtypes("cpu"))
    if opinfo.name in CPU_REFUSED:
        supported |= set(opinfo.supported_dtypes("cuda"))
    if dtype not in supported:
        return []
    grad = _differentiable(opinfo, dtype_name, torch)
    out = []
    with _quiet():
        try:
            for i, s in enumerate(opinfo.sample_inputs("cpu", dtype, requires_grad=grad)):
                if limit is not None and i >= limit:
                    break
                out.append(s)
        except Exception:  # noqa: BLE001 - a sample generator that needs what this machine lacks
            return []
    return out


def entry_id(opinfo) -> str:
    return opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")


def walk_entry(opinfo, torch, limit: int | None = None) -> dict:
    """{"present": bool, "results": [(dtype, index, forward verdict, backward verdict)]}: present when
    tinytorch has the op and it ran on some sample without lacking a name."""
    tt_op = tinytorch_op(opinfo, torch)
    if tt_op is None:
        return {"present": False, "results": []}
    results = []
    for dt in _dtypes(opinfo, torch):
        torch.manual_seed(0)
        for i, s in enumerate(samples(opinfo, torch, dt, limit)):
            fwd, bwd = compare_sample(opinfo, tt_op, s, torch, backward=_differentiable(opinfo, dt, torch))
            results.append((dt, i, fwd, bwd))
    ran = [r for r in results if r[2] != "absent"]
    if results and not ran:
        return {"present": False, "results": []}
    return {"present": True, "results": ran}
