"""scatter_reduce and mode against NumPy oracles written as loops: every reduce, include_self both
ways, indices that repeat, rank 1 to 3, float and integer dtypes, any layout of the input;
mode's value is the smallest of the most frequent ones, its index that value's last position."""
import numpy as np
from hypothesis import given, strategies as st

import ember
from reference import assert_close
from strategies import FLOAT_DTYPES, arrays, layout, shapes

DTYPES = FLOAT_DTYPES + [ember.int64]


def _reduce_oracle(base, dim, index, src, reduce, include_self):
    """PyTorch's scatter_reduce as a loop: each target reduces its own value (when include_self) and then
    its sources in order, in the dtype."""
    out = base.copy()
    sent = {}
    for pos in np.ndindex(index.shape):
        target = list(pos)
        target[dim] = index[pos]
        sent.setdefault(tuple(target), []).append(src[pos])
    for target, values in sent.items():
        values = np.array(([base[target]] if include_self else []) + values, dtype=base.dtype)
        if reduce == "mean":
            total = values.sum()
            out[target] = total // len(values) if base.dtype.kind == "i" else total / len(values)
        else:
            out[target] = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min}[reduce](values)
    return out


@given(data=st.data())
def test_scatter_reduce_matches_a_loop(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=4))
    dim = data.draw(st.integers(0, len(shape) - 1))
    dtype = data.draw(st.sampled_from(DTYPES))
    index_shape = tuple(data.draw(st.integers(0, 6 if n else 0)) if d == dim else data.draw(st.integers(0, n))
                        for d, n in enumerate(shape))
    base = data.draw(arrays(dtype, shape, lo=-3, hi=3))
    src = data.draw(arrays(dtype, index_shape, lo=-3, hi=3))
    index = data.draw(arrays(ember.int64, index_shape, lo=0, hi=max(shape[dim] - 1, 0))) % max(shape[dim], 1)
    reduce = data.draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"]))
    include_self = data.draw(st.booleans())
    drawn = data.draw(layout(base))
    got = ember.scatter_reduce(drawn.tensor, dim, ember.tensor(index), ember.tensor(src), reduce,
                               include_self=include_self)
    with np.errstate(all="ignore"):
        want = _reduce_oracle(drawn.array, dim, index, src, reduce, include_self)
    assert_close(got, want, dtype=dtype, what=f"scatter_reduce {reduce} include_self={include_self}")


def _mode_oracle(a, dim):
    moved = np.moveaxis(a, dim, -1)
    values = np.empty(moved.shape[:-1], a.dtype)
    indices = np.empty(moved.shape[:-1], np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        row = moved[pos]
        distinct, counts = np.unique(row, return_counts=True)
        values[pos] = distinct[np.argmax(counts)]  # the first maximum: the smallest value
        indices[pos] = np.nonzero(row == values[pos])[0][-1]
    return values, indices


@given(data=st.data())
def test_mode_matches_a_loop(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=6))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    dtype = data.draw(st.sampled_from(DTYPES))
    # NB: no NaN: PyTorch's mode of a slice holding NaN depends on how its sort orders the unordered values
    drawn = data.draw(layout(data.draw(arrays(dtype, shape, lo=-2, hi=2, nan=False))))
    if drawn.array.size == 0:
        return
    keepdim = data.draw(st.booleans())
    values, indices = ember.mode(drawn.tensor, dim, keepdim)
    want_values, want_indices = _mode_oracle(drawn.array, dim)
    if keepdim:
        want_values, want_indices = np.expand_dims(want_values, dim), np.expand_dims(want_indices, dim)
    assert_close(values, want_values, dtype=dtype, what="mode values")
    assert_close(indices, want_indices, dtype=ember.int64, what="mode indices")
