"""MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None): the
Gaussian over vectors (event_shape (n,)), held as the lower Cholesky factor L of its covariance
(L L^T = Sigma) whichever form it was given in; samples are loc + L eps."""
from __future__ import annotations

import math
from typing import Any, Optional

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_shapes, lazy_property

__all__ = ["MultivariateNormal"]


def _solve_lower(L: ember.Tensor, b: ember.Tensor) -> ember.Tensor:  # noqa: N803
    """x with L x = b for vectors b [..., n] (batch dims broadcast). NB: Ember has no triangular
    solve; its LU solve on tril(L) gives the same x, and, as a triangular solve, reads (and sends
    gradient to) the lower triangle only."""
    return ember.linalg.solve(ember.tril(L), b.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(L: ember.Tensor, x: ember.Tensor) -> ember.Tensor:  # noqa: N803
    """|L^-1 x|^2, the squared Mahalanobis distance of x under covariance L L^T."""
    return _solve_lower(L, x).pow(2).sum(-1)


def _precision_to_scale_tril(P: ember.Tensor) -> ember.Tensor:  # noqa: N803
    # NB: torch's route, for its stability: the Cholesky factor of P flipped gives L^-1 directly.
    Lf = ember.linalg.cholesky(ember.flip(P, (-2, -1)))  # noqa: N806
    L_inv = ember.flip(Lf, (-2, -1)).transpose(-2, -1)  # noqa: N806
    eye = ember.eye(P.shape[-1], dtype=P.dtype)
    return ember.linalg.solve(ember.tril(L_inv), eye.expand(tuple(L_inv.shape)))


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: ember.Tensor, covariance_matrix: Any = None, precision_matrix: Any = None,
                 scale_tril: Any = None, validate_args: Optional[bool] = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            matrix = scale_tril
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            matrix = covariance_matrix
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            matrix = precision_matrix
        batch_shape = broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        n = loc.shape[-1]
        if matrix.shape[-1] != n or matrix.shape[-2] != n:
            raise ValueError(f"MultivariateNormal: the matrix is {tuple(matrix.shape)}, loc {tuple(loc.shape)}: "
                             f"expected [..., {n}, {n}]")
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(batch_shape + (n, n))
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (n, n))
        else:
            self.precision_matrix = precision_matrix.expand(batch_shape + (n, n))
        self.loc = loc.expand(batch_shape + (n,))
        super().__init__(batch_shape, (n,), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MultivariateNormal":
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        cov_shape = batch_shape + self.event_shape + self.event_shape
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> ember.Tensor:
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> ember.Tensor:
        L = self._unbroadcasted_scale_tril  # noqa: N806
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> ember.Tensor:
        L = self._unbroadcasted_scale_tril  # noqa: N806
        return ember.linalg.inv(L @ L.transpose(-2, -1)).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self) -> ember.Tensor:
        return self.loc

    @property
    def mode(self) -> ember.Tensor:
        return self.loc

    @property
    def variance(self) -> ember.Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> ember.Tensor:
        shape = self._extended_shape(sample_shape)
        eps = ember.randn(*shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Any) -> ember.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)  # noqa: N806
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self) -> ember.Tensor:
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det  # noqa: N806
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
