"""Each torch.compile test starts and ends with tinytorch's compile caches empty (``torch._dynamo.reset()``), so
no frame, guard or recompile count of one test reaches another."""
import pytest

import tinytorch as tt


@pytest.fixture(autouse=True)
def _fresh_compile_caches():
    tt._dynamo.reset()
    yield
    tt._dynamo.reset()
