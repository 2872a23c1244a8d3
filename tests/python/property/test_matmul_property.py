"""Matrix products against NumPy's matmul: matmul / @ (1-D operands, broadcast batch dims, integer
dtypes, any layout), mm, bmm and F.linear. No largest float among the values (huge=False): the sums
of products overflow float32 in an order-dependent way there."""
import numpy as np
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
from reference import assert_close
from strategies import FLOAT_DTYPES, INT_DTYPES, broadcastable_shapes, tensors


@st.composite
def matmul_shapes(draw):
    """Shapes of a and b for matmul: 1-D or N-D, batch dims that broadcast, inner sizes that agree."""
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    batch_a, batch_b = draw(broadcastable_shapes(2, max_dims=3))
    a = (k,) if draw(st.integers(0, 4)) == 0 else batch_a + (m, k)
    b = (k,) if draw(st.integers(0, 4)) == 0 else batch_b + (k, n)
    return a, b


@given(data=st.data())
def test_matmul_matches_numpy(data):
    """matmul(a, b) and a @ b equal NumPy's matmul for any mix of 1-D and batched operands, any layout."""
    sa, sb = data.draw(matmul_shapes())
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES + INT_DTYPES))
    a = data.draw(tensors(shape=sa, dtype=dtype, huge=False))
    b = data.draw(tensors(shape=sb, dtype=dtype, huge=False))
    if dtype.is_floating_point:
        expected = np.matmul(a.array.astype(np.float64), b.array.astype(np.float64))
    else:  # in int64, which wraps as the op does (a float64 detour rounds)
        expected = np.matmul(a.array.astype(np.int64), b.array.astype(np.int64)).astype(a.array.dtype)
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == ember.float32 else {}
    assert_close(ember.matmul(a.tensor, b.tensor), expected, dtype=dtype, **tol)
    assert_close(a.tensor @ b.tensor, expected, dtype=dtype, what="@", **tol)
    assert_close(a.tensor.matmul(b.tensor), expected, what="Tensor.matmul", **tol)


@given(data=st.data())
def test_mm_bmm_match_numpy(data):
    """mm of [m, k] and [k, n], bmm of [B, m, k] and [B, k, n] are NumPy's matmul."""
    batch, m, k, n = (data.draw(st.integers(0, 4)) for _ in range(4))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    a = data.draw(tensors(shape=(m, k), dtype=dtype, huge=False))
    b = data.draw(tensors(shape=(k, n), dtype=dtype, huge=False))
    assert_close(ember.mm(a.tensor, b.tensor), a.array.astype(np.float64) @ b.array, dtype=dtype, rtol=1e-5, atol=1e-4)
    assert_close(a.tensor.mm(b.tensor), a.array.astype(np.float64) @ b.array, rtol=1e-5, atol=1e-4)
    a = data.draw(tensors(shape=(batch, m, k), dtype=dtype, huge=False))
    b = data.draw(tensors(shape=(batch, k, n), dtype=dtype, huge=False))
    assert_close(ember.bmm(a.tensor, b.tensor), np.matmul(a.array.astype(np.float64), b.array), dtype=dtype,
                 rtol=1e-5, atol=1e-4)


@given(data=st.data())
def test_linear_matches_numpy(data):
    """F.linear(x, w, b) is x @ w^T + b for x of any number of leading dims; bias optional."""
    lead = data.draw(broadcastable_shapes(1, max_dims=3))[0]
    fin, fout = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(tensors(shape=lead + (fin,), dtype=dtype, huge=False))
    w = data.draw(tensors(shape=(fout, fin), dtype=dtype, huge=False))
    expected = x.array.astype(np.float64) @ w.array.T.astype(np.float64)
    assert_close(F.linear(x.tensor, w.tensor), expected, dtype=dtype, rtol=1e-5, atol=1e-4, what="no bias")
    b = data.draw(tensors(shape=(fout,), dtype=dtype, huge=False))
    assert_close(F.linear(x.tensor, w.tensor, b.tensor), expected + b.array, dtype=dtype, rtol=1e-5, atol=1e-4)
