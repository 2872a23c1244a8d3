"""Binomial(total_count=1, probs=None, logits=None): the number of successes in total_count
Bernoulli trials; samples are float counts in the parameters' dtype, as torch's."""
from __future__ import annotations

from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x: ember.Tensor) -> ember.Tensor:
    # NB: max(x, 0) whose gradient at 0 is 1/2, as torch's.
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(tuple(self._param.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = tuple(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> ember.Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> ember.Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> ember.Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> ember.Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> ember.Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> tuple:
        return tuple(self._param.shape)

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        """Counts successes among max(total_count) uniform draws per element, the trials past an
        element's own total_count masked out."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            n = self.total_count.expand(shape)
            p = self.probs.expand(shape)
            trials = int(n.max().item()) if n.numel() else 0
            u = ember.rand(*(shape + (trials,)), dtype=p.dtype)
            index = ember.arange(trials, dtype=p.dtype)
            hits = (u < p.unsqueeze(-1)) & (index < n.unsqueeze(-1))
            return hits.to(p.dtype).sum(-1)

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = ember.lgamma(self.total_count + 1)
        log_factorial_k = ember.lgamma(value + 1)
        log_factorial_nmk = ember.lgamma(self.total_count - value + 1)
        # NB: n log(1 + e^logit) written to stay finite for large |logit| (torch's form).
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * ember.log1p(ember.exp(-ember.abs(self.logits))) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def enumerate_support(self, expand: bool = True) -> ember.Tensor:
        total_count = int(self.total_count.max().item())
        if not bool((self.total_count == total_count).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = ember.arange(1 + total_count, dtype=self._param.dtype)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
