"""Indexing against NumPy: t[...] and t[...] = v with ints, slices with steps, None, Ellipsis, bool
masks and int index tensors or lists (PyTorch's rules: ints select first, then advanced indices as
NumPy places them), and index_select, gather, scatter_add, index_add, masked_fill, embedding."""
import numpy as np
from hypothesis import assume, given, strategies as st

import ember
import ember.nn.functional as F
from reference import assert_buffer_written, assert_close, cast_like_torch
from strategies import (FLOAT_DTYPES, broadcastable_shapes, index_keys, is_float, python_scalars, shapes, tensors,
                        torch_getitem, valid_dim)


@given(data=st.data())
def test_getitem_matches_numpy(data):
    """t[key] equals NumPy's indexing under PyTorch's rules for any mix of ints, slices, None, Ellipsis,
    int index tensors or lists and bool masks, on any layout."""
    x = data.draw(tensors(shape=data.draw(shapes(max_dims=5))))
    key, items = data.draw(index_keys(x.array.shape))
    expected = torch_getitem(x.array, items)
    assert_close(x.tensor[key], expected, dtype=x.tensor.dtype, what=f"t[{key!r}]")


@st.composite
def setitem_values(draw, target_shape, dtype):
    """A value to assign: a Python number, or a tensor of the dtype whose shape broadcasts to target_shape."""
    if draw(st.booleans()):
        v = draw(python_scalars(float) if is_float(dtype) else python_scalars(bool) if dtype == ember.bool
                 else st.integers(0, 15))
        return v, np.asarray(v)
    drop = draw(st.integers(0, len(target_shape)))
    shape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in target_shape[drop:])
    v = draw(tensors(shape=shape, dtype=dtype))
    return v.tensor, v.array


@given(data=st.data())
def test_setitem_matches_numpy(data):
    """t[key] = value writes value (a number, or a tensor broadcast to t[key]'s shape) exactly where
    t[key] reads, through any layout, and nowhere else."""
    x = data.draw(tensors(shape=data.draw(shapes(max_dims=5)), layouts=("contiguous", "permuted", "strided")))
    before = None if x.buffer is None else x.buffer.copy()
    key, items = data.draw(index_keys(x.array.shape))
    positions = torch_getitem(np.arange(x.array.size).reshape(x.array.shape), items)
    assume(len(np.unique(positions)) == positions.size)  # repeated positions have no defined winner
    value, value_array = data.draw(setitem_values(positions.shape, x.tensor.dtype))
    expected = x.array.copy()
    expected.reshape(-1)[positions.reshape(-1)] = np.broadcast_to(value_array, positions.shape).reshape(-1).astype(
        expected.dtype)
    x.tensor[key] = value
    assert_close(x.tensor, expected, dtype=x.tensor.dtype, what=f"t[{key!r}] = {value!r}")
    assert_buffer_written(x, before, expected)


@given(data=st.data())
def test_index_select_matches_numpy(data):
    """index_select(dim, index) is NumPy's take along dim (any index length, repeats, int32 or int64)."""
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1))))
    dim = data.draw(valid_dim(x.tensor.ndim))
    size = x.array.shape[dim]
    idx = np.array(data.draw(st.lists(st.integers(0, size - 1), max_size=5) if size else st.just([])), np.int64)
    index = ember.tensor(idx, dtype=data.draw(st.sampled_from([ember.int64, ember.int32])))
    expected = np.take(x.array, idx, axis=dim)
    assert_close(ember.index_select(x.tensor, dim, index), expected, dtype=x.tensor.dtype)
    assert_close(x.tensor.index_select(dim, index), expected)


@st.composite
def gather_args(draw):
    """(input, dim, index array) with index.shape[d] <= input.shape[d] for d != dim, as gather needs."""
    x = draw(tensors(shape=draw(shapes(min_dims=1, max_dims=5, allow_empty=False))))
    dim = draw(valid_dim(x.tensor.ndim))
    shape = [draw(st.integers(0, s)) for s in x.array.shape]
    shape[dim] = draw(st.integers(0, 4))
    idx = draw(st.lists(st.integers(0, x.array.shape[dim] - 1), min_size=int(np.prod(shape)),
                        max_size=int(np.prod(shape))))
    return x, dim, np.array(idx, np.int64).reshape(shape)


@given(data=st.data())
def test_gather_matches_numpy(data):
    """gather(dim, index)[i][j][k] = input[i][index[i][j][k]][k] (for dim=1), index smaller than input."""
    x, dim, idx = data.draw(gather_args())
    axis = dim % x.tensor.ndim
    grids = list(np.meshgrid(*[np.arange(s) for s in idx.shape], indexing="ij"))
    grids[axis] = idx
    expected = x.array[tuple(grids)] if idx.size else np.zeros(idx.shape, x.array.dtype)
    assert_close(ember.gather(x.tensor, dim, ember.tensor(idx)), expected, dtype=x.tensor.dtype)


@given(data=st.data())
def test_scatter_add_matches_numpy(data):
    """scatter_add(dim, index, src) adds src[i][j][k] into out[i][index[i][j][k]][k] (repeats accumulate)."""
    x, dim, idx = data.draw(gather_args())
    assume(is_float(x.tensor.dtype) or x.tensor.dtype in (ember.int32, ember.int64))
    src = data.draw(tensors(shape=idx.shape, dtype=x.tensor.dtype, huge=False))  # repeats add up
    axis = dim % x.tensor.ndim
    grids = list(np.meshgrid(*[np.arange(s) for s in idx.shape], indexing="ij"))
    grids[axis] = idx
    wide = np.float64 if is_float(x.tensor.dtype) else np.int64  # int64 wraps as the op does
    expected = x.array.astype(wide)
    np.add.at(expected, tuple(grids), src.array.astype(wide))
    got = ember.scatter_add(x.tensor, dim, ember.tensor(idx), src.tensor)
    assert_close(got, cast_like_torch(expected, x.tensor.dtype), dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)
    assert_close(x.tensor.scatter_add(dim, ember.tensor(idx), src.tensor), cast_like_torch(expected, x.tensor.dtype),
                 rtol=1e-5, atol=1e-5)


@given(data=st.data())
def test_index_add_matches_numpy(data):
    """index_add(dim, index, source) adds source's slices into the indexed slices (repeats accumulate)."""
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1, max_dims=5, allow_empty=False)),
                          dtypes=FLOAT_DTYPES + [ember.int64]))
    dim = data.draw(valid_dim(x.tensor.ndim))
    axis = dim % x.tensor.ndim
    idx = np.array(data.draw(st.lists(st.integers(0, x.array.shape[axis] - 1), max_size=4)), np.int64)
    src_shape = list(x.array.shape)
    src_shape[axis] = len(idx)
    src = data.draw(tensors(shape=tuple(src_shape), dtype=x.tensor.dtype, huge=False))  # repeats add up
    wide = np.float64 if is_float(x.tensor.dtype) else np.int64  # int64 wraps as the op does
    expected = np.moveaxis(x.array.astype(wide), axis, 0).copy()
    np.add.at(expected, idx, np.moveaxis(src.array.astype(wide), axis, 0))
    expected = cast_like_torch(np.moveaxis(expected, 0, axis), x.tensor.dtype)
    got = ember.index_add(x.tensor, dim, ember.tensor(idx), src.tensor)
    assert_close(got, expected, dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)


@given(data=st.data())
def test_masked_fill_matches_numpy(data):
    """masked_fill(mask, value) puts value where the (broadcast) mask is true; value a number or 0-d tensor."""
    s_x, s_m = data.draw(broadcastable_shapes(2))
    x = data.draw(tensors(shape=s_x))
    s_m = s_m if np.broadcast_shapes(s_x, s_m) == tuple(s_x) else s_x
    mask = data.draw(tensors(shape=s_m, dtype=ember.bool))
    dtype = x.tensor.dtype
    v = data.draw(python_scalars(float) if is_float(dtype) else python_scalars(bool) if dtype == ember.bool
                  else st.integers(0, 15))
    value = ember.tensor(v) if data.draw(st.booleans()) else v
    expected = np.where(mask.array, np.asarray(v).astype(x.array.dtype), x.array)
    assert_close(ember.masked_fill(x.tensor, mask.tensor, value), expected, dtype=dtype)
    assert_close(x.tensor.masked_fill(mask.tensor, value), expected)


@given(data=st.data())
def test_embedding_matches_numpy(data):
    """embedding(weight, indices) (and F.embedding(indices, weight)) are weight's rows for indices of any
    shape."""
    rows = data.draw(st.integers(1, 6))
    dim = data.draw(st.integers(0, 4))
    w = data.draw(tensors(shape=(rows, dim), dtypes=FLOAT_DTYPES))
    idx_shape = data.draw(shapes(max_dims=3, max_numel=12))
    idx = np.array(data.draw(st.lists(st.integers(0, rows - 1), min_size=int(np.prod(idx_shape)),
                                      max_size=int(np.prod(idx_shape)))), np.int64).reshape(idx_shape)
    expected = w.array[idx]
    assert_close(ember.embedding(w.tensor, ember.tensor(idx)), expected, dtype=w.tensor.dtype)
    assert_close(F.embedding(ember.tensor(idx), w.tensor), expected)
    pad = data.draw(st.integers(0, rows - 1))
    assert_close(F.embedding(ember.tensor(idx), w.tensor, padding_idx=pad), expected, what="padding_idx forward")
