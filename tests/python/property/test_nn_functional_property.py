"""Layers as functions against straightforward NumPy references: conv2d, max_pool2d, avg_pool2d,
adaptive_avg_pool2d, batch_norm (training and eval, running statistics), layer_norm, dropout and the
losses (cross_entropy with ignore_index and label_smoothing, nll, mse, l1, smooth_l1, bce_with_logits)."""
import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import ember
import ember.nn.functional as F
import known_failures
import torch_rules
from reference import assert_close, to_numpy
from strategies import FLOAT_DTYPES, layout, numel, shapes, tensors

_POOL_TOL = dict(rtol=1e-5, atol=1e-5)


def conv2d_reference(x, w, b, stride, padding, dilation, groups):
    """Direct convolution (cross-correlation) in float64."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    per = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                hs, ws = i * dilation[0], j * dilation[1]
                patch = xp[:, g * cg:(g + 1) * cg, hs:hs + stride[0] * (oh - 1) + 1:stride[0],
                           ws:ws + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, g * per:(g + 1) * per] += np.einsum("nchw,oc->nohw", patch, w[g * per:(g + 1) * per, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def _pair(draw, lo, hi):
    return (draw(st.integers(lo, hi)), draw(st.integers(lo, hi)))


@given(data=st.data())
def test_conv2d_matches_numpy(data):
    """conv2d with any stride, padding, dilation, groups and optional bias is the direct NumPy convolution."""
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    groups = data.draw(st.integers(1, 2))
    cg, per = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    kernel, stride, padding, dilation = _pair(data.draw, 1, 3), _pair(data.draw, 1, 2), _pair(data.draw, 0, 2), \
        _pair(data.draw, 1, 2)
    n, h, w = data.draw(st.integers(0, 2)), data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    assume(all(s + 2 * p - d * (k - 1) - 1 >= 0 for s, p, d, k in zip((h, w), padding, dilation, kernel)))
    x = data.draw(tensors(shape=(n, groups * cg, h, w), dtype=dtype, huge=False))  # sums of products
    weight = data.draw(tensors(shape=(groups * per, cg) + kernel, dtype=dtype, huge=False))
    bias = data.draw(st.none() | tensors(shape=(groups * per,), dtype=dtype))
    expected = conv2d_reference(x.array, weight.array, None if bias is None else bias.array, stride, padding,
                                dilation, groups)
    got = ember.conv2d(x.tensor, weight.tensor, None if bias is None else bias.tensor, stride, padding, dilation,
                       groups)
    assert_close(got, expected, dtype=dtype, rtol=1e-5, atol=1e-4)


def _pool_out(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _windows(size, k, s, p, d, ceil):
    """Per output position: the input indices the window covers (inside the input) and, for avg's
    count_include_pad, the window's extent clipped to the padded input."""
    for o in range(_pool_out(size, k, s, p, d, ceil)):
        start = o * s - p
        taps = [start + i * d for i in range(k)]
        inside = [t for t in taps if 0 <= t < size]
        padded_end = min(start + k, size + p)
        yield inside, padded_end - start, start


@st.composite
def pool_args(draw, dilation: bool):
    k = _pair(draw, 1, 3)
    s = draw(st.none() | st.tuples(st.integers(1, 3), st.integers(1, 3)))
    p = tuple(draw(st.integers(0, kk // 2)) for kk in k)
    d = _pair(draw, 1, 2) if dilation else (1, 1)
    ceil = draw(st.booleans())
    h, w = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    assume(all(size + 2 * pp - dd * (kk - 1) - 1 >= 0 for size, pp, dd, kk in zip((h, w), p, d, k)))
    lead = draw(st.sampled_from([(1,), (2,), (1, 2), (2, 1), (0, 2)]))  # [C, H, W] or [N, C, H, W]
    return k, s, p, d, ceil, lead + (h, w)


@given(data=st.data())
def test_max_pool2d_matches_numpy(data):
    """max_pool2d (kernel, stride, padding, dilation, ceil_mode; 3-D or 4-D input) takes each window's max
    over the input positions it covers; return_indices gives their flat h * W + w positions."""
    k, s, p, d, ceil, shape = data.draw(pool_args(dilation=True))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    values = np.random.default_rng(data.draw(st.integers(0, 1000))).permutation(int(np.prod(shape))).reshape(shape)
    x = data.draw(layout(values.astype(ember_np(dtype))))  # distinct values: the arg max is unique
    stride = s or k
    h, w = shape[-2:]
    rows, cols = list(_windows(h, k[0], stride[0], p[0], d[0], ceil)), list(_windows(w, k[1], stride[1], p[1], d[1], ceil))
    lead = shape[:-2]
    out = np.zeros(lead + (len(rows), len(cols)))
    idx = np.zeros(out.shape, np.int64)
    empty = np.zeros(out.shape, bool)
    for i, (r, _, _) in enumerate(rows):
        for j, (c, _, _) in enumerate(cols):
            window = x.array[..., r, :][..., c].reshape(lead + (len(r) * len(c),))
            flat = np.array([[rr * w + cc for cc in c] for rr in r]).reshape(-1)
            am = np.argmax(window, axis=-1) if window.shape[-1] else np.zeros(lead, np.int64)
            # a window over padding only (dilation can skip the input) is -inf, as PyTorch's
            out[..., i, j] = np.take_along_axis(window, am[..., None], -1)[..., 0] if window.size else -np.inf
            idx[..., i, j] = flat[am] if flat.size else 0
            empty[..., i, j] = not flat.size
    got, got_idx = ember.max_pool2d(x.tensor, k, s, p, d, ceil, True)
    assert_close(got, out, dtype=dtype, what="values")
    # NB: no index for a padding-only window: PyTorch's points past the input
    assert_close(got_idx, np.where(empty, to_numpy(got_idx), idx), dtype=ember.int64, what="indices")
    assert_close(ember.max_pool2d(x.tensor, k, stride=s, padding=p, dilation=d, ceil_mode=ceil), out)


def ember_np(dtype):
    return np.float32 if dtype == ember.float32 else np.float64


@given(data=st.data())
def test_avg_pool2d_matches_numpy(data):
    """avg_pool2d averages each window; count_include_pad counts the padding (not the part past it under
    ceil_mode), divisor_override replaces the count."""
    k, s, p, _, ceil, shape = data.draw(pool_args(dilation=False))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(tensors(shape=shape, dtype=dtype, huge=False))  # a window sums in the dtype
    include = data.draw(st.booleans())
    override = data.draw(st.none() | st.integers(1, 5))
    stride = s or k
    h, w = shape[-2:]
    rows, cols = list(_windows(h, k[0], stride[0], p[0], 1, ceil)), list(_windows(w, k[1], stride[1], p[1], 1, ceil))
    out = np.zeros(shape[:-2] + (len(rows), len(cols)))
    for i, (r, rext, _) in enumerate(rows):
        for j, (c, cext, _) in enumerate(cols):
            total = x.array[..., r, :][..., c].astype(np.float64).sum(axis=(-1, -2))
            divisor = override or (rext * cext if include else len(r) * len(c))
            out[..., i, j] = total / divisor
    got = ember.avg_pool2d(x.tensor, k, s, p, ceil, include, override)
    assert_close(got, out, dtype=dtype, **_POOL_TOL)


@given(data=st.data())
def test_adaptive_avg_pool2d_matches_numpy(data):
    """adaptive_avg_pool2d(out) averages bins [floor(i H / out), ceil((i + 1) H / out))."""
    shape = data.draw(st.sampled_from([(1,), (2,), (2, 1), (0, 1)])) + (data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7)))
    x = data.draw(tensors(shape=shape, dtypes=FLOAT_DTYPES, huge=False))  # a bin sums in the dtype
    oh, ow = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    h, w = shape[-2:]
    out = np.zeros(shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            r = slice(i * h // oh, -(-(i + 1) * h // oh))
            c = slice(j * w // ow, -(-(j + 1) * w // ow))
            out[..., i, j] = x.array[..., r, c].astype(np.float64).mean(axis=(-1, -2))
    size = (oh, ow) if data.draw(st.booleans()) or oh != ow else oh
    assert_close(ember.adaptive_avg_pool2d(x.tensor, size), out, dtype=x.tensor.dtype, **_POOL_TOL)


@given(data=st.data())
def test_batch_norm_matches_numpy(data):
    """batch_norm in training normalises with the batch's biased variance and moves the running stats by
    momentum (unbiased variance); in eval it uses the running stats; weight and bias optional."""
    c = data.draw(st.integers(1, 3))
    shape = (data.draw(st.integers(2, 4)), c) + data.draw(st.sampled_from([(), (3,), (2, 2)]))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(tensors(shape=shape, dtype=dtype, huge=False))  # the batch statistics sum in the dtype
    rm = data.draw(tensors(shape=(c,), dtype=dtype, layouts=("contiguous",), huge=False))
    rv = data.draw(tensors(shape=(c,), dtype=dtype, layouts=("contiguous",), lo=0.5, hi=2))
    # (no largest weight: weight / sqrt(var + eps) overflows float32 there, which the float64 oracle can't follow)
    weight = data.draw(st.none() | tensors(shape=(c,), dtype=dtype, huge=False))
    bias = data.draw(st.none() | tensors(shape=(c,), dtype=dtype))
    training = data.draw(st.booleans())
    momentum, eps = data.draw(st.sampled_from([0.1, 0.5, 1.0])), data.draw(st.sampled_from([1e-5, 1e-3]))
    a = x.array.astype(np.float64)
    axes = (0,) + tuple(range(2, a.ndim))
    bshape = (1, c) + (1,) * (a.ndim - 2)
    with np.errstate(all="ignore"):
        if training:
            mean, var = a.mean(axis=axes), a.var(axis=axes)
            n = a.size // c
            new_rm = (1 - momentum) * rm.array + momentum * mean
            new_rv = (1 - momentum) * rv.array + momentum * var * n / (n - 1)
        else:
            mean, var = rm.array.astype(np.float64), rv.array.astype(np.float64)
            new_rm, new_rv = rm.array, rv.array
        # PyTorch's form, x * alpha + (bias - mean * alpha) with alpha = weight / sqrt(var + eps): an
        # infinite weight gives inf - inf = NaN where (x - mean) * alpha would give +-inf.
        alpha = (1.0 if weight is None else weight.array.astype(np.float64)) / np.sqrt(var + eps)
        beta = (0.0 if bias is None else bias.array.astype(np.float64)) - mean * alpha
        expected = a * alpha.reshape(bshape) + np.reshape(beta, bshape)
    got = ember.batch_norm(x.tensor, rm.tensor, rv.tensor, None if weight is None else weight.tensor,
                           None if bias is None else bias.tensor, training, momentum, eps)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == ember.float32 else dict(rtol=1e-9, atol=1e-9)
    if known_failures.dodge("norm-inf-weight", weight is not None and not np.isfinite(weight.array).all()):
        return
    # NB: x * scale + shift (PyTorch's form too) loses about one float32 ulp of |x| * scale, scale up to
    # |weight| / sqrt(eps) when the variance is ~0 (finite values only: the rest are compared exactly).
    finite = [v[np.isfinite(v)] for v in map(np.asarray, (a, var, 1.0 if weight is None else weight.array))]
    smallest_var = float(np.min(finite[1])) if finite[1].size else 1.0
    scale = float(np.max(np.abs(finite[2]), initial=0.0)) / np.sqrt(smallest_var + eps)
    out_tol = dict(tol, atol=tol["atol"] + (4e-7 if dtype == ember.float32 else 1e-15) *
                   float(np.max(np.abs(finite[0]), initial=0.0)) * scale)
    assert_close(got, expected, dtype=dtype, what="output", **out_tol)
    assert_close(rm.tensor, new_rm, what="running_mean", **tol)
    assert_close(rv.tensor, new_rv, what="running_var", **tol)


@given(data=st.data())
def test_layer_norm_matches_numpy(data):
    """layer_norm over the trailing normalized_shape dims (biased variance, eps), weight and bias optional."""
    shape = data.draw(shapes(min_dims=1, max_dims=5, allow_empty=False))
    k = data.draw(st.integers(1, len(shape)))
    norm_shape = shape[len(shape) - k:]
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(tensors(shape=shape, dtype=dtype, huge=False))  # statistics sum in the dtype
    weight = data.draw(st.none() | tensors(shape=norm_shape, dtype=dtype))
    bias = data.draw(st.none() | tensors(shape=norm_shape, dtype=dtype))
    eps = data.draw(st.sampled_from([1e-5, 1e-2]))
    a = x.array.astype(np.float64)
    axes = tuple(range(len(shape) - k, len(shape)))
    expected = (a - a.mean(axis=axes, keepdims=True)) / np.sqrt(a.var(axis=axes, keepdims=True) + eps)
    if weight is not None:
        expected = expected * weight.array
    if bias is not None:
        expected = expected + bias.array
    got = ember.layer_norm(x.tensor, list(norm_shape), None if weight is None else weight.tensor,
                           None if bias is None else bias.tensor, eps)
    assert_close(got, expected, dtype=dtype, rtol=1e-4, atol=1e-4)


@given(data=st.data())
def test_dropout_keeps_or_scales(data):
    """dropout gives x unchanged in eval or with p=0, x * 0 with p=1, and otherwise each element x * 0 or
    x / (1 - p) (x * 0 is NaN for inf and NaN, as in PyTorch)."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES))
    p = data.draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]))
    training = data.draw(st.booleans())
    g = ember.Generator(data.draw(st.integers(0, 100)))
    got = to_numpy(ember.dropout(x.tensor, p, training, generator=g)).astype(np.float64)
    a = x.array.astype(np.float64)
    assert got.shape == a.shape
    if not training or p == 0:
        np.testing.assert_array_equal(got, a)
    elif p == 1:  # x * 0, as PyTorch: NaN for inf and NaN
        np.testing.assert_array_equal(got, a * 0.0)
    else:
        tiny = np.finfo(x.array.dtype).tiny  # a subnormal x / (1 - p) rounds to the subnormals' spacing
        kept = np.isclose(got, a / (1 - p), rtol=1e-6, atol=tiny, equal_nan=True)
        dropped = (got == 0) | (np.isnan(got) & ~np.isfinite(a))  # x * 0
        assert np.all(kept | dropped), (got, a)


# ---- losses

def _reduce(loss, reduction, count=None):
    return torch_rules.reduce_loss(loss, reduction, count)


def cross_entropy_reference(x, target, ignore_index, reduction, smoothing, log_probs=False):
    """PyTorch's cross_entropy (or nll_loss on log-probabilities) for class-index targets, class dim 1:
    an ignored target adds exactly 0, whatever its row holds."""
    x = x.astype(np.float64)
    logp = x if log_probs else torch_rules.log_softmax(x, 1)
    loss, valid = torch_rules.class_nll(logp, target, ignore_index, smoothing)
    return _reduce(loss, reduction, count=valid.sum())


def leaks_from_ignored_rows(x, target, ignore_index) -> bool:
    """An ignored target whose row holds inf or NaN (the known bug "ce-ignored-rows")."""
    ignored = np.expand_dims(target == ignore_index, 1)
    return bool(np.any(ignored & ~np.isfinite(x)))


@st.composite
def classification(draw):
    """Logits [N, C] or [N, C, d...] of any layout and class-index targets (some == ignore_index)."""
    n, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    extra = draw(st.sampled_from([(), (2,), (1, 2)]))
    x = draw(tensors(shape=(n, c) + extra, dtypes=FLOAT_DTYPES, huge=False))  # the reductions sum in the dtype
    ignore = draw(st.sampled_from([-100, 0, 1]))
    target = np.array(draw(st.lists(st.integers(0, c - 1) | st.just(ignore).filter(lambda v: v < 0 or v < c),
                                    min_size=n * int(np.prod(extra)), max_size=n * int(np.prod(extra)))),
                      np.int64).reshape((n,) + extra)
    return x, target, ignore


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@given(data=st.data())
def test_cross_entropy_matches_numpy(reduction, data):
    """cross_entropy with ignore_index and label_smoothing is -(1-e) log p[target] - e mean(log p) over the
    non-ignored targets (mean divides by their count)."""
    x, target, ignore = data.draw(classification())
    smoothing = data.draw(st.sampled_from([0.0, 0.1, 0.5]))
    assume((target != ignore).any() or reduction != "mean")  # all ignored: NaN, see test_grad_property
    if known_failures.dodge("ce-ignored-rows", leaks_from_ignored_rows(x.array, target, ignore)):
        return
    expected = cross_entropy_reference(x.array, target, ignore, reduction, smoothing)
    got = F.cross_entropy(x.tensor, ember.tensor(target), ignore_index=ignore, reduction=reduction,
                          label_smoothing=smoothing)
    assert_close(got, expected, dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@given(data=st.data())
def test_nll_loss_matches_numpy(reduction, data):
    """nll_loss(log-probabilities, target, ignore_index) is -input[target] over the non-ignored targets."""
    x, target, ignore = data.draw(classification())
    assume((target != ignore).any() or reduction != "mean")
    if known_failures.dodge("ce-ignored-rows", leaks_from_ignored_rows(x.array, target, ignore)):
        return
    expected = cross_entropy_reference(x.array, target, ignore, reduction, 0.0, log_probs=True)
    got = F.nll_loss(x.tensor, ember.tensor(target), ignore_index=ignore, reduction=reduction)
    assert_close(got, expected, dtype=x.tensor.dtype, rtol=1e-5, atol=1e-5)


def _smooth_l1(d, beta):
    a = np.abs(d)
    with np.errstate(all="ignore"):
        return a if beta == 0 else np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def _bce_logits(x, y, pw):
    """PyTorch's form, (1 - y) x - (1 + (pw - 1) y) log_sigmoid(x): an infinite target gives -inf
    where the textbook form gives inf - inf."""
    with np.errstate(all="ignore"):
        log_weight = 1.0 if pw is None else 1 + (pw - 1) * y
        return (1 - y) * x - log_weight * -np.logaddexp(0, -x)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                  "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@given(data=st.data())
def test_pointwise_losses_match_numpy(name, reduction, data):
    """mse, l1, smooth_l1 (any beta), huber (any delta) and bce_with_logits (optional pos_weight over the last
    dim) are NumPy's formulas, reduced by mean, sum or none; any shape and layout."""
    shape = data.draw(shapes(max_dims=5))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    # NB: no largest finite value: mean and sum add in the dtype, where max + max - max is inf or max
    # depending on the order
    x = data.draw(tensors(shape=shape, dtype=dtype, huge=False))
    y = data.draw(tensors(shape=shape, dtype=dtype, huge=False, **({"lo": 0, "hi": 1} if "binary" in name else {})))
    a, b = x.array.astype(np.float64), y.array.astype(np.float64)
    kwargs = {}
    if name == "mse_loss":
        loss = (a - b) ** 2
    elif name == "l1_loss":
        loss = np.abs(a - b)
    elif name == "smooth_l1_loss":
        kwargs["beta"] = data.draw(st.sampled_from([1.0, 0.5, 2.0, 0.0]))
        loss = _smooth_l1(a - b, kwargs["beta"])
    elif name == "huber_loss":
        delta = kwargs["delta"] = data.draw(st.sampled_from([1.0, 0.5, 2.0]))
        d = np.abs(a - b)
        loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    else:
        pw = None
        if shape and data.draw(st.booleans()):
            pw = data.draw(tensors(shape=shape[-1:], dtype=dtype, lo=0.1, hi=3))
            kwargs["pos_weight"] = pw.tensor
        loss = _bce_logits(a, b, None if pw is None else pw.array.astype(np.float64))
    expected = _reduce(loss, reduction)
    got = getattr(F, name)(x.tensor, y.tensor, reduction=reduction, **kwargs)
    assert_close(got, expected, dtype=dtype, rtol=1e-5, atol=1e-5)


@given(data=st.data())
def test_binary_cross_entropy_matches_torch(data):
    """binary_cross_entropy(p, y, weight) is -w (y log p + (1 - y) log(1 - p)) with each log clamped at
    -100, so p of exactly 0 or 1 gives a finite loss (PyTorch's rule); a p outside [0, 1] (NaN too) is
    an error."""
    shape = data.draw(shapes(max_dims=4))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    reduction = data.draw(st.sampled_from(["mean", "sum", "none"]))
    p = data.draw(tensors(shape=shape, dtype=dtype, lo=0, hi=1, nonfinite=False), label="p")
    y = data.draw(tensors(shape=shape, dtype=dtype, lo=0, hi=1, nonfinite=False), label="y")
    weight = data.draw(st.none() | tensors(shape=shape[-1:], dtype=dtype, lo=0, hi=3, nonfinite=False), label="w")
    kwargs = {} if weight is None else {"weight": weight.tensor}
    if numel(shape) and data.draw(st.booleans()):  # one probability outside [0, 1]
        bad = p.array.copy()
        bad.flat[data.draw(st.integers(0, bad.size - 1))] = data.draw(st.sampled_from([1.5, -0.25, np.nan, np.inf]))
        if not known_failures.dodge("bce-outside-range", True):
            with pytest.raises((ValueError, RuntimeError)):
                F.binary_cross_entropy(ember.tensor(bad), y.tensor, reduction=reduction, **kwargs)
        return
    if known_failures.dodge("vector-math-subnormal", (p.array > 0) & (p.array < np.finfo(p.array.dtype).tiny)):
        return
    loss = torch_rules.binary_cross_entropy(p.array.astype(np.float64), y.array.astype(np.float64),
                                            None if weight is None else weight.array.astype(np.float64))
    got = F.binary_cross_entropy(p.tensor, y.tensor, reduction=reduction, **kwargs)
    assert_close(got, _reduce(loss, reduction), dtype=dtype, rtol=1e-5, atol=1e-5)
