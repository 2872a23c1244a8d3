"""ember.special: the special functions under torch.special's names.

The functions are the ops of the same names in `ember` (erf, erfc, erfinv, digamma (psi), polygamma,
lgamma (gammaln), expm1, log1p, sinc, logit, i0, mvlgamma (multigammaln), ...) or the op table's
special_ entries (i0e, i1, i1e, ndtr, ndtri), each differentiable as its op is; gammainc and gammaincc (the regularised incomplete gamma
functions) are igamma and igammac."""
from __future__ import annotations

from typing import Any

from . import _C
from ._C import Tensor

erf = _C.erf
erfc = _C.erfc
erfinv = _C.erfinv
digamma = psi = _C.digamma
polygamma = _C.polygamma
gammaln = _C.lgamma
expm1 = _C.expm1
log1p = _C.log1p
exp2 = _C.exp2
sinc = _C.sinc
round = _C.round  # noqa: A001  (torch.special.round)
logit = _C.logit
xlogy = _C.xlogy
i0 = _C.i0
i0e = _C._special_i0e
i1 = _C._special_i1
i1e = _C._special_i1e
ndtr = _C._special_ndtr
ndtri = _C._special_ndtri
multigammaln = _C.mvlgamma


def _check_tensors(input: Any, other: Any, name: str) -> None:  # noqa: A002
    for arg, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"special_{name}(): argument '{arg}' must be Tensor, not {type(t).__name__}")


def gammainc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularised lower incomplete gamma function P(input, other) (ember.igamma), broadcast, of
    the promoted floating dtype; differentiable in `other` only (as torch's)."""
    _check_tensors(input, other, "gammainc")
    return _C.igamma(input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other)."""
    _check_tensors(input, other, "gammaincc")
    return _C.igammac(input, other)


def expit(input: Tensor) -> Tensor:  # noqa: A002
    """The logistic sigmoid, 1 / (1 + exp(-input))."""
    return _C.sigmoid(input)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    return _C.log_softmax(input if dtype is None else input.to(dtype), dim)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    return _C.softmax(input if dtype is None else input.to(dtype), dim)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    return _C.logsumexp(input, dim, keepdim)


