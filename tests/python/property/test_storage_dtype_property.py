"""Storage dtypes (int8, int16, float16, complex64, complex128): they hold, move and convert values
exactly, in every layout.

Ember computes in bool, uint8, int32/64 and float32/64; int8, int16, float16, bfloat16 and the complex
dtypes are held and moved (views, copies, cat, indexing, checkpoints) and converted with to(). Oracle:
NumPy on the same values, compared bit for bit.
"""
import warnings

import numpy as np
from hypothesis import given, strategies as st

import ember
from strategies import layout, shapes

STORAGE = {ember.int8: np.int8, ember.int16: np.int16, ember.float16: np.float16,
           ember.complex64: np.complex64, ember.complex128: np.complex128}


@st.composite
def storage_tensors(draw):
    dtype = draw(st.sampled_from(list(STORAGE)))
    np_dtype = np.dtype(STORAGE[dtype])
    shape = draw(shapes(max_dims=5))
    n = int(np.prod(shape)) if shape else 1
    if np_dtype.kind == "i":
        info = np.iinfo(np_dtype)
        values = draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=n, max_size=n))
    elif np_dtype.kind == "c":  # every finite and non-finite part, NaN included
        values = draw(st.lists(st.complex_numbers(width=8 * np_dtype.itemsize, allow_subnormal=True),
                               min_size=n, max_size=n))
    else:
        values = draw(st.lists(st.floats(-65504, 65504, width=16), min_size=n, max_size=n))
    array = np.array(values, dtype=np_dtype).reshape(shape)
    drawn = draw(layout(array))
    return dtype, drawn.tensor, drawn.array


def same(t, expected):
    got = t.numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes()


@given(storage_tensors())
def test_values_views_and_copies_are_exact(case):
    dtype, t, a = case
    assert t.dtype == dtype
    same(t.contiguous(), a)
    same(t.clone(), a)
    if a.ndim >= 2:
        same(t.transpose(0, a.ndim - 1).contiguous(), np.swapaxes(a, 0, a.ndim - 1))
    same(t.reshape(-1), a.reshape(-1))
    if a.ndim >= 1 and a.shape[0] > 1:
        same(t[::2].contiguous(), a[::2])


@given(storage_tensors(), st.integers(1, 12))
def test_cat_stack_and_index_select_move_exact_values(case, copies):
    dtype, t, a = case
    if a.ndim == 0:
        return
    same(ember.cat([t] * copies, 0), np.concatenate([a] * copies, 0))
    same(ember.stack([t] * copies, 0), np.stack([a] * copies, 0))
    if a.shape[0] > 0:
        index = np.arange(a.shape[0])[::-1].copy()
        same(t.index_select(0, ember.tensor(index)), a[index])


@given(storage_tensors())
def test_conversions_match_numpy(case):
    dtype, t, a = case
    kind = np.dtype(STORAGE[dtype]).kind
    targets = [(ember.float64, np.float64), (ember.float32, np.float32), (ember.complex128, np.complex128),
               (ember.complex64, np.complex64)]
    if kind == "i":  # float -> int of out-of-range values is undefined (in C++ and in NumPy)
        targets.append((ember.int64, np.int64))
    for target, np_target in targets:
        with warnings.catch_warnings():  # complex -> real keeps the real part; both sides warn
            warnings.simplefilter("ignore")
            same(t.to(target), a.astype(np_target))
    same(t.to(ember.bool), a != 0)


@given(case=storage_tensors())
def test_a_checkpoint_round_trip_keeps_every_bit(tmp_path_factory, case):
    dtype, t, a = case
    path = tmp_path_factory.mktemp("ckpt") / "t.ember"
    ember.io.save({"t": t}, path)
    back = ember.io.load(path)["t"]
    assert back.dtype == dtype
    same(back, a)
