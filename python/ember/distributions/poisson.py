"""Poisson(rate): counts with mean rate; samples are float, in the rate's dtype, as torch's."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Poisson"]


def _poisson_draws(rate: ember.Tensor) -> ember.Tensor:
    """One Poisson(rate) count per element by inversion: walk k up from 0, adding pmf(k) (updated
    as pmf(k) = pmf(k - 1) rate / k) until the sum passes a uniform draw. Vectorised, so the loop
    runs to the largest count drawn (about rate + 5 sqrt(rate) steps). NB: the pmf starts at
    exp(-rate), which underflows past rate ~ 700; those rates are drawn from the normal
    approximation rounded (its error is below 1/sqrt(rate) there)."""
    with ember.no_grad():
        large = rate > 500
        safe = ember.where(large, ember.zeros_like(rate), rate)
        u = ember.rand(*tuple(rate.shape), dtype=rate.dtype)
        k = ember.zeros_like(rate)
        pmf = ember.exp(-safe)
        cdf = pmf.clone()
        pending = (u > cdf) & ~large
        while bool(pending.any()):
            k = ember.where(pending, k + 1, k)
            pmf = pmf * safe / k
            cdf = cdf + pmf
            # NB: stop where the cdf stalls below u (rounding): the tail left there is below 1e-16.
            pending = pending & (u > cdf) & (pmf > 0)
        approx = (rate + rate.sqrt() * ember.randn(*tuple(rate.shape), dtype=rate.dtype)).round().clamp(min=0)
        return ember.where(large, approx, k)


class Poisson(Distribution):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Poisson":
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = tuple(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> ember.Tensor:
        return self.rate

    @property
    def mode(self) -> ember.Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> ember.Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        return _poisson_draws(self.rate.detach().expand(shape).contiguous())

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return ember.xlogy(value, rate) - rate - (value + 1).lgamma()
