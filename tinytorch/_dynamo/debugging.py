"""``torch._dynamo.explain(fn)(*args)``: what compiling ``fn`` would capture for these inputs, as PyTorch's
``ExplainOutput`` prints it (graph count, graph breaks and their reasons, the ops of each graph, the guards).

In stage 1 a call with a graph break runs wholly eagerly (``capture.py``), so where PyTorch counts the graphs
around a break (two for one ``if x.sum() > 0``), tinytorch counts none; the break count and reasons are
PyTorch's."""
from __future__ import annotations

import operator
import time

from . import capture as _capture
from .guards import Guard
from ..utils import _pytree as pytree

__all__ = ["ExplainOutput", "explain"]


class BreakReason:
    def __init__(self, reason: str, user_stack: list):
        self.reason, self.user_stack = reason, user_stack


class ExplainOutput:
    def __init__(self, graphs, graph_count, graph_break_count, break_reasons, op_count, ops_per_graph=None,
                 out_guards=None, compile_times=None):
        self.graphs, self.graph_count, self.graph_break_count = graphs, graph_count, graph_break_count
        self.break_reasons, self.op_count, self.ops_per_graph = break_reasons, op_count, ops_per_graph
        self.out_guards, self.compile_times = out_guards, compile_times

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, br in enumerate(self.break_reasons):
            lines += [f"  Break Reason {i + 1}:", f"    Reason: {br.reason}", "    User Stack:"]
            lines += [f"      {frame}" for frame in br.user_stack]
        if self.ops_per_graph is not None:
            lines.append("Ops per Graph:")
            for i, ops in enumerate(self.ops_per_graph):
                lines.append(f"  Ops {i + 1}:")
                lines += [f"    {op}" for op in ops]
        out = "\n".join(lines) + "\n"
        if self.out_guards is not None:
            out += "Out Guards:\n"
            for i, guard in enumerate(self.out_guards):
                out += f"  Guard {i + 1}:\n    {guard}"
        if self.compile_times is not None:
            out += f"Compile Times: {self.compile_times}\n"
        return out

    __repr__ = __str__


def _shown(name: str, spelling) -> str:
    """An op as Dynamo's graph names it: an operator (``x + y``) as Python's ``operator`` function, a call of a
    torch function as that function. Method calls (``x.sin()``) are ``call_method`` nodes there, which explain
    does not count; they are left out the same way."""
    if spelling is not None:
        op = getattr(operator, spelling.strip("_").removeprefix("r") if spelling.startswith("__r") and
                     not hasattr(operator, spelling.strip("_")) else spelling.strip("_"), None)
        if op is not None:
            return repr(op)
    return f"<function {name}>"


def _guard_lines(guard: Guard) -> list:
    lines = [f"Name: '{name}'  Guard: TENSOR_MATCH {tuple(sizes) if sizes else 'dynamic'} {dtype} "
             f"requires_grad={rg}\n" for _, name, _, sizes, dtype, rg in guard.tensors]
    lines += [f"Name: '{name}'  Guard: EQUALS_MATCH {value!r}\n" for _, name, value in guard.values]
    lines.append(f"Name: ''  Guard: GRAD_MODE {guard.grad_mode}\n")
    return lines


def explain(f, *extra_args, **extra_kwargs):
    """``explain(f)(*args, **kwargs)``: capture ``f`` on these inputs (it runs once, eagerly) and describe it."""
    def inner(*args, **kwargs):
        start = time.perf_counter()
        leaves, spec = pytree.tree_flatten((args, kwargs))
        module = f if hasattr(f, "named_modules") else None
        fn = f.__call__ if module is not None else getattr(f, "_torchdynamo_orig_callable", f)
        _, program, cap = _capture.capture(fn, args, kwargs, module, fullgraph=False)
        elapsed = time.perf_counter() - start
        graphs = [program.gm] if program is not None else []
        ops = [[_shown(name, spelling) for name, spelling in cap.rec.calls if spelling is None or
                spelling.startswith("__")]] if program is not None else []
        reasons = [BreakReason(b.reason, [b.frame] if b.frame is not None else []) for b in cap.breaks]
        names = _capture.input_names(f.forward if module is not None else fn, args, kwargs)
        guard = Guard(names, leaves, spec, module, [], {}, False)
        times = ("TorchDynamo compilation metrics:\nFunction                  Runtimes (s)\n"
                 f"------------------------  --------------\n_compile.compile_inner    {elapsed:.4f}")
        return ExplainOutput(graphs, len(graphs), len(cap.breaks), reasons, sum(map(len, ops)), ops,
                             _guard_lines(guard), times)

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
