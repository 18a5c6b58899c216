"""``tinytorch.backends.cpu``: the kernels a run names (numpy's SIMD level, the BLAS and its kernel)."""
import os
import subprocess
import sys

import pytest

import tinytorch


def test_capability_is_one_of_pytorchs_words_and_describe_names_it():
    cap = tinytorch.backends.cpu.get_cpu_capability()
    assert cap in ("DEFAULT", "AVX2", "AVX512")
    line = tinytorch.backends.cpu.describe()
    assert line.startswith(f"numpy {__import__('numpy').__version__} (SIMD {cap}") and "BLAS " in line


def test_disabling_numpys_avx512_targets_lowers_the_capability():
    if tinytorch.backends.cpu.get_cpu_capability() != "AVX512":
        pytest.skip("this CPU runs no AVX-512 kernels of numpy")
    names = [t for t in tinytorch.backends.cpu.kernels()["simd"] if t.startswith("AVX512") or t == "X86_V4"]
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(names))
    out = subprocess.run([sys.executable, "-c", "import tinytorch; print(tinytorch.backends.cpu.get_cpu_capability())"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == "AVX2"


def test_pytorch_has_the_same_function(torch):
    # the same name and the same kind of answer as PyTorch's (the two libraries may take different paths)
    assert torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2", "AVX512", "AVX512_VNNI", "AVX512_BF16",
                                                         "AMX", "ZVECTOR", "VSX", "SVE128", "SVE256", "NO AVX")
