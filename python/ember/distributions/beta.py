"""Beta(concentration1, concentration0): on [0, 1], the first coordinate of a Dirichlet over two
categories (concentration1 weighs the value, concentration0 its complement): rsample is x / (x + y)
for x ~ Gamma(concentration1), y ~ Gamma(concentration0), differentiable through both."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import ember

from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(Distribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Optional[bool] = None) -> None:
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            concentration1_concentration0 = ember.tensor([float(concentration1), float(concentration0)],
                                                         dtype=ember.get_default_dtype())
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            concentration1_concentration0 = ember.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(concentration1_concentration0, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Beta":
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = tuple(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> ember.Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> ember.Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> ember.Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> ember.Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> ember.Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        return self._dirichlet.sample(sample_shape)[..., 0]

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = ember.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> ember.Tensor:
        return self._dirichlet.entropy()
