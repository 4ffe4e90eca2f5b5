"""NegativeBinomial(total_count, probs=None, logits=None): failures before total_count successes (success
probability 1 - probs), a Gamma-Poisson mixture."""

import ember
import ember.nn.functional as F

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _BinaryParams, broadcast_all

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryParams, Distribution):
    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._init_binary_params(probs, logits)
        self.total_count, param = broadcast_all(total_count, self._param)
        if probs is not None:
            self.probs = self._param = param
        else:
            self.logits = self._param = param
        self.total_count = self.total_count.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(
            self._expand_params(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))[0]
        )

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return ember.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (
            -ember.lgamma(self.total_count + value) + ember.lgamma(1.0 + value) + ember.lgamma(self.total_count)
        )
        # total_count == value == 0: the probability of 0 is 1
        log_normalization = ember.where(
            self.total_count + value == 0, ember.zeros_like(log_normalization), log_normalization
        )
        return log_unnormalized_prob - log_normalization
