"""prod, cumprod, logcumsumexp, cummax and cummin against NumPy for every dtype, rank (0 to 8), empty
dims and layout: integer products wrap in int64 as NumPy's do, the empty product is 1, and cummax /
cummin report the last position of the running extreme (ties move the index on, as in PyTorch)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from reference import assert_close
from torch_rules import cumulative_extreme
from strategies import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, tensors


def _dim(data, x):
    n = max(x.tensor.dim(), 1)
    return data.draw(st.integers(-n, n - 1))


def _wide(a):
    """The oracle's dtype: int64 for bool and integers (products wrap there as in PyTorch), float64."""
    return a.astype(np.float64 if np.issubdtype(a.dtype, np.floating) else np.int64)


def _result_dtype(dtype):
    return dtype if dtype in FLOAT_DTYPES else ember.int64


@given(data=st.data())
def test_prod_matches_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES, lo=-2.0, hi=2.0))
    a = _wide(x.array)
    out_dtype = _result_dtype(x.tensor.dtype)
    assert_close(ember.prod(x.tensor), np.prod(a), dtype=out_dtype, what="prod()")
    d, keep = _dim(data, x), data.draw(st.booleans())
    axis = d % max(x.tensor.dim(), 1)
    want = np.prod(a, axis=axis, keepdims=keep) if x.tensor.dim() else a
    assert_close(x.tensor.prod(d, keepdim=keep), want, dtype=out_dtype, what=f"prod({d}, keepdim={keep})")
    assert_close(ember.prod(x.tensor, d, keep, dtype=ember.float64), np.asarray(want, np.float64), dtype=ember.float64,
                 what="prod(dtype=float64)")


@given(data=st.data())
def test_cumprod_matches_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES, lo=-2.0, hi=2.0))
    d = _dim(data, x)
    a = _wide(x.array)
    want = np.cumprod(a, axis=d % x.tensor.dim()) if x.tensor.dim() else a
    assert_close(ember.cumprod(x.tensor, d), want, dtype=_result_dtype(x.tensor.dtype), what=f"cumprod({d})")
    assert_close(x.tensor.cumprod(d, dtype=ember.float64), np.asarray(want, np.float64), dtype=ember.float64)


@given(data=st.data())
def test_logcumsumexp_matches_numpy(data):
    x = data.draw(tensors(dtypes=FLOAT_DTYPES))
    d = _dim(data, x)
    a = x.array.astype(np.float64)
    want = np.logaddexp.accumulate(a, axis=d % x.tensor.dim()) if x.tensor.dim() else a
    assert_close(ember.logcumsumexp(x.tensor, d), want, dtype=x.tensor.dtype, what=f"logcumsumexp({d})")


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@given(data=st.data())
def test_cummax_cummin_match_numpy(name, data):
    x = data.draw(tensors(dtypes=ALL_DTYPES, lo=-3.0, hi=3.0))  # few distinct values: many ties
    d = _dim(data, x)
    values, indices = getattr(ember, name)(x.tensor, d)
    if x.tensor.dim() == 0:
        assert_close(values, x.array, dtype=x.tensor.dtype)
        assert_close(indices, np.int64(0), dtype=ember.int64)
        return
    want_v, want_i = cumulative_extreme(x.array, d % x.tensor.dim(), name == "cummax")
    assert_close(values, want_v, dtype=x.tensor.dtype, what=f"{name}({d}) values")
    assert_close(indices, want_i, dtype=ember.int64, what=f"{name}({d}) indices")


@given(data=st.data())
def test_cummax_with_nan_keeps_nan_from_where_it_appears(data):
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, layouts=["contiguous"]))
    if x.tensor.dim() == 0 or x.tensor.numel() == 0:
        return
    a = x.array.copy()
    a.flat[data.draw(st.integers(0, a.size - 1))] = np.nan
    values, _ = ember.cummax(ember.tensor(a), -1)
    first_nan = np.cumsum(np.isnan(a), axis=-1) > 0
    np.testing.assert_array_equal(np.isnan(values.numpy()), first_nan)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_products_wrap_like_numpy(dtype):
    a = np.array([[7, 11, 13] * 10], dtype=np.int64)
    t = ember.tensor(a).to(dtype)
    np.testing.assert_array_equal(ember.cumprod(t, 1).numpy(), np.cumprod(a.astype(np.dtype(str(dtype)[6:])).astype(np.int64), 1))
    assert ember.prod(t).item() == int(np.prod(a.astype(np.dtype(str(dtype)[6:])).astype(np.int64)))
