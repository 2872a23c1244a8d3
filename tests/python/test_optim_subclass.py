"""Optimizers written in Python the PyTorch way: a subclass of ember.optim.Optimizer with
super().__init__(params, defaults) and its own step() over param_groups and state[p]. Checked
against the built-in SGD (the same update, so the same numbers), with the LR schedulers, zero_grad,
add_param_group, state_dict/load_state_dict and ember.save/ember.load checkpoints (a resumed run
goes on bit for bit); and step(closure) on the built-in optimizers."""
import io

import pytest

import ember
from ember import nn
from ember.optim import lr_scheduler


class MySGD(ember.optim.Optimizer):
    """torch.optim.SGD's reference loop, as scripts write their own optimizers."""

    def __init__(self, params, lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, foreach=None, label="mine")
        super().__init__(params, defaults)

    @ember.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with ember.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if group["weight_decay"] != 0:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                if group["momentum"] != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        buf = state["momentum_buffer"] = d_p.clone().detach()
                    else:
                        buf = state["momentum_buffer"]
                        buf.mul_(group["momentum"]).add_(d_p, alpha=1 - group["dampening"])
                    d_p = d_p.add(buf, alpha=group["momentum"]) if group["nesterov"] else buf
                p.add_(d_p, alpha=-group["lr"])
                self.state[p]["steps"] = self.state[p].get("steps", 0) + 1
        return loss


def make_model(seed=0):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))


def train(model, opt, steps, scheduler=None, start=0):
    losses = []
    for i in range(start, start + steps):
        ember.manual_seed(100 + i)
        x, y = ember.randn(8, 4), ember.randn(8, 2)
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("options", [dict(), dict(momentum=0.9), dict(momentum=0.9, nesterov=True, weight_decay=0.01),
                                     dict(momentum=0.5, dampening=0.1)])
def test_a_python_sgd_matches_the_built_in_one(options):
    a, b = make_model(), make_model()
    mine = MySGD(a.parameters(), lr=0.05, **options)
    theirs = ember.optim.SGD(b.parameters(), lr=0.05, **options)
    # NB: the built-in kernel may fuse the multiply-adds (FMA), so the last bits may differ.
    assert train(a, mine, 6) == pytest.approx(train(b, theirs, 6), rel=1e-6)
    for p, q in zip(a.parameters(), b.parameters()):
        assert p.reshape(-1).tolist() == pytest.approx(q.reshape(-1).tolist(), rel=1e-5, abs=1e-7)


def test_state_is_a_dict_per_parameter_keyed_by_the_tensor():
    model = make_model()
    opt = MySGD(model.parameters(), momentum=0.9)
    train(model, opt, 2)
    w = model[0].weight
    assert opt.state[w]["steps"] == 2 and opt.state[w]["momentum_buffer"].shape == w.shape
    assert set(opt.state) == set(model.parameters())
    assert opt.param_groups[0]["params"][0] is w
    opt.state = {}
    assert opt.state == {}


def test_hyperparameters_c_cannot_hold_live_in_the_group_and_ints_stay_ints():
    model = make_model()
    opt = MySGD(model.parameters(), lr=0.1)
    g = opt.param_groups[0]
    assert g["foreach"] is None and g["label"] == "mine" and g["nesterov"] is False
    assert opt.defaults["foreach"] is None and opt.defaults["lr"] == 0.1

    class Counting(ember.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=1, max_iter=20))

    c = Counting(make_model().parameters())
    assert c.param_groups[0]["max_iter"] == 20 and isinstance(c.param_groups[0]["max_iter"], int)
    g = c.param_groups[0]
    g["extra"] = [1, 2]
    g.setdefault("other", "x")
    assert g["extra"] == [1, 2] and c.param_groups[0]["other"] == "x"
    del g["extra"]
    assert "extra" not in c.param_groups[0]
    with pytest.raises(NotImplementedError, match="must override step"):
        c.step()


def test_zero_grad_and_add_param_group():
    model = make_model()
    head = nn.Linear(2, 1)
    opt = MySGD(model.named_parameters(), lr=0.1)
    opt.add_param_group({"params": head.named_parameters(prefix="head"), "lr": 0.01, "label": "head"})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.param_groups[1]["label"] == "head" and opt.param_groups[1]["momentum"] == 0.0
    assert opt.param_groups[1]["param_names"] == ["head.weight", "head.bias"]
    (head(model(ember.randn(3, 4))).sum()).backward()
    opt.zero_grad(set_to_none=False)
    assert head.weight.grad is not None and head.weight.grad.abs().sum().item() == 0
    opt.zero_grad()
    assert head.weight.grad is None and model[0].weight.grad is None


def test_the_built_in_lr_schedulers_drive_a_python_optimizer():
    model = make_model()
    opt = MySGD(model.parameters(), lr=1.0)
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(5):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25] and sched.get_last_lr() == [0.25]
    opt2 = MySGD(make_model().parameters(), lr=2.0)
    lam = lr_scheduler.LambdaLR(opt2, lambda epoch: 1.0 / (epoch + 1))
    opt2.step()
    lam.step()
    assert opt2.param_groups[0]["lr"] == 1.0 and opt2.param_groups[0]["initial_lr"] == 2.0


def test_state_dict_keys_state_by_parameter_name():
    model = make_model()
    opt = MySGD(model.parameters(), lr=0.1, momentum=0.9)
    train(model, opt, 1)
    sd = opt.state_dict()
    assert sorted(sd["state"]) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    assert sd["state"]["0.weight"]["steps"] == 1
    assert sd["param_groups"][0]["params"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert sd["param_groups"][0]["label"] == "mine" and sd["param_groups"][0]["foreach"] is None


@pytest.mark.parametrize("through_file", [False, True])
def test_a_resumed_python_optimizer_goes_on_bit_for_bit(through_file):
    model = make_model()
    opt = MySGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    straight = train(model, opt, 8, sched)

    model = make_model()
    opt = MySGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    first = train(model, opt, 4, sched)
    opt.param_groups[0]["label"] = "changed"
    ckpt = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
    if through_file:
        buffer = io.BytesIO()
        ember.save({"model": model, "opt": opt, "sched": sched}, buffer)
        buffer.seek(0)
        ckpt = ember.load(buffer)

    model2 = make_model(seed=7)
    opt2 = MySGD(model2.parameters(), lr=0.1, momentum=0.9)
    sched2 = lr_scheduler.StepLR(opt2, step_size=3, gamma=0.5)
    model2.load_state_dict(ckpt["model"])
    report = opt2.load_state_dict(ckpt["opt"])
    sched2.load_state_dict(ckpt["sched"])
    assert report.missing == [] and report.unexpected == []
    assert opt2.param_groups[0]["label"] == "changed" and opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    assert opt2.state[model2[0].weight]["steps"] == 4
    assert first + train(model2, opt2, 4, sched2, start=4) == straight


def test_loading_state_makes_copies_in_the_parameters_dtype():
    model = make_model()
    opt = MySGD(model.parameters(), momentum=0.9)
    train(model, opt, 1)
    sd = opt.state_dict()
    model64 = make_model().double()
    opt64 = MySGD(model64.parameters(), momentum=0.9)
    opt64.load_state_dict(sd)
    buf = opt64.state[model64[0].weight]["momentum_buffer"]
    assert buf.dtype == ember.float64
    buf.fill_(3.0)
    assert sd["state"]["0.weight"]["momentum_buffer"].tolist() != buf.tolist()


def test_plain_tensors_are_keyed_by_position():
    w = ember.ones(3, requires_grad=True)
    opt = MySGD([w], lr=0.5)
    w.grad = ember.ones(3)
    opt.step()
    sd = opt.state_dict()
    assert sd["keyed_by"] == "position" and list(sd["state"]) == ["#0"]
    v = ember.ones(3, requires_grad=True)
    opt2 = MySGD([v], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.state[v]["steps"] == 1
    with pytest.raises(ValueError, match="positions"):
        MySGD([ember.ones(3, requires_grad=True), ember.ones(1, requires_grad=True)]).load_state_dict(sd)


def test_what_the_caller_passes_or_gets_is_not_shared_with_the_optimizer():
    # load_state_dict leaves the caller's dict as it was; each group's Python entries are its own;
    # state_dict's entries and defaults are copies.
    model = make_model()
    defaults_given = dict(lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False)
    opt = MySGD([{"params": model[0].named_parameters(prefix="0")},
                 {"params": model[2].named_parameters(prefix="2"), "label": "head"}], **defaults_given)
    assert [g["label"] for g in opt.param_groups] == ["mine", "head"]
    opt.param_groups[0]["note"] = 1
    assert "note" not in opt.param_groups[1]
    train(model, opt, 1)
    sd = opt.state_dict()
    sd["state"]["0.weight"]["steps"] = 99
    assert opt.state[next(model[0].parameters())]["steps"] == 1
    opt.defaults["lr"] = 5.0
    assert opt.defaults["lr"] == 0.1
    w = ember.ones(3, requires_grad=True)
    by_position = MySGD([w])
    w.grad = ember.ones(3)
    by_position.step()
    saved = by_position.state_dict()
    MySGD([ember.ones(3, requires_grad=True)]).load_state_dict(saved)
    ember.optim.SGD([ember.ones(3, requires_grad=True)], lr=0.1).load_state_dict(ember.optim.SGD([w], lr=0.1).state_dict())
    assert saved["keyed_by"] == "position"


def test_errors_name_the_optimizer():
    with pytest.raises(ValueError, match="empty parameter list"):
        MySGD([])
    with pytest.raises(TypeError, match="got a Tensor"):
        MySGD(ember.ones(2, requires_grad=True))
    opt = MySGD(make_model().parameters())
    with pytest.raises(TypeError, match="MySGD: hyperparameter 'lr'"):
        opt.param_groups[0]["lr"] = "fast"


@pytest.mark.parametrize("cls", [ember.optim.SGD, ember.optim.Adam, ember.optim.RMSprop, MySGD])
def test_step_takes_a_closure_and_returns_its_loss(cls):
    model = make_model()
    opt = cls(model.parameters(), lr=0.01)
    x, y = ember.randn(8, 4), ember.randn(8, 2)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        calls.append(loss.item())
        return loss

    before = [p.tolist() for p in model.parameters()]
    with ember.no_grad():  # the closure runs with gradients enabled all the same
        loss = opt.step(closure)
    assert calls == [loss.item()] and [p.tolist() for p in model.parameters()] != before
