"""The layers of ember.nn."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .lazy import LazyModuleMixin
from .linear import Identity, Linear, Bilinear, LazyLinear
from .activation import (ReLU, ReLU6, LeakyReLU, ELU, SELU, CELU, GELU, SiLU, Mish, Hardtanh, Hardswish,
                         Hardsigmoid, Softplus, Softsign, Tanhshrink, Threshold, PReLU, GLU, LogSigmoid, Softmax,
                         LogSoftmax, Softmin, Sigmoid, Tanh, Hardshrink, Softshrink, RReLU, Softmax2d)
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, LazyConv1d, LazyConv2d,
                   LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, AdaptiveAvgPool1d,
                      AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
                      LPPool1d, LPPool2d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d,
                      FractionalMaxPool3d)
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                            LayerNorm, GroupNorm, LocalResponseNorm, SyncBatchNorm, LazyBatchNorm1d, LazyBatchNorm2d,
                            LazyBatchNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, RMSNorm)
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout
from .sparse import Embedding, EmbeddingBag
from .loss import (L1Loss, MSELoss, CrossEntropyLoss, NLLLoss, NLLLoss2d, BCELoss, BCEWithLogitsLoss, SmoothL1Loss, HuberLoss,
                   KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, CosineEmbeddingLoss, MarginRankingLoss,
                   TripletMarginLoss, TripletMarginWithDistanceLoss, HingeEmbeddingLoss, SoftMarginLoss,
                   MultiLabelSoftMarginLoss, MultiLabelMarginLoss, MultiMarginLoss, CTCLoss)
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, CircularPad1d,
                      CircularPad2d, CircularPad3d, ZeroPad1d, ZeroPad2d)
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer,
                          TransformerEncoder, TransformerDecoder, Transformer)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .misc import (Flatten, Unflatten, PixelShuffle, PixelUnshuffle, Upsample, UpsamplingNearest2d,
                   UpsamplingBilinear2d, Fold, Unfold, CosineSimilarity, PairwiseDistance, ChannelShuffle)

__all__ = [k for k in dir() if k[0].isupper()]
