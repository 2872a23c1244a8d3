"""ember.optim from Python: training a small model, name-keyed parameters and state, param groups
written back, state_dict round trips, and the LR schedulers (LambdaLR with a Python function)."""
import math
import threading

import numpy as np
import pytest

import ember
from ember import nn, optim
from ember.optim import lr_scheduler


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(ember.tanh(self.hidden(x)))


def data():
    g = ember.Generator(0)
    x = ember.rand(64, 2, generator=g) * 2 - 1
    y = (x[:, 0:1] * x[:, 1:2]) + 0.5 * x[:, 0:1]
    return x, y


def train(model, opt, steps=150):
    x, y = data()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("make", [
    lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: optim.Adam(p, lr=0.01),
    lambda p: optim.AdamW(p, lr=0.01, weight_decay=0.01),
    lambda p: optim.RMSprop(p, lr=0.005),
    lambda p: optim.Adagrad(p, lr=0.1),
])
def test_small_model_trains(make):
    ember.manual_seed(0)
    model = MLP()
    losses = train(model, make(model.named_parameters()))
    assert losses[-1] < 0.3 * losses[0]


def test_sgd_step_matches_hand_computation():
    w = nn.Parameter(ember.tensor([1.0, -2.0]))
    opt = optim.SGD([("w", w)], lr=0.1, momentum=0.5)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    # step 1: g = 2w = [2, -4], buf = g, w = [0.8, -1.6]
    # step 2: g = [1.6, -3.2], buf = 0.5 * [2, -4] + g = [2.6, -5.2], w = [0.54, -1.08]
    np.testing.assert_allclose(w.detach().numpy(), [0.54, -1.08], rtol=1e-6)


def test_a_single_tensor_or_other_items_as_params_are_refused_with_an_explanation():
    # (model.parameters() itself works: tests/python/test_optim_plain_params.py)
    model = MLP()
    with pytest.raises(TypeError, match=r"got a Tensor \(pass \[t\] or model.parameters\(\)\)"):
        optim.SGD(next(model.parameters()), lr=0.1)
    with pytest.raises(TypeError, match="expected tensors or \\(name, tensor\\) pairs, got int"):
        optim.Adam([{"params": [1, 2]}])


def test_param_groups_with_dicts_and_lr_written_back():
    model = MLP()
    opt = optim.SGD([{"params": model.hidden.named_parameters(prefix="hidden"), "lr": 0.5},
                     {"params": model.out.named_parameters(prefix="out")}], lr=0.01, momentum=0.9)
    groups = opt.param_groups
    assert len(groups) == 2
    assert groups[0]["lr"] == 0.5 and groups[1]["lr"] == 0.01 and groups[1]["momentum"] == 0.9
    assert groups[0]["param_names"] == ["hidden.weight", "hidden.bias"]
    assert groups[0]["params"][0]._is_same(model.hidden.weight)
    assert groups[0]["nesterov"] is False
    for g in opt.param_groups:
        g["lr"] = g["lr"] * 0.1
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([0.05, 0.001])
    adam = optim.Adam(model.named_parameters(), betas=(0.8, 0.99))
    assert adam.param_groups[0]["betas"] == (0.8, 0.99)
    adam.param_groups[0]["betas"] = (0.5, 0.9)
    assert adam.param_groups[0]["betas"] == (0.5, 0.9)
    assert adam.param_groups[0]["amsgrad"] is False
    with pytest.raises(ValueError, match="unknown hyperparameter 'momentum'"):
        optim.Adam(model.named_parameters(), momentum=0.9)
    opt2 = optim.SGD(model.hidden.named_parameters(prefix="hidden"), lr=0.1)
    opt2.add_param_group({"params": model.out.named_parameters(prefix="out"), "lr": 0.2})
    assert [g["lr"] for g in opt2.param_groups] == [0.1, 0.2]
    assert "SGD (" in repr(opt2) and "Parameter Group 1" in repr(opt2)


def test_state_dict_is_keyed_by_name_and_round_trips():
    ember.manual_seed(1)
    model = MLP()
    opt = optim.Adam(model.named_parameters(), lr=0.01)
    train(model, opt, steps=3)
    sd = opt.state_dict()
    assert sd["type"] == "Adam"
    assert sd["param_groups"][0]["params"] == ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    assert set(sd["state"]) == {"hidden.weight", "hidden.bias", "out.weight", "out.bias"}
    assert set(sd["state"]["out.weight"]) == {"step", "exp_avg", "exp_avg_sq"}
    assert sd["state"]["out.weight"]["step"].item() == 3

    # A second model whose parameters come in another order gets the same state by name.
    clone = MLP()
    clone.load_state_dict(model.state_dict())
    reordered = list(reversed(list(clone.named_parameters())))
    opt2 = optim.Adam(reordered, lr=0.5)
    report = opt2.load_state_dict(sd)
    assert report.missing == [] and report.unexpected == []
    assert report.overridden == ["group 0 lr: 0.5 -> 0.01"]  # taken from the checkpoint, and said
    assert opt2.param_groups[0]["lr"] == 0.01
    assert opt2.state["out.weight"]["exp_avg"].tolist() == opt.state["out.weight"]["exp_avg"].tolist()
    train(model, opt, steps=2)
    train(clone, opt2, steps=2)
    np.testing.assert_array_equal(clone.out.weight.detach().numpy(), model.out.weight.detach().numpy())


def test_step_with_closure_and_zero_grad():
    w = nn.Parameter(ember.tensor([2.0]))
    opt = optim.SGD([("w", w)], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 4.0
    assert w.item() == 1.0
    opt.zero_grad()
    assert w.grad is None


def lrs(sched, opt, n):
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


def one_param_sgd(lr=1.0, **kw):
    return optim.SGD([("w", nn.Parameter(ember.zeros(1)))], lr=lr, **kw)


def test_scheduler_sequences():
    opt = one_param_sgd()
    assert lrs(lr_scheduler.StepLR(opt, step_size=2, gamma=0.5), opt, 6) == pytest.approx(
        [1, 1, 0.5, 0.5, 0.25, 0.25])
    opt = one_param_sgd()
    assert lrs(lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1), opt, 4) == pytest.approx(
        [1, 0.1, 0.1, 0.01])
    opt = one_param_sgd()
    assert lrs(lr_scheduler.ExponentialLR(opt, gamma=0.9), opt, 3) == pytest.approx([1, 0.9, 0.81])
    opt = one_param_sgd()
    cos = lrs(lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.0), opt, 5)
    assert cos == pytest.approx([(1 + math.cos(math.pi * t / 4)) / 2 for t in range(5)], abs=1e-12)
    opt = one_param_sgd()
    assert lrs(lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3), opt, 5) == pytest.approx(
        [0.25, 0.5, 0.75, 1.0, 1.0])
    opt = one_param_sgd(momentum=0.9)
    one = lrs(lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10), opt, 10)
    assert one[0] == pytest.approx(1.0 / 25) and max(one) == pytest.approx(1.0, rel=0.05)
    assert one[-1] < one[0]
    opt = one_param_sgd(lr=0.1)
    wc = lrs(lr_scheduler.WarmupCosineLR(opt, warmup_steps=2, total_steps=6), opt, 3)
    assert wc == pytest.approx([0.05, 0.1, 0.1])


def test_lambda_lr_calls_python_and_state_round_trip():
    calls = []

    def warmup(epoch):
        calls.append(epoch)
        return min(1.0, (epoch + 1) / 4)

    opt = one_param_sgd(lr=0.4)
    sched = lr_scheduler.LambdaLR(opt, warmup)
    assert lrs(sched, opt, 5) == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.4])
    assert calls == [0, 1, 2, 3, 4, 5]
    assert sched.get_last_lr() == pytest.approx([0.4]) and sched.last_epoch == 5
    state = sched.state_dict()
    assert state["type"] == "LambdaLR" and state["last_epoch"] == 5.0

    opt2 = one_param_sgd(lr=0.4)
    sched2 = lr_scheduler.LambdaLR(opt2, lambda e: min(1.0, (e + 1) / 4))
    sched2.load_state_dict(state)
    assert sched2.last_epoch == 5

    with pytest.raises(ZeroDivisionError):
        lr_scheduler.LambdaLR(one_param_sgd(), lambda e: 1 / 0)


def test_lambda_lr_from_another_thread():
    # The function runs with the GIL taken by C++, whichever thread steps the scheduler.
    opt = one_param_sgd(lr=1.0)
    sched = lr_scheduler.LambdaLR(opt, [lambda e: 0.5 ** e])
    t = threading.Thread(target=lambda: [sched.step() for _ in range(3)])
    t.start()
    t.join()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.125)


def test_reduce_lr_on_plateau():
    opt = one_param_sgd(lr=1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
    for metric in [1.0, 0.9, 0.95, 0.95, 0.95]:
        sched.step(metric)
    # best 0.9 at step 2; steps 3 and 4 are bad (> patience 1) -> cut at 4; 5 counts afresh
    assert opt.param_groups[0]["lr"] == 0.5
    assert sched.state_dict()["best"] == pytest.approx(0.9)


def test_scheduler_keeps_optimizer_alive():
    sched = lr_scheduler.StepLR(one_param_sgd(lr=2.0), step_size=1, gamma=0.5)
    import gc
    gc.collect()
    sched.step()
    assert sched.get_last_lr() == [1.0]


def test_hyperparameters_are_typed_and_checked():
    w = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="SGD: unknown hyperparameter 'momentun' in parameter group 0"):
        optim.SGD([{"params": [("w", w)], "momentun": 0.9}], lr=0.1)
    with pytest.raises(TypeError, match="hyperparameter 'betas'.* must be a pair of numbers"):
        optim.Adam([("w", w)], betas=0.9)
    adam = optim.Adam([("w", w)], amsgrad=1)  # an int flag, as scripts may pass it, is the flag
    group = adam.param_groups[0]
    assert group["amsgrad"] is True and group["betas"] == (0.9, 0.999)
    group["maximize"] = 0
    assert group["maximize"] is False
    with pytest.raises(ValueError, match="Adam: unknown hyperparameter 'momentum'"):
        group["momentum"] = 0.9
    state = adam.state_dict()
    assert state["param_groups"][0]["amsgrad"] is True and state["param_groups"][0]["betas"] == (0.9, 0.999)


def test_constructors_take_torchs_positional_arguments():
    # torch.optim's signatures, bound in C++ (python/src/optim_api.cpp): the hyperparameters before
    # maximize are positional, the rest keyword-only.
    model = MLP()
    sgd = optim.SGD(model.parameters(), 0.1, 0.9, 0.0, 1e-4, True)
    assert [sgd.param_groups[0][k] for k in ("lr", "momentum", "dampening", "weight_decay", "nesterov")] == \
        [0.1, 0.9, 0.0, 1e-4, True]
    adam = optim.Adam(model.parameters(), 2e-3, (0.8, 0.9), 1e-6, 0.0, True)
    assert adam.param_groups[0]["betas"] == (0.8, 0.9) and adam.param_groups[0]["amsgrad"] is True
    with pytest.raises(TypeError, match=r"Adam\(\) takes at most 6 positional arguments, got 7"):
        optim.Adam(model.parameters(), 1e-3, (0.9, 0.99), 1e-8, 0.0, False, True)
    with pytest.raises(TypeError, match="got multiple values for argument 'lr'"):
        optim.SGD(model.parameters(), 0.1, lr=0.2)
    with pytest.raises(ValueError, match="foreach=True is not supported"):
        optim.SGD(model.parameters(), foreach=True)
    assert optim.SGD(model.parameters(), foreach=None, fused=False, differentiable=False).param_groups[0]["lr"] == 1e-3
    lbfgs = optim.LBFGS(model.parameters(), 0.5, 7)
    group = lbfgs.param_groups[0]
    assert (group["max_iter"], group["max_eval"], group["history_size"]) == (7, 8, 100)
    assert all(type(group[k]) is int for k in ("max_iter", "max_eval", "history_size"))
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe', got 'armijo'"):
        optim.LBFGS(model.parameters(), line_search_fn="armijo")
    with pytest.raises(RuntimeError, match="needs a closure"):
        lbfgs.step()
    assert isinstance(lbfgs, optim.Optimizer) and type(adam).__name__ == "Adam"


def test_param_groups_and_state_are_mappings():
    from collections.abc import Mapping, MutableMapping

    model = MLP()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    group = opt.param_groups[0]
    assert isinstance(group, MutableMapping) and "lr" in group and "nope" not in group
    assert group.get("lr") == 0.1 and group.get("nope", 7) == 7 and group.setdefault("lr", 3.0) == 0.1
    group.update({"lr": 0.5}, momentum=0.8)
    assert (opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]) == (0.5, 0.8)
    assert dict(group.items())["param_names"] == ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    assert list(group.keys())[:2] == ["params", "param_names"] and len(group.values()) == len(group)
    assert group == dict(group.items()) and group != {"lr": 0.5}
    with pytest.raises(TypeError, match="can't delete hyperparameters"):
        group.pop("lr")
    with pytest.raises(KeyError):
        group["nope"]
    x, y = data()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    assert isinstance(opt.state, Mapping) and len(opt.state) == 4
    params = list(model.parameters())
    # NB: by name (the C++ state is a map), where torch iterates in the order of the first steps
    assert [id(p) for p in opt.state.keys()] == [id(p) for p, _ in opt.state.items()] == [id(p) for p in opt.state]
    assert {id(p) for p in opt.state} == {id(p) for p in params}
    assert opt.state.get(params[0]) is not None and opt.state.get(ember.zeros(1)) is None
    assert opt.state.names() == ["hidden.bias", "hidden.weight", "out.bias", "out.weight"]
    assert opt.state["out.bias"]["momentum_buffer"].shape == (1,)
    with pytest.raises(KeyError, match="not a parameter of this optimizer"):
        opt.state[ember.zeros(1)]
    with pytest.raises(AttributeError, match="state is the C\\+\\+ optimizer's"):
        opt.state = {}
