"""Reductions against NumPy (float64): sum, mean, amax/amin, max/min (values and indices),
argmax/argmin, var/std, logsumexp and norm over dim tuples, negative dims, keepdim, 0-d, empty and
7-8-D inputs of every layout; softmax and log_softmax."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import known_failures
import torch_rules
from reference import assert_close, cast_like_torch
from strategies import (FLOAT_DTYPES, INT_DTYPES, dim_tuples, is_float, normalise_dims, shapes, tensors,
                        valid_dim)


def _reduce_np(fn, x, axes, keepdim):
    return fn(x, axis=axes, keepdims=keepdim)


@given(data=st.data())
def test_sum_matches_numpy(data):
    """sum over any dims (None, an int, a tuple, negative) with keepdim: NumPy's sum; integer and bool
    inputs sum to int64, and dtype= converts first."""
    x = data.draw(tensors(huge=False))
    dims = data.draw(dim_tuples(x.tensor.ndim))
    keepdim = data.draw(st.booleans())
    axes = normalise_dims(dims, x.tensor.ndim)
    cast = data.draw(st.sampled_from([None, ember.float64, ember.int64]))
    if cast == ember.int64 and is_float(x.tensor.dtype) and not np.all(np.abs(x.array) < 2.0 ** 63):
        cast = None  # inf, NaN and the like convert to an undefined int64 (C++'s and PyTorch's rule)
    source = x.tensor.dtype if cast is None else cast
    out_dtype = source if is_float(source) else ember.int64
    values = x.array.astype(np.float64 if is_float(out_dtype) else np.int64)
    if cast is not None:
        values = cast_like_torch(x.array, cast).astype(values.dtype)
    expected = cast_like_torch(_reduce_np(np.sum, values, axes, keepdim), out_dtype)
    kwargs = {} if cast is None else {"dtype": cast}
    got = ember.sum(x.tensor, dims, keepdim, **kwargs) if dims is not None else ember.sum(x.tensor, keepdim=keepdim, **kwargs)
    assert_close(got, expected, dtype=out_dtype, rtol=1e-4 if out_dtype == ember.float32 else None,
                 atol=1e-4 if out_dtype == ember.float32 else None)
    assert_close(x.tensor.sum(dim=dims, keepdim=keepdim, **kwargs), expected, dtype=out_dtype,
                 rtol=1e-4 if out_dtype == ember.float32 else None, atol=1e-4 if out_dtype == ember.float32 else None)


@given(data=st.data())
def test_mean_matches_numpy(data):
    """mean over any dims with keepdim is NumPy's mean (NaN over an empty set)."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, huge=False))
    dims = data.draw(dim_tuples(x.tensor.ndim))
    keepdim = data.draw(st.booleans())
    axes = normalise_dims(dims, x.tensor.ndim)
    with np.errstate(all="ignore"):
        expected = _reduce_np(np.mean, x.array.astype(np.float64), axes, keepdim)
    assert_close(x.tensor.mean(dim=dims, keepdim=keepdim), expected, dtype=x.tensor.dtype, rtol=1e-4, atol=1e-5)


@given(data=st.data())
def test_mean_of_integers_with_dtype(data):
    """mean(int tensor, dtype=float64) converts, then averages."""
    x = data.draw(tensors(dtypes=INT_DTYPES + [ember.bool], shape=data.draw(shapes(allow_empty=False))))
    assert_close(ember.mean(x.tensor, dtype=ember.float64), np.mean(x.array.astype(np.float64)),
                 dtype=ember.float64)


@pytest.mark.parametrize("name", ["amax", "amin"])
@given(data=st.data())
def test_amax_amin_match_numpy(name, data):
    """amax/amin over any dims (every dim when none given) keep the dtype and give NumPy's max/min;
    reducing an empty dim is an error, as in NumPy."""
    x = data.draw(tensors())
    dims = data.draw(dim_tuples(x.tensor.ndim))
    keepdim = data.draw(st.booleans())
    axes = normalise_dims(dims, x.tensor.ndim)
    fn = getattr(ember, name)
    call = (lambda: fn(x.tensor, keepdim=keepdim)) if dims is None else (lambda: fn(x.tensor, dims, keepdim))
    if x.array.size == 0 and (not axes or any(x.array.shape[a] == 0 for a in axes)):
        with pytest.raises(Exception):
            call()
        return
    expected = _reduce_np(np.max if name == "amax" else np.min, x.array, axes, keepdim)
    assert_close(call(), expected, dtype=x.tensor.dtype)


@pytest.mark.parametrize("name", ["max", "min"])
@given(data=st.data())
def test_max_min_along_dim(name, data):
    """max/min(dim, keepdim) give (values, indices): NumPy's max/min and the index of the first
    extreme element; max()/min() with no dim give the overall value as a 0-d tensor."""
    x = data.draw(tensors(dtypes=INT_DTYPES + FLOAT_DTYPES, shape=data.draw(shapes(allow_empty=False))))
    t, a = x.tensor, x.array
    whole = getattr(t, name)()
    assert_close(whole, np.asarray(a.max() if name == "max" else a.min()), dtype=t.dtype, what=f"{name}()")
    dim = data.draw(valid_dim(t.ndim))
    keepdim = data.draw(st.booleans())
    values, indices = getattr(ember, name)(t, dim, keepdim)
    axis = dim % max(t.ndim, 1) if t.ndim else None
    arg = (np.argmax if name == "max" else np.argmin)(a, axis=axis)
    ext = (np.max if name == "max" else np.min)(a, axis=axis)
    if keepdim and t.ndim:
        arg, ext = np.expand_dims(arg, axis), np.expand_dims(ext, axis)
    assert_close(values, ext, dtype=t.dtype, what="values")
    assert_close(indices, arg.astype(np.int64), dtype=ember.int64, what="indices")
    named = getattr(t, name)(dim=dim, keepdim=keepdim)
    assert_close(named.values, ext, what="named values")
    assert_close(named.indices, arg, what="named indices")


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@given(data=st.data())
def test_argmax_argmin_first_occurrence(name, data):
    """argmax/argmin give NumPy's index of the first extreme element, flat when dim is None."""
    x = data.draw(tensors(dtypes=INT_DTYPES + FLOAT_DTYPES, shape=data.draw(shapes(allow_empty=False))))
    t, a = x.tensor, x.array
    ref = np.argmax if name == "argmax" else np.argmin
    fn = getattr(ember, name)
    assert_close(fn(t), np.asarray(ref(a)), dtype=ember.int64, what="flat")
    dim = data.draw(valid_dim(t.ndim))
    keepdim = data.draw(st.booleans())
    if t.ndim == 0:
        expected = np.asarray(0)
    else:
        expected = ref(a, axis=dim % t.ndim)
        if keepdim:
            expected = np.expand_dims(expected, dim % t.ndim)
    assert_close(fn(t, dim, keepdim), expected, dtype=ember.int64, what=f"dim={dim}")


@pytest.mark.parametrize("name", ["var", "std"])
@given(data=st.data())
def test_var_std_match_numpy(name, data):
    """var/std over any dims with unbiased= or correction= and keepdim equal NumPy's with ddof (NaN or
    inf where n - correction <= 0, as NumPy)."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, huge=False))
    dims = data.draw(dim_tuples(x.tensor.ndim))
    keepdim = data.draw(st.booleans())
    axes = normalise_dims(dims, x.tensor.ndim)
    how = data.draw(st.sampled_from(["default", "unbiased", "biased", "correction"]))
    ddof = {"default": 1, "unbiased": 1, "biased": 0}.get(how) if how != "correction" else data.draw(st.integers(0, 2))
    kwargs = {"unbiased": True} if how == "unbiased" else {"unbiased": False} if how == "biased" else \
        {"correction": ddof} if how == "correction" else {}
    a = x.array.astype(np.float64)
    n = int(np.prod([a.shape[i] for i in axes])) if axes else int(a.size)
    with np.errstate(all="ignore"):
        mean = np.mean(a, axis=axes, keepdims=True)
        ss = np.sum((a - mean) ** 2, axis=axes, keepdims=keepdim)
        expected = ss / max(n - ddof, 0) if n - ddof > 0 else ss / 0.0
        expected = np.sqrt(expected) if name == "std" else expected
        squares32 = np.sum(((a - mean) ** 2).astype(x.array.dtype), axis=axes, keepdims=keepdim)
    if known_failures.dodge("var-float32-underflow", n - ddof <= 0 and np.any((ss > 0) & (squares32 == 0))):
        return
    got = getattr(x.tensor, name)(dim=dims, keepdim=keepdim, **kwargs)
    assert_close(got, expected, dtype=x.tensor.dtype, rtol=1e-3 if x.tensor.dtype == ember.float32 else 1e-9,
                 atol=1e-4 if x.tensor.dtype == ember.float32 else 1e-10, what=f"{name}({dims}, {kwargs})")


@given(data=st.data())
def test_logsumexp_matches_numpy(data):
    """logsumexp(dim, keepdim) is log(sum(exp(x))) computed stably (-inf over an empty set)."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, lo=-30, hi=30))
    rank = x.tensor.ndim
    dims = data.draw(valid_dim(rank) | st.lists(st.integers(0, max(rank - 1, 0)), min_size=1, max_size=max(rank, 1),
                                                unique=True).map(tuple))
    keepdim = data.draw(st.booleans())
    axes = normalise_dims(dims, rank)
    a = x.array.astype(np.float64)
    with np.errstate(all="ignore"):
        m = np.max(a, axis=axes, keepdims=True, initial=-np.inf)
        m = np.where(np.isfinite(m), m, 0)
        expected = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    if not keepdim:
        expected = np.squeeze(expected, axis=axes) if rank else expected.reshape(())
    assert_close(ember.logsumexp(x.tensor, dims, keepdim), expected, dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf"), float("-inf"), 0.0])
@given(data=st.data())
def test_norm_matches_numpy(p, data):
    """norm(p, dim, keepdim) is (sum |x|^p)^(1/p); p=inf the max |x|, -inf the min, 0 the count of
    non-zeros."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, huge=False))
    dims = data.draw(dim_tuples(x.tensor.ndim))
    keepdim = data.draw(st.booleans())
    axes = normalise_dims(dims, x.tensor.ndim)
    a = np.abs(x.array.astype(np.float64))
    empty = a.size == 0 and (not axes or any(a.shape[i] == 0 for i in axes))
    if empty and np.isinf(p):
        return  # PyTorch: max/min of an empty set is an error
    with np.errstate(all="ignore"):
        if p == np.inf:
            expected = np.max(a, axis=axes, keepdims=keepdim)
        elif p == -np.inf:
            expected = np.min(a, axis=axes, keepdims=keepdim)
        elif p == 0:
            expected = np.sum(a != 0, axis=axes, keepdims=keepdim).astype(np.float64)
        else:
            expected = np.sum(a ** p, axis=axes, keepdims=keepdim) ** (1 / p)
    assert_close(x.tensor.norm(p, dims, keepdim), expected, dtype=x.tensor.dtype, rtol=1e-4, atol=1e-5,
                 what=f"norm(p={p}, dim={dims})")


@pytest.mark.parametrize("log", [False, True])
@given(data=st.data())
def test_softmax_log_softmax_match_numpy(log, data):
    """softmax(dim) is exp(x - logsumexp(x)) along dim, log_softmax its log; any rank, layout, dim."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES, lo=-30, hi=30))
    dim = data.draw(valid_dim(x.tensor.ndim))
    a = x.array.astype(np.float64)
    axis = dim % x.tensor.ndim if x.tensor.ndim else None
    # PyTorch's recipe (torch_rules): a slice holding +inf, or only -inf, is NaN throughout
    expected = (torch_rules.log_softmax if log else torch_rules.softmax)(a, axis)
    fn = ember.log_softmax if log else ember.softmax
    assert_close(fn(x.tensor, dim), expected, dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)
    method = x.tensor.log_softmax if log else x.tensor.softmax
    assert_close(method(dim=dim), expected, dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)


@given(data=st.data())
def test_median_matches_torch(data):
    """median() and median(dim, keepdim): the lower median ((n - 1) // 2-th in sorted order), NaN where the
    slice holds one (PyTorch's rule, not NumPy's mean of the middle two); the index points at an element
    equal to the value (which one among ties is PyTorch's implementation's choice)."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES + INT_DTYPES, shape=data.draw(shapes(allow_empty=False))))
    a = x.array
    if known_failures.dodge("median-nan", np.isnan(a) if is_float(x.tensor.dtype) else False):
        return
    assert_close(x.tensor.median(), torch_rules.median(a), dtype=x.tensor.dtype, what="median()")
    if known_failures.dodge("median-0d", a.ndim == 0):
        return
    dim, keepdim = data.draw(valid_dim(a.ndim)), data.draw(st.booleans())
    values, indices = ember.median(x.tensor, dim, keepdim)
    if a.ndim == 0:
        assert_close(values, a, dtype=x.tensor.dtype, what="values")
        assert_close(indices, np.int64(0), dtype=ember.int64, what="indices")
        return
    axis = dim % a.ndim
    want = torch_rules.median(a, axis)
    index = indices.numpy() if keepdim else np.expand_dims(indices.numpy(), axis)
    assert_close(values, np.expand_dims(want, axis) if keepdim else want, dtype=x.tensor.dtype, what="values")
    picked = np.take_along_axis(a, index, axis)
    assert_close(values, picked if keepdim else np.squeeze(picked, axis), what="the element at the index")
