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

# -- normalisation, embedding, channel dropout, padding, resizing, fold/unfold --------------------
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d  # noqa: E402
from .dropout import Dropout1d, Dropout2d, Dropout3d  # noqa: E402
from .fold import Fold, Unfold  # noqa: E402
from .normalization import GroupNorm, LayerNorm  # noqa: E402
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,  # noqa: E402
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
                      ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .sparse import Embedding  # noqa: E402
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

__all__ += ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "Embedding", "Dropout1d",
            "Dropout2d", "Dropout3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
            "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
            "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "Upsample",
            "UpsamplingNearest2d", "UpsamplingBilinear2d", "Fold", "Unfold"]

# more activations and losses
from .activation import (CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish,  # noqa: E402
                         Hardtanh, LogSigmoid, Mish, PReLU, RReLU, Softshrink, Softsign,
                         Tanhshrink, Threshold)
from .loss import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss,  # noqa: E402
                   KLDivLoss, MarginRankingLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                   PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss)

__all__ += ["CELU", "GLU", "SELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
            "LogSigmoid", "Mish", "PReLU", "RReLU", "Softshrink", "Softsign", "Tanhshrink",
            "Threshold", "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss",
            "KLDivLoss", "MarginRankingLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
            "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss"]
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402

__all__ += ["CosineSimilarity", "PairwiseDistance"]

# convolution and pooling layers
from .conv import Conv1d, Conv2d, ConvTranspose2d  # noqa: E402
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,  # noqa: E402
                      MaxPool1d, MaxPool2d)

__all__ += ["Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
            "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402

__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

# attention and the Transformer
from .activation import MultiheadAttention  # noqa: E402
from .normalization import RMSNorm  # noqa: E402
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,  # noqa: E402
                          TransformerEncoderLayer)

__all__ += ["MultiheadAttention", "RMSNorm", "Transformer", "TransformerEncoder", "TransformerDecoder",
            "TransformerEncoderLayer", "TransformerDecoderLayer"]

# issue 20: the 3-d convolutions and pools, unpooling, power-average pooling
from .conv import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: E402
from .pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool3d, AvgPool3d, LPPool1d,  # noqa: E402
                      LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)

__all__ += ["Conv3d", "ConvTranspose1d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d",
            "AdaptiveMaxPool1d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d",
            "LPPool2d", "LPPool3d"]
from .channelshuffle import ChannelShuffle  # noqa: E402
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402

__all__ += ["ChannelShuffle", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "PixelShuffle", "PixelUnshuffle"]
from .activation import Softmax2d  # noqa: E402
from .linear import Bilinear  # noqa: E402
from .normalization import LocalResponseNorm  # noqa: E402

__all__ += ["Softmax2d", "Bilinear", "LocalResponseNorm"]
from .linear import LazyLinear  # noqa: E402

__all__ += ["LazyLinear"]
from .batchnorm import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d  # noqa: E402
from .conv import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,  # noqa: E402
                   LazyConvTranspose3d)
from .instancenorm import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d  # noqa: E402

__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
            "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d",
            "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
from .dropout import AlphaDropout, FeatureAlphaDropout  # noqa: E402
from .sparse import EmbeddingBag  # noqa: E402

__all__ += ["AlphaDropout", "FeatureAlphaDropout", "EmbeddingBag"]
from .loss import CTCLoss  # noqa: E402

__all__ += ["CTCLoss"]
from .normalization import CrossMapLRN2d  # noqa: E402

__all__ += ["CrossMapLRN2d"]
from .loss import MultiLabelMarginLoss  # noqa: E402

__all__ += ["MultiLabelMarginLoss"]
from .container import ParameterDict, ParameterList  # noqa: E402

__all__ += ["ParameterList", "ParameterDict"]
from .loss import TripletMarginWithDistanceLoss  # noqa: E402

__all__ += ["TripletMarginWithDistanceLoss"]
from .batchnorm import SyncBatchNorm  # noqa: E402

__all__ += ["SyncBatchNorm"]
from .pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402

__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: E402
from .loss import LinearCrossEntropyLoss  # noqa: E402

__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
from .container import Container  # noqa: E402
from .loss import NLLLoss2d  # noqa: E402

__all__ += ["Container", "NLLLoss2d"]
