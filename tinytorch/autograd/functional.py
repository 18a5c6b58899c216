"""``tinytorch.autograd.functional``: Jacobians, Hessians and their products for functions of tensors.

Everything is built on ``autograd.grad``. Forward-mode products (``jvp``, ``hvp``) use the double
backward trick: the vector-Jacobian product ``u -> J^T u`` is linear in ``u``, so differentiating
``<J^T u, v>`` with respect to ``u`` gives ``J v``. Inputs are always re-wrapped in fresh tensors so
that the function's own captured tensors are never confused with the inputs (PyTorch does the same)."""
from __future__ import annotations

from .._ops.creation.factory import zeros, zeros_like
from ..func import grad as func_grad
from ..func._vectorized import VmapUnsupported, jac_columns, jac_rows
from .._ops.shape.join import stack
from ._functional_utils import (_as_tuple, _autograd_grad, _check_requires_grad, _fill_in_zeros, _grad_mode,
                                _postprocess, _preprocess, _unpack, _validate_v)
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _preprocess(v, create_graph, need_graph=False)
            _validate_v(v, outputs, is_out_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
    with _grad_mode(create_graph):
        grads = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        vj = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_postprocess(outputs, create_graph), is_out_tuple),
            _unpack(_postprocess(vj, create_graph), is_in_tuple))


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, by the double backward trick."""

    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _preprocess(v, create_graph, need_graph=False)
            _validate_v(v, inputs, is_in_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # u: a dummy cotangent; J^T u is linear in u, so its derivative along v is J v
        grad_outputs = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    if create_graph:
        with enable_grad():
            grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=True)
            jv = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    else:
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=False)
        jv = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_out_tuple),
            _unpack(_postprocess(jv, create_graph), is_out_tuple))


def _jacfwd(func, inputs, strict: bool, vectorize: bool):
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not "
                           "supported together (yet). Please either set `strict=False` or `strategy=\"reverse-mode\"`.")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
                                  "implemented for `vectorize=True`.")

    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = tuple(t.detach() for t in inputs)
    with enable_grad():
        outputs = func(*inputs)
    is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
    blocks = _vectorized("fwd", func, inputs, outputs)
    if blocks is not None:
        # lists, not tuples, where nothing is unpacked: PyTorch's forward-mode result has this quirk
        return _unpack(blocks, (is_out_tuple, is_in_tuple))
    # a function using an op outside vmap's table: one Jacobian column per input element, each J e_j
    columns = None
    out_info = None
    for k, inp in enumerate(inputs):
        for j in range(inp.numel()):
            basis = []
            for m, other in enumerate(inputs):
                tangent = zeros(other.shape, dtype=other.dtype)
                if m == k:
                    tangent.view(-1)[j] = 1
                basis.append(tangent)
            outs, jv = jvp(func, inputs, tuple(basis))
            is_out_tuple = isinstance(outs, tuple)
            outs, jv = (outs, jv) if is_out_tuple else ((outs,), (jv,))
            if columns is None:
                columns = [[] for _ in outs]
                out_info = (is_out_tuple, list(outs))
            for i, t in enumerate(jv):
                columns[i].append(t)
    is_out_tuple, primals = out_info
    jac = []
    for i, out in enumerate(primals):
        row, start = [], 0
        for inp in inputs:
            n = inp.numel()
            cols = columns[i][start:start + n]
            start += n
            # columns are d out / d inp_j: stacked last, then shaped out.shape + inp.shape
            block = stack(cols, dim=-1) if cols else zeros(tuple(out.shape) + (0,), dtype=out.dtype)
            row.append(block.reshape(tuple(out.shape) + tuple(inp.shape)))
        jac.append(row)
    # lists, not tuples, where nothing is unpacked: PyTorch's forward-mode result has this quirk
    return _unpack(jac, (is_out_tuple, is_in_tuple))


def _vectorized(mode, func, inputs, outputs):
    """Jacobian blocks from tinytorch.func's vmap'ed vjp ("rev") or jvp ("fwd"); None where vmap lacks an op."""

    def fn_flat(xs):
        return list(_as_tuple(func(*xs), "outputs of the user-provided function", "jacobian")[1])

    try:
        return (jac_rows if mode == "rev" else jac_columns)(fn_flat, list(inputs), list(outputs))
    except VmapUnsupported:
        return None


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: shaped ``output.shape + input.shape`` per (output, input) pair.

    ``vectorize=True`` computes all rows in one vmap'ed vector-Jacobian product (one-hot cotangents), as
    PyTorch does; without it, or where vmap lacks an op the function uses, one ``grad`` call per output
    element. Forward mode is vmap over Jacobian-vector products with one-hot tangents."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError("Expected strategy to be either \"forward-mode\" or \"reverse-mode\". Hint: If your "
                             "function has more outputs than inputs, \"forward-mode\" tends to be more performant. "
                             "Otherwise, prefer to use \"reverse-mode\".")
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      "`strategy=\"forward-mode\"` are not supported together (yet). Please either "
                                      "set `create_graph=False` or `strategy=\"reverse-mode\"`.")
        return _jacfwd(func, inputs, strict, vectorize)

    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        blocks = _vectorized("rev", func, inputs, outputs) if vectorize else None
        if blocks is not None:
            return _unpack(_postprocess(tuple(tuple(r) for r in blocks), create_graph), (is_out_tuple, is_in_tuple))
        # one grad call per output element (also where vmap lacks an op the function uses)
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                               f"{i}. This is not allowed in strict mode when create_graph=True.")
                        rows[k].append(g)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{k}. This is not allowed in strict mode.")
                        rows[k].append(zeros_like(inp))
            jac.append(tuple(
                (stack(r, dim=0) if r else zeros_like(inp).reshape((0,) + tuple(inp.shape))).view(
                    tuple(out.shape) + tuple(inp.shape)) for r, inp in zip(rows, inputs)))
        return _unpack(_postprocess(tuple(jac), create_graph), (is_out_tuple, is_in_tuple))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar ``func``: a Tensor for one input, a tuple of tuples for several."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    if vectorize and not strict and not (create_graph and outer_jacobian_strategy == "forward-mode"):
        res = _hessian_vectorized(single_output, inputs, create_graph, outer_jacobian_strategy)
        if res is not None:
            return _unpack(res, (is_in_tuple, is_in_tuple))
    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (is_in_tuple, is_in_tuple))


def _hessian_vectorized(single_output, inputs, create_graph: bool, strategy: str):
    """The Jacobian of the gradient in one vmap'ed pass over the input elements (tinytorch.func's grad
    differentiates inside vmap); None where vmap lacks an op the function uses."""

    with enable_grad():
        pre = _preprocess(inputs, create_graph, need_graph=True)
        single_output(*pre)  # PyTorch's checks of the output, once, outside vmap
    nums = tuple(range(len(pre)))

    def grads(xs):
        return list(func_grad(single_output, argnums=nums)(*xs))

    try:
        blocks = (jac_rows if strategy == "reverse-mode" else jac_columns)(grads, list(pre), list(pre))
    except VmapUnsupported:
        return None
    if strategy == "forward-mode":
        return [list(row) for row in blocks]  # lists, as PyTorch's forward-mode jacobian gives
    return _postprocess(tuple(tuple(row) for row in blocks), create_graph)


def _scalar_output(func, inputs, name: str, strict: bool):
    outputs = func(*inputs)
    is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_out_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    return is_out_tuple, outputs


def _hv_setup(func, inputs, v, create_graph, strict, name):
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _preprocess(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _preprocess(v, create_graph, need_graph=False)
        _validate_v(v, inputs, is_in_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")
    is_out_tuple, outputs = _scalar_output(func, inputs, name, strict)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_in_tuple, inputs, v, is_out_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) for a scalar ``func``."""
    with enable_grad():
        is_in_tuple, inputs, v, is_out_tuple, outputs, jac = _hv_setup(func, inputs, v, create_graph, strict, "vhp")
    with _grad_mode(create_graph):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return (_unpack(_postprocess(outputs, create_graph), is_out_tuple),
            _unpack(_postprocess(res, create_graph), is_in_tuple))


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v) for a scalar ``func``, by the double backward trick."""

    with enable_grad():
        is_in_tuple, inputs, v, is_out_tuple, outputs, jac = _hv_setup(func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with _grad_mode(create_graph):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_out_tuple),
            _unpack(_postprocess(res, create_graph), is_in_tuple))
