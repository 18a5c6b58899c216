"""Replay: a list of graph nodes written out once as a plain Python function, each op resolved ahead of time.

A GraphModule's generated code looks every op up at each call (``torch.ops.aten.addmm.default`` is four
attribute reads) and runs it through the op's public spelling. A compiled step replays the same graphs every
call, so ``Plan`` resolves each node's op to the function that computes it once, binds it to a name in the
generated code's globals, and writes the nodes out as straight-line Python::

    def forward(primals_1, primals_2, primals_3):
        t = aten_t(primals_2)
        addmm = aten_addmm(primals_3, primals_1, t)
        ...
        return (relu, t, addmm)

The ops run with autograd off (the caller runs a plan inside ``CompiledFunction``, whose forward and backward
record nothing): no autograd node per op. Each op still computes with its own formula and CPU path, so a plan
gives the floats the same ops give eagerly. ``TORCH_LOGS=output_code`` (or ``set_logs(output_code=True)``) prints
each plan's source as it is made, as PyTorch prints the code inductor writes."""
from __future__ import annotations

import keyword
import logging
import operator

from .. import _logging
from ..fx.node import Node as FxNode, map_arg
from .lowering import LOWERINGS

__all__ = ["Plan"]

log = logging.getLogger("tinytorch._inductor.output_code")


def _resolve(target):
    """The function a node's target runs: its lowering (``lowering.py``), an ATen overload's tinytorch
    implementation, or the target itself."""
    packet = getattr(target, "_packet", None)
    if packet is not None and str(target) in LOWERINGS:
        return LOWERINGS[str(target)]
    if packet is not None and not (target._overloadname == "out" or target._overloadname.endswith("_out")):
        return packet._fn
    return target


def _name(base: str, taken: set) -> str:
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "v"
    if base[0].isdigit() or keyword.iskeyword(base):
        base = "_" + base
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def _last_uses(nodes: list, outputs: list) -> dict:
    """{position in ``nodes``: the values (inputs or earlier results) no later node reads}: what a plan can let
    go of after that line. The plan's results are kept; a result nothing reads goes at once."""
    last: dict = {}
    for i, n in enumerate(nodes):
        last[n] = i
        for v in n.all_input_nodes:
            last[v] = i
    keep: set = set()
    map_arg(list(outputs), keep.add)
    freed: dict = {}
    for v, i in last.items():
        if v not in keep:
            freed.setdefault(i, []).append(v)
    return freed


class Plan:
    """``inputs`` (fx nodes standing for the arguments, in order), ``nodes`` (the call_function/get_attr nodes to
    run, in order) and ``outputs`` (fx nodes or constants to return), written out as one function ``run``.
    ``attrs``: the values of get_attr targets (a graph module's own tensors); ``calls``: nodes to run with another
    function of the same arguments than their op (``step_plan.py``'s fused updates)."""

    def __init__(self, title: str, inputs: list, nodes: list, outputs: list, attrs=None, calls=None):
        taken = set(keyword.kwlist) | {"None", "True", "False"}
        names: dict = {}
        glob: dict = {}
        for n in inputs:
            names[n] = _name(n.name, taken)
        lines = []

        def const(value) -> str:
            if value is None or type(value) in (bool, int, str) or (type(value) is float and value == value
                                                                     and abs(value) != float("inf")):
                return repr(value)
            k = _name("c", taken)
            glob[k] = value
            return k

        def arg(value) -> str:
            if isinstance(value, FxNode):
                return names[value]
            if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):  # (fx's immutable lists too)
                inner = ", ".join(arg(v) for v in value)
                return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
            if isinstance(value, dict):
                return "{" + ", ".join(f"{k!r}: {arg(v)}" for k, v in value.items()) + "}"
            return const(value)

        last = _last_uses(nodes, outputs)
        fns: dict = {}
        for i, n in enumerate(nodes):
            if i:
                self._free(lines, last.get(i - 1, ()), names)
            names[n] = _name(n.name, taken)
            if n.op == "get_attr":
                glob_name = _name(f"attr_{n.target}", taken)
                value = attrs
                for part in n.target.split("."):
                    value = getattr(value, part)
                glob[glob_name] = value
                lines.append(f"    {names[n]} = {glob_name}")
                continue
            own = calls.get(n) if calls else None
            fn = own if own is not None else _resolve(n.target)
            if fn is operator.getitem:
                lines.append(f"    {names[n]} = {arg(n.args[0])}[{arg(n.args[1])}]")
                continue
            key = id(fn)
            if key not in fns:
                label = getattr(own or n.target, "__name__", "fn").split(".")[0]
                fns[key] = _name(f"aten_{label}" if own is None and hasattr(n.target, "_packet") else label, taken)
                glob[fns[key]] = fn
            args = ", ".join([arg(a) for a in n.args] + [f"{k}={arg(v)}" for k, v in n.kwargs.items()])
            lines.append(f"    {names[n]} = {fns[key]}({args})")
        if nodes:
            self._free(lines, last.get(len(nodes) - 1, ()), names)
        ret = ", ".join(arg(o) for o in outputs)
        params = ", ".join(names[n] for n in inputs)
        ret += "," if len(outputs) == 1 else ""
        self.source = f"def {title}({params}):\n" + "\n".join(lines) + f"\n    return ({ret})\n"
        code = compile(self.source, f"<tinytorch compiled {title}>", "exec")
        exec(code, glob)  # noqa: S102 - the plan's own generated source
        self.run = glob[title]
        if _logging.enabled("output_code"):
            log.warning("Output code:\n%s", self.source)

    @staticmethod
    def _free(lines: list, values, names: dict) -> None:
        """A ``del`` of the values read for the last time: an intermediate array is freed once its last reader
        has run (as inductor's code frees its buffers), not held until the plan returns."""
        if values:
            lines.append("    del " + ", ".join(names[v] for v in values))
