"""Helpers the distributions share: broadcasting parameters, probs <-> logits, cached properties,
shapes. As torch.distributions.utils, composed of Ember's ops."""
from __future__ import annotations

import numbers
from typing import Any, Tuple

import ember

# NB: ember has no finfo; these are IEEE's, the values torch.finfo gives.
_EPS = {ember.float64: 2.220446049250313e-16, ember.float32: 1.1920928955078125e-07}
_TINY = {ember.float64: 2.2250738585072014e-308, ember.float32: 1.1754943508222875e-38}
_MIN = {ember.float64: -1.7976931348623157e308, ember.float32: -3.4028234663852886e38}


def eps(dtype: Any) -> float:
    return _EPS.get(dtype, _EPS[ember.float32])


def tiny(dtype: Any) -> float:
    return _TINY.get(dtype, _TINY[ember.float32])


def min_real(dtype: Any) -> float:
    return _MIN.get(dtype, _MIN[ember.float32])


def broadcast_shapes(*shapes: Tuple[int, ...]) -> Tuple[int, ...]:
    """NumPy's rule; a ValueError names the shapes that do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s):
            j = ndim - len(s) + i
            if out[j] == 1:
                out[j] = n
            elif n != 1 and n != out[j]:
                raise ValueError(f"shapes {', '.join(str(tuple(x)) for x in shapes)} do not broadcast")
    return tuple(out)


def broadcast_all(*values: Any) -> Tuple[ember.Tensor, ...]:
    """Numbers become tensors of the first tensor's dtype (the default dtype when there is none),
    then all broadcast to one shape, as torch's broadcast_all."""
    if not all(isinstance(v, (ember.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, ember.Tensor or objects "
                         "implementing __torch_function__.")
    if all(isinstance(v, numbers.Number) for v in values):
        dtype = ember.get_default_dtype()
    else:
        dtype = next(v.dtype for v in values if isinstance(v, ember.Tensor))
    tensors = [v if isinstance(v, ember.Tensor) else ember.tensor(float(v), dtype=dtype) for v in values]
    return tuple(ember.broadcast_tensors(*tensors))


def as_float_tensor(value: Any) -> ember.Tensor:
    return value if isinstance(value, ember.Tensor) else ember.tensor(float(value), dtype=ember.get_default_dtype())


def clamp_probs(probs: ember.Tensor) -> ember.Tensor:
    """Keeps probabilities inside (0, 1) by one ulp so that their logits are finite."""
    e = eps(probs.dtype)
    return probs.clamp(min=e, max=1 - e)


def probs_to_logits(probs: ember.Tensor, is_binary: bool = False) -> ember.Tensor:
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(ps_clamped) - ember.log1p(-ps_clamped)
    return ember.log(ps_clamped)


def logits_to_probs(logits: ember.Tensor, is_binary: bool = False) -> ember.Tensor:
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, -1)


def sum_rightmost(value: ember.Tensor, dim: int) -> ember.Tensor:
    """Sums the last `dim` dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def numel(shape: Tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


class lazy_property:  # noqa: N801  (torch's name)
    """A property computed on first access and then stored on the instance (probs from logits):
    validation skips such parameters until they exist."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value
