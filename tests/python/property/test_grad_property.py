"""Gradients of every differentiable op against central finite differences (float64): each case draws
its inputs (shapes of rank 0 to 8, broadcasting, 1 to 40 joined tensors), makes them leaves of any
layout (permuted, strided views of NumPy memory, expanded), backpropagates a random cotangent and
compares every leaf's .grad. Inputs avoid the kinks of abs, relu, clamp and max ties by construction
(central differences need a smooth neighbourhood); test_boundary_grad_property.py checks the gradients
there, and at inf and NaN, against PyTorch's analytic rules."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
import op_db
from reference import check_gradients, to_numpy
from strategies import (LAYOUTS, MAX_INPUTS, broadcastable_shapes, dim_tuples, index_keys, layout, numel, seeds,
                        shapes, valid_dim)

NO_EXPAND = ("contiguous", "permuted", "strided")  # for inputs whose values must stay distinct
CASES = {}


def case(name, layouts=LAYOUTS):
    """Registers a gradient case: a function of `draw` giving (fn, input arrays)."""
    def register(make):
        CASES[name] = (make, layouts)
        return make
    return register


def values(draw, shape, kind="any"):
    """float64 values of a shape: "any" in [-2, 2], "positive" in [0.5, 2], "unit" in [-0.9, 0.9],
    "above_one" in [1.2, 3], "away" from 0 (|x| >= 0.2),
    "distinct" (gaps of at least 1/16 of the range, so max and sort are stable under eps)."""
    rng = np.random.default_rng(draw(seeds()))
    n = numel(shape)
    if kind == "positive":
        v = rng.uniform(0.5, 2, n)
    elif kind == "unit":
        v = rng.uniform(-0.9, 0.9, n)
    elif kind == "above_one":
        v = rng.uniform(1.2, 3, n)
    elif kind == "away":
        v = rng.choice([-1.0, 1.0], n) * rng.uniform(0.2, 2, n)
    elif kind == "distinct":
        v = (rng.permutation(n) + rng.uniform(0.2, 0.8, n)) * (4.0 / max(n, 1)) - 2
    elif kind == "distinct_abs":
        v = rng.choice([-1.0, 1.0], n) * ((rng.permutation(n) + rng.uniform(0.2, 0.8, n)) * (2.0 / max(n, 1)) + 0.1)
    else:
        v = rng.uniform(-2, 2, n)
    return v.reshape(shape)


def any_shape(draw, **kwargs):
    return draw(shapes(**kwargs))


# ---- elementwise

def domain_values(draw, shape, domain, avoid):
    """float64 values of a shape drawn from the database's domain, moved 0.4 past any point of
    `avoid` they fall within 0.2 of (as tests/ops/op_db_test.cpp draws them)."""
    rng = np.random.default_rng(draw(seeds()))
    v = rng.uniform(*domain, numel(shape))
    for p in avoid:
        v = np.where(np.abs(v - p) < 0.2, np.where(v >= p, v + 0.4, v - 0.4), v)
    return v.reshape(shape)


# every case of the op database (ops/ops.toml) that is differentiable...
for _c in op_db.UNARY:
    if _c.grad:
        case(_c.name)(lambda draw, c=_c: (op_db.function(c), [domain_values(draw, any_shape(draw), c.domain[0],
                                                                            c.avoid)]))
# ...and the forms outside it
_UNARY = {
    "rpow": (lambda t: 1.7 ** t, "any"), "rdiv": (lambda t: 3.0 / t, "away"), "rsub": (lambda t: 1.5 - t, "any"),
    "mul_scalar": (lambda t: t * -2.5, "any"), "div_scalar": (lambda t: t / 4.0, "any"),
    "clone": (lambda t: t.clone() * 1.0, "any"), "contiguous": (lambda t: t.contiguous() * 1.0, "any"),
    "to_float64": (lambda t: t.to(ember.float64) * 1.0, "any"), "silu": (F.silu, "any"),
}
for _name, (_fn, _kind) in _UNARY.items():
    case(_name)(lambda draw, fn=_fn, kind=_kind: (fn, [values(draw, any_shape(draw), kind)]))


@case("sort_topk_kthvalue_cumsum", layouts=NO_EXPAND)  # an expanded view repeats values: ties
def _sort_family(draw):
    shape = any_shape(draw, min_dims=1, max_dims=4)
    d = draw(st.integers(0, len(shape) - 1))
    kinds = ["sort", "topk", "kthvalue", "cumsum"] if shape[d] else ["sort", "topk", "cumsum"]
    kind = draw(st.sampled_from(kinds))
    x = values(draw, shape, "distinct")  # distinct values: the order is stable under eps
    if kind == "sort":
        desc = draw(st.booleans())
        return (lambda t: ember.sort(t, d, desc)[0]), [x]
    if kind == "topk":
        k = draw(st.integers(0, shape[d]))
        return (lambda t: ember.topk(t, k, d)[0]), [x]
    if kind == "kthvalue":
        k = draw(st.integers(1, shape[d]))
        return (lambda t: ember.kthvalue(t, k, d)[0]), [x]
    return (lambda t: ember.cumsum(t, d)), [x]


@case("tril_triu")
def _tril_triu(draw):
    k = draw(st.integers(-3, 3))
    fn = draw(st.sampled_from([ember.tril, ember.triu]))
    return (lambda t: fn(t, k)), [values(draw, any_shape(draw, min_dims=2))]


@case("flip_roll")
def _flip_roll(draw):
    shape = any_shape(draw, min_dims=1)
    nd = len(shape)
    dims = draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    shifts = [draw(st.integers(-5, 5)) for _ in dims]
    if draw(st.booleans()):
        return (lambda t: ember.flip(t, dims)), [values(draw, shape)]
    return (lambda t: ember.roll(t, shifts, dims)), [values(draw, shape)]


@case("repeat")
def _repeat(draw):
    shape = any_shape(draw, max_dims=4, max_numel=12)
    reps = [draw(st.integers(1, 3)) for _ in range(len(shape) + draw(st.integers(0, 1)))] or [2]
    return (lambda t: t.repeat(*reps)), [values(draw, shape)]


@case("repeat_interleave")
def _repeat_interleave(draw):
    shape = any_shape(draw, min_dims=1, max_dims=4)
    r, d = draw(st.integers(1, 3)), draw(st.integers(0, len(shape) - 1))
    return (lambda t: t.repeat_interleave(r, dim=d)), [values(draw, shape)]


@case("outer_addmm_baddbmm")
def _products(draw):
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    kind = draw(st.sampled_from(["outer", "addmm", "baddbmm"]))
    if kind == "outer":
        return ember.outer, [values(draw, (m,)), values(draw, (n,))]
    if kind == "addmm":
        return (lambda s, a, b: ember.addmm(s, a, b, beta=0.5, alpha=-1.5)), \
            [values(draw, (n,)), values(draw, (m, k)), values(draw, (k, n))]
    return (lambda s, a, b: ember.baddbmm(s, a, b, beta=2.0, alpha=0.5)), \
        [values(draw, (m, n)), values(draw, (2, m, k)), values(draw, (2, k, n))]


@case("clamp bounds")
def _clamp(draw):
    x = values(draw, any_shape(draw))
    x[np.abs(x + 0.55) < 0.05] += 0.1
    x[np.abs(x - 0.65) < 0.05] += 0.1
    lo, hi = draw(st.sampled_from([(-0.55, 0.65), (None, 0.65), (-0.55, None)]))
    return (lambda t: ember.clamp(t, lo, hi)), [x]


# the database's maximum and minimum forms: their inputs distinct (below), so no ties
_EXTREMES = ("maximum", "minimum", "max other", "min other")
for _c in op_db.BINARY:
    if _c.grad and _c.name not in _EXTREMES:
        @case(_c.name)
        def _binary(draw, c=_c):
            sa, sb = draw(broadcastable_shapes(2))
            return op_db.function(c), [domain_values(draw, sa, c.domain[0], c.avoid),
                                       domain_values(draw, sb, c.domain[1], c.avoid)]


_BINARY = {
    "add_alpha": (lambda a, b: ember.add(a, b, alpha=-1.5), "any", "any"),
    "sub_alpha": (lambda a, b: ember.sub(a, b, alpha=0.5), "any", "any"),
    "operators": (lambda a, b: (a + b) * a - b / (b * b + 1), "any", "any"),
}
for _name, (_fn, _ka, _kb) in _BINARY.items():
    @case(_name)
    def _binary(draw, fn=_fn, ka=_ka, kb=_kb):
        sa, sb = draw(broadcastable_shapes(2))
        return fn, [values(draw, sa, ka), values(draw, sb, kb)]


for _c in op_db.BINARY:
    if _c.name in _EXTREMES:
        @case(_c.name, layouts=NO_EXPAND)
        def _extreme(draw, c=_c):
            sa, sb = draw(broadcastable_shapes(2))
            v = values(draw, (numel(sa) + numel(sb),), "distinct")
            return op_db.function(c), [v[:numel(sa)].reshape(sa), v[numel(sa):].reshape(sb)]


@case("where")
def _where(draw):
    sc, sa, sb = draw(broadcastable_shapes(3))
    cond = ember.tensor(values(draw, sc) > 0)
    return (lambda a, b: ember.where(cond, a, b)), [values(draw, sa), values(draw, sb)]


@case("where_scalar")
def _where_scalar(draw):
    shape = any_shape(draw)
    cond = ember.tensor(values(draw, shape) > 0)
    return (lambda a: ember.where(cond, a, 2.5) + ember.where(cond, -1.0, a)), [values(draw, shape)]


# ---- reductions

@case("sum")
def _sum(draw):
    shape = any_shape(draw)
    dims, keepdim = draw(dim_tuples(len(shape))), draw(st.booleans())
    return (lambda t: t.sum(dim=dims, keepdim=keepdim)), [values(draw, shape)]


@case("mean")
def _mean(draw):
    shape = any_shape(draw, allow_empty=False)
    dims, keepdim = draw(dim_tuples(len(shape))), draw(st.booleans())
    return (lambda t: t.mean(dim=dims, keepdim=keepdim)), [values(draw, shape)]


for _name in ("amax", "amin"):
    @case(_name, layouts=NO_EXPAND)
    def _amax(draw, name=_name):
        shape = any_shape(draw, allow_empty=False)
        dims, keepdim = draw(dim_tuples(len(shape))), draw(st.booleans())
        fn = getattr(ember, name)
        return (lambda t: fn(t, keepdim=keepdim) if dims is None else fn(t, dims, keepdim)), \
            [values(draw, shape, "distinct")]


for _name in ("max", "min"):
    @case(f"{_name}_dim", layouts=NO_EXPAND)
    def _max_dim(draw, name=_name):
        shape = any_shape(draw, allow_empty=False)
        dim, keepdim = draw(valid_dim(len(shape))), draw(st.booleans())
        return (lambda t: getattr(t, name)(dim, keepdim).values), [values(draw, shape, "distinct")]

    @case(f"{_name}_all", layouts=NO_EXPAND)
    def _max_all(draw, name=_name):
        return (lambda t: getattr(t, name)()), [values(draw, any_shape(draw, allow_empty=False), "distinct")]


for _name in ("var", "std"):
    @case(_name)
    def _var(draw, name=_name):
        shape = any_shape(draw, allow_empty=False)
        dims, keepdim = draw(dim_tuples(len(shape))), draw(st.booleans())
        axes = range(len(shape)) if dims in (None, ()) else [dims] if isinstance(dims, int) else dims
        n = int(np.prod([shape[d] for d in axes])) if shape else 1
        correction = draw(st.integers(0, max(0, min(2, n - 1))))
        x = values(draw, shape, "distinct" if name == "std" else "any")  # std: no zero variance
        return (lambda t: getattr(t, name)(dim=dims, keepdim=keepdim, correction=correction)), [x]


@case("logsumexp")
def _logsumexp(draw):
    shape = any_shape(draw, min_dims=1)
    dim, keepdim = draw(valid_dim(len(shape))), draw(st.booleans())
    return (lambda t: ember.logsumexp(t, dim, keepdim)), [values(draw, shape)]


@case("norm", layouts=NO_EXPAND)
def _norm(draw):
    shape = any_shape(draw, allow_empty=False)
    p = draw(st.sampled_from([2.0, 1.0, 3.0, float("inf")]))
    dims, keepdim = draw(dim_tuples(len(shape))), draw(st.booleans())
    return (lambda t: t.norm(p, dims, keepdim)), [values(draw, shape, "distinct_abs")]


for _name in ("softmax", "log_softmax"):
    @case(_name)
    def _softmax(draw, name=_name):
        shape = any_shape(draw)
        dim = draw(valid_dim(len(shape)))
        return (lambda t: getattr(ember, name)(t, dim)), [values(draw, shape)]


# ---- matrix products

@case("matmul")
def _matmul(draw):
    m, k, n = (draw(st.integers(0, 3)) for _ in range(3))
    ba, bb = draw(broadcastable_shapes(2, max_dims=3))
    sa = (k,) if draw(st.integers(0, 4)) == 0 else ba + (m, k)
    sb = (k,) if draw(st.integers(0, 4)) == 0 else bb + (k, n)
    return ember.matmul, [values(draw, sa), values(draw, sb)]


@case("mm_bmm")
def _mm(draw):
    b, m, k, n = (draw(st.integers(1, 3)) for _ in range(4))
    if draw(st.booleans()):
        return ember.mm, [values(draw, (m, k)), values(draw, (k, n))]
    return ember.bmm, [values(draw, (b, m, k)), values(draw, (b, k, n))]


@case("linear")
def _linear(draw):
    lead = draw(broadcastable_shapes(1, max_dims=3))[0]
    fin, fout = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return (lambda x, w, b: F.linear(x, w, b)), [values(draw, lead + (fin,)), values(draw, (fout, fin)),
                                                 values(draw, (fout,))]


# ---- views and joins

@case("reshape_flatten")
def _reshape(draw):
    shape = any_shape(draw)
    rank = len(shape)
    start = draw(st.integers(0, max(rank - 1, 0)))
    return (lambda t: t.reshape(-1).reshape(shape).flatten(start) * 1.0), [values(draw, shape)]


@case("permute_transpose")
def _permute(draw):
    shape = any_shape(draw)
    perm = draw(st.permutations(range(len(shape))))
    d0, d1 = draw(valid_dim(len(shape))), draw(valid_dim(len(shape)))
    return (lambda t: t.permute(*perm).transpose(d0, d1).T if perm else t.permute(()) * 1.0), [values(draw, shape)]


@case("squeeze_unsqueeze")
def _squeeze(draw):
    shape = any_shape(draw, max_dims=7)
    u = draw(st.integers(-len(shape) - 1, len(shape)))
    return (lambda t: t.unsqueeze(u).squeeze() * 1.0), [values(draw, shape)]


@case("expand")
def _expand(draw):
    shape = any_shape(draw, max_dims=5)
    target = tuple(draw(st.integers(0, 3)) if s == 1 else s for s in shape)
    lead = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    return (lambda t: t.expand(*(lead + target)) if lead + target else t.expand(())), [values(draw, shape)]


@case("narrow_select_unbind")
def _narrow(draw):
    shape = any_shape(draw, min_dims=1, allow_empty=False)
    dim = draw(valid_dim(len(shape)))
    size = shape[dim]
    start = draw(st.integers(0, size - 1))
    length = draw(st.integers(0, size - start))
    i = draw(st.integers(-size, size - 1))
    return (lambda t: ember.cat([t.narrow(dim, start, length), t.select(dim, i).unsqueeze(dim),
                                 ember.unbind(t, dim)[i].unsqueeze(dim)], dim)), [values(draw, shape)]


@case("split_chunk")
def _split(draw):
    shape = any_shape(draw, min_dims=1)
    dim = draw(valid_dim(len(shape)))
    k = draw(st.integers(1, 3))
    return (lambda t: ember.cat(list(reversed(t.split(k, dim))) + list(t.chunk(k, dim)), dim)), [values(draw, shape)]


@st.composite
def _join_shapes(draw, stack):
    count = draw(st.integers(1, MAX_INPUTS))
    base = list(draw(shapes(min_dims=1, max_dims=3, max_numel=3, allow_empty=False)))
    dim = draw(valid_dim(len(base) + (1 if stack else 0)))
    out = []
    for _ in range(count):
        s = list(base)
        if not stack:
            s[dim] = draw(st.integers(0, 2))
        out.append(tuple(s))
    return out, dim


@case("cat_many")
def _cat(draw):
    pieces, dim = draw(_join_shapes(stack=False))
    return (lambda *ts: ember.cat(list(ts), dim)), [values(draw, s) for s in pieces]


@case("stack_many")
def _stack(draw):
    pieces, dim = draw(_join_shapes(stack=True))
    return (lambda *ts: ember.stack(list(ts), dim)), [values(draw, s) for s in pieces]


# ---- indexing

def _index(draw, size, count_max=5):
    return ember.tensor(np.array(draw(st.lists(st.integers(0, size - 1), max_size=count_max)), np.int64))


@case("index_select")
def _index_select(draw):
    shape = any_shape(draw, min_dims=1, allow_empty=False)
    dim = draw(valid_dim(len(shape)))
    idx = _index(draw, shape[dim])
    return (lambda t: ember.index_select(t, dim, idx)), [values(draw, shape)]


@st.composite
def _gather_setup(draw):
    shape = draw(shapes(min_dims=1, max_dims=4, allow_empty=False))
    dim = draw(valid_dim(len(shape)))
    ishape = [draw(st.integers(0, s)) for s in shape]
    ishape[dim] = draw(st.integers(0, 3))
    idx = np.array(draw(st.lists(st.integers(0, shape[dim] - 1), min_size=numel(ishape), max_size=numel(ishape))),
                   np.int64).reshape(ishape)
    return shape, dim, ember.tensor(idx)


@case("gather")
def _gather(draw):
    shape, dim, idx = draw(_gather_setup())
    return (lambda t: ember.gather(t, dim, idx)), [values(draw, shape)]


@case("scatter_add")
def _scatter_add(draw):
    shape, dim, idx = draw(_gather_setup())
    return (lambda t, s: ember.scatter_add(t, dim, idx, s)), [values(draw, shape), values(draw, tuple(idx.shape))]


@case("index_add")
def _index_add(draw):
    shape = any_shape(draw, min_dims=1, max_dims=5, allow_empty=False)
    dim = draw(valid_dim(len(shape)))
    idx = _index(draw, shape[dim], 4)
    src = list(shape)
    src[dim] = idx.shape[0]
    return (lambda t, s: ember.index_add(t, dim, idx, s)), [values(draw, shape), values(draw, tuple(src))]


@case("masked_fill")
def _masked_fill(draw):
    shape = any_shape(draw)
    mask = ember.tensor(values(draw, shape) > 0)
    return (lambda t: ember.masked_fill(t, mask, 0.5)), [values(draw, shape)]


@case("embedding")
def _embedding(draw):
    rows, dim = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    ishape = draw(shapes(max_dims=3, max_numel=8))
    idx = ember.tensor(np.array(draw(st.lists(st.integers(0, rows - 1), min_size=numel(ishape),
                                              max_size=numel(ishape))), np.int64).reshape(ishape))
    return (lambda w: F.embedding(idx, w)), [values(draw, (rows, dim))]


@case("getitem")
def _getitem(draw):
    shape = draw(shapes(max_dims=4))
    key, _ = draw(index_keys(shape))
    return (lambda t: t[key] * 1.0), [values(draw, shape)]


@case("setitem")
def _setitem(draw):
    """y = x * 1; y[rows] = v: the gradient reaches x outside the written rows and v inside them."""
    shape = any_shape(draw, min_dims=1, max_dims=4, allow_empty=False)
    start = draw(st.integers(0, shape[0] - 1))
    stop = draw(st.integers(start, shape[0]))
    step = draw(st.integers(1, 2))
    n = len(range(start, stop, step))
    vshape = draw(st.sampled_from([(n,) + shape[1:], shape[1:], ()]))

    def fn(x, v):
        y = x * 1.0
        y[start:stop:step] = v
        return y
    return fn, [values(draw, shape), values(draw, vshape)]


@case("setitem_into_zeros")
def _setitem_zeros(draw):
    """y = zeros(...); y[a:b] = v is differentiable in v (PyTorch: y requires grad afterwards)."""
    shape = any_shape(draw, min_dims=1, max_dims=4, allow_empty=False)
    start = draw(st.integers(0, shape[0] - 1))
    stop = draw(st.integers(start + 1, shape[0]))

    def fn(v):
        y = ember.zeros(*shape, dtype=ember.float64)
        y[start:stop] = v
        return y
    return fn, [values(draw, (stop - start,) + shape[1:])]


# ---- layers

@case("conv2d")
def _conv2d(draw):
    groups = draw(st.integers(1, 2))
    cg, per = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    stride, padding, dilation = draw(st.integers(1, 2)), draw(st.integers(0, 1)), draw(st.integers(1, 2))
    h, w = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    if any(s + 2 * padding - dilation * (kk - 1) - 1 < 0 for s, kk in zip((h, w), k)):
        k = (1, 1)
    n = draw(st.integers(1, 2))
    return (lambda x, wt, b: ember.conv2d(x, wt, b, stride, padding, dilation, groups)), [
        values(draw, (n, groups * cg, h, w)), values(draw, (groups * per, cg) + k), values(draw, (groups * per,))]


@case("max_pool2d", layouts=NO_EXPAND)
def _max_pool(draw):
    k, s = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    p, ceil = draw(st.integers(0, k // 2)), draw(st.booleans())
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(k, 5)), draw(st.integers(k, 5)))
    return (lambda x: ember.max_pool2d(x, k, s, p, 1, ceil)), [values(draw, shape, "distinct")]


@case("avg_pool2d")
def _avg_pool(draw):
    k, s = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    p, ceil, include = draw(st.integers(0, k // 2)), draw(st.booleans()), draw(st.booleans())
    shape = (draw(st.integers(1, 2)), draw(st.integers(k, 5)), draw(st.integers(k, 5)))
    return (lambda x: ember.avg_pool2d(x, k, s, p, ceil, include)), [values(draw, shape)]


@case("adaptive_avg_pool2d")
def _adaptive(draw):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    out = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    return (lambda x: ember.adaptive_avg_pool2d(x, out)), [values(draw, shape)]


@case("conv1d")
def _conv1d(draw):
    groups, cg, per = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k, stride, dilation = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    padding = draw(st.sampled_from([0, 1, "same"])) if stride == 1 else draw(st.integers(0, 1))
    length = draw(st.integers(dilation * (k - 1) + 1, 6))
    return (lambda x, wt, b: F.conv1d(x, wt, b, stride, padding, dilation, groups)), [
        values(draw, (draw(st.integers(1, 2)), groups * cg, length)), values(draw, (groups * per, cg, k)),
        values(draw, (groups * per,))]


@case("conv2d_same")
def _conv2d_same(draw):
    k = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    c, o = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    return (lambda x, wt: F.conv2d(x, wt, None, 1, "same", dilation)), [
        values(draw, (1, c, draw(st.integers(1, 4)), draw(st.integers(1, 4)))), values(draw, (o, c) + k)]


@case("conv_transpose2d")
def _conv_transpose2d(draw):
    groups, cg, per = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride, dilation = (draw(st.integers(1, 3)), draw(st.integers(1, 2))), (draw(st.integers(1, 2)), 1)
    padding = (draw(st.integers(0, 1)), 0)
    output_padding = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    h, w = draw(st.integers(2, 3)), draw(st.integers(1, 3))
    if (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (k[0] - 1) + output_padding[0] + 1 < 1:
        padding = (0, 0)  # the output would be empty
    return (lambda x, wt, b: F.conv_transpose2d(x, wt, b, stride, padding, output_padding, groups, dilation)), [
        values(draw, (draw(st.integers(1, 2)), groups * cg, h, w)), values(draw, (groups * cg, per) + k),
        values(draw, (groups * per,))]


@case("adaptive_max_pool2d", layouts=NO_EXPAND)
def _adaptive_max(draw):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    out = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return (lambda x: F.adaptive_max_pool2d(x, out)), [values(draw, shape, "distinct")]


@case("group_norm")
def _group_norm(draw):
    groups, per = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    shape = (draw(st.integers(1, 3)), groups * per) + draw(st.sampled_from([(2,), (2, 2), (3, 1)]))
    return (lambda x, w, b: F.group_norm(x, groups, w, b)), [
        values(draw, shape, "distinct"), values(draw, (shape[1],)), values(draw, (shape[1],))]


@case("instance_norm")
def _instance_norm(draw):
    c = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 3)), c) + draw(st.sampled_from([(3,), (2, 2)]))
    return (lambda x, w, b: F.instance_norm(x, weight=w, bias=b)), [
        values(draw, shape, "distinct"), values(draw, (c,)), values(draw, (c,))]


@case("prelu")
def _prelu(draw):
    shape = any_shape(draw, min_dims=2, max_dims=4)
    per_channel = draw(st.booleans())
    return (lambda x, w: F.prelu(x, w)), [values(draw, shape, "away"), values(draw, (shape[1] if per_channel else 1,))]


@case("pad")
def _pad(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    dims = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(2, 4)) for _ in range(dims + draw(st.integers(1, 2))))
    lo = -1 if mode == "constant" else 0
    amounts = tuple(draw(st.integers(lo, n - 1)) for n in reversed(shape[-dims:]) for _ in range(2))
    return (lambda x: F.pad(x, amounts, mode=mode, value=0.5 if mode == "constant" else None)), [values(draw, shape)]


@case("interpolate")
def _interpolate(draw):
    mode = draw(st.sampled_from(["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "area"]))
    dims = 1 if mode == "linear" else 2 if mode in ("bilinear", "bicubic") else draw(st.integers(1, 2))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) + tuple(draw(st.integers(1, 4)) for _ in range(dims))
    align = {} if mode in ("nearest", "nearest-exact", "area") else {"align_corners": draw(st.booleans())}
    if draw(st.booleans()):
        size = tuple(draw(st.integers(1, 6)) for _ in range(dims))
        return (lambda x: F.interpolate(x, size=size, mode=mode, **align)), [values(draw, shape)]
    scale = draw(st.sampled_from([0.6, 1.0, 1.5, 2.0, 2.7]))
    if any(int(n * scale) < 1 for n in shape[2:]):
        scale = 2.0
    return (lambda x: F.interpolate(x, scale_factor=scale, mode=mode, **align)), [values(draw, shape)]


@case("batch_norm")
def _batch_norm(draw):
    c = draw(st.integers(1, 3))
    shape = (draw(st.integers(2, 4)), c) + draw(st.sampled_from([(), (2,), (2, 2)]))
    training = draw(st.booleans())
    rm, rv = ember.tensor(values(draw, (c,))), ember.tensor(values(draw, (c,), "positive"))
    return (lambda x, w, b: ember.batch_norm(x, rm.clone(), rv.clone(), w, b, training, 0.1, 1e-5)), [
        values(draw, shape, "distinct"), values(draw, (c,)), values(draw, (c,))]


@case("layer_norm")
def _layer_norm(draw):
    shape = any_shape(draw, min_dims=1, max_dims=4, allow_empty=False)
    k = draw(st.integers(1, len(shape)))
    ns = shape[len(shape) - k:]
    return (lambda x, w, b: ember.layer_norm(x, list(ns), w, b, 1e-5)), [
        values(draw, shape, "distinct"), values(draw, ns), values(draw, ns)]


# ---- losses

@case("cross_entropy")
def _cross_entropy(draw):
    n, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    extra = draw(st.sampled_from([(), (2,)]))
    ignore = draw(st.sampled_from([-100, 0]))
    target = np.array(draw(st.lists(st.integers(0, c - 1), min_size=n * numel(extra), max_size=n * numel(extra))),
                      np.int64).reshape((n,) + extra)
    if ignore == 0 and not (target != 0).any():
        ignore = -100
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    smoothing = draw(st.sampled_from([0.0, 0.2]))
    t = ember.tensor(target)
    return (lambda x: F.cross_entropy(x, t, ignore_index=ignore, reduction=reduction, label_smoothing=smoothing)), [
        values(draw, (n, c) + extra)]


@case("nll_loss")
def _nll(draw):
    n, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    target = ember.tensor(np.array(draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)), np.int64))
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    return (lambda x: F.nll_loss(x, target, reduction=reduction)), [values(draw, (n, c))]


@case("pointwise_losses")
def _pointwise(draw):
    shape = any_shape(draw, max_dims=4, allow_empty=False)
    name = draw(st.sampled_from(["mse_loss", "l1_loss", "smooth_l1_loss", "bce_with_logits", "bce_pos_weight"]))
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    a = values(draw, shape)
    b = np.asarray(a + values(draw, shape, "away"))  # |a - b| >= 0.2: away from the kinks of l1 and smooth_l1
    b[np.abs(np.abs(a - b) - 1.0) < 0.05] += 0.1
    if name.startswith("bce"):
        b = values(draw, shape, "positive") / 2
        pw = ember.tensor(values(draw, shape[-1:], "positive")) if name == "bce_pos_weight" and shape else None
        return (lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction=reduction, pos_weight=pw)), [a, b]
    return (lambda x, y: getattr(F, name)(x, y, reduction=reduction)), [a, b]


def check_case(name, make, layouts, data):
    """Draws a case's inputs as leaves (float64, any of the layouts) and checks that backward() gives
    each the central-difference gradient of sum(output * w) for a random w."""
    fn, arrays = make(data.draw)
    leaves = [data.draw(layout(a, layouts=layouts, requires_grad=True), label=f"input {i}").tensor
              for i, a in enumerate(arrays)]
    check_gradients(fn, leaves, seed=data.draw(seeds()), what=name)
@case("scaled_dot_product_attention")
def _sdpa(draw):
    bq, bk, bv = draw(broadcastable_shapes(3, max_dims=2))
    L, S, E, Ev = (draw(st.integers(lo, 3)) for lo in (0, 0, 1, 0))
    rng = np.random.default_rng(draw(seeds()))
    kind = draw(st.sampled_from(["none", "causal", "bool", "float"]))
    mask = None
    if kind == "bool":  # a row may see no key at all: zeros, and no gradient through it
        mask = ember.tensor(rng.uniform(size=(L, S)) > 0.4)
    elif kind == "float":
        bias = rng.normal(size=(L, S))
        bias[rng.uniform(size=(L, S)) < 0.3] = -np.inf
        mask = ember.tensor(bias)
    scale = draw(st.none() | st.floats(0.1, 1.5))
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=kind == "causal",
                                                        scale=scale)
    return fn, [values(draw, bq + (L, E)), values(draw, bk + (S, E)), values(draw, bv + (S, Ev))]
_GATES = {"rnn_tanh": 1, "rnn_relu": 1, "lstm": 4, "gru": 3}


@case("recurrent", layouts=NO_EXPAND)
def _recurrent(draw):
    """A stack of recurrent layers (ember.lstm & co., padded or packed) or one cell step: every output
    in one tensor."""
    kind = draw(st.sampled_from(sorted(_GATES)))
    T, B, I, H = draw(st.integers(1, 3)), draw(st.integers(0, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    G = _GATES[kind] * H
    if draw(st.booleans()):  # one step: ember.lstm_cell & co.
        arrays = [values(draw, (B, I)), values(draw, (B, H), "unit"), values(draw, (G, I)), values(draw, (G, H)),
                  values(draw, (G,)), values(draw, (G,))]
        if kind == "lstm":
            arrays.append(values(draw, (B, H), "unit"))
            return (lambda x, h, wi, wh, bi, bh, c: ember.cat([r.reshape(-1) for r in ember.lstm_cell(
                x, [h, c], wi, wh, bi, bh)])), arrays
        return (lambda x, h, wi, wh, bi, bh: getattr(ember, kind + "_cell")(x, h, wi, wh, bi, bh)), arrays
    layers, bidirectional, batch_first = draw(st.integers(1, 2)), draw(st.booleans()), draw(st.booleans())
    D = 2 if bidirectional else 1
    weights = []
    for layer in range(layers):
        for _ in range(D):
            weights += [values(draw, (G, I if layer == 0 else H * D)), values(draw, (G, H)), values(draw, (G,)),
                        values(draw, (G,))]
    x = values(draw, (B, T, I) if batch_first else (T, B, I))
    states = [values(draw, (layers * D, B, H), "unit") for _ in range(2 if kind == "lstm" else 1)]
    n = len(states)

    if draw(st.booleans()):  # a packed batch: B sequences of lengths T >= ... >= 1, step by step
        lengths = sorted((draw(st.integers(1, T)) for _ in range(max(B, 1))), reverse=True)
        sizes = ember.tensor([sum(1 for m in lengths if m > t) for t in range(lengths[0])])
        x = values(draw, (sum(lengths), I))
        states = [values(draw, (layers * D, len(lengths), H), "unit") for _ in range(2 if kind == "lstm" else 1)]

        def run_packed(x, *rest):
            hx = list(rest[:n]) if kind == "lstm" else rest[0]
            results = getattr(ember, kind)(x, sizes, hx, list(rest[n:]), True, layers, 0.0, False, bidirectional)
            return ember.cat([r.reshape(-1) for r in results])
        return run_packed, [x] + states + weights

    def run(x, *rest):
        hx = list(rest[:n]) if kind == "lstm" else rest[0]
        results = getattr(ember, kind)(x, hx, list(rest[n:]), True, layers, 0.0, False, bidirectional, batch_first)
        return ember.cat([r.reshape(-1) for r in results])
    return run, [x] + states + weights


@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
def test_gradient_matches_finite_differences(name, data):
    """backward() of the op gives every leaf (float64, any layout) the central-difference gradient of
    sum(output * w) for a random w."""
    check_case(name, *CASES[name], data)


@given(data=st.data())
def test_cross_entropy_all_ignored_has_zero_gradient(data):
    """cross_entropy with every target == ignore_index: the mean loss is NaN (0 / 0), the gradient is zero."""
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    ignore = data.draw(st.sampled_from([-100, 0, 2]))
    x = data.draw(layout(values(data.draw, (n, c)), requires_grad=True)).tensor
    loss = F.cross_entropy(x, ember.full((n,), ignore), ignore_index=ignore,
                           label_smoothing=data.draw(st.sampled_from([0.0, 0.1])))
    assert np.isnan(loss.item())
    loss.backward()
    np.testing.assert_array_equal(to_numpy(x.grad), np.zeros((n, c)))

