"""The op database (ember._op_db, generated from the `test` fields of ops/ops.toml) resolved for the
Python tests: each case's ember function (its `call`, over ember's names) and its float64 reference
(`ref`, over NumPy, scipy.special and the helpers below), and the dtypes it takes. The property,
gradient and fixture tests loop over it, so a table entry with a `test` is under all of them."""
import math

import numpy as np
import scipy.special as sp

import ember
import ember.nn.functional as F
import torch_rules
from ember._op_db import CASES
from strategies import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES

UNARY = [c for c in CASES if c.arity == 1]
BINARY = [c for c in CASES if c.arity == 2]
DTYPES = {"all": ALL_DTYPES, "numeric": INT_DTYPES + FLOAT_DTYPES, "float": FLOAT_DTYPES,
          "integral": INT_DTYPES + [ember.bool]}


def _lgamma_scalar(v: float) -> float:
    if math.isnan(v):
        return v
    if math.isinf(v) or (v <= 0 and v == math.floor(v)):
        return math.inf  # the poles, and both infinities (PyTorch's)
    try:
        return math.lgamma(v)
    except OverflowError:  # past about 2.5e305 lgamma is beyond float64 (v log v)
        return math.inf


def _digamma(x):
    # PyTorch's poles: -inf at +0, +inf at -0, NaN at the negative integers and -inf
    x = np.asarray(x, dtype=np.float64)
    out = sp.digamma(x)
    # Next to a negative pole SciPy's reflection loses digits in tan(pi x) (digamma(-2 + 2.2e-16) is
    # -1 / 2.2e-16 = -4.5e15; SciPy and PyTorch give -3.1e15, Ember the right value): reflect with the
    # exact distance to the nearest integer instead.
    with np.errstate(all="ignore"):
        near = np.isfinite(x) & (x < 0) & (x != np.round(x))
        reflected = sp.digamma(1 - x) - np.pi / np.tan(np.pi * (x - np.round(x)))
    out = np.where(near, reflected, out)
    return np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), np.where(x == -np.inf, np.nan, out))


def _polygamma(n, x):
    # the limits: 0 at +inf (SciPy's), NaN at -inf, past infinitely many poles (SciPy: +-inf)
    x = np.asarray(x, dtype=np.float64)
    return np.where(x == -np.inf, np.nan, sp.polygamma(n, x))


def _gammainc(a, x, upper):
    # SciPy's values, and PyTorch's edges tried in its order, which decides a NaN in the other
    # argument: P(NaN, 0) = 0, P(NaN, inf) = 1, P(inf, NaN) = 0
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        p = np.select([(x < 0) | (a < 0), a == 0, x == 0, a == np.inf, x == np.inf],
                      [np.nan, np.where(x > 0, 1.0, np.nan), 0.0, np.where(x == np.inf, np.nan, 0.0), 1.0], np.nan)
        edge = (x < 0) | (a < 0) | (a == 0) | (x == 0) | (a == np.inf) | (x == np.inf)
    return np.where(edge, 1 - p if upper else p, sp.gammaincc(a, x) if upper else sp.gammainc(a, x))


def _gelu(x):
    return 0.5 * x * (1 + sp.erf(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


_REFERENCES = {"np": np, "math": math, "sp": sp, "torch_rules": torch_rules,
               "lgamma": np.vectorize(_lgamma_scalar, otypes=[np.float64]), "digamma": _digamma, "polygamma": _polygamma,
               "gammainc": lambda a, x: _gammainc(a, x, False), "gammaincc": lambda a, x: _gammainc(a, x, True),
               "gelu": _gelu,
               "gelu_tanh": _gelu_tanh}
_NAMES = {**vars(ember), "F": F, "special": ember.special}


def names():
    """The names a case's `call` is written over: ember's, F (ember.nn.functional) and special."""
    return dict(_NAMES)


def function(case):
    """The ember function of a case: its `call` as a lambda of x (and y)."""
    return eval(f"lambda {'x, y' if case.arity == 2 else 'x'}: {case.call}", names())


def reference(case):
    """The case's float64 reference (a NumPy function), or None where the table gives none."""
    return eval(case.ref, dict(_REFERENCES)) if case.ref else None
