"""The schedulers PyTorch scripts build from Python (PolynomialLR, CosineAnnealingWarmRestarts,
CyclicLR and OneCycleLR with per-group momentum lists, SequentialLR, ChainedScheduler,
MultiplicativeLR, ConstantLR) with torch's signatures, against the torch sequences in
tests/fixtures/optim.json (recorded by make_optim_fixtures.py), and resumed through a checkpoint."""
import io
import json
import os

import numpy as np
import pytest

import ember
from ember.optim import lr_scheduler as S

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "optim.json")


def torch_lrs(name):
    with open(FIXTURE) as f:
        case = json.load(f)["cases"][name]
    t = case["tensors"]["lrs"]
    return np.array(t["data"], dtype=np.float64).reshape(t["shape"])


def two_groups(adam=False):
    p0, p1 = ember.zeros(2, requires_grad=True), ember.zeros(3, requires_grad=True)
    groups = [{"params": [("p0", p0)]}, {"params": [("p1", p1)], "lr": 0.02}]
    if adam:
        return ember.optim.Adam(groups, lr=0.1)
    return ember.optim.SGD(groups, lr=0.1, momentum=0.9)


CASES = {
    "sched_PolynomialLR": (False, lambda o: S.PolynomialLR(o, total_iters=120, power=2.0)),
    "sched_CosineAnnealingWarmRestarts": (False, lambda o: S.CosineAnnealingWarmRestarts(o, T_0=20, T_mult=2,
                                                                                          eta_min=0.001)),
    "sched_CyclicLR": (False, lambda o: S.CyclicLR(o, base_lr=[0.01, 0.002], max_lr=[0.1, 0.05], step_size_up=25,
                                                   step_size_down=15)),
    "sched_CyclicLR_triangular2": (False, lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=30, mode="triangular2")),
    "sched_CyclicLR_exp_range_adam": (True, lambda o: S.CyclicLR(o, 0.001, 0.01, step_size_up=20, mode="exp_range",
                                                                 gamma=0.995)),
    "sched_SequentialLR": (False, lambda o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, 1.0, 10), S.CosineAnnealingLR(o, 100, 0.001), S.StepLR(o, 30, 0.5)],
        milestones=[10, 150])),
    "sched_ChainedScheduler": (False, lambda o: S.ChainedScheduler([S.LinearLR(o, 0.2, 1.0, 25),
                                                                     S.ExponentialLR(o, 0.99)])),
    "sched_MultiplicativeLR": (False, lambda o: S.MultiplicativeLR(o, lambda e: 0.95 + 0.02 * (e % 4))),
    "sched_ConstantLR": (False, lambda o: S.ConstantLR(o, factor=0.4, total_iters=7)),
    "sched_SequentialLR_constant_multiplicative": (False, lambda o: S.SequentialLR(
        o, [S.ConstantLR(o, 0.5, 20), S.MultiplicativeLR(o, lambda e: 0.99)], milestones=[30])),
    "sched_CyclicLR_group_momentum": (False, lambda o: S.CyclicLR(
        o, base_lr=[0.01, 0.002], max_lr=[0.1, 0.05], step_size_up=10, base_momentum=[0.8, 0.7],
        max_momentum=[0.9, 0.95])),
    "sched_CyclicLR_group_betas_adam": (True, lambda o: S.CyclicLR(
        o, base_lr=0.001, max_lr=0.01, step_size_up=15, mode="triangular2", base_momentum=[0.85, 0.8],
        max_momentum=[0.95, 0.9])),
    "sched_OneCycleLR_group_momentum": (False, lambda o: S.OneCycleLR(
        o, [1.0, 0.3], total_steps=300, base_momentum=[0.8, 0.85], max_momentum=[0.9, 0.99])),
}


def torch_momentum(name):
    with open(FIXTURE) as f:
        t = json.load(f)["cases"][name]["tensors"]["momentum"]
    return np.array(t["data"], dtype=np.float64).reshape(t["shape"])


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if "group_" in n])
def test_per_group_momentum_follows_torch(name):
    adam, make = CASES[name]
    momentum = (lambda g: g["betas"][0]) if adam else (lambda g: g["momentum"])
    want = torch_momentum(name)
    opt = two_groups(adam)
    sched = make(opt)
    # Each group keeps its own bounds, as torch's groups do.
    assert [g["max_momentum"] for g in opt.param_groups] == list(want[0])
    assert len({g["base_momentum"] for g in opt.param_groups}) == 2
    got = [[momentum(g) for g in opt.param_groups]]
    for _ in range(len(want) - 1):
        opt.step()
        sched.step()
        got.append([momentum(g) for g in opt.param_groups])
    np.testing.assert_allclose(np.array(got), want, rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequences_match_torch(name):
    adam, make = CASES[name]
    opt = two_groups(adam)
    sched = make(opt)
    want = torch_lrs(name)
    got = [[g["lr"] for g in opt.param_groups]]
    for _ in range(len(want) - 1):
        opt.step()
        sched.step()
        got.append([g["lr"] for g in opt.param_groups])
    np.testing.assert_allclose(np.array(got), want, rtol=1e-12, atol=1e-18)
    assert sched.get_last_lr() == got[-1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_resumed_schedule_goes_on_as_the_uninterrupted_one(name):
    adam, make = CASES[name]
    opt = two_groups(adam)
    sched = make(opt)
    for _ in range(60):
        opt.step()
        sched.step()
    buffer = io.BytesIO()
    ember.save({"optimizer": opt, "scheduler": sched}, buffer)
    straight = []
    for _ in range(80):
        opt.step()
        sched.step()
        straight.append(sched.get_last_lr())

    opt2 = two_groups(adam)
    sched2 = make(opt2)
    buffer.seek(0)
    ckpt = ember.load(buffer)
    opt2.load_state_dict(ckpt["optimizer"])
    sched2.load_state_dict(ckpt["scheduler"])
    resumed = []
    for _ in range(80):
        opt2.step()
        sched2.step()
        resumed.append(sched2.get_last_lr())
    assert resumed == straight


def test_cyclic_lr_takes_a_python_scale_fn():
    opt = two_groups()
    sched = S.CyclicLR(opt, 0.01, 0.1, step_size_up=4, scale_fn=lambda x: 0.5, scale_mode="cycle")
    lrs = []
    for _ in range(4):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs[-1] == pytest.approx(0.01 + 0.09 * 0.5)


def test_errors_name_the_problem():
    opt = two_groups()
    with pytest.raises(ValueError, match="T_0 must be a positive integer, got 0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="expected 1 milestones"):
        S.SequentialLR(opt, [S.StepLR(opt, 3), S.StepLR(opt, 3)], milestones=[2, 4])
    with pytest.raises(ValueError, match="mode must be 'triangular', 'triangular2' or 'exp_range', got 'sawtooth'"):
        S.CyclicLR(opt, 0.01, 0.1, mode="sawtooth")
    other = two_groups()
    with pytest.raises(ValueError, match="belongs to another optimizer"):
        S.ChainedScheduler([S.StepLR(opt, 3), S.StepLR(other, 3)])
    p = ember.zeros(1, requires_grad=True)
    plain = ember.optim.Adagrad([("p", p)], lr=0.1)
    with pytest.raises(ValueError, match="neither momentum nor betas"):
        S.CyclicLR(plain, 0.01, 0.1)
    with pytest.raises(ValueError, match=r"CyclicLR: expected 2 values for max_momentum \(one per parameter group\), got 3"):
        S.CyclicLR(opt, 0.01, 0.1, max_momentum=[0.9, 0.9, 0.9])
    with pytest.raises(ValueError, match=r"OneCycleLR: expected 2 values for base_momentum"):
        S.OneCycleLR(opt, 0.1, total_steps=10, base_momentum=[0.8])
    with pytest.raises(ValueError, match="ConstantLR: Constant multiplicative factor expected to be between 0 and 1"):
        S.ConstantLR(opt, factor=2.0)
