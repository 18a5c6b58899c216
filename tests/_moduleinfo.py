"""Running PyTorch's own module test data (``module_db``'s ModuleInfos) against tinytorch.

For each ModuleInfo whose class tinytorch has (``tinytorch.nn.<same name>``), every ModuleInput of
``module_inputs_func`` (float64, training mode; at most ``CAP`` samples per module, taken evenly
and always the same ones) is run in both libraries:

  init  the module built from the sample's constructor arguments after ``manual_seed(0)`` in each
        library: the same state_dict keys and the same values bit for bit (on PyTorch's FMA paths;
        within ``_paths.DRAW_ULPS`` on its DEFAULT path, ``_same_draws``);
  fwd   PyTorch's state_dict loaded into tinytorch's module (so a difference of initialisation does
        not hide the forward), then the forward on the converted inputs after ``manual_seed(1)``
        (dropout draws from the same stream): values, dtypes and shapes with
        ``torch.testing.assert_close``'s float64 tolerances;
  bwd   the gradients of every floating output against one random cotangent with respect to the
        inputs that require grad and the parameters.

Each comparison gives ``"ok"`` or a short reason; ``moduleinfo_known.py`` lists the known ones."""
from __future__ import annotations

import warnings

import numpy as np

import tinytorch as tt

import _paths

CAP = 12


def entry_id(info) -> str:
    return info.formatted_name if hasattr(info, "formatted_name") else info.module_cls.__name__


def tinytorch_class(info):
    return getattr(tt.nn, info.module_cls.__name__, None)


class _Unconvertible(Exception):
    pass


class _TorchRefused(Exception):
    """PyTorch itself raised for the sample (an error-input sample): nothing to compare."""


def to_tt(v, torch, memo=None):
    """``v`` as tinytorch's; one torch tensor passed twice (KLDivLoss's scalar samples use the same
    tensor as input and target) becomes one tinytorch tensor, so its gradient sums both uses."""
    memo = {} if memo is None else memo
    if isinstance(v, torch.Tensor):
        if v.layout != torch.strided or v.is_complex() or v.is_nested:
            raise _Unconvertible(f"a {v.layout} / {v.dtype} tensor")
        if id(v) not in memo:
            t = tt.tensor(v.detach().cpu().numpy())
            memo[id(v)] = t.requires_grad_() if v.requires_grad else t
        return memo[id(v)]
    if isinstance(v, torch.nn.utils.rnn.PackedSequence):
        raise _Unconvertible("a PackedSequence")
    if isinstance(v, torch.dtype):
        return getattr(tt, str(v).split(".")[-1])
    if isinstance(v, tuple):
        return tuple(to_tt(x, torch, memo) for x in v)
    if isinstance(v, list):
        return [to_tt(x, torch, memo) for x in v]
    if isinstance(v, dict):
        return {k: to_tt(x, torch, memo) for k, x in v.items()}
    if isinstance(v, (torch.nn.TransformerEncoderLayer, torch.nn.TransformerDecoderLayer)):
        return _layer(v, torch)
    if callable(v) and getattr(v, "__name__", None) in ("relu", "gelu") and not isinstance(v, torch.nn.Module):
        return getattr(tt.nn.functional, v.__name__)
    if isinstance(v, torch.nn.Module) or callable(v) and getattr(v, "__module__", "").startswith("torch"):
        raise _Unconvertible(f"an argument {type(v).__name__}")
    return v


def _layer(layer, torch):
    """tinytorch's counterpart of a Transformer layer passed as an argument (TransformerEncoder's
    encoder_layer): the same hyper-parameters, PyTorch's parameters loaded."""
    act = layer.activation
    act = to_tt(act, torch) if not isinstance(act, torch.nn.Module) else getattr(tt.nn, type(act).__name__)()
    new = getattr(tt.nn, type(layer).__name__)(
        layer.self_attn.embed_dim, layer.self_attn.num_heads, layer.linear1.out_features, layer.dropout.p, act,
        layer.norm1.eps, layer.self_attn.batch_first, layer.norm_first, bias=layer.linear1.bias is not None)
    new.to(getattr(tt, str(next(layer.parameters()).dtype).split(".")[-1]))
    new.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in layer.state_dict().items()})
    return new


def _flat(out, torch) -> list:
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o, torch)]
    return [out]


def _reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160] if text else ''}"


def _close(torch, got, want) -> str:
    if not isinstance(got, tt.Tensor):
        return f"output is {type(got).__name__}, PyTorch {type(want).__name__}"
    g = torch.from_numpy(np.array(got.detach().numpy()))  # (ascontiguousarray makes a 0-d array 1-d)
    try:
        torch.testing.assert_close(g, want.detach(), equal_nan=True)
    except AssertionError as e:
        return "values differ: " + str(e).strip().splitlines()[0]
    return "ok"


def _pick(samples: list) -> list:
    if len(samples) <= CAP:
        return list(enumerate(samples))
    step = len(samples) / CAP
    return [(int(i * step), samples[int(i * step)]) for i in range(CAP)]


def _same_draws(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Initial values from the same seed: ``_paths.assert_drawn`` (bit for bit on PyTorch's FMA paths)."""
    try:
        _paths.assert_drawn(ours, theirs)
    except AssertionError:
        return False
    return True


def run_sample(info, sample, torch) -> tuple:
    """("init", "fwd", "bwd") results of one ModuleInput."""
    cls_t, cls_tt = info.module_cls, tinytorch_class(info)
    ci, fi = sample.constructor_input, sample.forward_input
    try:
        cargs, ckw = to_tt(ci.args, torch), to_tt(ci.kwargs, torch)
        memo: dict = {}
        fargs, fkw = to_tt(fi.args, torch, memo), to_tt(fi.kwargs, torch, memo)
    except _Unconvertible as e:
        return f"skip: {e}", "skip", None
    torch.manual_seed(0)
    try:
        m_t = cls_t(*ci.args, **ci.kwargs).to(torch.float64)
        lazy = hasattr(m_t, "has_uninitialized_params") and m_t.has_uninitialized_params()
        if lazy:  # the parameters are drawn by the first call
            m_t(*fi.args, **fi.kwargs)
    except Exception as e:  # noqa: BLE001
        raise _TorchRefused(e) from e
    tt.manual_seed(0)
    try:
        m_tt = cls_tt(*cargs, **ckw).to(tt.float64)
        if lazy:
            m_tt(*fargs, **fkw)
    except Exception as e:  # noqa: BLE001
        return "construct: " + _reason(e), "skip", None
    if lazy:  # a float64 forward has updated buffers already: parameters only, bit for bit
        sd_t = {k: v.detach() for k, v in m_t.named_parameters()}
        sd_tt = {k: v.detach() for k, v in m_tt.named_parameters()}
    else:
        sd_t, sd_tt = m_t.state_dict(), m_tt.state_dict()
    if list(sd_t) != list(sd_tt):
        init = f"state_dict keys differ: {list(sd_t)} vs {list(sd_tt)}"[:200]
    else:
        bad = [k for k in sd_t if not _same_draws(sd_tt[k].numpy(), sd_t[k].detach().numpy())]
        init = "ok" if not bad else f"init differs: {bad[:3]}"
    sd_t = m_t.state_dict()
    try:
        m_tt.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in sd_t.items()}, strict=False)
    except Exception as e:  # noqa: BLE001
        return init, "load_state_dict: " + _reason(e), None
    m_t.train(True)
    m_tt.train(True)
    torch.manual_seed(1)
    try:
        out_t = m_t(*fi.args, **fi.kwargs)
    except Exception as e:  # noqa: BLE001
        raise _TorchRefused(e) from e
    tt.manual_seed(1)
    try:
        out_tt = m_tt(*fargs, **fkw)
    except Exception as e:  # noqa: BLE001
        return init, "forward: " + _reason(e), None
    ft, ftt = _flat(out_t, torch), _flat(out_tt, torch)
    if len(ft) != len(ftt):
        return init, f"{len(ftt)} outputs, PyTorch {len(ft)}", None
    for a, b in zip(ft, ftt):
        if isinstance(a, torch.Tensor):
            r = _close(torch, b, a)
            if r != "ok":
                return init, r, None
    return init, "ok", _backward(torch, m_t, m_tt, fi, fargs, fkw, ft, ftt)


def _leaves(args, torch, lib_tensor) -> list:
    out = []
    for a in (args if isinstance(args, (tuple, list)) else [args]):
        if isinstance(a, (tuple, list)):
            out += _leaves(a, torch, lib_tensor)
        elif isinstance(a, dict):
            out += _leaves(list(a.values()), torch, lib_tensor)
        elif isinstance(a, lib_tensor) and a.requires_grad:
            out.append(a)
    return out


def _backward(torch, m_t, m_tt, fi, fargs, fkw, ft, ftt):
    pairs = [(a, b) for a, b in zip(ft, ftt) if isinstance(a, torch.Tensor) and a.requires_grad]
    if not pairs:
        return None
    if any(not b.requires_grad for _, b in pairs):
        return "output does not require grad"
    wrt_t = _leaves([fi.args, fi.kwargs], torch, torch.Tensor) + [p for p in m_t.parameters() if p.requires_grad]
    wrt_tt = _leaves([fargs, fkw], torch, tt.Tensor) + [p for p in m_tt.parameters() if p.requires_grad]
    if len(wrt_t) != len(wrt_tt):
        return f"{len(wrt_tt)} tensors requiring grad, PyTorch {len(wrt_t)}"
    if not wrt_t:
        return None
    gen = torch.Generator().manual_seed(2)
    cot = [torch.randn(a.shape, generator=gen, dtype=a.dtype) for a, _ in pairs]
    ga = torch.autograd.grad([a for a, _ in pairs], wrt_t, cot, allow_unused=True)
    try:
        gb = tt.autograd.grad([b for _, b in pairs], wrt_tt, [tt.tensor(c.numpy()) for c in cot], allow_unused=True)
    except Exception as e:  # noqa: BLE001
        return "backward: " + _reason(e)
    for x, y in zip(ga, gb):
        if x is None and y is None:
            continue
        if x is None:
            x = torch.zeros(y.shape, dtype=torch.float64)
        if y is None:
            y = tt.zeros(*x.shape, dtype=tt.float64)
        r = _close(torch, y, x)
        if r != "ok":
            return "gradients differ: " + r
    return "ok"


def walk_entry(info, torch) -> dict:
    """{"present": bool, "results": [(sample index, init, fwd, bwd)]}."""
    if tinytorch_class(info) is None:
        return {"present": False, "results": []}
    torch.set_num_threads(1)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        samples = info.module_inputs_func(info, device="cpu", dtype=torch.float64, requires_grad=True, training=True)
        for i, s in _pick(samples):
            try:
                init, fwd, bwd = run_sample(info, s, torch)
            except _TorchRefused as e:
                init, fwd, bwd = f"skip: PyTorch raised {type(e.__cause__).__name__}", "skip", None
            results.append((i, init, fwd, bwd))
    return {"present": True, "results": results}
