"""The layer classes of ``tinytorch.nn``."""
from .activation import ELU, GELU, LeakyReLU, LogSoftmax, ReLU, ReLU6, SiLU, Sigmoid, Softmax, Softmin, Softplus, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)
from .module import Module

__all__ = ["Module", "Linear", "Identity", "ReLU", "ReLU6", "LeakyReLU", "Sigmoid", "Tanh", "GELU", "SiLU", "ELU",
           "Softplus", "Softmax", "LogSoftmax", "Softmin", "Flatten", "Unflatten", "Sequential", "ModuleList",
           "ModuleDict", "Dropout", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss"]

# convolution and pooling layers
from .conv import Conv1d, Conv2d, ConvTranspose2d  # noqa: E402
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,  # noqa: E402
                      MaxPool1d, MaxPool2d)

__all__ += ["Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
            "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]
