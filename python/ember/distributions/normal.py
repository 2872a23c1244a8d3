"""Normal(loc, scale): the Gaussian, reparameterised as loc + scale * eps with eps ~ N(0, 1)."""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.loc.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Normal":
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = tuple(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> ember.Tensor:
        return self.loc

    @property
    def mode(self) -> ember.Tensor:
        return self.loc

    @property
    def stddev(self) -> ember.Tensor:
        return self.scale

    @property
    def variance(self) -> ember.Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        eps = ember.randn(*shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ember.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Any) -> ember.Tensor:
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> ember.Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + ember.log(self.scale)
