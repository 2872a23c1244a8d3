"""The data of a program's inputs: shapes (0 to 6 dims, empty and size-1 dims among them), dtypes and
values, boundary values drawn now and then: 0 and -0, +-1, +-inf, NaN, denormals, the dtype's largest and
smallest normal values, exact ties (few distinct values, halves for rounding). NumPy only.
"""
import numpy as np

import encoding

MAX_NUMEL = 48
DTYPE_WEIGHTS = (("float32", 70), ("float64", 10), ("int64", 12), ("bool", 8))


def boundary_floats(dtype):
    fi = np.finfo(np.float32 if dtype == "float32" else np.float64)
    sub = float(fi.smallest_subnormal)
    return [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, sub, -sub, float(fi.tiny), -float(fi.tiny),
            float(fi.max), -float(fi.max), 0.5, -0.5, 2.0]


BOUNDARY_INTS = [0, 1, -1, 2, -2, 2**31 - 1, -2**31, 2**62, -2**62]
TIES = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.5, -2.5]


def draw_dtype(rng):
    names, weights = zip(*DTYPE_WEIGHTS)
    return rng.choices(names, weights)[0]


def draw_shape(rng, ndim=None, min_ndim=0):
    """0 to 6 dims (mostly 1 to 3); sizes 0 (rarely), 1, 2, 3, 4, 5; at most MAX_NUMEL elements."""
    if ndim is None:
        ndim = rng.choices(range(7), (8, 25, 30, 20, 9, 5, 3))[0]
    ndim = max(ndim, min_ndim)
    shape = [rng.choices((0, 1, 2, 3, 4, 5), (2, 18, 25, 25, 18, 12))[0] for _ in range(ndim)]
    while int(np.prod(shape, dtype=np.int64)) > MAX_NUMEL:
        i = max(range(ndim), key=lambda k: shape[k])
        shape[i] -= 1
    return shape


def draw_data(rng, nrng, shape, dtype, kind="normal", low=0, high=2):
    """A NumPy array of the dtype. kind: "normal" (values around +-1 with boundary values or ties now
    and then), "positive" (0.1 to 3), "prob" (0 to 1, with exact 0 and 1 sometimes), "index" (ints in
    [low, high)), "mask" (bools)."""
    n = int(np.prod(shape, dtype=np.int64))
    if kind == "index":
        return nrng.integers(low, max(high, low + 1), size=shape).astype(np.int64)
    if kind == "mask" or dtype == "bool":
        return nrng.random(shape) < rng.choice((0.3, 0.5, 0.7))
    if dtype in ("int64", "int32"):
        a = nrng.integers(-5, 6, size=n)
        if kind == "positive":
            a = np.abs(a) + 1
        elif n and rng.random() < 0.1:
            a[nrng.integers(0, n, size=max(1, n // 4))] = rng.choice(BOUNDARY_INTS)
        return a.astype(encoding.NUMPY_DTYPES[dtype]).reshape(shape)
    np_dtype = encoding.NUMPY_DTYPES[dtype]
    if kind == "positive":
        a = nrng.uniform(0.1, 3.0, size=n)
    elif kind == "prob":
        a = nrng.uniform(0.0, 1.0, size=n)
        if n and rng.random() < 0.3:
            a[nrng.integers(0, n, size=max(1, n // 3))] = rng.choice((0.0, 1.0))
    else:
        r = rng.random()
        if r < 0.15:  # exact ties (and halves, where rounding has a tie to break)
            a = np.array(TIES)[nrng.integers(0, len(TIES), size=n)]
        else:
            a = nrng.standard_normal(n) * rng.choice((1.0, 1.0, 3.0))
        if n and r > 0.65:
            bounds = boundary_floats(dtype)
            for i in nrng.integers(0, n, size=rng.choice((1, 1, 2, max(1, n // 3)))):
                a[i] = rng.choice(bounds)
    return a.astype(np_dtype).reshape(shape)


def draw_input(rng, nrng, shape, dtype, kind="normal", grad=False, **kw):
    """An input node's spec: a tensor entry and whether it requires grad (floats only)."""
    e = encoding.entry(draw_data(rng, nrng, shape, dtype, kind, **kw), dtype)
    e["grad"] = bool(grad and dtype in encoding.FLOAT_DTYPES)
    return e
