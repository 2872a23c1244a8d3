"""Categorical(probs=None, logits=None): one of K categories per batch element, the samples are
indices (int64). probs are normalised along the last dim; logits are normalised to log-probs."""
from __future__ import annotations

from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import as_float_tensor, lazy_property, logits_to_probs, min_real, numel, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            probs = as_float_tensor(probs)
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            logits = as_float_tensor(logits)
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = tuple(self._param.shape[:-1]) if self._param.dim() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Categorical":
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = tuple(batch_shape)
        param_shape = batch_shape + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> ember.Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> ember.Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> tuple:
        return tuple(self._param.shape)

    @property
    def mean(self) -> ember.Tensor:
        return ember.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> ember.Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> ember.Tensor:
        return ember.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        sample_shape = tuple(sample_shape)
        with ember.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = ember.multinomial(probs_2d, numel(sample_shape), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = ember.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> ember.Tensor:
        # NB: a zero probability has logit -inf; clamping makes 0 * logit 0 rather than nan.
        logits = ember.clamp(self.logits, min=min_real(self.logits.dtype))
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> ember.Tensor:
        values = ember.arange(self._num_events, dtype=ember.int64)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
