"""diagonal, diag_embed, diag, masked_select, nonzero (and as_tuple), argwhere and where(condition)
against NumPy for every dtype, rank, empty dims and layout; diagonal is a view that writes through."""
import numpy as np
from hypothesis import given, strategies as st

import ember
from reference import assert_close
from strategies import ALL_DTYPES, shapes, tensors


def _np_diag_embed(a, offset, d1, d2):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    rows = np.arange(a.shape[-1]) + max(-offset, 0)
    out[..., rows, rows + offset] = a
    # the two new dims sit last: move them to d1 and d2 of the result
    nd = out.ndim
    return np.moveaxis(out, [nd - 2, nd - 1], [d1 % nd, d2 % nd])


@given(data=st.data())
def test_diagonal_matches_numpy_and_is_a_view(data):
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=2)), dtypes=ALL_DTYPES))
    nd = x.tensor.dim()
    d1, d2 = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2, unique_by=lambda d: d % nd))
    offset = data.draw(st.integers(-5, 5))
    got = ember.diagonal(x.tensor, offset, d1, d2)
    assert_close(got, np.diagonal(x.array, offset, d1 % nd, d2 % nd), dtype=x.tensor.dtype,
                 what=f"diagonal({offset}, {d1}, {d2})")
    # A view: writing through it changes the diagonal of the tensor it views (a copy of x here).
    base = x.tensor.clone()
    ember.diagonal(base, offset, d1, d2).fill_(1)
    expected = x.array.copy()
    positions = np.diagonal(np.arange(expected.size).reshape(expected.shape), offset, d1 % nd, d2 % nd)
    expected.flat[positions.reshape(-1)] = 1
    assert_close(base, expected, dtype=x.tensor.dtype, what="written through the view")


@given(data=st.data())
def test_diag_embed_matches_numpy(data):
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1, max_dims=5, max_numel=24)), dtypes=ALL_DTYPES))
    n = x.tensor.dim() + 1
    d1, d2 = data.draw(st.lists(st.integers(-n, n - 1), min_size=2, max_size=2, unique_by=lambda d: d % n))
    offset = data.draw(st.integers(-3, 3))
    assert_close(ember.diag_embed(x.tensor, offset, d1, d2), _np_diag_embed(x.array, offset, d1, d2),
                 dtype=x.tensor.dtype, what=f"diag_embed({offset}, {d1}, {d2})")


@given(data=st.data())
def test_diag_matches_numpy(data):
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1, max_dims=2)), dtypes=ALL_DTYPES))
    k = data.draw(st.integers(-4, 4))
    got = ember.diag(x.tensor, k)
    assert_close(got, np.diag(x.array, k), dtype=x.tensor.dtype, what=f"diag({k})")
    assert_close(x.tensor.diag(diagonal=k), np.diag(x.array, k), dtype=x.tensor.dtype)


@given(data=st.data())
def test_masked_select_matches_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES))
    shape = x.array.shape
    mask_shape = tuple(1 if data.draw(st.integers(0, 3)) == 0 else s
                       for s in shape[data.draw(st.integers(0, len(shape))):])
    m = data.draw(tensors(shape=mask_shape, dtype=ember.bool))
    a, mask = np.broadcast_arrays(x.array, m.array)
    assert_close(ember.masked_select(x.tensor, m.tensor), a[mask], dtype=x.tensor.dtype, what="masked_select")
    assert_close(x.tensor.masked_select(m.tensor), a[mask], dtype=x.tensor.dtype)


@given(data=st.data())
def test_nonzero_argwhere_where_match_numpy(data):
    x = data.draw(tensors(dtypes=ALL_DTYPES, lo=-1.0, hi=1.0))
    a = x.array
    coords = np.argwhere(a) if a.ndim else np.zeros((int(a != 0), 0), np.int64)
    assert_close(ember.nonzero(x.tensor), coords, dtype=ember.int64, what="nonzero")
    assert_close(x.tensor.nonzero(), coords, dtype=ember.int64)
    assert_close(ember.argwhere(x.tensor), coords, dtype=ember.int64, what="argwhere")
    want = np.nonzero(a) if a.ndim else (np.zeros(int(a != 0), np.int64),)
    for got in (ember.nonzero(x.tensor, as_tuple=True), x.tensor.nonzero(as_tuple=True), ember.where(x.tensor)):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_close(g, w, dtype=ember.int64, what="as_tuple")
