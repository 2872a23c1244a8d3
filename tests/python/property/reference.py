"""The oracle side of the property suite: PyTorch's type-promotion rules written out, value
comparison against NumPy float64 results, and gradients by central finite differences (float64).
Nothing here calls the Ember op under test except through the function a test passes in."""
from __future__ import annotations

import numpy as np

import ember

from strategies import NUMPY_OF

# bool < uint8 < int32 < int64 < float32 < float64: with these dtypes PyTorch's promote_types is the
# larger of the two.
_ORDER = [ember.bool, ember.uint8, ember.int32, ember.int64, ember.float32, ember.float64]


def category(dtype) -> int:
    """0 bool, 1 integer, 2 floating."""
    return 0 if dtype == ember.bool else 2 if dtype in (ember.float32, ember.float64) else 1


def promote_types(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return _ORDER[max(_ORDER.index(a), _ORDER.index(b))]


def _combine(higher, lower):
    # c10's combine_categories: a lower-priority group only counts when it is of a higher category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if category(higher) == 2:
        return higher
    if higher == ember.bool or category(lower) == 2:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value):
    """The dtype a Python number takes part in promotion with (a float: the default float32)."""
    if isinstance(value, bool):
        return ember.bool
    if isinstance(value, int):
        return ember.int64
    return ember.float32


def result_type(*operands):
    """torch.result_type over tensors and Python numbers: dimensioned tensors first, then 0-d
    tensors, then Python numbers, each later group counting only when of a higher category."""
    dim = zero = wrapped = None
    for op in operands:
        if isinstance(op, ember.Tensor):
            if op.ndim > 0:
                dim = promote_types(dim, op.dtype)
            else:
                zero = promote_types(zero, op.dtype)
        else:
            wrapped = promote_types(wrapped, scalar_dtype(op))
    return _combine(dim, _combine(zero, wrapped))


def to_numpy(t: ember.Tensor) -> np.ndarray:
    """The values of an Ember tensor as a NumPy array of its dtype (a copy)."""
    return t.detach().numpy(force=True)


def tolerances(dtype):
    if dtype == ember.float32:
        return 2e-5, 2e-5
    if dtype == ember.float64:
        return 1e-10, 1e-10
    return 0.0, 0.0


def assert_close(actual: ember.Tensor, expected, dtype=None, rtol=None, atol=None, what: str = ""):
    """actual has expected's shape, the given dtype (when given) and values close to expected (NaN
    where expected is NaN, infinities of the same sign; exact for integer and bool results)."""
    assert isinstance(actual, ember.Tensor), f"{what}: expected a Tensor, got {type(actual).__name__}"
    expected = np.asarray(expected)
    assert tuple(actual.shape) == expected.shape, f"{what}: shape {tuple(actual.shape)} != {expected.shape}"
    if dtype is not None:
        assert actual.dtype == dtype, f"{what}: dtype {actual.dtype} != {dtype}"
    got = to_numpy(actual)
    if got.dtype.kind == "f" and expected.dtype.kind == "f":
        # NB: the float64 oracle rounded to the result's dtype, as the op's own arithmetic rounds: a value
        # past float32's range is inf there.
        with np.errstate(over="ignore"):
            expected = expected.astype(got.dtype)
    d_rtol, d_atol = tolerances(actual.dtype)
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    if got.dtype == np.bool_ or expected.dtype == np.bool_:
        np.testing.assert_array_equal(got, expected.astype(got.dtype), err_msg=what)
    elif rtol == 0 and atol == 0:
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)


def assert_buffer_written(drawn, before, expected):
    """After an in-place op on a tensor that views drawn.buffer[drawn.index]: the view's part of the
    buffer holds expected, and every other element of the buffer kept its value from before."""
    if drawn.buffer is None:
        return
    np.testing.assert_array_equal(drawn.buffer[drawn.index], np.asarray(expected).astype(drawn.buffer.dtype),
                                  err_msg="the NumPy memory under the view")
    outside = np.ones(drawn.buffer.shape, bool)
    outside[drawn.index] = False
    np.testing.assert_array_equal(drawn.buffer[outside], before[outside], err_msg="outside the view")


def cast_like_torch(values: np.ndarray, dtype) -> np.ndarray:
    """float64 (or int64) oracle values converted to an Ember dtype as a cast would: integer
    results wrap modulo 2^bits, float32 rounds."""
    np_dtype = NUMPY_OF[dtype]
    if np_dtype.kind in "iu":
        return np.asarray(values).astype(np.int64).astype(np_dtype)
    return np.asarray(values).astype(np_dtype)


def random_weights(shape, seed: int) -> np.ndarray:
    """The fixed cotangent a gradient test backpropagates: sum(out * w) is the scalar checked."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape)


def finite_difference(fn, arrays, weights: np.ndarray, eps: float = 1e-6) -> list:
    """d sum(fn(*inputs) * weights) / d inputs by central differences, every input float64 and
    contiguous: one gradient array per input array (None for an input given as None)."""
    base = [None if a is None else np.array(a, dtype=np.float64) for a in arrays]

    def value(xs):
        with ember.no_grad():
            out = fn(*[None if x is None else ember.tensor(x) for x in xs])
        return float(np.sum(to_numpy(out).astype(np.float64) * weights))

    grads = []
    for i, a in enumerate(base):
        if a is None:
            grads.append(None)
            continue
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            xs = [None if b is None else b.copy() for b in base]
            xs[i][j] += eps
            plus = value(xs)
            xs[i][j] -= 2 * eps
            minus = value(xs)
            g[j] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


def check_gradients(fn, leaves, seed: int, rtol: float = 1e-5, atol: float = 1e-6, what: str = ""):
    """Runs fn on the float64 leaves (ember tensors that require grad, of any layout), backpropagates
    a random cotangent and compares every leaf's .grad with central finite differences."""
    out = fn(*leaves)
    weights = random_weights(tuple(out.shape), seed)
    assert out.requires_grad, f"{what}: the output does not require grad"
    out.backward(ember.tensor(weights))
    arrays = [None if t is None else to_numpy(t) for t in leaves]
    expected = finite_difference(fn, arrays, weights)
    for k, (t, e) in enumerate(zip(leaves, expected)):
        if t is None:
            continue
        if t.grad is None:
            assert e.size == 0 or not np.any(e), f"{what}: input {k} got no gradient"
            continue
        assert tuple(t.grad.shape) == tuple(t.shape), f"{what}: grad of input {k} has shape {t.grad.shape}"
        np.testing.assert_allclose(to_numpy(t.grad), e, rtol=rtol, atol=atol, err_msg=f"{what}: input {k}")
