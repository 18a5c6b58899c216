"""The function transforms built on the autograd engine: grad, grad_and_value, vjp, jvp (jacrev, jacfwd
and hessian, built on the same leaves, are in ``_jacobians.py``).

Each transform runs the function on fresh leaves made from its inputs and differentiates with
``create_graph=True``, so transforms nest (``jacfwd(jacrev(f))`` is the Hessian) and stay
differentiable by ordinary autograd when a tensor from outside (a parameter that requires grad, or an
outer transform's input) is involved. A result that depends on nothing outside is detached, so the
top-level call returns plain tensors, as ``torch.func`` does.

Inside ``vmap`` the transforms work on the physical arrays, batch dimension first: the samples of a
batch are independent, so the gradient of the batch's sum with respect to a batched input holds every
sample's own gradient. Unbatched inputs are expanded over the batch for that, which gives per-sample
gradients of shared parameters."""
from __future__ import annotations

from ..autograd import forward_ad as _fw
from ..autograd.engine import grad as _autograd_grad
from ..autograd.grad_mode import _State
from ..autograd.grad_mode import _recording as enable_grad  # records inside inference mode too
from ..autograd.node import AccumulateGrad
from .._ops.shape.join import stack
from .._ops.creation.factory import zeros_like
from ..tensor import Tensor
from .._ops._core.pytree import tree_flatten, tree_unflatten
from ._vmap import BatchedTensor
from .._ops._core.batching import needs_per_sample


def _batched_cls():
    return BatchedTensor


class _Inputs:
    """The differentiated arguments as fresh leaves (physical tensors) and as the function sees them."""

    def __init__(self, args, argnums, fn_name: str):
        BT = _batched_cls()
        self.args = list(args)
        self.single = isinstance(argnums, int)
        nums = (argnums,) if self.single else tuple(argnums)
        for a in nums:
            if not isinstance(a, int):
                raise RuntimeError(f"{fn_name}: argnums must be int or Tuple[int, ...], got: {type(argnums)}")
            if not -len(args) <= a < len(args):
                raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
        self.nums = tuple(a % len(args) for a in nums)
        if len(set(self.nums)) != len(self.nums):
            raise RuntimeError(f"{fn_name}: argnums must be unique, got {argnums}")
        all_leaves = [x for a in args for x in tree_flatten(a)[0]]
        sizes = {x.batch_size for x in all_leaves if isinstance(x, BT)}
        self.batch = sizes.pop() if sizes else None
        self.leaves, self.specs = [], []
        for n in self.nums:
            flat, spec = tree_flatten(args[n])
            wrapped = []
            for x in flat:
                _check_transform_input(x)
                leaf = self._leaf(x, BT)
                self.leaves.append(leaf)
                wrapped.append(BT(leaf, self.batch) if self.batch is not None else leaf)
            self.specs.append(spec)
            self.args[n] = tree_unflatten(wrapped, spec)

    def _leaf(self, x, BT):
        if isinstance(x, BT):
            phys = x._physical()
        elif self.batch is not None:
            phys = x.unsqueeze(0).expand(self.batch, *x.shape)
        else:
            phys = x
        if isinstance(phys, BT):
            raise needs_per_sample("differentiating a tensor batched by two vmaps")
        # a view keeps the outer graph (an outer transform or a parameter); otherwise a new leaf
        return phys.view_as(phys) if phys.requires_grad else phys.detach().requires_grad_(True)

    def regroup(self, flat):
        """Per-leaf results back into the argnums' structure."""
        out, i = [], 0
        for spec in self.specs:
            n = len(tree_flatten(tree_unflatten([None] * _count(spec), spec))[0])
            out.append(tree_unflatten(list(flat[i:i + n]), spec))
            i += n
        return out[0] if self.single else tuple(out)

    def wrap(self, t):
        return _batched_cls()(t, self.batch) if self.batch is not None else t


def _check_transform_input(x) -> None:
    if not isinstance(x, (Tensor, _batched_cls())):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")


def _count(spec) -> int:
    if spec is None:
        return 1
    return sum(n for n, _ in spec[2])


def _physical(t):
    BT = _batched_cls()
    return t._physical() if isinstance(t, BT) else t


def _batch_phys(t, inp):
    """The physical tensor, batch first; a result that does not depend on the batch is repeated over it."""
    if isinstance(t, _batched_cls()) or inp.batch is None or not isinstance(t, Tensor):
        return _physical(t)
    return t.unsqueeze(0).expand((inp.batch,) + tuple(t.shape))


def _reaches_outside(tensors, own) -> bool:
    """Does any of ``tensors`` have a graph path to a leaf that is not one of ``own``?"""
    own_ids = {id(t) for t in own}
    seen, stack = set(), [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    for t in tensors:
        if t is not None and t.grad_fn is None and t.requires_grad and id(t) not in own_ids:
            return True
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own_ids:
                return True
            continue
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return False


def _finish(tensors, own):
    """Detach each result whose graph only leads back to this transform's own leaves (one that reaches a tensor
    from outside keeps its graph: jvp's tangent of a tangent that requires grad, not its primal output)."""
    BT = _batched_cls()
    out = []
    for t in tensors:
        if not isinstance(t, (Tensor, BT)) or _reaches_outside([_physical(t)], own):
            out.append(t)
        else:
            out.append(t.detach() if isinstance(t, Tensor) else BT(t._physical().detach(), t.batch_size))
    return out


def _grads(outputs, leaves, grad_outputs=None, retain_graph=True):
    """autograd.grad with create_graph, zeros where an input is unused."""

    outs = [o for o in outputs if o.requires_grad]
    if not outs:
        return [zeros_like(x) for x in leaves]
    if grad_outputs is not None:
        grad_outputs = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    gs = _autograd_grad(outs, leaves, grad_outputs, retain_graph=retain_graph, create_graph=True, allow_unused=True)
    return [zeros_like(x) if g is None else g for g, x in zip(gs, leaves)]


def _check_batched_by_closure(outputs, inp) -> None:
    """An output batched by a vmap whose batched tensor the function closed over (its arguments are not):
    each sample's gradient needs the arguments expanded over that batch, which only a run per sample gives."""
    if inp.batch is None and any(isinstance(o, _batched_cls()) for o in outputs):
        raise needs_per_sample("differentiating an output batched through a tensor the function closed over")


def _split_aux(out, has_aux: bool, fn_name: str):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{fn_name}(f)(*args): output of function f should be a tuple: (output, aux) if has_aux "
                           "is True")
    return out


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """A function returning (gradient of ``func`` w.r.t. ``argnums``, value of ``func``)."""

    def wrapper(*args, **kwargs):
        with enable_grad():
            inp = _Inputs(args, argnums, "grad_and_value")
            out = func(*inp.args, **kwargs)
            out, aux = _split_aux(out, has_aux, "grad_and_value")
            BT = _batched_cls()
            if not isinstance(out, (Tensor, BT)):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            _check_batched_by_closure([out], inp)
            phys = _physical(out)
            gs = _grads([phys.sum() if inp.batch is not None else phys], inp.leaves)
            res = _finish([inp.wrap(g) for g in gs] + [out], inp.leaves)
        value = res[-1]
        grads = inp.regroup(res[:-1])
        if has_aux:
            return grads, (value, _detach_tree(aux, inp.leaves))
        return grads, value

    return wrapper


def _detach_tree(tree, own):
    leaves, spec = tree_flatten(tree)
    is_t = [isinstance(x, (Tensor, _batched_cls())) for x in leaves]
    for x, t in zip(leaves, is_t):
        if not t:
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    done = iter(_finish([x for x, t in zip(leaves, is_t) if t], own))
    return tree_unflatten([next(done) if t else x for x, t in zip(leaves, is_t)], spec)


def grad(func, argnums=0, has_aux: bool = False):
    """A function returning the gradient of scalar ``func`` w.r.t. its ``argnums`` arguments."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """(func(*primals), vjp_fn[, aux]): ``vjp_fn(cotangents)`` gives one gradient per primal."""
    with enable_grad():
        inp = _Inputs(primals, tuple(range(len(primals))), "vjp")
        out = func(*inp.args)
        out, aux = _split_aux(out, has_aux, "vjp")
    out_leaves, out_spec = tree_flatten(out)
    _check_batched_by_closure(out_leaves, inp)
    own = inp.leaves

    def vjp_fn(cotangents):
        cot_leaves, _ = tree_flatten(cotangents)
        if len(cot_leaves) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function.")
        BT = _batched_cls()
        outer = [c for c in cot_leaves if isinstance(c, BT)]
        if inp.batch is None and outer:
            # vmap(vjp_fn): a batch of cotangents for outputs made outside that vmap
            res = _batched_cotangents(out_leaves, own, cot_leaves, outer[0])
        else:
            with enable_grad():
                gs = _grads([_batch_phys(o, inp) for o in out_leaves], own, [_physical(c) for c in cot_leaves])
                res = _finish([inp.wrap(g) for g in gs], own)
        r = inp.regroup(res)
        return r if len(primals) != 1 else (r[0],) if isinstance(r, tuple) and len(r) == 1 else r

    value = tree_unflatten(_finish(out_leaves, own), out_spec)
    if has_aux:
        return value, vjp_fn, _detach_tree(aux, own)
    return value, vjp_fn


def _batched_cotangents(out_leaves, own, cot_leaves, like):
    """The vector-Jacobian products of unbatched outputs for each sample of a vmap's batch of cotangents
    (``vmap(vjp_fn)(cotangents)``, PyTorch's usual way to a Jacobian): one backward through the same
    graph per sample, stacked and handed back batched at the cotangents' level. Empty where the batch is."""
    BT = _batched_cls()
    bsz, level = like.batch_size, like._level
    phys = [c._physical() if isinstance(c, BT) else c.unsqueeze(0).expand((bsz,) + tuple(c.shape))
            for c in cot_leaves]
    with enable_grad():
        per_sample = [_grads(out_leaves, own, [p[b] for p in phys]) for b in range(bsz)]
        if bsz:
            stacked = [stack([gs[i] for gs in per_sample]) for i in range(len(own))]
        else:
            stacked = [zeros_like(x).unsqueeze(0)[:0] for x in own]
        done = _finish(stacked, own)
    return [BT(t, bsz, level) for t in done]


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """(func(*primals), J @ tangents): by forward-mode AD; inside vmap or a dual level, by differentiating a
    vector-Jacobian product along the tangents."""

    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {len(primals)} and tangents with structure {len(tangents)}")
    if not _State.transforms and _State.fw_level is None:
        return _forward_mode_jvp(func, primals, tangents, has_aux)
    with enable_grad():
        inp = _Inputs(tuple(primals), tuple(range(len(primals))), "jvp")
        out = func(*inp.args)
        out, aux = _split_aux(out, has_aux, "jvp")
        out_leaves, out_spec = tree_flatten(out)
        phys_out = [_batch_phys(o, inp) for o in out_leaves]
        flat_tangents = tree_flatten(list(tangents))[0]
        if inp.batch is None and any(isinstance(t, _batched_cls()) for t in flat_tangents):
            raise needs_per_sample("jvp with batched tangents of unbatched primals")
        tan = [_physical(t) if isinstance(t, _batched_cls()) else
               (t.unsqueeze(0).expand(inp.batch, *t.shape) if inp.batch is not None else t)
               for t in flat_tangents]
        for t, x in zip(tan, inp.leaves):
            if tuple(t.shape) != tuple(x.shape):
                raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same shape")
        # u is a dummy cotangent: J^T u is linear in u, so its derivative along the tangents is J t
        us = [zeros_like(o).requires_grad_(True) for o in phys_out]
        vjps = _grads(phys_out, inp.leaves, us)
        pairs = [(v, t) for v, t in zip(vjps, tan) if v.requires_grad]
        if pairs:
            jv = _autograd_grad([v for v, _ in pairs], us, [t for _, t in pairs], retain_graph=True,
                                create_graph=True, allow_unused=True)
        else:
            jv = [None] * len(us)
        jv = [zeros_like(o) if g is None else g for g, o in zip(jv, phys_out)]
        # an output batched through a tensor the function closed over (its primals are not) stays batched: each
        # sample's tangent is its own row of J t
        wraps = [(lambda t, o=o: _batched_cls()(t, o.batch_size, o._level))
                 if inp.batch is None and isinstance(o, _batched_cls()) else inp.wrap for o in out_leaves]
        res = _finish([w(p) for w, p in zip(wraps, phys_out)] + [w(g) for w, g in zip(wraps, jv)], inp.leaves)
    n = len(phys_out)
    # a primal output that keeps a graph (to a tensor from outside) comes out as an alias of the inner result, as
    # PyTorch's unwrapping of the dual tensor gives it (grad_fn AliasBackward0)
    res[:n] = [t.as_subclass(Tensor) if type(t) is Tensor and t.grad_fn is not None else t for t in res[:n]]
    primal_out = tree_unflatten(res[:n], out_spec)
    tangent_out = tree_unflatten(res[n:], out_spec)
    if has_aux:
        return primal_out, tangent_out, _detach_tree(aux, inp.leaves)
    return primal_out, tangent_out


def _forward_mode_jvp(func, primals, tangents, has_aux: bool):
    """jvp outside vmap: ``func`` runs on dual tensors (``autograd.forward_ad``), so each op's tangent comes from its
    forward rule, as PyTorch's does, and the outputs hold the history PyTorch's hold (the primal output an alias
    of the result where it depends on a tensor that requires grad; the tangent the rules' ops)."""
    pairs = []
    for p, t in zip(primals, tangents):
        flat_p, spec_p = tree_flatten(p)
        flat_t, spec_t = tree_flatten(t)
        if spec_p != spec_t:
            raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                               "structure.")
        for x, v in zip(flat_p, flat_t):
            _check_transform_input(x)
            _check_transform_input(v)
            if tuple(x.shape) != tuple(v.shape):
                raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same shape")
        pairs.append((flat_p, flat_t, spec_p))
    recording = _State.enabled  # under no_grad the outputs keep no history, as PyTorch's (the tangents still flow)
    with enable_grad(), _fw._jvp_level():
        args = [tree_unflatten([_fw._aliased_dual(x, v) for x, v in zip(fp, ft)], spec) for fp, ft, spec in pairs]
        out = func(*args)
        out, aux = _split_aux(out, has_aux, "jvp")
        out_leaves, out_spec = tree_flatten(out)
        for o in out_leaves:
            if not isinstance(o, Tensor):
                raise RuntimeError("jvp(f, primals, tangents): expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
        tangent_out = []
        for o in out_leaves:
            t = _fw.unpack_dual(o).tangent
            tangent_out.append(zeros_like(o) if t is None else t)
        primal_out = [_unwrapped(o, recording) for o in out_leaves]
        if has_aux:
            aux_leaves, aux_spec = tree_flatten(aux)
            aux = tree_unflatten([_unwrapped(a, recording) if isinstance(a, Tensor) else a for a in aux_leaves],
                                 aux_spec)
    if not recording:
        tangent_out = [t.detach() for t in tangent_out]
    res = tree_unflatten(primal_out, out_spec), tree_unflatten(tangent_out, out_spec)
    return res + (aux,) if has_aux else res


def _unwrapped(t, recording: bool):
    """A result as jvp hands it out: plain where only forward AD recorded it, else an alias keeping its graph."""
    if not recording or _fw._forward_only(t):
        return t.detach()
    return t.as_subclass(Tensor) if t.grad_fn is not None else t
