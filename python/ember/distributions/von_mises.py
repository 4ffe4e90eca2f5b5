"""VonMises(loc, concentration): the circular normal distribution on [-pi, pi)."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import _LocMeanMode, broadcast_all

__all__ = ["VonMises"]


class VonMises(_LocMeanMode, Distribution):
    """Samples come from the C++ rejection sampler ember._sample_von_mises (Best and Fisher); not reparameterized."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, ember.Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(VonMises, batch_shape, _instance, ("loc", "concentration"))[0]

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # log I0(k) = log(i0e(k)) + k
        log_norm = ember.special.i0e(self.concentration).log() + self.concentration + math.log(2 * math.pi)
        return self.concentration * ember.cos(value - self.loc) - log_norm

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember._sample_von_mises(self.loc.expand(shape), self.concentration.expand(shape))

    @property
    def variance(self):
        # circular variance 1 - I1(k) / I0(k)
        return 1 - ember.special.i1e(self.concentration) / ember.special.i0e(self.concentration)
