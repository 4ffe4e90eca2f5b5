"""Multinomial(total_count=1, probs=None, logits=None): counts of total_count draws from a Categorical."""

import ember

from . import constraints
from .binomial import Binomial
from .categorical import Categorical, _CategoricalParams
from .distribution import Distribution
from .utils import broadcast_all, finfo

__all__ = ["Multinomial"]


class Multinomial(_CategoricalParams, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = ember.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        samples = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
        # samples: (total_count, sample_shape, batch_shape) category indices; count them per category.
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = ember.zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        counts.scatter_add_(-1, samples, ember.ones_like(samples, dtype=self.probs.dtype))
        return counts

    def entropy(self):
        # H = -log n! - n sum_i p_i log p_i + sum_i E[log x_i!], with x_i ~ Binomial(n, p_i)
        n = ember.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ember.exp(self._binomial.log_prob(support))
        logits = self.logits.clamp(min=-finfo(self.logits.dtype).max)
        return (
            -ember.lgamma(n + 1)
            - n * (self.probs * logits).sum(-1)
            + (binomial_probs * ember.lgamma(support + 1)).sum([0, -1])
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = ember.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ember.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -float("inf"))] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
