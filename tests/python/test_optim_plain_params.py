"""Optimizers built from model.parameters() as PyTorch scripts build them: state keyed by the
structured names the parameters carry, a fallback to positions (said in state_dict) where no name
is known, and positional state refused where the model changed. Also the tensor protocol bits
those scripts print with (f"{loss:.4f}", pprint of a state dict)."""
import io
import pprint

import numpy as np
import pytest

import ember
from ember import nn


def make_model(seed=0):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def run(model, opt, steps=4, seed=1):
    ember.manual_seed(seed)
    x, y = ember.randn(16, 4), ember.randint(0, 3, (16,))
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("make", [
    lambda params: ember.optim.SGD(params, lr=0.1, momentum=0.9),
    lambda params: ember.optim.Adam(params, lr=1e-2),
    lambda params: ember.optim.AdamW(params, lr=1e-2),
])
def test_model_parameters_key_state_by_name_and_train_as_named_parameters(make):
    named_model, plain_model = make_model(), make_model()
    reference = make(named_model.named_parameters())
    opt = make([p for p in plain_model.parameters() if p.requires_grad])
    for a, b in zip(run(named_model, reference), run(plain_model, opt)):
        np.testing.assert_array_equal(a, b)
    state = opt.state_dict()
    assert "keyed_by" not in state
    assert state["param_groups"][0]["params"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert set(state["state"]) == {"0.weight", "0.bias", "2.weight", "2.bias"}


def test_a_frozen_layer_filtered_out_keeps_the_others_names():
    model = make_model()
    model[0].requires_grad_(False)
    opt = ember.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["2.weight", "2.bias"]


def test_groups_whose_names_collide_fall_back_to_positions_and_say_so():
    model = make_model()
    opt = ember.optim.SGD([{"params": model[0].parameters()},
                           {"params": model[2].parameters(), "lr": 0.01}], lr=0.1, momentum=0.9)
    run(model, opt, steps=2)
    state = opt.state_dict()
    assert state["keyed_by"] == "position"
    assert [g["params"] for g in state["param_groups"]] == [["#0", "#1"], ["#2", "#3"]]
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]


def test_positional_state_resumes_bit_for_bit_through_a_checkpoint():
    def build(model):
        return ember.optim.SGD([{"params": model[0].parameters()},
                                {"params": model[2].parameters(), "lr": 0.05}], lr=0.1, momentum=0.9)

    straight = make_model()
    opt = build(straight)
    run(straight, opt, steps=3)
    buffer = io.BytesIO()
    ember.save({"model": straight.state_dict(), "optimizer": opt}, buffer)
    final = run(straight, opt, steps=3, seed=2)

    resumed = make_model(seed=5)
    opt2 = build(resumed)
    buffer.seek(0)
    ckpt = ember.load(buffer)
    resumed.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    for a, b in zip(final, run(resumed, opt2, steps=3, seed=2)):
        np.testing.assert_array_equal(a, b)


def test_positional_state_into_a_changed_model_is_an_error_never_a_swap():
    model = make_model()
    opt = ember.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters()}],
                          lr=0.1, momentum=0.9)
    run(model, opt, steps=1)
    state = opt.state_dict()

    wider = nn.Sequential(nn.Linear(4, 9), nn.ReLU(), nn.Linear(9, 3))
    other = ember.optim.SGD([{"params": wider[0].parameters()}, {"params": wider[2].parameters()}],
                            lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"'momentum_buffer' of parameter #0 has shape \[8, 4\].*\[9, 4\]"):
        other.load_state_dict(state)

    # NB: tensors no one module reaches all of are keyed by position (model[0]'s and model[2]'s
    # would be named after model, which run() traversed: a tensor is one object)
    fewer = ember.optim.SGD([{"params": nn.Linear(4, 8).parameters()}, {"params": [nn.Linear(8, 3).weight]}],
                            lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"groups of \[2, 2\] parameters, this optimizer has \[2, 1\]"):
        fewer.load_state_dict(state)

    named = ember.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="keyed by position but this optimizer keys its parameters by name"):
        named.load_state_dict(state)


def test_tensors_made_by_hand_are_keyed_by_position():
    w = ember.randn(3, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    before = w.detach().numpy().copy()
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), before - 0.5 * 2 * before, rtol=1e-6)
    assert opt.state_dict()["param_groups"][0]["params"] == ["#0"]
    opt.add_param_group({"params": [ember.randn(2, requires_grad=True)]})
    assert opt.param_groups[1]["param_names"] == ["#1"]


def test_add_param_group_to_a_named_optimizer_needs_names_it_does_not_have():
    model = make_model()
    opt = ember.optim.SGD(model[0].parameters(), lr=0.1)
    with pytest.raises(ValueError, match="keys its state by name"):
        opt.add_param_group({"params": model[2].parameters()})  # "weight", "bias" again
    opt.add_param_group({"params": model[2].named_parameters(prefix="head")})
    assert opt.param_groups[1]["param_names"] == ["head.weight", "head.bias"]


def test_a_scheduler_drives_an_optimizer_built_from_parameters():
    model = make_model()
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    run(model, opt, steps=1)
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05)


def test_format_a_loss_as_scripts_print_it():
    loss = ember.tensor(0.123456)
    assert f"{loss:.4f}" == "0.1235" and f"{loss:>8.2f}" == "    0.12"
    assert f"{ember.tensor(7)}" == "7"  # a 0-d tensor formats as its number, as in PyTorch
    assert f"{ember.ones(2)}" == str(ember.ones(2))
    with pytest.raises(TypeError):
        f"{ember.ones(2):.2f}"


def test_pprint_of_a_state_dict_with_large_tensors():
    text = pprint.pformat(make_model().state_dict())
    assert "0.weight" in text and "tensor(" in text


def test_plain_tensors_are_named_after_a_module_that_reaches_them_all():
    model = make_model()
    assert len(list(model.parameters())) == 4  # model traversed: each parameter knows its name under it
    opt = ember.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.01}], lr=0.1)
    assert [g["param_names"] for g in opt.param_groups] == [["0.weight", "0.bias"], ["2.weight", "2.bias"]]
    fresh = make_model()  # never traversed whole: the names under fresh[0] and fresh[2] collide
    assert ember.optim.SGD([{"params": fresh[0].parameters()}, {"params": fresh[2].parameters()}],
                           lr=0.1).state_dict()["keyed_by"] == "position"
    first = ember.optim.SGD([p for n, p in model.named_parameters() if n.startswith("0.")], lr=0.1)
    first.add_param_group({"params": model[2].parameters()})  # under the optimizer's module, model
    assert [g["param_names"] for g in first.param_groups] == [["0.weight", "0.bias"], ["2.weight", "2.bias"]]
