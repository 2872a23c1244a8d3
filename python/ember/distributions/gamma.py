"""Gamma(concentration, rate): density x^(a-1) e^(-rate x) rate^a / Gamma(a). Samples come from
Marsaglia and Tsang's rejection method (`standard_gamma`), which Beta and Dirichlet reuse; rsample
differentiates a draw z ~ Gamma(a, 1) implicitly (`StandardGamma`: dz/da = -(dP(a, z)/da) / p(z; a),
P the CDF, at z's quantile held fixed), then divides by the rate with ordinary autograd."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import ember
from ember.autograd.function import Function

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, tiny

__all__ = ["Gamma"]


def standard_gamma(concentration: ember.Tensor) -> ember.Tensor:
    """One Gamma(concentration, 1) draw per element, no gradient. Marsaglia and Tsang (2000): for
    a >= 1, with d = a - 1/3 and c = 1 / sqrt(9 d), x = d (1 + c z)^3 for a normal z, accepted when
    log u < z^2 / 2 + d - d v + d log v (v = (1 + c z)^3 > 0); more than 95% are accepted, so the
    loop redraws only the rejected elements a few times. For a < 1 a Gamma(a + 1) draw is scaled by
    u^(1 / a) (their boost)."""
    with ember.no_grad():
        alpha = concentration.detach()
        dtype = alpha.dtype
        boost = alpha < 1
        a = ember.where(boost, alpha + 1, alpha)
        d = a - 1.0 / 3.0
        c = 1.0 / ember.sqrt(9.0 * d)
        result = ember.zeros_like(alpha)
        pending = ember.ones_like(alpha, dtype=ember.bool)
        shape = tuple(alpha.shape)
        while bool(pending.any()):
            z = ember.randn(*shape, dtype=dtype)
            u = ember.rand(*shape, dtype=dtype)
            v = (1 + c * z) ** 3
            positive = v > 0
            log_v = ember.log(ember.where(positive, v, ember.ones_like(v)))
            accept = positive & (ember.log(u) < 0.5 * z * z + d - d * v + d * log_v) & pending
            result = ember.where(accept, d * v, result)
            pending = pending & ~accept
        u = ember.rand(*shape, dtype=dtype)
        # NB: u^(1/a) underflows to 0 for tiny a; torch clamps its draws to the smallest normal too.
        scaled = result * ember.where(boost, u ** (1.0 / alpha), ember.ones_like(u))
        return scaled.clamp(min=tiny(dtype))


class StandardGamma(Function):
    """standard_gamma(concentration) whose backward is the implicit reparameterisation gradient (torch's
    _standard_gamma_grad, Ember's in C++), computed in float64 to about 1e-11 relative; like torch's,
    it has no derivative of its own."""

    @staticmethod
    def forward(ctx, concentration):
        z = standard_gamma(concentration)
        ctx.save_for_backward(concentration, z)
        return z

    @staticmethod
    def backward(ctx, grad):
        concentration, z = ctx.saved_tensors
        return grad * ember._C._standard_gamma_grad(concentration, z)  # C++: core/math/gamma_grad.h


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Optional[bool] = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.concentration.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> ember.Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> ember.Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> ember.Tensor:
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
            return value.clamp(min=tiny(value.dtype))

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        """A draw differentiable in both parameters: d/dconcentration through StandardGamma, d/drate
        of z / rate by autograd."""
        shape = self._extended_shape(sample_shape)
        value = StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)
        # NB: as torch, clamps the data only (z / rate can underflow to 0); the graph is unchanged.
        value.detach().clamp_(min=tiny(value.dtype))
        return value

    def log_prob(self, value: Any) -> ember.Tensor:
        if not isinstance(value, ember.Tensor):
            value = ember.tensor(float(value), dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (ember.xlogy(self.concentration, self.rate) + ember.xlogy(self.concentration - 1, value)
                - self.rate * value - ember.lgamma(self.concentration))

    def cdf(self, value: Any) -> ember.Tensor:
        """P(concentration, rate * value); as torch's, not differentiable in the concentration."""
        if self._validate_args:
            self._validate_sample(value)
        return ember.special.gammainc(self.concentration, self.rate * value)

    def entropy(self) -> ember.Tensor:
        return (self.concentration - ember.log(self.rate) + ember.lgamma(self.concentration)
                + (1.0 - self.concentration) * ember.digamma(self.concentration))
