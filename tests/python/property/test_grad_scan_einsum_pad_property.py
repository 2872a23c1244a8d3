"""Gradients of prod, cumprod (with zeros in the input), logcumsumexp, cummax/cummin, diagonal,
diag_embed, diag, masked_select, einsum, pad in every mode and the losses' class weights and
probability targets, against central finite differences (float64), with leaves of any layout, as
test_grad_property.py does for the other ops."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
from strategies import LAYOUTS, numel, seeds
from test_grad_property import NO_EXPAND, any_shape, check_case, values

CASES = {}


def case(name, layouts=LAYOUTS):
    def register(make):
        CASES[name] = (make, layouts)
        return make
    return register


def with_zeros(draw, shape):
    """Values in [-2, 2] with some entries exactly 0 (none, one, or several per row)."""
    x = values(draw, shape)
    if x.size:
        rng = np.random.default_rng(draw(seeds()))
        x = np.where(rng.uniform(size=shape) < draw(st.sampled_from([0.0, 0.2, 0.5])), 0.0, x)
    return x


@case("prod", layouts=NO_EXPAND)
def _prod(draw):
    shape = any_shape(draw, max_dims=4, max_numel=24)
    x = with_zeros(draw, shape)
    if draw(st.booleans()) or not shape:
        return (lambda t: ember.prod(t)), [x]
    d, keep = draw(st.integers(-len(shape), len(shape) - 1)), draw(st.booleans())
    return (lambda t: t.prod(d, keepdim=keep)), [x]


@case("cumprod", layouts=NO_EXPAND)
def _cumprod(draw):
    shape = any_shape(draw, max_dims=4, max_numel=24)
    d = draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    return (lambda t: ember.cumprod(t, d)), [with_zeros(draw, shape)]


@case("logcumsumexp_cummax_cummin", layouts=NO_EXPAND)  # an expanded view repeats values: ties
def _scans(draw):
    shape = any_shape(draw, max_dims=4)
    d = draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    kind = draw(st.sampled_from(["logcumsumexp", "cummax", "cummin"]))
    if kind == "logcumsumexp":
        return (lambda t: ember.logcumsumexp(t, d)), [values(draw, shape)]
    fn = getattr(ember, kind)
    return (lambda t: fn(t, d).values), [values(draw, shape, "distinct")]


@case("diagonal_diag_embed_diag")
def _diagonals(draw):
    kind = draw(st.sampled_from(["diagonal", "diag_embed", "diag"]))
    offset = draw(st.integers(-3, 3))
    if kind == "diag":
        shape = any_shape(draw, min_dims=1, max_dims=2)
        return (lambda t: ember.diag(t, offset)), [values(draw, shape)]
    if kind == "diagonal":
        shape = any_shape(draw, min_dims=2, max_dims=5)
        d1, d2 = draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True))
        return (lambda t: ember.diagonal(t, offset, d1, d2)), [values(draw, shape)]
    shape = any_shape(draw, min_dims=1, max_dims=4, max_numel=16)
    n = len(shape) + 1
    d1, d2 = draw(st.lists(st.integers(-n, n - 1), min_size=2, max_size=2, unique_by=lambda d: d % n))
    return (lambda t: ember.diag_embed(t, offset, d1, d2)), [values(draw, shape)]


@case("masked_select")
def _masked_select(draw):
    shape = any_shape(draw)
    mask_shape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in shape[draw(st.integers(0, len(shape))):])
    mask = ember.tensor(np.random.default_rng(draw(seeds())).uniform(size=mask_shape) < 0.5)
    return (lambda t: ember.masked_select(t, mask)), [values(draw, shape)]


@case("einsum")
def _einsum(draw):
    kind = draw(st.sampled_from(["matmul", "batch", "trace", "outer", "ellipsis", "three"]))
    a, b, c = (draw(st.integers(1, 3)) for _ in range(3))
    if kind == "matmul":
        return (lambda x, y: ember.einsum("ij,jk->ik", x, y)), [values(draw, (a, b)), values(draw, (b, c))]
    if kind == "batch":
        return (lambda x, y: ember.einsum("bij,bkj->bki", x, y)), [values(draw, (2, a, b)), values(draw, (2, c, b))]
    if kind == "trace":
        return (lambda x: ember.einsum("iij->j", x)), [values(draw, (a, a, b))]
    if kind == "outer":
        return (lambda x, y: ember.einsum("i,j", x, y)), [values(draw, (a,)), values(draw, (b,))]
    if kind == "ellipsis":
        return (lambda x, y: ember.einsum("...ij,j->...i", x, y)), [values(draw, (2, 1, a, b)), values(draw, (b,))]
    return (lambda x, y, z: ember.einsum("ij,jk,k->i", x, y, z)), \
        [values(draw, (a, b)), values(draw, (b, c)), values(draw, (c,))]


@case("pad")
def _pad(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    padded = draw(st.integers(1, 3))
    batched = draw(st.booleans())
    shape = tuple(draw(st.integers(1, 3)) for _ in range(padded + 1 + batched))
    amounts = []
    for d in range(padded):
        n = shape[-1 - d]
        hi = n - 1 if mode == "reflect" else n if mode == "circular" else 3
        lo = -(n - 1) // 2 if mode != "constant" else -n // 2
        amounts += [draw(st.integers(lo, max(lo, hi))), draw(st.integers(lo, max(lo, hi)))]
        if n + amounts[-1] + amounts[-2] < 1:
            amounts[-2:] = [0, 0]
    return (lambda t: F.pad(t, amounts, mode=mode)), [values(draw, shape)]


@case("weighted_smoothed_cross_entropy")
def _cross_entropy(draw):
    n, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    extra = draw(st.sampled_from([(), (2,)]))
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    smoothing = draw(st.sampled_from([0.0, 0.2]))
    weight = ember.tensor(values(draw, (c,), "positive"))
    if draw(st.booleans()):  # class probabilities
        p = values(draw, (n, c) + extra, "positive")
        target = ember.tensor(p / p.sum(1, keepdims=True))
        return (lambda x: F.cross_entropy(x, target, weight=weight, reduction=reduction,
                                          label_smoothing=smoothing)), [values(draw, (n, c) + extra)]
    labels = np.array(draw(st.lists(st.integers(0, c - 1), min_size=n * numel(extra), max_size=n * numel(extra))),
                      np.int64).reshape((n,) + extra)
    ignore = -100 if (labels == labels.flat[0]).all() else int(labels.flat[0])
    target = ember.tensor(labels)
    return (lambda x: F.cross_entropy(x, target, weight=weight, ignore_index=ignore, reduction=reduction,
                                      label_smoothing=smoothing)), [values(draw, (n, c) + extra)]


@case("bce_with_logits_weight")
def _bce(draw):
    shape = any_shape(draw, min_dims=1, max_dims=4, allow_empty=False)
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    weight = ember.tensor(values(draw, shape[-1:]))
    pos_weight = ember.tensor(values(draw, shape[-1:], "positive")) if draw(st.booleans()) else None
    return (lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight=weight, reduction=reduction,
                                                            pos_weight=pos_weight)), \
        [values(draw, shape), values(draw, shape, "positive") / 2]


@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
def test_gradient_matches_finite_differences(name, data):
    """backward() of the op gives every leaf (float64, any layout) the central-difference gradient of
    sum(output * w) for a random w."""
    check_case(name, *CASES[name], data)
