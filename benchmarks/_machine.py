"""The machine a benchmark ran on, as one line for its table. Imports neither numpy, torch nor tinytorch (the
parent process of a benchmark stays light): it asks a fresh process."""
from __future__ import annotations

import os
import subprocess
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                "NUMEXPR_NUM_THREADS")


def kernels_line(threads: int | None = 1, env_update: dict | None = None, env_drop=()) -> str:
    """The kernels a measurement ran on, read in a fresh process with the workers' thread settings: PyTorch's
    CPU path (``torch.backends.cpu.get_cpu_capability()``; ``ATEN_CPU_CAPABILITY`` changes it) and the numpy
    SIMD targets and BLAS kernel under tinytorch (``tinytorch.backends.cpu.describe()``). Floats and times
    both move between these paths, so every table names them."""
    env = dict(os.environ, **(env_update or {}))  # (``env_update``/``env_drop``: the workers' other settings)
    for var in env_drop:
        env.pop(var, None)
    if threads is not None:
        env.update({var: str(threads) for var in _THREAD_VARS})
    code = ("import tinytorch.backends.cpu as c\nline = 'tinytorch on ' + c.describe()\n"
            "try:\n    import torch\nexcept ImportError:\n    pass\nelse:\n"
            "    line = f'PyTorch {torch.__version__} on CPU path {torch.backends.cpu.get_cpu_capability()}; ' + line\n"
            "print(line)")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return proc.stdout.strip() or f"kernels unknown ({proc.stderr.strip().splitlines()[-1:]})"


def cpu_name() -> str:
    """The processor's model name (``/proc/cpuinfo``; ``platform.processor()`` elsewhere): the machine kind a
    table belongs to (an Intel Xeon and an AMD EPYC rank the same code differently)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown CPU"
