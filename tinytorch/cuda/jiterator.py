"""``tinytorch.cuda.jiterator``: PyTorch's elementwise kernels written as CUDA C++ source and compiled on the fly.

Without a GPU there is nothing to compile for: as in a PyTorch build without CUDA, making a jitted function
works (the source is parsed for its kernel's name), and calling it raises PyTorch's AssertionError."""
from __future__ import annotations

import re

__all__: list = []

# ``template <...> ret name(params) { body }`` (the last function of the source is the kernel)
_KERNEL = re.compile(r"\s*template\s*(?P<template_params><.+>)\s*(?P<return_type>\w+)\s+(?P<function_name>\w+)\s*"
                     r"(?P<function_params>\(.+\))\s*(?P<function_body>\{.+\})\s*", re.DOTALL)


class _CodeParser:
    def __init__(self, code_string: str):
        found = _KERNEL.match(code_string)
        if found is None:
            raise Exception(f"Couldn't parse code, please check correctness:\n {code_string}")  # noqa: TRY002
        for part in ("template_params", "return_type", "function_name", "function_params", "function_body"):
            setattr(self, part, found[part])


class _JittedFunction:
    def __init__(self, code_string: str, return_by_ref: bool, num_outputs: int, **kwargs):
        self.code_string = code_string
        if not (return_by_ref or num_outputs == 1):
            raise AssertionError("Return by value only works for single output.")
        self.return_by_ref = return_by_ref
        self.num_outputs = num_outputs
        self.kernel_name = _CodeParser(code_string).function_name
        self.kwargs_dict = kwargs
        self.is_cuda_available = False  # tinytorch has no GPU (cuda.is_available() is False)

    def __call__(self, *tensors, **kwargs):
        # tinytorch has no GPU, so this is always refused
        raise AssertionError("Jiterator is only supported on CUDA and ROCm GPUs, none are available.")


def _create_jit_fn(code_string: str, **kwargs):
    """A jitted elementwise kernel of one output, returned by value (see the module: never callable here)."""
    return _JittedFunction(code_string, return_by_ref=False, num_outputs=1, **kwargs)


def _create_multi_output_jit_fn(code_string: str, num_outputs: int, **kwargs):
    """A jitted elementwise kernel of ``num_outputs`` outputs, returned by reference (never callable here)."""
    return _JittedFunction(code_string, return_by_ref=True, num_outputs=num_outputs, **kwargs)
