"""README's test command holds where PyTorch is not installed: the comparisons skip and every other test runs.
A test module that imports PyTorch at its top without ``pytest.importorskip("torch")`` (or the ``torch``
fixture) would instead stop the collection there, so the whole suite is collected here with PyTorch hidden."""
import os
import subprocess
import sys

import _repo

# ``None`` in sys.modules makes ``import torch`` (and ``import torch.nn``) raise ModuleNotFoundError, as on a
# machine without it, and ``importlib.util.find_spec("torch")`` answer None
_COLLECT_WITHOUT_TORCH = (
    "import sys\n"
    "sys.modules['torch'] = None\n"
    "import pytest\n"
    "sys.exit(pytest.main(['--collect-only', '-q', '-n', '0', '-p', 'no:cacheprovider', 'tests']))\n")


def test_the_suite_collects_without_pytorch():
    # CI's TINYTORCH_REQUIRE_TORCH turns the modules' own skips into failures: a user's machine has no such switch
    env = {k: v for k, v in os.environ.items() if k != "TINYTORCH_REQUIRE_TORCH"}
    proc = subprocess.run([sys.executable, "-c", _COLLECT_WITHOUT_TORCH], cwd=_repo.ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"the suite does not collect without PyTorch:\n{proc.stdout[-6000:]}{proc.stderr}"
    assert "skipped because it is not installed" in proc.stdout  # the comparisons' one summary line
