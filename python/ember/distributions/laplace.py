"""Laplace(loc, scale): the double exponential, reparameterised by inversion of a uniform."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, eps

__all__ = ["Laplace"]


class Laplace(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.loc.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Laplace":
        new = self._get_checked_instance(Laplace, _instance)
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
    def variance(self) -> ember.Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> ember.Tensor:
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        # NB: u in [eps - 1, 1) keeps log1p(-|u|) finite, as torch's.
        e = eps(self.loc.dtype)
        u = ember.rand(*shape, dtype=self.loc.dtype) * (2 - e) + (e - 1)
        return self.loc - self.scale * u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - ember.abs(value - self.loc) / self.scale

    def cdf(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * ember.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value: Any) -> ember.Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ember.log1p(-2 * term.abs())

    def entropy(self) -> ember.Tensor:
        return 1 + ember.log(2 * self.scale)


