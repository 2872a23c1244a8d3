"""ember.optim.LBFGS (C++: optim/lbfgs.h) against the trajectories
torch.optim.LBFGS recorded in tests/fixtures/lbfgs.json (make_lbfgs_fixture.py): fixed steps and
the strong-Wolfe line search, maximize, a short history; then a resume through a checkpoint of its
state (the history as [k, n] rows, counters) that goes on bit for bit."""
import io
import json
import os

import numpy as np
import pytest

import ember

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "lbfgs.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]


def tensor(entry):
    return ember.tensor(np.array(entry["data"], dtype=np.float64).reshape(entry["shape"]))


def problem(case):
    p = CASES["problem"]["tensors"]
    x, y = tensor(p["x"]), tensor(p["y"])
    w, b = tensor(p["w"]).requires_grad_(), tensor(p["b"]).requires_grad_()
    kwargs = {k: v for k, v in case["scalars"].items() if not k[-1].isdigit()}
    for key in ("max_iter", "max_eval", "history_size"):
        if key in kwargs:
            kwargs[key] = int(kwargs[key])
    if "maximize" in kwargs:
        kwargs["maximize"] = bool(kwargs["maximize"])
    line_search = case["strings"]["line_search_fn"]
    sign = -1.0 if kwargs.get("maximize") else 1.0
    return x, y, w, b, dict(kwargs, line_search_fn=None if line_search == "none" else line_search), sign


def make_closure(opt, x, y, w, b, sign):
    def closure():
        opt.zero_grad()
        loss = sign * (((ember.tanh(x @ w + b) - y) ** 2).mean() + 0.01 * (w ** 2).sum())
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("name", sorted(n for n in CASES if n != "problem"))
def test_trajectories_match_torch(name):
    case = CASES[name]
    x, y, w, b, kwargs, sign = problem(case)
    opt = ember.optim.LBFGS([w, b], **kwargs)
    closure = make_closure(opt, x, y, w, b, sign)
    for k in range(1, 4):
        loss = opt.step(closure)
        assert loss.item() == pytest.approx(case["scalars"][f"loss_{k}"], rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(w.detach().numpy(), tensor(case["tensors"][f"w_{k}"]).numpy(), rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.detach().numpy(), tensor(case["tensors"][f"b_{k}"]).numpy(), rtol=1e-8, atol=1e-10)
        state = opt.state[w]
        assert state["func_evals"] == case["scalars"][f"func_evals_{k}"]
        assert state["n_iter"] == case["scalars"][f"n_iter_{k}"]


def test_a_resumed_lbfgs_goes_on_bit_for_bit():
    case = CASES["strong_wolfe"]

    def run(steps, ckpt=None):
        x, y, w, b, kwargs, sign = problem(case)
        opt = ember.optim.LBFGS([("w", w), ("b", b)], **kwargs)
        if ckpt is not None:
            with ember.no_grad():
                w.copy_(ckpt["w"])
                b.copy_(ckpt["b"])
            opt.load_state_dict(ckpt["opt"])
        closure = make_closure(opt, x, y, w, b, sign)
        losses = [opt.step(closure).item() for _ in range(steps)]
        return losses, w, b, opt

    straight, w_end, _, _ = run(4)
    first, w, b, opt = run(2)
    buffer = io.BytesIO()
    ember.save({"w": w, "b": b, "opt": opt}, buffer)
    buffer.seek(0)
    ckpt = ember.load(buffer)
    history = ckpt["opt"]["state"]["w"]["old_dirs"]
    assert history.dim() == 2 and history.shape[1] == w.numel() + b.numel()
    assert ckpt["opt"]["state"]["w"]["n_iter"] == 32
    rest, w2, _, _ = run(2, ckpt)
    assert first + rest == straight and w2.tolist() == w_end.tolist()


def test_lbfgs_refuses_groups_and_other_line_searches():
    w = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="parameter groups"):
        ember.optim.LBFGS([{"params": [w]}, {"params": [ember.zeros(1, requires_grad=True)]}])
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe', got 'armijo'"):
        ember.optim.LBFGS([w], line_search_fn="armijo")
    with pytest.raises(ValueError, match="parameter groups"):
        ember.optim.LBFGS([w]).add_param_group({"params": [ember.zeros(1, requires_grad=True)]})
    with pytest.raises(RuntimeError, match="needs a closure"):
        ember.optim.LBFGS([w]).step(None)
