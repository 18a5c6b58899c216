"""PyTorch's torch.compile turns its distributions' argument validation off for the rest of the process
(``Distribution.set_default_validate_args(False)``, when dynamo first compiles); the tests here put it back
after each test, so the distribution tests that later run in the same worker see PyTorch's default."""
import pytest


@pytest.fixture(autouse=True)
def _pytorch_validation_restored():
    import torch
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)
