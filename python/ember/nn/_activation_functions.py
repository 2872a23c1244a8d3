"""The activations of torch.nn.functional that are compositions of ops Ember has (so their gradients
are those ops'): the hard and scaled ones of mobile and self-normalising networks, the shrinkage
functions, softmin and the gated linear unit. Each follows PyTorch's definition, value for value."""
from __future__ import annotations

from .. import _C

# SELU's constants (Klambauer et al., as PyTorch's).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def hardsigmoid(input, inplace: bool = False):  # noqa: A002  (PyTorch's names)
    """0 below -3, 1 above 3, input / 6 + 1/2 between."""
    return _C.clamp(input + 3.0, 0.0, 6.0) / 6.0


def hardswish(input, inplace: bool = False):  # noqa: A002
    """input * hardsigmoid(input)."""
    return input * hardsigmoid(input)


def selu(input, inplace: bool = False):  # noqa: A002
    """scale * (input where > 0, else alpha * (e^input - 1)), with PyTorch's alpha and scale."""
    return _C.where(input > 0, input, _C.expm1(input) * _SELU_ALPHA) * _SELU_SCALE


def celu(input, alpha: float = 1.0, inplace: bool = False):  # noqa: A002
    """input where > 0, else alpha * (e^(input / alpha) - 1)."""
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    return _C.where(input > 0, input, _C.expm1(input / alpha) * alpha)


def softsign(input):  # noqa: A002
    """input / (1 + |input|)."""
    return input / (_C.abs(input) + 1.0)


def softmin(input, dim: int | None = None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    """softmax(-input) along dim."""
    if dim is None:
        raise ValueError("softmin: give dim (PyTorch's implicit choice is deprecated)")
    x = input if dtype is None else input.to(dtype)
    return _C.softmax(-x, dim)


def glu(input, dim: int = -1):  # noqa: A002
    """a * sigmoid(b), where a and b are the halves of input along dim."""
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim} is size {n}")
    a, b = _C.chunk(input, 2, dim)
    return a * _C.sigmoid(b)


def threshold(input, threshold: float, value: float, inplace: bool = False):  # noqa: A002
    """input where > threshold, else value."""
    return _C.where(input > threshold, input, value)


def tanhshrink(input):  # noqa: A002
    """input - tanh(input)."""
    return input - _C.tanh(input)


def softshrink(input, lambd: float = 0.5):  # noqa: A002
    """input - lambd above lambd, input + lambd below -lambd, 0 between."""
    if lambd < 0:
        raise ValueError(f"softshrink: lambda must be greater or equal to 0, but found to be {lambd}.")
    return _C.where(input > lambd, input - lambd, _C.where(input < -lambd, input + lambd, 0.0))


def hardshrink(input, lambd: float = 0.5):  # noqa: A002
    """input where |input| > lambd, else 0."""
    return _C.where(_C.abs(input) > lambd, input, 0.0)


__all__ = ["hardsigmoid", "hardswish", "selu", "celu", "softsign", "softmin", "glu", "threshold", "tanhshrink",
           "softshrink", "hardshrink"]
