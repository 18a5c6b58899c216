"""``torch._logging``: which of ``torch.compile``'s logs to print, by ``set_logs(...)`` or the ``TORCH_LOGS``
environment variable (a comma-separated list of the same names, ``TORCH_LOGS="recompiles,output_code"``).

tinytorch prints two of PyTorch's artifacts, with PyTorch's text:

- ``output_code``: the forward and backward plans a compiled graph runs (``tinytorch/_dynamo/replay.py``), where
  PyTorch prints the code inductor wrote;
- ``recompiles``: why a compiled function captured again (each cached graph's failed guard, newest first).

The other names PyTorch's ``set_logs`` takes are accepted and print nothing here (tinytorch has no bytecode,
guard code or kernels of their kind to show); a name it does not take is refused as PyTorch refuses it."""
from __future__ import annotations

import logging
import os

__all__ = ["set_logs", "enabled", "getArtifactLogger"]

# PyTorch 2.13's set_logs keywords: log levels of components, then artifacts (flags)
_LEVELS = ("all", "dynamo", "aot", "autograd", "dynamic", "inductor", "distributed", "c10d", "ddp", "fsdp",
           "dtensor", "onnx", "export")
_ARTIFACTS = ("bytecode", "aot_graphs", "aot_joint_graph", "ddp_graphs", "graph", "graph_code", "graph_code_verbose",
              "graph_breaks", "side_effects", "graph_sizes", "guards", "recompiles", "recompiles_verbose",
              "trace_source", "trace_call", "trace_bytecode", "output_code", "kernel_code", "schedule", "perf_hints",
              "pre_grad_graphs", "post_grad_graphs", "ir_pre_fusion", "ir_post_fusion", "onnx_diagnostics", "fusion",
              "overlap", "cudagraphs", "sym_node", "compiled_autograd", "compiled_autograd_verbose",
              "cudagraph_static_inputs", "benchmarking", "autotuning", "incremental", "graph_region_expansion",
              "inductor_metrics", "hierarchical_compile", "compute_dependencies", "caching")

_ON: set = set()  # the artifacts set_logs switched on (TORCH_LOGS is read at each question)


def set_logs(*, modules=None, **kwargs) -> None:
    """Switch artifacts on (``set_logs(recompiles=True, output_code=True)``); a call replaces the previous one's
    choice, as PyTorch's does. Component levels (``dynamo=logging.DEBUG``) are accepted."""
    for name in kwargs:
        if name not in _ARTIFACTS and name not in _LEVELS:
            raise TypeError(f"set_logs() got an unexpected keyword argument '{name}'")
    _ON.clear()
    _ON.update(name for name, value in kwargs.items() if name in _ARTIFACTS and value)


def enabled(artifact: str) -> bool:
    """Whether the artifact's log is on, by ``set_logs`` or ``TORCH_LOGS``."""
    if artifact in _ON:
        return True
    names = os.environ.get("TORCH_LOGS", "")
    return bool(names) and artifact in {n.strip().lstrip("+-") for n in names.split(",")}


def getArtifactLogger(module_qname: str, artifact: str) -> logging.Logger:  # noqa: N802 - PyTorch's name
    """The logger an artifact's records go to: ``<module>.__<artifact>``, as PyTorch names them."""
    return logging.getLogger(f"{module_qname}.__{artifact}")
