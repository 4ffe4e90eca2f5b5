"""Compose, RandomApply, RandomChoice, RandomOrder (transforms.v2)."""

import ember

from ._transform import Transform

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder"]


def _check_transforms(transforms, allow_module_list=False):
    ok = (list, tuple, ember.nn.ModuleList) if allow_module_list else (list, tuple)
    if not isinstance(transforms, ok):
        raise TypeError(
            "Argument transforms should be a sequence of callables"
            + (" or a `nn.ModuleList`" if allow_module_list else "")
        )
    if not transforms:
        raise ValueError("Pass at least one transform")


def _chain(transforms, inputs):
    needs_unpacking = len(inputs) > 1
    outputs = inputs if needs_unpacking else inputs[0]
    for t in transforms:
        outputs = t(*inputs)
        inputs = outputs if needs_unpacking else (outputs,)
    return outputs


class Compose(Transform):
    def __init__(self, transforms):
        super().__init__()
        _check_transforms(transforms)
        self.transforms = transforms

    def forward(self, *inputs):
        return _chain(self.transforms, inputs)

    def extra_repr(self):
        return "\n".join("    %s" % t for t in self.transforms)


class RandomApply(Transform):
    """All the transforms, with probability p."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        _check_transforms(transforms, allow_module_list=True)
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.transforms = transforms
        self.p = p

    def forward(self, *inputs):
        if float(ember.rand(1).item()) >= self.p:
            return inputs if len(inputs) > 1 else inputs[0]
        return _chain(self.transforms, inputs)

    def extra_repr(self):
        return "\n".join("    %s" % t for t in self.transforms)


class RandomChoice(Transform):
    """One of the transforms, drawn with the (normalised) probabilities p."""

    def __init__(self, transforms, p=None):
        _check_transforms(transforms)
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError("Length of p doesn't match the number of transforms: %d != %d" % (len(p), len(transforms)))
        super().__init__()
        self.transforms = transforms
        total = sum(p)
        self.p = [prob / total for prob in p]

    def forward(self, *inputs):
        idx = int(ember.multinomial(ember.tensor(self.p), 1).item())
        return self.transforms[idx](*inputs)


class RandomOrder(Transform):
    """All the transforms, in a random order."""

    def __init__(self, transforms):
        _check_transforms(transforms)
        super().__init__()
        self.transforms = transforms

    def forward(self, *inputs):
        order = ember.randperm(len(self.transforms)).tolist()
        return _chain([self.transforms[i] for i in order], inputs)
