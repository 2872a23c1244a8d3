"""Adadelta, Adamax, NAdam and RAdam from Python with torch's signatures: the trajectories torch
recorded in tests/fixtures/optim.json (make_optim_fixtures.py), step(closure), and a resume
through a checkpoint that continues bit for bit."""
import io
import json
import os

import numpy as np
import pytest

import ember

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "optim.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]


def array(entry):
    return np.array(entry["data"], dtype=np.float64).reshape(entry["shape"])


def torch_kwargs(scalars):
    kw = {k: (bool(v) if k in ("maximize", "decoupled_weight_decay") else v)
          for k, v in scalars.items() if k not in ("beta1", "beta2")}
    if "beta1" in scalars or "beta2" in scalars:
        kw["betas"] = (scalars.get("beta1", 0.9), scalars.get("beta2", 0.999))
    return kw


NAMES = sorted(n for n in CASES if n.split("_")[0] in ("adadelta", "adamax", "nadam", "radam"))


@pytest.mark.parametrize("name", NAMES)
def test_trajectories_match_torch(name):
    case, init = CASES[name], CASES["init"]["tensors"]
    dtype = ember.float32 if case["strings"]["dtype"] == "float32" else ember.float64
    w = ember.tensor(array(init["w"]), dtype=dtype).requires_grad_()
    b = ember.tensor(array(init["b"]), dtype=dtype).requires_grad_()
    cls = getattr(ember.optim, case["strings"]["optimizer"])
    opt = cls([w, b], **torch_kwargs(case["scalars"]))
    gw, gb = array(init["gw"]), array(init["gb"])
    rtol = 1e-5 if dtype == ember.float32 else 1e-6
    for t in range(100):
        w.grad = ember.tensor(gw[t], dtype=dtype)
        b.grad = ember.tensor(gb[t], dtype=dtype)
        opt.step()
        if f"w_{t + 1}" in case["tensors"]:
            np.testing.assert_allclose(w.detach().numpy(), array(case["tensors"][f"w_{t + 1}"]), rtol=rtol,
                                       atol=1e-6 if dtype == ember.float32 else 1e-12)
            np.testing.assert_allclose(b.detach().numpy(), array(case["tensors"][f"b_{t + 1}"]), rtol=rtol,
                                       atol=1e-6 if dtype == ember.float32 else 1e-12)
    assert len(NAMES) == 24


@pytest.mark.parametrize("cls", [ember.optim.Adadelta, ember.optim.Adamax, ember.optim.NAdam, ember.optim.RAdam])
def test_closure_and_a_resume_through_a_checkpoint(cls):
    def build():
        ember.manual_seed(3)
        model = ember.nn.Sequential(ember.nn.Linear(4, 6), ember.nn.Tanh(), ember.nn.Linear(6, 2))
        return model, cls(model.parameters(), lr=0.01)

    x, y = ember.randn(8, 4), ember.randn(8, 2)

    def train(model, opt, steps):
        for _ in range(steps):
            def closure():
                opt.zero_grad()
                loss = ((model(x) - y) ** 2).mean()
                loss.backward()
                return loss
            loss = opt.step(closure)
        return loss.item()

    model, opt = build()
    first = train(model, opt, 1)
    assert first > 0
    train(model, opt, 4)
    buffer = io.BytesIO()
    ember.save({"model": model.state_dict(), "optimizer": opt}, buffer)
    train(model, opt, 5)
    straight = [p.detach().numpy().copy() for p in model.parameters()]

    model2, opt2 = build()
    buffer.seek(0)
    ckpt = ember.load(buffer)
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    train(model2, opt2, 5)
    for a, b in zip(straight, (p.detach().numpy() for p in model2.parameters())):
        np.testing.assert_array_equal(a, b)


def test_hyperparameters_out_of_range_are_named():
    w = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="rho"):
        ember.optim.Adadelta([w], rho=1.5)
    with pytest.raises(ValueError, match="betas"):
        ember.optim.NAdam([w], betas=(1.0, 0.999))
