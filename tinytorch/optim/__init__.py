"""tinytorch.optim: optimizers (SGD, Adam, AdamW) and lr schedulers, as ``torch.optim``."""
from . import lr_scheduler  # noqa: F401
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]

# the other optimizers of torch.optim
from .adadelta import Adadelta  # noqa: E402
from .adagrad import Adagrad  # noqa: E402
from .adamax import Adamax  # noqa: E402
from .asgd import ASGD  # noqa: E402
from .nadam import NAdam  # noqa: E402
from .radam import RAdam  # noqa: E402
from .rmsprop import RMSprop  # noqa: E402
from .rprop import Rprop  # noqa: E402

__all__ += ["Adadelta", "Adagrad", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop"]
from .lbfgs import LBFGS  # noqa: E402

__all__ += ["LBFGS"]
from . import swa_utils  # noqa: E402,F401

__all__ += ["swa_utils"]
