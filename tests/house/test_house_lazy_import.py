"""``import tinytorch`` leaves out what a training step does not need, and every lazy name still resolves."""
import subprocess
import sys

import pytest

import tinytorch


def test_import_leaves_out_downloads_and_workers():
    code = ("import sys, tinytorch\n"
            "print(sorted(m for m in ('http.client', 'ssl', 'email', 'multiprocessing', 'urllib.request',"
            " 'tinytorch.data.datasets', 'tinytorch.data._worker', 'tinytorch.distributions')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("module", [tinytorch.data, tinytorch.utils.data])
def test_lazy_names_resolve(module):
    from tinytorch.data import _worker, datasets, transforms

    assert module.datasets is datasets and module.transforms is transforms
    assert module.WorkerInfo is _worker.WorkerInfo and module.get_worker_info is _worker.get_worker_info
    assert {"datasets", "transforms", "WorkerInfo", "get_worker_info", "DataLoader"} <= set(dir(module))
    assert datasets.MNIST.__name__ == "MNIST"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = module.nope


def test_star_import_gives_every_public_name():
    ns = {}
    exec("from tinytorch.utils.data import *", ns)
    assert set(tinytorch.data.__all__) <= set(ns)


def test_distributions_load_on_first_use():
    code = ("import sys, tinytorch\n"
            "print(tinytorch.distributions.Normal(0.0, 1.0), 'tinytorch.distributions' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "Normal(loc: 0.0, scale: 1.0) True"
    with pytest.raises(AttributeError, match="^module 'tinytorch' has no attribute 'nope'$"):
        _ = tinytorch.nope


def test_import_leaves_warning_filters_and_numpy_error_state_alone():
    # a library import must not change how the user's own warnings (numpy's RuntimeWarnings among them)
    # are shown, nor numpy's floating-point error handling: PyTorch's import changes neither
    code = ("import warnings, numpy as np\n"
            "before = (list(warnings.filters), np.geterr())\n"
            "import tinytorch\n"
            "after = (list(warnings.filters), np.geterr())\n"
            "print(before == after)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    np.float32(1) / np.float32(0)\n"
            "print([c.category.__name__ for c in w])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "['RuntimeWarning']"]
