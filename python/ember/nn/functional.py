"""ember.nn.functional: the functional forms of the activations (the math runs in C++)."""
from .. import _C


def one_hot(tensor, num_classes=-1):
    return _C._one_hot(tensor, num_classes)


# The ops bound in C++ (ember._C._nn, python/src/nn*.cpp) with PyTorch's signatures; where one has the name of a
# Python form above, the C++ one is used.
globals().update({k: v for k, v in vars(_C._nn).items() if not k.startswith("_")})
