"""Chi2(df): Gamma(df / 2, 1 / 2)."""

import ember

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        df = ember.as_tensor(df) if not isinstance(df, ember.Tensor) else df
        if not df.is_floating_point():
            df = df.to(ember.get_default_dtype())
        super().__init__(0.5 * df, 0.5 * ember.ones_like(df), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2
