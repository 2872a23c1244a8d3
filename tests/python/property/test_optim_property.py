"""Optimizers, gradient clipping and LR schedulers against NumPy re-implementations of PyTorch's
documented rules: 1 to 40 parameters of random shapes (0-d to 8-D, some empty), several steps with
random gradients set on p.grad (some parameters without a gradient at some steps), every option."""
import bisect
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember import optim
from ember.nn.utils import clip_grad_norm_, clip_grad_value_
from ember.optim import lr_scheduler
from reference import to_numpy
from strategies import MAX_INPUTS, seeds, shapes


@st.composite
def parameter_sets(draw, max_count=MAX_INPUTS):
    """(named parameters, their float64 NumPy copies, a NumPy generator for gradients)."""
    count = draw(st.integers(1, max_count))
    dtype = draw(st.sampled_from([ember.float32, ember.float64]))
    rng = np.random.default_rng(draw(seeds()))
    params, arrays = [], []
    for i in range(count):
        shape = draw(shapes(max_numel=16))
        a = rng.uniform(-1, 1, shape).astype(np.float32 if dtype == ember.float32 else np.float64)
        t = ember.tensor(a)
        t.requires_grad_(True)
        params.append((f"p{i}", t))
        arrays.append(a.astype(np.float64))
    return params, arrays, rng


def _sgd(p, g, s, h, t):
    if h["weight_decay"]:
        g = g + h["weight_decay"] * p
    if h["momentum"]:
        s["buf"] = g.copy() if "buf" not in s else h["momentum"] * s["buf"] + (1 - h["dampening"]) * g
        g = g + h["momentum"] * s["buf"] if h["nesterov"] else s["buf"]
    return p - h["lr"] * g


def _adam(p, g, s, h, t, decoupled=False):
    b1, b2 = h["betas"]
    if decoupled:
        p = p * (1 - h["lr"] * h["weight_decay"])
    elif h["weight_decay"]:
        g = g + h["weight_decay"] * p
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    v = s["v"]
    if h["amsgrad"]:
        s["vmax"] = np.maximum(s.get("vmax", 0), v)
        v = s["vmax"]
    denom = np.sqrt(v) / math.sqrt(1 - b2 ** t) + h["eps"]
    return p - h["lr"] / (1 - b1 ** t) * s["m"] / denom


def _rmsprop(p, g, s, h, t):
    if h["weight_decay"]:
        g = g + h["weight_decay"] * p
    a = h["alpha"]
    s["sq"] = a * s.get("sq", 0) + (1 - a) * g * g
    if h["centered"]:
        s["ga"] = a * s.get("ga", 0) + (1 - a) * g
        avg = np.sqrt(s["sq"] - s["ga"] ** 2) + h["eps"]
    else:
        avg = np.sqrt(s["sq"]) + h["eps"]
    if h["momentum"]:
        s["buf"] = h["momentum"] * s.get("buf", 0) + g / avg
        return p - h["lr"] * s["buf"]
    return p - h["lr"] * g / avg


def _adagrad(p, g, s, h, t):
    if h["weight_decay"]:
        g = g + h["weight_decay"] * p
    clr = h["lr"] / (1 + (t - 1) * h["lr_decay"])
    s["sum"] = s.get("sum", h["initial_accumulator_value"]) + g * g
    return p - clr * g / (np.sqrt(s["sum"]) + h["eps"])


# name -> (class, reference update, hyperparameter strategy)
OPTIMIZERS = {
    "SGD": (optim.SGD, _sgd, st.fixed_dictionaries({
        "lr": st.sampled_from([0.1, 0.01]), "momentum": st.sampled_from([0.0, 0.9]),
        "dampening": st.sampled_from([0.0, 0.3]), "weight_decay": st.sampled_from([0.0, 0.05]),
        "nesterov": st.booleans(), "maximize": st.booleans()}).filter(
            lambda h: not h["nesterov"] or (h["momentum"] > 0 and h["dampening"] == 0))),
    "Adam": (optim.Adam, _adam, st.fixed_dictionaries({
        "lr": st.sampled_from([0.1, 0.001]), "betas": st.sampled_from([(0.9, 0.999), (0.5, 0.9)]),
        "eps": st.sampled_from([1e-8, 1e-3]), "weight_decay": st.sampled_from([0.0, 0.1]),
        "amsgrad": st.booleans(), "maximize": st.booleans()})),
    "AdamW": (optim.AdamW, lambda p, g, s, h, t: _adam(p, g, s, h, t, decoupled=True), st.fixed_dictionaries({
        "lr": st.sampled_from([0.1, 0.001]), "betas": st.sampled_from([(0.9, 0.999), (0.5, 0.9)]),
        "eps": st.sampled_from([1e-8, 1e-3]), "weight_decay": st.sampled_from([0.0, 0.01, 0.5]),
        "amsgrad": st.booleans(), "maximize": st.booleans()})),
    "RMSprop": (optim.RMSprop, _rmsprop, st.fixed_dictionaries({
        "lr": st.sampled_from([0.01, 0.001]), "alpha": st.sampled_from([0.99, 0.5]),
        "eps": st.sampled_from([1e-8, 1e-3]), "weight_decay": st.sampled_from([0.0, 0.1]),
        "momentum": st.sampled_from([0.0, 0.9]), "centered": st.booleans(), "maximize": st.booleans()})),
    "Adagrad": (optim.Adagrad, _adagrad, st.fixed_dictionaries({
        "lr": st.sampled_from([0.1, 0.01]), "lr_decay": st.sampled_from([0.0, 0.1]),
        "weight_decay": st.sampled_from([0.0, 0.1]), "initial_accumulator_value": st.sampled_from([0.0, 0.5]),
        "eps": st.sampled_from([1e-10, 1e-3]), "maximize": st.booleans()})),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@given(data=st.data())
def test_optimizer_matches_numpy(name, data):
    """Several steps of the optimizer over 1 to 40 parameters (any shape) equal PyTorch's update rule in
    NumPy; a parameter without a gradient at a step is left alone, its state and step count too."""
    cls, update, hyper = OPTIMIZERS[name]
    params, arrays, rng = data.draw(parameter_sets())
    h = data.draw(hyper)
    opt = cls(params, **h)
    states, counts = [{} for _ in params], [0] * len(params)
    for _ in range(data.draw(st.integers(1, 4))):
        for i, (_, p) in enumerate(params):
            if rng.uniform() < 0.85:
                g = rng.uniform(-1, 1, arrays[i].shape)
                p.grad = ember.tensor(g.astype(to_numpy(p).dtype))
                g = g.astype(to_numpy(p).dtype).astype(np.float64)
                counts[i] += 1
                arrays[i] = update(arrays[i], -g if h.get("maximize") else g, states[i], h, counts[i])
            else:
                p.grad = None
        opt.step()
    tol = dict(rtol=2e-4, atol=2e-5) if params[0][1].dtype == ember.float32 else dict(rtol=1e-9, atol=1e-11)
    for (n, p), a in zip(params, arrays):
        np.testing.assert_allclose(to_numpy(p), a, err_msg=f"{name} {h}: parameter {n} {tuple(p.shape)}", **tol)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@given(data=st.data())
def test_clip_grad_norm_matches_numpy(norm_type, data):
    """clip_grad_norm_ over 1 to 40 gradients returns their joint p-norm and, when it exceeds max_norm,
    scales every gradient by max_norm / (norm + 1e-6); parameters without a gradient are skipped."""
    params, arrays, rng = data.draw(parameter_sets())
    grads = []
    for _, p in params:
        if rng.uniform() < 0.9:
            g = (rng.uniform(-1, 1, p.shape) * rng.choice([0.01, 1, 10])).astype(to_numpy(p).dtype)
            p.grad = ember.tensor(g)
            grads.append(g.astype(np.float64))
        else:
            grads.append(None)
    flat = np.concatenate([g.reshape(-1) for g in grads if g is not None] + [np.zeros(0)])
    total = np.max(np.abs(flat), initial=0.0) if norm_type == np.inf else np.sum(np.abs(flat) ** norm_type) ** (
        1 / norm_type)
    max_norm = data.draw(st.sampled_from([0.1, 1.0, 5.0, 1e3]))
    coef = min(1.0, max_norm / (total + 1e-6))
    tol = dict(rtol=1e-4, atol=1e-6) if params[0][1].dtype == ember.float32 else dict(rtol=1e-9, atol=1e-12)
    returned = clip_grad_norm_([p for _, p in params], max_norm, norm_type)
    np.testing.assert_allclose(float(returned), total, err_msg="returned norm", **tol)
    for (n, p), g in zip(params, grads):
        if g is None:
            assert p.grad is None
        else:
            np.testing.assert_allclose(to_numpy(p.grad), g * coef, err_msg=f"grad of {n}", **tol)


@given(data=st.data())
def test_clip_grad_value_matches_numpy(data):
    """clip_grad_value_(v) clamps every gradient of 1 to 40 parameters to [-v, v]."""
    params, arrays, rng = data.draw(parameter_sets())
    v = data.draw(st.sampled_from([0.01, 0.5, 2.0]))
    grads = []
    for _, p in params:
        g = (rng.uniform(-1, 1, p.shape) * 3).astype(to_numpy(p).dtype)
        p.grad = ember.tensor(g)
        grads.append(g)
    clip_grad_value_([p for _, p in params], v)
    for (n, p), g in zip(params, grads):
        np.testing.assert_allclose(to_numpy(p.grad), np.clip(g, -v, v), err_msg=n, rtol=1e-6)


# ---- LR schedulers: closed forms of the step t (0 right after construction)

def _one_cycle(t, total, max_lr, pct, anneal, div, final_div, three_phase):
    initial = max_lr / div
    low = initial / final_div
    if three_phase:
        phases = [(pct * total - 1, initial, max_lr), (2 * pct * total - 2, max_lr, initial), (total - 1, initial, low)]
    else:
        phases = [(pct * total - 1, initial, max_lr), (total - 1, max_lr, low)]
    start = 0.0
    for i, (end, a, b) in enumerate(phases):
        if t <= end or i == len(phases) - 1:
            f = (t - start) / (end - start)
            return b + (a - b) / 2 * (1 + math.cos(math.pi * f)) if anneal == "cos" else (b - a) * f + a
        start = end


def _warmup_cosine(t, base, warmup, total, min_lr):
    if t < warmup:
        return base * (t + 1) / warmup
    if t >= total:
        return min_lr
    return min_lr + (base - min_lr) * (1 + math.cos(math.pi * (t - warmup) / (total - warmup))) / 2


@st.composite
def schedules(draw):
    """(name, scheduler factory, closed form lr(t, base_lr), steps)."""
    name = draw(st.sampled_from(["StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "CosineAnnealingLR",
                                 "WarmupCosineLR", "NoamDecay", "OneCycleLR", "LambdaLR"]))
    steps = draw(st.integers(1, 60))
    if name == "StepLR":
        k, gamma = draw(st.integers(1, 10)), draw(st.sampled_from([0.1, 0.5, 0.9]))
        return name, lambda o: lr_scheduler.StepLR(o, k, gamma), lambda t, b: b * gamma ** (t // k), steps
    if name == "MultiStepLR":
        ms = sorted(draw(st.lists(st.integers(1, 50), max_size=5)))
        gamma = draw(st.sampled_from([0.1, 0.5]))
        return name, lambda o: lr_scheduler.MultiStepLR(o, ms, gamma), \
            lambda t, b: b * gamma ** bisect.bisect_right(ms, t), steps
    if name == "ExponentialLR":
        gamma = draw(st.sampled_from([0.5, 0.9, 0.99]))
        return name, lambda o: lr_scheduler.ExponentialLR(o, gamma), lambda t, b: b * gamma ** t, steps
    if name == "LinearLR":
        s, e, n = draw(st.sampled_from([0.1, 1 / 3, 1.0])), draw(st.sampled_from([1.0, 0.5, 0.1])), draw(st.integers(1, 20))
        return name, lambda o: lr_scheduler.LinearLR(o, s, e, n), lambda t, b: b * (s + (e - s) * min(t, n) / n), steps
    if name == "CosineAnnealingLR":
        tmax, eta = draw(st.integers(1, 30)), draw(st.sampled_from([0.0, 0.001]))
        return name, lambda o: lr_scheduler.CosineAnnealingLR(o, tmax, eta), \
            lambda t, b: eta + (b - eta) * (1 + math.cos(math.pi * t / tmax)) / 2, steps
    if name == "WarmupCosineLR":
        w = draw(st.integers(0, 10))
        total, low = w + draw(st.integers(1, 40)), draw(st.sampled_from([0.0, 1e-4]))
        return name, lambda o: lr_scheduler.WarmupCosineLR(o, w, total, low), \
            lambda t, b: _warmup_cosine(t, b, w, total, low), steps
    if name == "NoamDecay":
        d, w = draw(st.sampled_from([16, 512])), draw(st.integers(1, 20))
        return name, lambda o: lr_scheduler.NoamDecay(o, d, w), \
            lambda t, b: b * d ** -0.5 * min((t + 1) ** -0.5, (t + 1) * w ** -1.5), steps
    if name == "OneCycleLR":
        total = draw(st.integers(4, 60))
        pct, anneal = draw(st.sampled_from([0.3, 0.25, 0.5])), draw(st.sampled_from(["cos", "linear"]))
        three = draw(st.booleans())
        div, final = draw(st.sampled_from([25.0, 10.0])), draw(st.sampled_from([1e4, 100.0]))
        mx = draw(st.sampled_from([0.1, 1.0]))
        return name, lambda o: lr_scheduler.OneCycleLR(
            o, mx, total_steps=total, pct_start=pct, anneal_strategy=anneal, div_factor=div, final_div_factor=final,
            three_phase=three), lambda t, b: _one_cycle(t, total, mx, pct, anneal, div, final, three), min(steps, total - 1)
    f = draw(st.sampled_from([lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1), lambda e: (e % 3) + 0.5]))
    return name, lambda o: lr_scheduler.LambdaLR(o, f), lambda t, b: b * f(t), steps


@given(data=st.data())
def test_scheduler_matches_closed_form(data):
    """Every LR scheduler, stepped after each optimizer step over up to 60 steps and 1 to 3 parameter
    groups with different lrs, writes lr(t) of its documented closed form into every group."""
    name, make, lr_of, steps = data.draw(schedules())
    bases = data.draw(st.lists(st.sampled_from([0.1, 0.01, 1.0]), min_size=1, max_size=3))
    groups = [{"params": [(f"w{i}", ember.zeros(2, requires_grad=True))], "lr": b} for i, b in enumerate(bases)]
    opt = optim.SGD(groups, lr=0.5, momentum=0.9)
    sched = make(opt)
    for t in range(steps + 1):
        for i, b in enumerate(bases):
            expected = lr_of(t, b) if name != "OneCycleLR" else lr_of(t, None)
            got = opt.param_groups[i]["lr"]
            assert math.isclose(got, expected, rel_tol=1e-6, abs_tol=1e-12), (name, t, i, got, expected)
        assert sched.last_epoch == t
        np.testing.assert_allclose(sched.get_last_lr(), [opt.param_groups[i]["lr"] for i in range(len(bases))])
        if t < steps:
            opt.step()
            sched.step()


def _plateau_reference(metrics, lr, mode, factor, patience, threshold, threshold_mode, cooldown, min_lr, eps):
    best = math.inf if mode == "min" else -math.inf
    bad = cool = 0
    out = []
    for m in metrics:
        if mode == "min":
            better = m < (best * (1 - threshold) if threshold_mode == "rel" else best - threshold)
        else:
            better = m > (best * (1 + threshold) if threshold_mode == "rel" else best + threshold)
        if better:
            best, bad = m, 0
        else:
            bad += 1
        if cool > 0:
            cool -= 1
            bad = 0
        if bad > patience:
            new = max(lr * factor, min_lr)
            if lr - new > eps:
                lr = new
            cool, bad = cooldown, 0
        out.append(lr)
    return out


@given(data=st.data())
def test_reduce_lr_on_plateau_matches_reference(data):
    """ReduceLROnPlateau (min/max, rel/abs threshold, patience, cooldown, min_lr, eps) cuts the lr at the
    same steps as PyTorch's algorithm over a random metric sequence."""
    kw = dict(mode=data.draw(st.sampled_from(["min", "max"])), factor=data.draw(st.sampled_from([0.1, 0.5])),
              patience=data.draw(st.integers(0, 4)), threshold=data.draw(st.sampled_from([1e-4, 0.1])),
              threshold_mode=data.draw(st.sampled_from(["rel", "abs"])), cooldown=data.draw(st.integers(0, 3)),
              min_lr=data.draw(st.sampled_from([0.0, 0.01])), eps=data.draw(st.sampled_from([1e-8, 0.05])))
    metrics = data.draw(st.lists(st.sampled_from([1.0, 0.9, 0.5, 2.0, 0.95, 0.3]), min_size=1, max_size=40))
    opt = optim.SGD([("w", ember.zeros(1, requires_grad=True))], lr=1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, **kw)
    expected = _plateau_reference(metrics, 1.0, **kw)
    got = []
    for m in metrics:
        sched.step(m)
        got.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=str(kw))
