"""argsort, sort, topk, kthvalue, cumsum, bucketize and searchsorted against NumPy for every dtype, rank
(0 to 8), empty dims and layout, NaN included (it sorts above every number, as in PyTorch); equal
entries keep their order."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import known_failures
import torch_rules
from reference import assert_close
from strategies import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, arrays, tensors
from torch_rules import sort_order


def _dim(data, x):
    return data.draw(st.integers(-x.tensor.dim(), x.tensor.dim() - 1)) if x.tensor.dim() else 0


@given(data=st.data())
def test_argsort_and_sort_match_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES))
    d, desc = _dim(data, x), data.draw(st.booleans())
    a = x.array if x.tensor.dim() else x.array.reshape(1)
    want = sort_order(a, d, desc)
    if x.tensor.dim() == 0:
        want = want.reshape(())
    got = ember.argsort(x.tensor, dim=d, descending=desc)
    assert_close(got, want, dtype=ember.int64, what=f"argsort(dim={d}, descending={desc})")
    values, indices = ember.sort(x.tensor, d, desc)
    assert_close(indices, want, dtype=ember.int64)
    expected = np.take_along_axis(a, want.reshape(a.shape) if x.tensor.dim() == 0 else want, d)
    assert_close(values, expected.reshape(x.array.shape), dtype=x.tensor.dtype)


@given(data=st.data())
def test_sort_with_nan_puts_it_last_or_first(data):
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, layouts=["contiguous"]))
    if x.tensor.dim() == 0 or x.tensor.numel() == 0:
        return
    arr = x.array.copy()
    arr.flat[data.draw(st.integers(0, arr.size - 1))] = np.nan
    t = ember.tensor(arr)
    for desc in (False, True):
        want = sort_order(arr, -1, desc)
        assert_close(ember.argsort(t, descending=desc), want, dtype=ember.int64, what=f"nan, descending={desc}")


@given(data=st.data())
def test_topk_and_kthvalue_match_numpy(data):
    x = data.draw(tensors(dtypes=INT_DTYPES + FLOAT_DTYPES))
    if x.tensor.dim() == 0:
        return
    d = _dim(data, x)
    n = x.tensor.shape[d]
    k = data.draw(st.integers(0, n))
    largest = data.draw(st.booleans())
    order = sort_order(x.array, d, largest)
    idx = np.take(order, range(k), axis=d)
    values, indices = ember.topk(x.tensor, k, d, largest)
    assert_close(indices, idx, dtype=ember.int64)
    assert_close(values, np.take_along_axis(x.array, idx, d), dtype=x.tensor.dtype)
    if n:
        kk = data.draw(st.integers(1, n))
        keep = data.draw(st.booleans())
        asc = sort_order(x.array, d)
        i = np.take(asc, [kk - 1], axis=d)
        v = np.take_along_axis(x.array, i, d)
        got_v, got_i = ember.kthvalue(x.tensor, kk, d, keep)
        assert_close(got_i, i if keep else np.squeeze(i, d), dtype=ember.int64)
        assert_close(got_v, v if keep else np.squeeze(v, d), dtype=x.tensor.dtype)


@given(data=st.data())
def test_cumsum_matches_numpy(data):
    # NB: no largest float: PyTorch's CPU cumsum of float32 adds in float64 ([max, max, -max] gives
    # [max, inf, max]), Ember's in float32 ([max, inf, inf])
    x = data.draw(tensors(dtypes=ALL_DTYPES, huge=False))
    d = _dim(data, x)
    a = x.array if x.tensor.dim() else x.array.reshape(1)
    out_dtype = x.tensor.dtype if x.tensor.dtype in FLOAT_DTYPES else ember.int64
    wide = np.float64 if out_dtype in FLOAT_DTYPES else np.int64
    want = np.cumsum(a.astype(wide), axis=d).reshape(x.array.shape)
    assert_close(ember.cumsum(x.tensor, d), want, dtype=out_dtype, what=f"cumsum(dim={d})")
    assert_close(x.tensor.cumsum(d, dtype=ember.float64), np.cumsum(a.astype(np.float64), axis=d).reshape(x.array.shape),
                 dtype=ember.float64)


@given(data=st.data())
def test_bucketize_and_searchsorted_match_numpy(data):
    """bucketize(x, boundaries, right) and searchsorted(boundaries, x, right) give NumPy's searchsorted
    index (side "right" for right=True) for sorted boundaries (ties and infinities among them); NaN
    lands past the last boundary, as in PyTorch."""
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    bounds = np.sort(data.draw(arrays(dtype, (data.draw(st.integers(0, 6)),), nan=False), label="boundaries"))
    x = data.draw(tensors(dtype=dtype), label="x")
    right = data.draw(st.booleans())
    if known_failures.dodge("bucketize-nan", np.isnan(x.array)):
        return
    expected = torch_rules.bucketize(x.array, bounds, right)
    b = ember.tensor(bounds)
    assert_close(ember.bucketize(x.tensor, b, right=right), expected, dtype=ember.int64, what="bucketize")
    assert_close(ember.searchsorted(b, x.tensor, right=right), expected, dtype=ember.int64, what="searchsorted")


def test_errors_name_k_and_the_size():
    with pytest.raises(IndexError, match="topk: k = 4 is out of range for a dim of size 3"):
        ember.topk(ember.zeros(3), 4)
    with pytest.raises(IndexError, match="kthvalue: k = 0 is out of range"):
        ember.kthvalue(ember.zeros(3), 0)
    with pytest.raises(TypeError, match="int16"):
        ember.argsort(ember.zeros(3, dtype=ember.int16))
