"""OneHotCategorical(probs=None, logits=None): a Categorical whose samples are one-hot vectors
(event_shape (K,)), in the parameters' dtype."""
from __future__ import annotations

from typing import Any, Optional

import ember
import ember.nn.functional as F

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "OneHotCategorical":
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, tuple(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> ember.Tensor:
        return self._categorical._param

    @property
    def probs(self) -> ember.Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> ember.Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> tuple:
        return self._categorical.param_shape

    @property
    def mean(self) -> ember.Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> ember.Tensor:
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> ember.Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> ember.Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> ember.Tensor:
        n = self.event_shape[0]
        values = ember.eye(n, dtype=self._param.dtype)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values
