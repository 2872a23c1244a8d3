"""bincount against np.bincount (counts, float32 and float64 weights, minlength) and histc against
NumPy: np.histogram's counts away from the bin edges, and PyTorch's bin arithmetic (in the input's
dtype) everywhere, for every floating dtype, rank and layout."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from reference import assert_close
from strategies import FLOAT_DTYPES, INT_DTYPES, shapes, tensors


@given(data=st.data())
def test_bincount_matches_numpy(data):
    n = data.draw(st.integers(0, 30))
    x = data.draw(tensors(shape=(n,), dtypes=INT_DTYPES, lo=0.0, hi=12.0))
    minlength = data.draw(st.integers(0, 20))
    counts = np.bincount(x.array.astype(np.int64), minlength=minlength)
    assert_close(ember.bincount(x.tensor, minlength=minlength), counts, dtype=ember.int64, what="bincount")
    w = data.draw(tensors(shape=(n,), dtypes=FLOAT_DTYPES + INT_DTYPES, huge=False))  # weights add up
    # NB: PyTorch's: an empty input gives int64 zeros even with weights
    out_dtype = ember.int64 if n == 0 else ember.float32 if w.tensor.dtype == ember.float32 else ember.float64
    want = np.bincount(x.array.astype(np.int64), weights=w.array.astype(np.float64), minlength=minlength)
    assert_close(x.tensor.bincount(w.tensor, minlength), want, dtype=out_dtype, what="bincount(weights)")


def _torch_histc(a, bins, lo, hi):
    """PyTorch's histc: edges in the input's dtype, (x - lo) * bins / (hi - lo) truncated in that
    dtype, the right edge in the last bin, NaN and out-of-range entries (inf) left out."""
    t = a.dtype.type
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    lo_t, hi_t = t(lo), t(hi)
    with np.errstate(invalid="ignore"):
        inside = (a >= lo_t) & (a <= hi_t)
        pos = np.trunc((a[inside] - lo_t) * t(bins) / (hi_t - lo_t)).astype(np.int64)
    pos[pos == bins] = bins - 1
    return np.bincount(pos, minlength=bins).astype(a.dtype)


@given(data=st.data())
def test_histc_matches_numpy(data):
    # NB: no largest float: PyTorch's bin arithmetic, (x - lo) * bins / (hi - lo), overflows there
    x = data.draw(tensors(shape=data.draw(shapes(max_dims=4)), dtypes=FLOAT_DTYPES, huge=False))
    bins = data.draw(st.integers(1, 12))
    lo, hi = sorted([data.draw(st.integers(-8, 8)) / 2, data.draw(st.integers(-8, 8)) / 2])
    flat = x.array.reshape(-1)
    if lo == hi and flat.size and not np.all(np.isfinite([flat.min(), flat.max()])):
        with pytest.raises(Exception, match="not finite"):  # the data's range (PyTorch: RuntimeError)
            ember.histc(x.tensor, bins=bins, min=lo, max=hi)
        return
    got = ember.histc(x.tensor, bins=bins, min=lo, max=hi)
    assert_close(got, _torch_histc(x.array.reshape(-1), bins, lo, hi), dtype=x.tensor.dtype,
                 what=f"histc({bins}, {lo}, {hi})")
    a = x.array.reshape(-1).astype(np.float64)
    if lo < hi:
        edges = np.linspace(lo, hi, bins + 1)
        near = np.min(np.abs(a[:, None] - edges[None, :]), axis=1, initial=np.inf) if a.size else np.array([])
        if not np.any(near < 1e-4 * (hi - lo)):  # NumPy's own binning agrees away from the edges
            counts, _ = np.histogram(a, bins=bins, range=(lo, hi))
            assert_close(got, counts, dtype=x.tensor.dtype, what="np.histogram")
