"""Uniform(low, high): the half-open interval [low, high), reparameterised as low + u (high - low)."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    # NB: the bounds depend on each other (low < high), checked in __init__ instead.
    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.low.shape)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and not bool(ember.lt(self.low, self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Uniform":
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = tuple(batch_shape)
        new.low, new.high = self.low.expand(batch_shape), self.high.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> ember.Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> ember.Tensor:
        return float("nan") * self.high

    @property
    def stddev(self) -> ember.Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> ember.Tensor:
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        rand = ember.rand(*shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return ember.log(lb.mul(ub)) - ember.log(self.high - self.low)

    def cdf(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Any) -> ember.Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> ember.Tensor:
        return ember.log(self.high - self.low)
