"""Rprop and ASGD (C++: optim/rprop.h, optim/asgd.h) against torch 2.15's trajectories
(tests/fixtures/python_optim.json, written by make_python_optim_fixtures.py): the same objective and
starting point, 60 steps, the parameters after every 10 within 1e-12; then a checkpoint mid-run that
resumes bit for bit."""
import io
import json
import os

import numpy as np
import pytest

import ember
import ember.optim as optim

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "python_optim.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]


def objective(w, b, x):
    out = ember.sin(x @ w) + b
    return ((out - 0.3) ** 2).sum() + 0.1 * (w ** 2).sum()


def setup(expr):
    rng = np.random.default_rng(3)
    w = ember.tensor(rng.uniform(-1, 1, (3, 4)), dtype=ember.float64).requires_grad_()
    b = ember.tensor(rng.uniform(-1, 1, 4), dtype=ember.float64).requires_grad_()
    x = ember.tensor(rng.uniform(-1, 1, (5, 3)), dtype=ember.float64)
    return w, b, x, eval(expr, {"optim": optim, "params": [w, b]})


def steps(opt, w, b, x, n, sign):
    for _ in range(n):
        opt.zero_grad()
        (objective(w, b, x) * sign).backward()
        opt.step()


@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectory_matches_torch(name):
    expr, checkpoints = CASES[name]["expr"], CASES[name]["checkpoints"]
    w, b, x, opt = setup(expr)
    sign = -1.0 if "maximize" in expr else 1.0
    for k, (want_w, want_b) in enumerate(checkpoints):
        steps(opt, w, b, x, 10, sign)
        np.testing.assert_allclose(w.detach().numpy().ravel(), want_w, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{expr}: w after {10 * (k + 1)} steps")
        np.testing.assert_allclose(b.detach().numpy(), want_b, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{expr}: b after {10 * (k + 1)} steps")


@pytest.mark.parametrize("expr", ["optim.Rprop(params, lr=0.05)", "optim.ASGD(params, lr=0.1, t0=5)"])
def test_a_checkpoint_resumes_bit_for_bit(expr):
    w, b, x, opt = setup(expr)
    steps(opt, w, b, x, 15, 1.0)
    buffer = io.BytesIO()
    ember.save({"w": w.detach(), "b": b.detach(), "opt": opt.state_dict()}, buffer)
    steps(opt, w, b, x, 15, 1.0)
    buffer.seek(0)
    saved = ember.load(buffer)
    w2, b2, x2, opt2 = setup(expr)
    with ember.no_grad():
        w2.copy_(saved["w"])
        b2.copy_(saved["b"])
    opt2.load_state_dict(saved["opt"])
    steps(opt2, w2, b2, x2, 15, 1.0)
    assert ember.equal(w2.detach(), w.detach()) and ember.equal(b2.detach(), b.detach())


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="Rprop: invalid etas"):
        optim.Rprop([ember.zeros(1, requires_grad=True)], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="ASGD: invalid lr"):
        optim.ASGD([ember.zeros(1, requires_grad=True)], lr=-1)
