"""``torch._inductor``: PyTorch's compiler backend. tinytorch has no inductor (its ``torch.compile`` replays plans,
``tinytorch/_dynamo``); this package holds what scripts set before compiling, ``config``, and the logger that
prints the plans (``tinytorch._inductor.output_code``)."""
from . import config  # noqa: F401
