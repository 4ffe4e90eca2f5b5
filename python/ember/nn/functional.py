"""ember.nn.functional: the functional forms of the activations (the math runs in C++)."""
from .. import _C


def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def gelu(input, approximate="none"):
    return _C._gelu(input, approximate)


def silu(input, inplace=False):
    return input.silu_() if inplace else _C._silu(input)


def mish(input, inplace=False):
    return input.mish_() if inplace else _C._mish(input)


def softplus(input, beta=1, threshold=20):
    return _C._softplus(input, beta, threshold)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def one_hot(tensor, num_classes=-1):
    return _C._one_hot(tensor, num_classes)


# The ops bound in C++ (ember._C._nn, python/src/nn*.cpp) with PyTorch's signatures; where one has the name of a
# Python form above, the C++ one is used.
globals().update({k: v for k, v in vars(_C._nn).items() if not k.startswith("_")})
