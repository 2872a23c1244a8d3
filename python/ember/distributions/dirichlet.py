"""Dirichlet(concentration): distributions over K categories (event_shape (K,)), sampled as
independent Gamma(concentration_k, 1) draws normalised to sum to one; rsample differentiates that
normalisation by autograd and each draw through StandardGamma's implicit gradient."""
from __future__ import annotations

from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .gamma import StandardGamma, standard_gamma
from .utils import eps, tiny

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: ember.Tensor, validate_args: Optional[bool] = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Dirichlet":
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            gammas = standard_gamma(self.concentration.expand(shape))
            x = gammas / gammas.sum(-1, keepdim=True)
            e = eps(x.dtype)
            # NB: as torch, keeps every component inside (0, 1) so log_prob of a draw is finite.
            return x.clamp(min=tiny(x.dtype), max=1 - e)

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        """A draw differentiable in the concentration (see the module's docstring)."""
        shape = self._extended_shape(sample_shape)
        gammas = StandardGamma.apply(self.concentration.expand(shape))
        x = gammas / gammas.sum(-1, keepdim=True)
        # NB: clamps the data only, as sample() and torch do; the graph is the normalisation's.
        x.detach().clamp_(min=tiny(x.dtype), max=1 - eps(x.dtype))
        return x

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (ember.xlogy(self.concentration - 1.0, value).sum(-1) + ember.lgamma(self.concentration.sum(-1))
                - ember.lgamma(self.concentration).sum(-1))

    @property
    def mean(self) -> ember.Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> ember.Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # NB: where some concentration is below one the mode is the vertex of the largest.
        mask = (self.concentration < 1).all(dim=-1)
        if bool(mask.any()):
            import ember.nn.functional as F
            vertex = F.one_hot(self.concentration.argmax(-1), self.concentration.shape[-1]).to(mode.dtype)
            mode = ember.where(mask.unsqueeze(-1), vertex, mode)
        return mode

    @property
    def variance(self) -> ember.Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> ember.Tensor:
        k = self.concentration.shape[-1]
        a0 = self.concentration.sum(-1)
        return (ember.lgamma(self.concentration).sum(-1) - ember.lgamma(a0) - (k - a0) * ember.digamma(a0)
                - ((self.concentration - 1.0) * ember.digamma(self.concentration)).sum(-1))
