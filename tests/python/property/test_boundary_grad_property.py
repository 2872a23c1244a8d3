"""Gradients at boundary values against PyTorch's analytic rules (torch_rules.py), where central
differences can't be taken: inputs drawn with 0, -0, +-1, subnormals, the largest value, +-inf, NaN and
ties (float64, any layout), backpropagated with a random cotangent, every leaf's .grad compared with the
rule PyTorch's autograd applies (relu at 0 and NaN, clamp at its bounds, ties of maximum and of the
evenly distributed reductions, NaN results of amax, losses at an infinite difference, binary cross
entropy's eps, ignored targets). test_grad_property.py checks the same ops by finite differences away
from these values."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
import ember.nn.functional as F
import known_failures
import torch_rules as R
from reference import random_weights, to_numpy
from strategies import arrays, layout, seeds, shapes

CASES = {}


def case(name):
    """Registers a case: a function of `draw` giving (fn of the leaves, input arrays, rule, dodge) where
    rule(arrays, out, g) gives the expected gradient of each input (or a pair: it, and a mask of the
    positions where PyTorch has no single answer) and dodge(arrays) names a known bug the example hits
    (None when it hits none). Both see the arrays as laid out (an expanded layout repeats values)."""
    def register(make):
        CASES[name] = make
        return make
    return register


def values(draw, shape=None, **kwargs):
    """float64 values with boundary values and ties (strategies.arrays)."""
    return draw(arrays(ember.float64, draw(shapes(max_dims=3)) if shape is None else shape, **kwargs))


def _bug(name, hit):
    return name if known_failures.dodge(name, hit) else None


def _no_bug(xs):
    return None


def _plant(draw, x, value):
    """x with one element (drawn) set to value: a bound or threshold that is no boundary value itself."""
    if x.size and draw(st.booleans()):
        x.flat[draw(st.integers(0, x.size - 1))] = value
    return x


@case("relu")
def _relu(draw):
    return ember.relu, [values(draw)], lambda xs, out, g: [R.relu_grad(xs[0], g)], \
        lambda xs: _bug("relu-grad-nan", np.isnan(xs[0]))


@case("abs")
def _abs(draw):
    return ember.abs, [values(draw)], lambda xs, out, g: [R.abs_grad(xs[0], g)], _no_bug


@case("clamp")
def _clamp(draw):
    lo, hi = draw(st.sampled_from([(-1.0, 1.0), (None, 1.0), (-1.0, None), (1.0, 1.0), (0.0, 0.0)]))
    return (lambda t: ember.clamp(t, lo, hi)), [values(draw)], lambda xs, out, g: [R.clamp_grad(xs[0], g, lo, hi)], \
        lambda xs: _bug("clamp-grad-at-bound", (xs[0] == lo) | (xs[0] == hi))


@case("hardtanh_relu6")
def _hardtanh(draw):
    lo, hi, fn = draw(st.sampled_from([(-1.0, 1.0, F.hardtanh), (0.0, 6.0, F.relu6)]))
    x = _plant(draw, values(draw), hi)
    # NB: at NaN PyTorch's gradient is g or 0 depending on the element's place in its kernel's vector loop
    rule = lambda xs, out, g: [(R.hardtanh_grad(xs[0], g, lo, hi), np.isnan(xs[0]))]
    return fn, [x], rule, lambda xs: _bug("clamp-grad-at-bound", (xs[0] == lo) | (xs[0] == hi))


@case("leaky_relu")
def _leaky(draw):
    slope = draw(st.sampled_from([0.01, 0.2, 1.5]))
    return (lambda t: F.leaky_relu(t, slope)), [values(draw)], \
        lambda xs, out, g: [R.leaky_relu_grad(xs[0], g, slope)], _no_bug


@case("shrink")
def _shrink(draw):
    fn = draw(st.sampled_from([F.hardshrink, F.softshrink]))
    x = _plant(draw, values(draw), draw(st.sampled_from([0.5, -0.5])))  # lambda itself
    rule = lambda xs, out, g: [(R.shrink_grad(xs[0], g), np.isnan(xs[0]))]  # NaN: see hardtanh_relu6
    return fn, [x], rule, _no_bug


@case("maximum_minimum")
def _maximum(draw):
    fn, rule = draw(st.sampled_from([(ember.maximum, R.maximum_grads), (ember.minimum, R.minimum_grads)]))
    shape = draw(shapes(max_dims=3))
    return fn, [values(draw, shape), values(draw, shape)], lambda xs, out, g: list(rule(xs[0], xs[1], g)), _no_bug


@case("max_min_all")
def _max_all(draw):
    name = draw(st.sampled_from(["max", "min"]))
    x = values(draw, draw(shapes(max_dims=3, allow_empty=False)))
    return (lambda t: getattr(t, name)()), [x], lambda xs, out, g: [R.evenly_distributed_grad(xs[0], out, g)], \
        lambda xs: _bug("max-all-grad-nan", np.isnan(xs[0]))


@case("median_all")
def _median_all(draw):
    x = values(draw, draw(shapes(max_dims=3, allow_empty=False)))
    dodge = lambda xs: _bug("median-nan", np.isnan(xs[0])) or _bug("median-grad-ties", (xs[0] == R.median(xs[0])).sum() > 1)
    return (lambda t: t.median()), [x], lambda xs, out, g: [R.evenly_distributed_grad(xs[0], out, g)], dodge


@case("amax_amin")
def _amax(draw):
    name = draw(st.sampled_from(["amax", "amin"]))
    shape = draw(shapes(min_dims=1, max_dims=3, allow_empty=False))
    dim = draw(st.integers(0, len(shape) - 1))
    x = values(draw, shape)
    return (lambda t: getattr(ember, name)(t, dim)), [x], lambda xs, out, g: [R.amax_grad(xs[0], out, g, dim)], \
        lambda xs: _bug("amin-grad-nan", np.isnan(xs[0]))


@case("smooth_l1_huber")
def _smooth_l1(draw):
    shape = draw(shapes(max_dims=3))
    a, b = values(draw, shape), values(draw, shape)
    name, param = draw(st.sampled_from([("smooth_l1_loss", 1.0), ("smooth_l1_loss", 0.5), ("smooth_l1_loss", 0.0),
                                        ("huber_loss", 1.0), ("huber_loss", 0.5)]))
    key = "beta" if name == "smooth_l1_loss" else "delta"
    grad = R.smooth_l1_grad if name == "smooth_l1_loss" else R.huber_grad

    def rule(xs, out, g):
        ga = grad(xs[0] - xs[1], g, param)
        return [ga, -ga]
    return (lambda x, y: getattr(F, name)(x, y, reduction="none", **{key: param})), [a, b], rule, \
        lambda xs: _bug("huber-inf-grad", np.isinf(xs[0] - xs[1]))


@case("binary_cross_entropy")
def _bce(draw):
    shape = draw(shapes(max_dims=3))
    p = values(draw, shape, lo=0, hi=1, nonfinite=False)
    y = values(draw, shape, lo=0, hi=1, nonfinite=False)
    y_leaf = ember.tensor(y)
    return (lambda t: F.binary_cross_entropy(t, y_leaf, reduction="none")), [p], \
        lambda xs, out, g: [R.binary_cross_entropy_grad(xs[0], y, g)], \
        lambda xs: _bug("bce-grad-eps", xs[0] * (1 - xs[0]) < R.BCE_GRAD_EPS)


@case("logistic")
def _logistic(draw):
    shape = draw(shapes(max_dims=3))
    x = values(draw, shape)
    bug = lambda xs: _bug("logistic-grad-at-zero", xs[0] == 0)
    if draw(st.booleans()):
        return F.logsigmoid, [x], lambda xs, out, g: [R.logsigmoid_grad(xs[0], g)], bug
    y = values(draw, shape, lo=0, hi=1, nonfinite=False)
    pw = values(draw, shape[-1:], lo=0.25, hi=4, nonfinite=False) if shape and draw(st.booleans()) else None
    kwargs = {} if pw is None else {"pos_weight": ember.tensor(pw)}
    y_leaf = ember.tensor(y)
    return (lambda t: F.binary_cross_entropy_with_logits(t, y_leaf, reduction="none", **kwargs)), [x], \
        lambda xs, out, g: [R.bce_with_logits_grad(xs[0], y, g, pw)], bug


@case("cross_entropy")
def _cross_entropy(draw):
    n, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    x = values(draw, (n, c))
    ignore = draw(st.sampled_from([-100, 0]))
    target = np.array(draw(st.lists(st.integers(0, c - 1) | st.just(ignore), min_size=n, max_size=n)), np.int64)
    smoothing = draw(st.sampled_from([0.0, 0.2]))
    reduction = draw(st.sampled_from(["none", "sum"] + (["mean"] if (target != ignore).any() else [])))
    t = ember.tensor(target)
    fn = lambda v: F.cross_entropy(v, t, ignore_index=ignore, label_smoothing=smoothing, reduction=reduction)
    rule = lambda xs, out, g: [R.cross_entropy_grad(xs[0], target, ignore, smoothing, g, reduction)]
    return fn, [x], rule, lambda xs: _bug("ce-ignored-rows", np.expand_dims(target == ignore, 1) & ~np.isfinite(xs[0]))


# NB: half the profile's examples: fourteen cases of few ops each, drawn mostly at boundary values
@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=max(1, settings.default.max_examples // 2))
@given(data=st.data())
def test_gradient_matches_torch_rule(name, data):
    """backward() at boundary values gives every leaf the gradient PyTorch's autograd gives."""
    fn, inputs, rule, dodge = CASES[name](data.draw)
    leaves = [data.draw(layout(a, requires_grad=True), label=f"input {i}") for i, a in enumerate(inputs)]
    with np.errstate(all="ignore"):
        if dodge([leaf.array for leaf in leaves]):
            return
    with np.errstate(all="ignore"):
        out = fn(*[leaf.tensor for leaf in leaves])
        g = random_weights(tuple(out.shape), data.draw(seeds())) * 2  # |g| up to 2: overflow shows past 1
        out.backward(ember.tensor(g))
        expected = rule([leaf.array for leaf in leaves], to_numpy(out), g)
    for k, (leaf, want) in enumerate(zip(leaves, expected)):
        want, skip = want if isinstance(want, tuple) else (want, False)
        assert leaf.tensor.grad is not None, f"{name}: input {k} got no gradient"
        got = np.where(skip, 0.0, to_numpy(leaf.tensor.grad))
        np.testing.assert_allclose(got, np.where(skip, 0.0, np.broadcast_to(want, leaf.array.shape)), rtol=1e-8,
                                   atol=1e-12, equal_nan=True, err_msg=f"{name}: input {k}")
