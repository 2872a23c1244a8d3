"""Creation functions and Python/NumPy round trips against NumPy: zeros/ones/empty/full/arange/linspace/
eye/scalar_tensor, the *_like and new_* forms, tensor() from nested lists, tolist/item/numpy/from_numpy."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from reference import assert_close
from strategies import ALL_DTYPES, NUMPY_OF, is_float, python_scalars, shapes, tensors


@given(data=st.data())
def test_sized_constructors(data):
    """zeros/ones/empty/full(shape, dtype=...) and their *_like / new_* forms have NumPy's shape and values
    (full infers bool, int64 or float32 from its value)."""
    shape = data.draw(shapes())
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    npd = NUMPY_OF[dtype]
    assert_close(ember.zeros(*shape, dtype=dtype), np.zeros(shape, npd), dtype=dtype, what="zeros")
    assert_close(ember.ones(shape, dtype=dtype), np.ones(shape, npd), dtype=dtype, what="ones")
    assert tuple(ember.empty(*shape, dtype=dtype).shape) == shape
    value = data.draw(python_scalars())
    inferred = ember.bool if isinstance(value, bool) else ember.int64 if isinstance(value, int) else ember.float32
    assert_close(ember.full(shape, value), np.full(shape, value, NUMPY_OF[inferred]), dtype=inferred, what="full")
    like = data.draw(tensors(shape=shape))
    assert_close(ember.zeros_like(like.tensor), np.zeros(shape, like.array.dtype), dtype=like.tensor.dtype)
    assert_close(ember.ones_like(like.tensor, dtype=dtype), np.ones(shape, npd), dtype=dtype, what="ones_like")
    assert_close(ember.full_like(like.tensor, 1), np.full(shape, 1, like.array.dtype), dtype=like.tensor.dtype)
    assert tuple(ember.empty_like(like.tensor).shape) == shape
    assert_close(like.tensor.new_zeros(*shape), np.zeros(shape, like.array.dtype), dtype=like.tensor.dtype)
    assert_close(like.tensor.new_ones(shape), np.ones(shape, like.array.dtype), dtype=like.tensor.dtype)
    assert_close(like.tensor.new_full(list(shape), 1), np.full(shape, 1, like.array.dtype), dtype=like.tensor.dtype)
    assert ember.zeros(*shape, requires_grad=True).requires_grad
    assert_close(ember.scalar_tensor(3, dtype=dtype), np.asarray(3).astype(npd), dtype=dtype, what="scalar_tensor")


@given(data=st.data())
def test_arange_matches_numpy(data):
    """arange(start, end, step) (negative steps too) has NumPy's values; int64 unless a bound or the step is
    a float (then float32)."""
    floats = data.draw(st.booleans())
    num = st.floats(-10, 10, width=32).map(lambda v: round(v, 1)) if floats else st.integers(-10, 10)
    start, end = data.draw(num), data.draw(num)
    step = data.draw((st.sampled_from([0.5, 1.5, -0.5, -2.0, 0.25]) if floats else
                      st.integers(-3, 3).filter(lambda v: v != 0)))
    dtype = ember.float32 if floats else ember.int64
    if (end - start) * step < 0:
        with pytest.raises(ValueError):  # PyTorch refuses a step of the wrong sign too
            ember.arange(start, end, step)
        return
    expected = np.arange(start, end, step, dtype=np.float64)
    got = ember.arange(start, end, step)
    assert got.dtype == dtype
    assert got.shape == expected.shape, (start, end, step, got.shape, expected.shape)
    assert_close(got, expected.astype(NUMPY_OF[dtype]), rtol=1e-6, atol=1e-5)
    if not floats and end >= 0:
        assert_close(ember.arange(end), np.arange(end), dtype=ember.int64, what="arange(end)")


@given(start=st.floats(-5, 5, width=32), end=st.floats(-5, 5, width=32), steps=st.integers(0, 20),
       dtype=st.sampled_from([ember.float32, ember.float64]))
def test_linspace_matches_numpy(start, end, steps, dtype):
    """linspace(start, end, steps) has NumPy's values (both ends included)."""
    assert_close(ember.linspace(start, end, steps, dtype=dtype), np.linspace(start, end, steps), dtype=dtype,
                 rtol=1e-5, atol=1e-5)


@given(n=st.integers(0, 6), m=st.none() | st.integers(0, 6), dtype=st.sampled_from(ALL_DTYPES))
def test_eye_matches_numpy(n, m, dtype):
    """eye(n, m) is NumPy's eye."""
    assert_close(ember.eye(n, m, dtype=dtype), np.eye(n, m, dtype=NUMPY_OF[dtype]), dtype=dtype)


@st.composite
def nested_lists(draw):
    """A NumPy array of Python bools, ints or floats as nested lists (any rank, some empty)."""
    shape = draw(shapes(max_dims=5))
    kind = draw(st.sampled_from([bool, int, float]))
    values = draw(st.lists(python_scalars(kind), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return np.array(values, dtype={bool: np.bool_, int: np.int64, float: np.float64}[kind]).reshape(shape), kind


@given(data=nested_lists())
def test_tensor_from_lists_round_trips(data):
    """tensor(nested lists) infers bool / int64 / float32 like PyTorch; tolist() gives the lists back, item()
    the number of a one-element tensor, numpy() and from_numpy() the array."""
    array, kind = data
    dtype = {bool: ember.bool, int: ember.int64, float: ember.float32}[kind]
    if array.size == 0 and array.ndim:
        return  # an empty list has no element to infer the dtype from
    t = ember.tensor(array.tolist())
    expected = array.astype(NUMPY_OF[dtype])
    assert_close(t, expected, dtype=dtype)
    np.testing.assert_array_equal(np.array(t.tolist(), dtype=expected.dtype), expected)  # NaN == NaN here
    if array.size == 1:
        np.testing.assert_array_equal(t.item(), expected.reshape(()).item())
        assert type(t.item()) is kind
    np.testing.assert_array_equal(t.numpy(), expected)
    back = ember.from_numpy(expected)
    assert_close(back, expected, dtype=dtype)
    assert_close(ember.tensor(expected, dtype=ember.float64), expected.astype(np.float64), dtype=ember.float64)


@given(data=st.data())
def test_numpy_round_trip_of_any_layout(data):
    """t.numpy() of any layout views the same values (writes are shared), tolist() agrees with NumPy's."""
    x = data.draw(tensors())
    view = x.tensor.numpy()
    np.testing.assert_array_equal(view, x.array)
    assert repr(x.tensor.tolist()) == repr(x.array.tolist())  # repr: NaN equals NaN, -0.0 differs from 0.0
    if is_float(x.tensor.dtype) and x.array.size:
        np.testing.assert_array_equal(float(x.tensor.reshape(-1)[-1]), float(x.array.reshape(-1)[-1]))
    if x.array.size and x.tensor.is_contiguous():
        view.reshape(-1)[0] = 1
        assert x.tensor.reshape(-1)[0].item() == (True if x.tensor.dtype == ember.bool else 1)


@given(shape=shapes(), seed=st.integers(0, 2**32 - 1), low=st.integers(-5, 5), span=st.integers(1, 10),
       n=st.integers(0, 40))
def test_random_constructors_respect_their_contract(shape, seed, low, span, n):
    """rand is in [0, 1), randint in [low, high), randperm(n) a permutation of range(n), all of the asked shape
    and dtype; the same generator seed gives the same values."""
    g = ember.Generator(seed)
    r = ember.rand(*shape, generator=g)
    assert r.dtype == ember.float32 and tuple(r.shape) == shape
    assert np.all((r.numpy() >= 0) & (r.numpy() < 1))
    np.testing.assert_array_equal(ember.rand(*shape, generator=ember.Generator(seed)).numpy(), r.numpy())
    assert tuple(ember.randn(*shape, generator=g, dtype=ember.float64).shape) == shape
    i = ember.randint(low, low + span, shape, generator=g)
    assert i.dtype == ember.int64 and tuple(i.shape) == shape
    assert np.all((i.numpy() >= low) & (i.numpy() < low + span))
    p = ember.randperm(n, generator=g)
    assert p.dtype == ember.int64 and sorted(p.tolist()) == list(range(n))
    like = ember.rand_like(ember.zeros(*shape, dtype=ember.float64))
    assert like.dtype == ember.float64 and tuple(like.shape) == shape
