"""PyTorch's semantics at boundary values (0, -0, +-inf, NaN, ties, the dtype's extremes), written in
NumPy for the property suite's oracles where NumPy's own functions differ from PyTorch's: NaN in
sign, sort, softmax, the cumulative extremes, shrink and step functions, lerp's two formulas,
binary_cross_entropy's clamps, the losses' ignored rows, and the analytic gradients PyTorch's
autograd gives where finite differences can't be taken (at inf, NaN, kinks and ties).

NumPy only, no Ember: tests/fixtures/check_torch_rules.py checks every rule here against PyTorch
itself on grids of boundary values (run it with PyTorch installed after changing a rule).
"""
from __future__ import annotations

import numpy as np

BCE_LOG_FLOOR = -100.0  # binary_cross_entropy clamps each log term at -100
BCE_GRAD_EPS = float(np.float32(1e-12))  # ... and its gradient's denominator p (1 - p) at 1e-12, a float
# constant in PyTorch's kernel (9.9999999600e-13 in float64 too)


def _quiet():
    return np.errstate(all="ignore")


# ---- values

def sign(x):
    """torch.sign: NaN gives 0 (NumPy's gives NaN); a bool is its own sign."""
    if np.asarray(x).dtype == np.bool_:
        return np.asarray(x).copy()
    with _quiet():
        return np.where(np.isnan(x), 0.0, np.sign(x)) if np.asarray(x).dtype.kind == "f" else np.sign(x)


def softmax(a, axis):
    """torch.softmax: exp(x - max) / sum along axis; the max is not replaced where it is infinite, so a
    slice holding +inf (or only -inf) is NaN throughout (NumPy recipes often shift by 0 instead)."""
    with _quiet():
        m = np.max(a, axis=axis, keepdims=True) if a.size else a
        e = np.exp(a - m)
        return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(a, axis):
    """torch.log_softmax: x - max - log(sum(exp(x - max))), the max kept as it is (see softmax)."""
    with _quiet():
        m = np.max(a, axis=axis, keepdims=True) if a.size else a
        shifted = a - m
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def sort_order(a, axis: int = -1, descending: bool = False):
    """The indices a stable torch.sort gives: NaN above every number (after +inf), equal entries keep
    their order, -0.0 equals 0.0."""
    moved = np.moveaxis(np.asarray(a), axis, -1)
    order = np.zeros(moved.shape, np.int64)
    if moved.size == 0:
        return np.moveaxis(order, -1, axis)
    nan = np.isnan(moved) if moved.dtype.kind == "f" else np.zeros(moved.shape, bool)
    value = np.where(nan, 0, moved).astype(np.float64 if moved.dtype.kind in "fb" else np.int64)
    # stable descending: the negated keys ascending (NaN first); np.lexsort sorts by its last key first
    # (~ for integers: -x overflows at the smallest int64, ~x = -x - 1 does not)
    keys = (-value if value.dtype.kind == "f" else ~value, ~nan) if descending else (value, nan)
    for pos in np.ndindex(moved.shape[:-1]):
        order[pos] = np.lexsort((keys[0][pos], keys[1][pos]))
    return np.moveaxis(order, -1, axis)


def cumulative_extreme(a, axis, is_max: bool):
    """torch.cummax / cummin: the running extreme and the last index where it is taken (ties move the
    index on); a NaN takes over from where it appears, and each later NaN moves the index to itself."""
    moved = np.moveaxis(np.asarray(a), axis, -1)
    values = moved.copy()
    indices = np.zeros(moved.shape, np.int64)
    floating = moved.dtype.kind == "f"
    for pos in np.ndindex(moved.shape[:-1]):
        best, where = None, 0
        for j in range(moved.shape[-1]):
            x = moved[pos + (j,)]
            better = best is None or (floating and np.isnan(x)) or (
                not (floating and np.isnan(best)) and (x >= best if is_max else x <= best))
            if better:
                best, where = x, j
            values[pos + (j,)] = best
            indices[pos + (j,)] = where
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def pool_argmax(window, axis=-1):
    """The index max_pool2d / adaptive_max_pool2d report in a window (flattened along axis): the first
    maximum, or the last NaN when the window holds one (their kernels take x > max or isnan(x))."""
    window = np.moveaxis(np.asarray(window), axis, -1)
    nan = np.isnan(window) if window.dtype.kind == "f" else np.zeros(window.shape, bool)
    last_nan = window.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
    return np.where(nan.any(axis=-1), last_nan, np.argmax(np.where(nan, -np.inf, window), axis=-1))


def hardshrink(x, lambd: float = 0.5):
    """torch's hardshrink: 0 where -lambd <= x <= lambd, x elsewhere (NaN stays NaN)."""
    return np.where((x >= -lambd) & (x <= lambd), 0.0, x)


def softshrink(x, lambd: float = 0.5):
    """torch's softshrink: x - lambd above lambd, x + lambd below -lambd, x * 0 between (NaN stays NaN)."""
    with _quiet():
        return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0.0))


def heaviside(x, values):
    """torch.heaviside: values where x == 0, else x > 0 (so NaN gives 0, not NaN)."""
    return np.where(x == 0, values, (x > 0).astype(np.result_type(x, values)))


def bucketize(x, boundaries, right: bool = False):
    """torch.bucketize: the insertion index into the sorted boundaries; NaN sorts above everything, so
    it lands past the last boundary (NumPy's searchsorted agrees)."""
    return np.searchsorted(boundaries, x, side="right" if right else "left").astype(np.int64)


def lerp(start, end, weight):
    """torch.lerp's two formulas: start + w (end - start) for |w| < 0.5, end - (end - start)(1 - w)
    otherwise (so lerp(0, inf, 0.75) is NaN and lerp(inf, 1, 0.75) is inf), each a fused multiply-add
    in PyTorch's kernels: computed here in a wider float and rounded once."""
    dtype = np.result_type(start, end, weight)
    wide = np.longdouble if dtype == np.float64 else np.float64
    s, e, w = (np.asarray(v).astype(wide) for v in (start, end, weight))
    with _quiet():
        diff = (e.astype(dtype) - s.astype(dtype)).astype(wide)  # end - start: rounded in the dtype
        return np.where(np.abs(w) < 0.5, s + w * diff, e - diff * (1 - w)).astype(dtype)


def median(a, axis=None):
    """torch.median's value: the lower median ((n - 1) // 2-th in sorted order), NaN if the slice has one."""
    a = np.asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    order = sort_order(a, axis)
    n = a.shape[axis]
    pick = np.take(order, [(n - 1) // 2], axis=axis)
    value = np.squeeze(np.take_along_axis(a, pick, axis), axis)
    if a.dtype.kind == "f":
        value = np.where(np.isnan(a).any(axis=axis), np.nan, value).astype(a.dtype)
    return value


# ---- losses

def binary_cross_entropy(p, y, weight=None):
    """-w (y log p + (1 - y) log(1 - p)), each log clamped at -100 (so p of exactly 0 or 1 is finite)."""
    with _quiet():
        lp = np.maximum(np.log(p), BCE_LOG_FLOOR)
        l1p = np.maximum(np.log1p(-p), BCE_LOG_FLOOR)
        loss = -(y * lp + (1 - y) * l1p)
    return loss if weight is None else loss * weight


def binary_cross_entropy_grad(p, y, weight=None):
    """d loss / d p: w (p - y) / max(p (1 - p), 1e-12): about +-1e12 at p of exactly 0 or 1, not inf."""
    with _quiet():
        g = (p - y) / np.maximum((1 - p) * p, BCE_GRAD_EPS)
    return g if weight is None else g * weight


def reduce_loss(loss, reduction: str, count=None):
    """mean (over count elements when given, the ignored ones left out), sum or none."""
    if reduction == "none":
        return loss
    with _quiet():
        total = np.sum(loss)
        return total if reduction == "sum" else total / (loss.size if count is None else count)


def class_nll(logp, target, ignore_index, smoothing: float = 0.0):
    """Per-element cross entropy from log-probabilities [N, C, ...] and targets [N, ...]: ignored
    elements are exactly 0, whatever their row holds (inf or NaN in an ignored row does not leak)."""
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    with _quiet():
        picked = -np.take_along_axis(logp, np.expand_dims(safe, 1), axis=1)[:, 0]
        loss = picked if not smoothing else (1 - smoothing) * picked + smoothing * (-logp.mean(axis=1))
    return np.where(valid, loss, 0.0), valid


# ---- gradients at boundary values: PyTorch's analytic rules, as functions of (x, upstream grad)

def relu_grad(x, g):
    """threshold_backward: g where x > 0 and where x is NaN (NaN <= 0 is false), else 0."""
    return np.where(x <= 0, 0.0, g)


def abs_grad(x, g):
    """g * sgn(x): 0 at +-0, and NaN at NaN."""
    return g * sign(x) if np.asarray(x).dtype.kind == "f" else g * np.sign(x)


def clamp_grad(x, g, lo=None, hi=None):
    """clamp with number bounds: g strictly inside (lo, hi), 0 at the bounds, outside them and at NaN."""
    keep = np.ones(np.shape(x), bool)
    if lo is not None:
        keep &= x > lo
    if hi is not None:
        keep &= x < hi
    return np.where(keep, g, 0.0)


def hardtanh_grad(x, g, lo=-1.0, hi=1.0):
    """hardtanh_backward (relu6 too): 0 where x <= lo or x >= hi, g elsewhere. At NaN PyTorch's answer
    depends on where the element falls: g in the scalar tail of its kernel, 0 in a vectorized block;
    VARIES_AT_NAN lists the rules with that caveat, whose tests leave NaN positions out."""
    return np.where((x <= lo) | (x >= hi), 0.0, g)


def leaky_relu_grad(x, g, slope):
    """g where x > 0, slope * g elsewhere (x = 0 and NaN included)."""
    return np.where(x > 0, g, g * slope)


def shrink_grad(x, g, lambd: float = 0.5):
    """hardshrink/softshrink backward: 0 where -lambd <= x <= lambd, g elsewhere (at NaN: see
    hardtanh_grad)."""
    return np.where((x >= -lambd) & (x <= lambd), 0.0, g)


VARIES_AT_NAN = (hardtanh_grad, shrink_grad)


def maximum_grads(a, b, g):
    """maximum(a, b) backward (derivatives.yaml): g / 2 to each on a tie, else g, masked to 0 on the
    smaller side; a NaN compares neither way, so both sides get g."""
    with _quiet():
        share = np.where(a == b, g / 2, g)
        return np.where(a < b, 0.0, share), np.where(a > b, 0.0, share)


def minimum_grads(a, b, g):
    """minimum(a, b) backward: as maximum's, masked on the larger side."""
    with _quiet():
        share = np.where(a == b, g / 2, g)
        return np.where(a > b, 0.0, share), np.where(a < b, 0.0, share)


def evenly_distributed_grad(x, value, g):
    """max()/min()/median() with no dim: g shared evenly among the elements equal to the result (the
    NaN ones when the result is NaN)."""
    mask = np.isnan(x) if np.isnan(value) else (x == value)
    with _quiet():
        return np.where(mask, g / mask.sum(), 0.0)


def amax_grad(x, value, g, axis=None):
    """amax/amin backward: (g / count) * (x == value) per slice; a NaN result equals nothing, so its
    whole slice gets (g / 0) * 0 = NaN."""
    value = np.asarray(value)
    if axis is not None:
        value, g = np.expand_dims(value, axis), np.expand_dims(g, axis)
    mask = x == value
    with _quiet():
        return (g / mask.sum(axis=axis, keepdims=axis is not None)) * mask


def smooth_l1_grad(d, g, beta: float):
    """d loss / d input for d = input - target: d / beta inside |d| < beta, +-1 outside (+-1 at an
    infinite difference, not NaN; NaN at NaN); beta = 0 is l1's sign(d) (0 at NaN)."""
    with _quiet():
        if beta == 0:
            return g * sign(d)
        return g * np.where(d < -beta, -1.0, np.where(d > beta, 1.0, d / beta))


def huber_grad(d, g, delta: float):
    """d loss / d input: d inside [-delta, delta], +-delta outside (finite at an infinite difference)."""
    return g * np.where(d < -delta, -delta, np.where(d > delta, delta, d))


def bce_with_logits_grad(x, y, g, pos_weight=None):
    """binary_cross_entropy_with_logits: d loss / d x = (1 + (pw - 1) y) sigmoid(x) - pw y (sigmoid(0) - y
    at a logit of exactly 0; 0 or -pw y at +-inf)."""
    pw = 1.0 if pos_weight is None else pos_weight
    with _quiet():
        return g * ((1 + (pw - 1) * y) / (1 + np.exp(-x)) - pw * y)


def logsigmoid_grad(x, g):
    """log_sigmoid: d / dx = 1 - sigmoid(x) = sigmoid(-x) (0.5 at 0)."""
    with _quiet():
        return g / (1 + np.exp(x))


def cross_entropy_grad(x, target, ignore_index, smoothing, g, reduction):
    """d cross_entropy / d logits [N, C]: (softmax(x) - (1 - e) onehot - e / C) times the upstream gradient
    (g / count of kept targets for mean); 0 in ignored rows, except that log_softmax's backward multiplies
    the row's softmax by that 0, so a row holding NaN or +inf gets NaN, ignored or not (PyTorch's too)."""
    n, c = x.shape
    valid = target != ignore_index
    want = (1 - smoothing) * np.eye(c)[np.where(valid, target, 0)] + smoothing / c
    p = np.exp(log_softmax(x, 1))
    scale = g if reduction == "none" else g / max(valid.sum(), 1) if reduction == "mean" else np.full(n, g)
    kept = valid[:, None].astype(float)
    with _quiet():
        return (p * kept - want * kept) * np.reshape(np.broadcast_to(scale, (n,)), (n, 1))
