"""A result that depends on tensors with a zero gradient, as PyTorch's ops whose derivative is zero
(div with a rounding mode, heaviside's input, the in-place comparisons): the result requires grad when
they do, and backward gives them zeros rather than None (nor NaN from a NaN gradient)."""
from __future__ import annotations

from typing import Any

from . import _C
from ._C import Tensor
from .autograd import is_grad_enabled


def with_zero_grad(result: Tensor, *tensors: Any) -> Tensor:
    """result, now depending on each tensor of `tensors` that requires grad, with a zero gradient."""
    if not is_grad_enabled() or not result.is_floating_point():  # NB: an integer result has no gradient
        return result
    for t in tensors:
        if isinstance(t, Tensor) and t.requires_grad:
            # NB: where() picks all of result; the other branch is a 0 built from t's empty slice, so
            # its gradient is zeros of t's shape and no value of t (inf, NaN) reaches the result.
            nothing = t.reshape(-1)[:0].sum().to(result.dtype)
            result = _C.where(_C.ones((), dtype=_C.bool, device=result.device), result, nothing)
    return result
