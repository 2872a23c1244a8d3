"""tril, triu, flip, roll, repeat, repeat_interleave (a count, or one per entry), tensor_split,
outer, addmm, baddbmm, one_hot, any and all (one dim or several) against NumPy, for every dtype, rank (0 to 8 where the op allows), empty dims and layout; their
gradients are those of the ops they are made of (finite differences in test_grad_property.py)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
from reference import assert_close
from strategies import ALL_DTYPES, FLOAT_DTYPES, shapes, tensors


@pytest.mark.parametrize("name", ["tril", "triu"])
@given(data=st.data())
def test_triangles_match_numpy(name, data):
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=2)), dtypes=ALL_DTYPES))
    k = data.draw(st.integers(-5, 5))
    expected = getattr(np, name)(x.array, k)
    assert_close(getattr(ember, name)(x.tensor, k), expected, dtype=x.tensor.dtype, what=f"{name}({k})")
    assert_close(getattr(x.tensor, name)(diagonal=k), expected, dtype=x.tensor.dtype)


@given(data=st.data())
def test_flip_matches_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES))
    nd = max(x.tensor.dim(), 1)
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), unique_by=lambda d: d % nd, max_size=nd)) if x.tensor.dim() else []
    expected = np.flip(x.array, axis=tuple(dims)) if dims else x.array
    out = ember.flip(x.tensor, dims)
    assert_close(out, expected, dtype=x.tensor.dtype, what=f"flip({dims})")
    assert not out._is_same(x.tensor)


@given(data=st.data())
def test_roll_matches_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES))
    if x.tensor.dim() == 0 or data.draw(st.booleans()):
        shift = data.draw(st.integers(-20, 20))
        assert_close(ember.roll(x.tensor, shift), np.roll(x.array, shift), dtype=x.tensor.dtype, what=f"roll({shift})")
        return
    nd = x.tensor.dim()
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd))
    shifts = [data.draw(st.integers(-20, 20)) for _ in dims]
    expected = np.roll(x.array, shifts, axis=dims)
    assert_close(ember.roll(x.tensor, shifts, dims), expected, dtype=x.tensor.dtype, what=f"roll({shifts}, {dims})")


@given(data=st.data())
def test_repeat_is_numpy_tile(data):
    x = data.draw(tensors(shape=data.draw(shapes(max_dims=5, max_numel=16)), dtypes=ALL_DTYPES))
    extra = data.draw(st.integers(0, 2))
    reps = [data.draw(st.integers(0, 3)) for _ in range(x.tensor.dim() + extra)]
    if not reps:
        reps = [1]
    assert_close(x.tensor.repeat(*reps), np.tile(x.array, reps), dtype=x.tensor.dtype, what=f"repeat({reps})")


@given(data=st.data())
def test_repeat_interleave_is_numpy_repeat(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES))
    r = data.draw(st.integers(0, 3))
    assert_close(ember.repeat_interleave(x.tensor, r), np.repeat(x.array, r), dtype=x.tensor.dtype)
    if x.tensor.dim():
        d = data.draw(st.integers(-x.tensor.dim(), x.tensor.dim() - 1))
        assert_close(x.tensor.repeat_interleave(r, dim=d), np.repeat(x.array, r, axis=d), dtype=x.tensor.dtype,
                     what=f"repeat_interleave({r}, dim={d})")
        counts = data.draw(st.lists(st.integers(0, 3), min_size=x.array.shape[d], max_size=x.array.shape[d]))
        repeats = ember.tensor(counts, dtype=ember.int64)
        assert_close(x.tensor.repeat_interleave(repeats, dim=d), np.repeat(x.array, counts, axis=d),
                     dtype=x.tensor.dtype, what=f"repeat_interleave({counts}, dim={d})")


@given(data=st.data())
def test_tensor_split_is_numpy_array_split(data):
    # NumPy's array_split slices as Python does, as PyTorch's tensor_split: negative indices count from
    # the end, each is clamped, an index before the previous one gives an empty part
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1)), dtypes=ALL_DTYPES))
    d = data.draw(st.integers(-x.tensor.dim(), x.tensor.dim() - 1))
    n = x.array.shape[d]
    how = data.draw(st.one_of(st.integers(1, 6), st.lists(st.integers(-n - 2, n + 2), max_size=4)))
    got = ember.tensor_split(x.tensor, how, d)
    want = np.array_split(x.array, how, axis=d)
    assert len(got) == len(want), how
    for g, w in zip(got, want):
        assert_close(g, w, dtype=x.tensor.dtype, what=f"tensor_split({how}, {d})")
    if isinstance(how, list):
        as_tensor = x.tensor.tensor_split(ember.tensor(how, dtype=ember.int64), dim=d)
        assert [tuple(t.shape) for t in as_tensor] == [w.shape for w in want]


@given(data=st.data())
def test_products_match_numpy(data):
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    m, k, n, b = (data.draw(st.integers(0, 5)) for _ in range(4))
    u = data.draw(tensors(shape=(m,), dtype=dtype, huge=False))
    v = data.draw(tensors(shape=(n,), dtype=dtype, huge=False))
    assert_close(ember.outer(u.tensor, v.tensor), np.outer(u.array.astype(np.float64), v.array), dtype=dtype)
    a = data.draw(tensors(shape=(m, k), dtype=dtype, huge=False))
    c = data.draw(tensors(shape=(k, n), dtype=dtype, huge=False))
    s = data.draw(tensors(shape=data.draw(st.sampled_from([(m, n), (n,), (1, n), ()])), dtype=dtype, huge=False))
    beta, alpha = data.draw(st.sampled_from([0.0, 0.5, 1.0])), data.draw(st.sampled_from([1.0, -2.0]))
    wide = lambda t: t.astype(np.float64)  # noqa: E731
    expected = (beta * wide(s.array) if beta else 0) + alpha * (wide(a.array) @ wide(c.array))
    expected = np.broadcast_to(expected, (m, n))
    assert_close(ember.addmm(s.tensor, a.tensor, c.tensor, beta=beta, alpha=alpha), expected, dtype=dtype)
    a3 = data.draw(tensors(shape=(b, m, k), dtype=dtype, huge=False))
    c3 = data.draw(tensors(shape=(b, k, n), dtype=dtype, huge=False))
    # beta = 0 ignores the input: its inf and NaN do not propagate (PyTorch's documented rule)
    expected3 = alpha * (wide(a3.array) @ wide(c3.array)) + (beta * wide(s.array) if beta else 0)
    assert_close(ember.baddbmm(s.tensor, a3.tensor, c3.tensor, beta=beta, alpha=alpha),
                 np.broadcast_to(expected3, (b, m, n)), dtype=dtype)


@given(data=st.data())
def test_one_hot_matches_numpy(data):
    shape = data.draw(shapes(max_dims=4, allow_empty=False))
    classes = data.draw(st.integers(1, 6))
    values = np.asarray(data.draw(st.lists(st.integers(0, classes - 1), min_size=int(np.prod(shape)),
                                           max_size=int(np.prod(shape))))).reshape(shape).astype(np.int64)
    expected = (values[..., None] == np.arange(classes)).astype(np.int64)
    assert_close(F.one_hot(ember.tensor(values), classes), expected, dtype=ember.int64)
    inferred = (values[..., None] == np.arange(values.max() + 1)).astype(np.int64)
    assert_close(F.one_hot(ember.tensor(values)), inferred, dtype=ember.int64)


def test_one_hot_errors_name_the_value():
    with pytest.raises(IndexError, match=r"class values must be in \[0, 3\), got 5"):
        F.one_hot(ember.tensor([0, 5]), 3)
    with pytest.raises(TypeError, match="expected an int64 tensor"):
        F.one_hot(ember.tensor([0.0]))


@pytest.mark.parametrize("name", ["any", "all"])
@given(data=st.data())
def test_any_all_match_numpy(name, data):
    x = data.draw(tensors(dtypes=ALL_DTYPES))
    ref = getattr(np, name)
    assert_close(getattr(ember, name)(x.tensor), ref(x.array != 0), dtype=ember.bool)
    if x.tensor.dim():
        d = data.draw(st.integers(-x.tensor.dim(), x.tensor.dim() - 1))
        keep = data.draw(st.booleans())
        assert_close(getattr(x.tensor, name)(d, keep), ref(x.array != 0, axis=d, keepdims=keep), dtype=ember.bool)
        dims = data.draw(st.lists(st.integers(0, x.tensor.dim() - 1), min_size=1, unique=True))
        assert_close(getattr(ember, name)(x.tensor, dim=tuple(dims), keepdim=keep),
                     ref(x.array != 0, axis=tuple(dims), keepdims=keep), dtype=ember.bool, what=f"{name}({dims})")
