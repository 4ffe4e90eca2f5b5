"""The layers of ember.nn."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .activation import (ReLU, ReLU6, LeakyReLU, ELU, SELU, CELU, GELU, SiLU, Mish, Hardtanh, Hardswish,
                         Hardsigmoid, Softplus, Softsign, Tanhshrink, Threshold, PReLU, GLU, LogSigmoid, Softmax,
                         LogSoftmax, Softmin, Sigmoid, Tanh, Hardshrink, Softshrink)
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                      AdaptiveMaxPool2d, MaxUnpool2d)
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                            LayerNorm, GroupNorm, LocalResponseNorm, RMSNorm)
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout
from .sparse import Embedding, EmbeddingBag
from .loss import (L1Loss, MSELoss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, SmoothL1Loss, HuberLoss,
                   KLDivLoss, PoissonNLLLoss, CosineEmbeddingLoss, MarginRankingLoss, TripletMarginLoss,
                   HingeEmbeddingLoss, SoftMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, CTCLoss)
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, CircularPad1d,
                      CircularPad2d, CircularPad3d, ZeroPad1d, ZeroPad2d)
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer,
                          TransformerEncoder, TransformerDecoder, Transformer)
from .misc import (Flatten, Unflatten, PixelShuffle, PixelUnshuffle, Upsample, UpsamplingNearest2d,
                   UpsamplingBilinear2d, Fold, Unfold, CosineSimilarity, PairwiseDistance, ChannelShuffle)

__all__ = [k for k in dir() if k[0].isupper()]
