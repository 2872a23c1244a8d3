"""Invertible maps y = T(x) for TransformedDistribution, as torch.distributions.transforms: each
gives its inverse and log |dy/dx|, so log p_Y(y) = log p_X(T^-1(y)) - log |det J_T(x)|.
Only elementwise maps here (event_dim 0): ExpTransform, AffineTransform, SigmoidTransform."""
from __future__ import annotations

import math
import numbers
from typing import Any

import ember
import ember.nn.functional as F

from . import constraints
from .utils import clamp_probs

__all__ = ["AffineTransform", "ExpTransform", "SigmoidTransform", "Transform"]


class Transform:
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real
    bijective = True
    sign: Any = 1  # +1 increasing, -1 decreasing: how cdf passes through the map

    def __call__(self, x: ember.Tensor) -> ember.Tensor:
        return self._call(x)

    def _call(self, x: ember.Tensor) -> ember.Tensor:
        raise NotImplementedError

    def inv(self, y: ember.Tensor) -> ember.Tensor:
        return self._inverse(y)

    def _inverse(self, y: ember.Tensor) -> ember.Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: ember.Tensor, y: ember.Tensor) -> ember.Tensor:
        raise NotImplementedError

    def forward_shape(self, shape: tuple) -> tuple:
        return shape

    def inverse_shape(self, shape: tuple) -> tuple:
        return shape

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other)

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class ExpTransform(Transform):
    """y = exp(x)."""
    codomain = constraints.positive

    def _call(self, x: ember.Tensor) -> ember.Tensor:
        return x.exp()

    def _inverse(self, y: ember.Tensor) -> ember.Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: ember.Tensor, y: ember.Tensor) -> ember.Tensor:
        return x


class SigmoidTransform(Transform):
    """y = 1 / (1 + exp(-x))."""
    codomain = constraints.unit_interval

    def _call(self, x: ember.Tensor) -> ember.Tensor:
        return clamp_probs(ember.sigmoid(x))

    def _inverse(self, y: ember.Tensor) -> ember.Tensor:
        y = clamp_probs(y)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: ember.Tensor, y: ember.Tensor) -> ember.Tensor:
        return -F.softplus(-x) - F.softplus(x)


class AffineTransform(Transform):
    """y = loc + scale x (elementwise)."""

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0) -> None:
        if event_dim != 0:
            raise NotImplementedError("AffineTransform: only event_dim=0 is implemented in Ember")
        self.loc, self.scale = loc, scale

    @property
    def sign(self) -> Any:  # type: ignore[override]
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: ember.Tensor) -> ember.Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: ember.Tensor) -> ember.Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: ember.Tensor, y: ember.Tensor) -> ember.Tensor:
        if isinstance(self.scale, numbers.Real):
            return ember.full_like(x, math.log(abs(self.scale)))
        return ember.abs(self.scale).log().expand(tuple(x.shape))

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        same = []
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                same.append(a == b)
            else:
                same.append(bool((ember.as_tensor(a) == ember.as_tensor(b)).all()))
        return all(same)

    __hash__ = object.__hash__

