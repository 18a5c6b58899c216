"""ONNX nodes for the shape, joining and reduction ops forward code uses between modules."""
from __future__ import annotations

import numpy as np
from ._errors import OnnxExporterError
from ._rule import export_rule
from ..tensor import Tensor


def _shape_args(shape) -> list:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return [int(s) for s in shape]


def _reshape(tr, out, input, target) -> None:
    # a size equal to the input's at the same place is copied (0) rather than baked in, so a
    # dynamic batch axis stays dynamic through x.view(x.size(0), -1)
    sizes = [0 if i < input.dim() and s == input.shape[i] and s != 0 else s for i, s in enumerate(target)]
    tr.node("Reshape", [tr.value(input), tr.ints(sizes)], out)


@export_rule("reshape", "Tensor.view")
def view(tr, out, input, *shape):
    _reshape(tr, out, input, _shape_args(shape))


@export_rule("flatten")
def flatten(tr, out, input, start_dim=0, end_dim=-1):
    n = input.dim()
    if n == 0:
        tr.node("Reshape", [tr.value(input), tr.ints([1])], out)
        return
    start, end = start_dim % n, end_dim % n
    target = [0] * start + [-1] + [int(s) for s in input.shape[end + 1:]]
    tr.node("Reshape", [tr.value(input), tr.ints(target)], out)


@export_rule("transpose")
def transpose(tr, out, input, dim0, dim1):
    perm = list(range(input.dim()))
    perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
    tr.node("Transpose", [tr.value(input)], out, perm=perm)


@export_rule("t")
def t(tr, out, input):
    if input.dim() < 2:
        tr.node("Identity", [tr.value(input)], out)
    else:
        tr.node("Transpose", [tr.value(input)], out, perm=[1, 0])


@export_rule("permute")
def permute(tr, out, input, *dims):
    dims = _shape_args(dims)
    tr.node("Transpose", [tr.value(input)], out, perm=[d % input.dim() for d in dims])


@export_rule("unsqueeze")
def unsqueeze(tr, out, input, dim):
    tr.node("Unsqueeze", [tr.value(input), tr.ints([dim % (input.dim() + 1)])], out)


@export_rule("squeeze")
def squeeze(tr, out, input, dim=None):
    if dim is None:
        tr.node("Squeeze", [tr.value(input)], out)
        return
    dims = [d % max(input.dim(), 1) for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
    dims = [d for d in dims if input.dim() and input.shape[d] == 1]
    tr.node("Squeeze" if dims else "Identity", [tr.value(input)] + ([tr.ints(dims)] if dims else []), out)


@export_rule("cat")
def cat(tr, out, tensors, dim=0):
    tr.node("Concat", [tr.value(x) for x in tensors], out, axis=int(dim))


def reduce(op_type: str):
    def convert(tr, out, input, dim=None, keepdim=False, *, dtype=None, keepdims=None):
        keep = int(bool(keepdims if keepdims is not None else keepdim))
        inputs = [tr.value(input)]
        if dim is not None:
            axes = [d % max(input.dim(), 1) for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
            axes_as_input = op_type == "ReduceSum" or tr.opset >= 18
            if axes_as_input:
                inputs.append(tr.ints(axes))
                tr.node(op_type, inputs, out, keepdims=keep)
                return
            tr.node(op_type, inputs, out, keepdims=keep, axes=axes)
            return
        tr.node(op_type, inputs, out, keepdims=keep)
    return convert


export_rule("mean")(reduce("ReduceMean"))
export_rule("sum")(reduce("ReduceSum"))


_END = 2 ** 63 - 1  # ONNX Slice's "to the end"


@export_rule("Tensor.getitem")
def getitem(tr, out, input, key, _node=None):
    """Basic indexing (ints, slices, None, ...): Slice for the slices, Gather for the ints (which drop
    their dim), Unsqueeze for None. Tensor indices are not recorded here."""
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (Tensor, list, bool)) or hasattr(k, "__array__") for k in key):
        raise OnnxExporterError("tinytorch.onnx.export records basic indexing only (ints, slices, None, ...), "
                                "not indexing with tensors or lists")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (input.dim() - used) + key[i + 1:]
    x = tr.value(input)
    starts, ends, axes, steps, ints, news = [], [], [], [], [], []
    dim = 0
    for k in key:
        if k is None:
            news.append(dim)
            continue
        if isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if (k.start, k.stop, step) != (None, None, 1):
                starts.append(0 if k.start is None else int(k.start))
                ends.append(_END if k.stop is None else int(k.stop))
                axes.append(dim)
                steps.append(step)
        else:
            ints.append((dim, int(k)))
        dim += 1
    if axes:
        x = tr.node("Slice", [x, tr.ints(starts), tr.ints(ends), tr.ints(axes), tr.ints(steps)])
    for d, i in reversed(ints):  # from the last, so the earlier dims keep their numbers
        x = tr.node("Gather", [x, tr.const(np.asarray(i, dtype=np.int64))], axis=d)
    if news:
        # the None positions counted in the result's dims: the dims before them that survived
        positions, out_dim = [], 0
        for k in key:
            if k is None:
                positions.append(out_dim)
                out_dim += 1
            elif isinstance(k, slice):
                out_dim += 1
        x = tr.node("Unsqueeze", [x, tr.ints(positions)])
    tr.node("Identity", [x], out)
