"""Exponential(rate): reparameterised as E / rate with E ~ Exp(1)."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Exponential":
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = tuple(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> ember.Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> ember.Tensor:
        return ember.zeros_like(self.rate)

    @property
    def stddev(self) -> ember.Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> ember.Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        # NB: -log1p(-u) with u in [0, 1) is finite: Exp(1) by inversion.
        e = -ember.log1p(-ember.rand(*shape, dtype=self.rate.dtype))
        return e / self.rate

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - ember.exp(-self.rate * value)

    def icdf(self, value: Any) -> ember.Tensor:
        return -ember.log1p(-value) / self.rate

    def entropy(self) -> ember.Tensor:
        return 1.0 - ember.log(self.rate)
