"""The regularised incomplete gamma functions P(a, x) (gammainc) and Q(a, x) = 1 - P (gammaincc), as
torch.special's, and the float64 NumPy kernels they and the Gamma distribution's reparameterised
gradient (distributions/_standard_gamma.py) share: lgamma, digamma, P and Q.

P and Q: the power series of P for x < a + 1, Legendre's continued fraction of Q (modified Lentz)
beyond, each times the prefactor x^a e^-x / Gamma(a) (Numerical Recipes' gser / gcf), summed over
the still-unconverged elements only. Relative accuracy about 1e-13 for a up to 1e4 (the prefactor's
exponent, near a log a, loses a log(a) ulps beyond); each takes O(sqrt(a)) terms near x = a.
Edge values are torch's (Cephes's): nan for a < 0 or x < 0, P(0, x > 0) = 1, P(a > 0, 0) = 0,
P(inf, finite x) = 0, P(finite a, inf) = 1, nan for a = x = 0 and for a = x = inf.

Gradients are torch's: d/dx P = x^(a-1) e^-x / Gamma(a) (written in Ember's ops, so differentiable
again), and the derivative with respect to a raises NotImplementedError, as torch's does."""
from __future__ import annotations

import math

import numpy as np

from . import _C
from ._C import Tensor
from . import _functions as _fn
from ._autograd_function import Function

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_MAX_TERMS = 100000  # never reached for a <= 1e8: the series and the fraction need O(sqrt(a)) terms


def lgamma_np(a: np.ndarray) -> np.ndarray:
    """log Gamma(a) for a > 0 (float64): Stirling's series at a + n >= 10, shifted down by the log of
    the product a (a + 1) ... (a + n - 1); absolute error about 1e-15."""
    a = np.asarray(a, dtype=np.float64)
    shift = np.maximum(np.ceil(10.0 - a), 0.0)
    y = a + shift
    prod = np.ones_like(a)
    for k in range(10):
        prod = np.where(k < shift, prod * (a + k), prod)
    r = 1.0 / (y * y)
    series = (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r / 1188)))) / y
    return (y - 0.5) * np.log(y) - y + _HALF_LOG_2PI + series - np.log(prod)


def digamma_np(a: np.ndarray) -> np.ndarray:
    """psi(a) for a > 0 (float64): the recurrence psi(a) = psi(a + 1) - 1 / a up to a >= 10, then the
    asymptotic series; relative error about 1e-15 (absolute near its root 1.46)."""
    a = np.asarray(a, dtype=np.float64)
    result = np.zeros_like(a)
    y = a.copy()
    for _ in range(10):
        small = y < 10
        result = np.where(small, result - 1.0 / y, result)
        y = np.where(small, y + 1, y)
    r = 1.0 / (y * y)
    tail = r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132 - r * 691.0 / 32760)))))
    return result + np.log(y) - 0.5 / y - tail


def _series_p(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)); all terms positive."""
    total = np.ones_like(a)
    term = np.ones_like(a)
    active = np.arange(a.size)
    n = 0
    while active.size and n < _MAX_TERMS:
        n += 1
        term[active] *= x[active] / (a[active] + n)
        total[active] += term[active]
        active = active[term[active] > 1e-17 * total[active]]
    return np.exp(a * np.log(x) - x - lgamma_np(a + 1)) * total


def _fraction_q(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)), for
    x >= a + 1, where the fraction converges (modified Lentz)."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(a, 1 / tiny)
    d = 1 / b
    h = d.copy()
    active = np.arange(a.size)
    i = 0
    while active.size and i < _MAX_TERMS:
        i += 1
        an = -i * (i - a[active])
        b[active] += 2
        dd = an * d[active] + b[active]
        dd = np.where(np.abs(dd) < tiny, tiny, dd)
        cc = b[active] + an / c[active]
        cc = np.where(np.abs(cc) < tiny, tiny, cc)
        dd = 1 / dd
        delta = dd * cc
        d[active], c[active] = dd, cc
        h[active] *= delta
        active = active[np.abs(delta - 1) > 1e-16]
    return np.exp(a * np.log(x) - x - lgamma_np(a)) * h


def gammainc_np(a: np.ndarray, x: np.ndarray, upper: bool = False) -> np.ndarray:
    """P(a, x) (or Q(a, x) when upper), float64, elementwise over equal-shaped arrays."""
    a = np.asarray(a, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    shape = np.broadcast(a, x).shape
    a, x = np.broadcast_to(a, shape).ravel(), np.broadcast_to(x, shape).ravel()
    p = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        # torch's (Cephes's) edge values; nan stays nan.
        p = np.where((a == 0) & (x > 0), 1.0, p)
        p = np.where((a > 0) & (x == 0), 0.0, p)
        p = np.where(np.isposinf(a) & (x >= 0) & np.isfinite(x), 0.0, p)
        p = np.where((a > 0) & np.isfinite(a) & np.isposinf(x), 1.0, p)
        inner = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        series = np.flatnonzero(inner & (x < a + 1))
        fraction = np.flatnonzero(inner & (x >= a + 1))
        q = 1 - p
        if series.size:
            p[series] = _series_p(a[series], x[series])
            q[series] = 1 - p[series]
        if fraction.size:
            q[fraction] = _fraction_q(a[fraction], x[fraction])
            p[fraction] = 1 - q[fraction]
    return (q if upper else p).reshape(shape)


def _to_numpy(t: Tensor) -> np.ndarray:
    return t.detach().cpu().to(_C.float64).numpy()


class Igamma(Function):
    """P (or Q) of a and x, promoted and broadcast. NB: torch's backward evaluates its formula with
    a before promotion (lgamma in float32 for a float32 a and a float64 x); here all is promoted."""

    @staticmethod
    def forward(ctx, a, x, upper):
        out = gammainc_np(_to_numpy(a), _to_numpy(x), upper)
        ctx.upper = upper
        ctx.save_for_backward(a, x)
        # NB: reshaped, since ascontiguousarray makes a 0-d result 1-d.
        return _C.from_numpy(np.ascontiguousarray(out)).reshape(tuple(a.shape)).to(a.dtype).to(a.device)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        name = "igammac" if ctx.upper else "igamma"
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        # torch's formula, as it writes it (so x = 0 with a = 1 gives nan, as torch's does).
        d = _C.exp((a - 1) * _C.log(x) - x - _C.lgamma(a))
        return None, (-grad * d if ctx.upper else grad * d), None


def _promoted(input: Tensor, other: Tensor, name: str) -> tuple:  # noqa: A002
    for arg, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"special_{name}(): argument '{arg}' must be Tensor, not {type(t).__name__}")
    dtype = _C.promote_types(input.dtype, other.dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{"igamma" if name == "gammainc" else "igammac"}_cpu" not implemented for '
                                  f"'{str(dtype).replace('ember.', '').capitalize()}'")
    return tuple(_fn.broadcast_tensors(input.to(dtype), other.to(dtype)))


def gammainc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularised lower incomplete gamma function P(input, other), broadcast, of the promoted
    floating dtype; differentiable in `other` only (as torch's)."""
    a, x = _promoted(input, other, "gammainc")
    return Igamma.apply(a, x, False)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other)."""
    a, x = _promoted(input, other, "gammaincc")
    return Igamma.apply(a, x, True)
