"""Shared test set-up.

PyTorch is the oracle: tests that compare with it call ``pytest.importorskip("torch")``, so a user
without PyTorch still gets a green run. CI sets ``TINYTORCH_REQUIRE_TORCH=1``, and then such a skip
becomes a failure, so the comparisons can never be skipped silently there.

SciPy is an optional extra too (``[special]``: torch.special's Bessel and gamma kernels, some of
torch.linalg): where it is not installed, a test that fails only because tinytorch says it needs SciPy is
reported as skipped, with the command that installs it (CI installs every extra, so there nothing skips)."""
import importlib.util
import os
import sys

import pytest
from hypothesis import settings
from _oracle import pytorchs_own_script_calls

_REQUIRE_TORCH = os.environ.get("TINYTORCH_REQUIRE_TORCH") == "1"
_HAVE_SCIPY = importlib.util.find_spec("scipy") is not None
# the words of tinytorch's ImportError for a function whose kernel is SciPy's (tinytorch/_ops/_core/lazy_scipy.py)
_NEEDS_SCIPY = "this function of tinytorch needs SciPy"

# In CI the property tests draw the same examples on every run (a submission must not pass or fail by
# the luck of the draw); by hand they explore new examples each time, and what they find becomes a row
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The thread pool splits work by grains scaled to what a parallel region costs on the machine, measured when
# it first splits (tinytorch/_ops/_kernels/parallel.py, REGION_US); the suite runs the grains as written, so
# that the split paths it checks are taken on every machine (the measurement has tests of its own; one holds this
# figure to REGION_US).
os.environ["TINYTORCH_REGION_US"] = "12"


@pytest.fixture(scope="module", autouse=True)
def _meta_methods_undone():
    """The first meta tensor (``device="meta"``, ``skip_init``, ``Module.to("meta")``) wraps Tensor's methods
    with the meta path for the rest of the process; other modules' tests compare the methods with the ops'
    own functions, so the wrappers are taken off after each module that made one."""
    yield
    meta = sys.modules.get("tinytorch._meta")
    if meta is not None:
        meta.uninstall()


@pytest.fixture(autouse=True)
def _default_dtype_kept():
    """A test that sets tinytorch's default dtype and stops before it puts it back (a skip, a failure) leaves the
    next tests of its worker on float64: put it back after each test."""
    import tinytorch
    before = tinytorch.get_default_dtype()
    yield
    if tinytorch.get_default_dtype() is not before:
        tinytorch.set_default_dtype(before)


@pytest.fixture(autouse=True)
def _pytorch_distribution_validation_kept():
    """PyTorch's torch.compile turns its distributions' argument validation off for the rest of the process
    (``Distribution.set_default_validate_args(False)`` when dynamo first compiles): put it back after each test,
    so a distribution test that runs later in the same worker sees PyTorch's default."""
    dist = sys.modules.get("torch.distributions")
    before = getattr(getattr(dist, "Distribution", None), "_validate_args", None)
    yield
    if before is not None and dist.Distribution._validate_args != before:
        dist.Distribution.set_default_validate_args(before)


@pytest.fixture(autouse=True)
def _pytorchs_own_script_calls():
    """PyTorch's test utilities, which the op_db tests import, wrap its scripted calls in Python for the rest of
    the process, and its traces then name a scripted call's inputs otherwise than a user's do: each test sees
    PyTorch's own calls (``_oracle.pytorchs_own_script_calls``)."""
    with pytorchs_own_script_calls():
        yield


def _is_torch_skip(report) -> bool:
    if not report.skipped:
        return False
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return "could not import 'torch'" in reason


def pytest_configure(config):
    # PyTorch's idle worker threads spin and starve numpy's BLAS on a small machine: one thread is
    # plenty for the small tensors the tests compare
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)


def _is_missing_scipy(report) -> bool:
    """A failure whose report carries tinytorch's "needs SciPy" error, where SciPy is not installed."""
    return not _HAVE_SCIPY and report.failed and _NEEDS_SCIPY in str(report.longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _is_missing_scipy(report):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           "Skipped: needs SciPy, which is not installed: pip install scipy")
    if _REQUIRE_TORCH and _is_torch_skip(report):
        report.outcome = "failed"
        report.longrepr = f"PyTorch oracle missing but TINYTORCH_REQUIRE_TORCH=1: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if _REQUIRE_TORCH and _is_torch_skip(report):
        report.outcome = "failed"
        report.longrepr = f"PyTorch oracle missing but TINYTORCH_REQUIRE_TORCH=1: {report.longrepr}"


def pytest_report_header(config):
    """The kernel paths both sides run (tests/_paths.py): which bits the bit-for-bit tests hold exactly."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    import _paths

    return _paths.describe()


def pytest_terminal_summary(terminalreporter):
    """Say it in one line when tests skipped because PyTorch is missing: those are the comparisons. Name
    the kernel paths the comparisons ran on (the header that says it too is hidden under -q)."""
    header = pytest_report_header(terminalreporter.config)
    if header:
        terminalreporter.write_line(header)
    skipped = terminalreporter.stats.get("skipped", [])
    needing = sum(1 for r in skipped if _is_torch_skip(r))
    if needing:
        terminalreporter.write_line(
            f"{needing} tests compare with PyTorch and were skipped because it is not installed; "
            f"install the pinned CPU build with: pip install torch==2.13.0 expecttest", yellow=True)


@pytest.fixture
def torch():
    """The PyTorch module, or a skip (a failure under TINYTORCH_REQUIRE_TORCH=1)."""
    return pytest.importorskip("torch")


def data_root() -> str:
    """Where the shared FashionMNIST subset lives (``../shared/datasets`` beside the checkout)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("TINYTORCH_DATA_ROOT", os.path.join(here, "..", "..", "shared", "datasets"))
