"""master_weights=True: 16-bit parameters stepped through a float32 master copy, from Python.

The oracle is the same optimizer on a float32 copy of the model fed the same (widened) gradients:
the master equals that copy bit for bit and the 16-bit parameter is it rounded once. A pure-bfloat16
run with a GradScaler, checkpointed by the CheckpointManager and resumed into freshly built objects,
continues bit for bit. (A pure-float16 model's gradients are float16, which the scaler refuses to
unscale as PyTorch's does: float16 runs keep float32 parameters under autocast.)"""
import copy

import numpy as np
import pytest

import ember
import ember.nn.functional as F

OPTIMIZERS = {
    "SGD": lambda params, **kw: ember.optim.SGD(params, lr=1e-3, momentum=0.9, **kw),
    "Adam": lambda params, **kw: ember.optim.Adam(params, lr=1e-3, **kw),
    "AdamW": lambda params, **kw: ember.optim.AdamW(params, lr=1e-3, weight_decay=0.1, **kw),
    "RMSprop": lambda params, **kw: ember.optim.RMSprop(params, lr=1e-3, **kw),
    "Adagrad": lambda params, **kw: ember.optim.Adagrad(params, lr=1e-2, **kw),
    "Adadelta": lambda params, **kw: ember.optim.Adadelta(params, **kw),
    "Adamax": lambda params, **kw: ember.optim.Adamax(params, **kw),
    "NAdam": lambda params, **kw: ember.optim.NAdam(params, **kw),
    "RAdam": lambda params, **kw: ember.optim.RAdam(params, **kw),
}


def bits(t):
    return t.detach().float().numpy().view(np.uint32)


def net(dtype):
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(6, 8), ember.nn.Tanh(), ember.nn.Linear(8, 3)).to(dtype)


@pytest.mark.parametrize("dtype", [ember.bfloat16, ember.float16])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_the_master_steps_as_a_float32_model_fed_the_same_gradients(name, dtype):
    low = net(dtype)
    ref = copy.deepcopy(low).float()
    opt = OPTIMIZERS[name](low.parameters(), master_weights=True)
    ref_opt = OPTIMIZERS[name](ref.parameters())
    x, y = ember.randn(16, 6, dtype=dtype), ember.randint(0, 3, (16,))
    for _ in range(12):
        opt.zero_grad()
        ref_opt.zero_grad()
        F.cross_entropy(low(x), y).backward()
        for p, r in zip(low.parameters(), ref.parameters()):
            r.grad = p.grad.float()
        opt.step()
        ref_opt.step()
    for (n, p), r in zip(low.named_parameters(), ref.parameters()):
        state = opt.state[p]
        assert state["master"].dtype == ember.float32
        np.testing.assert_array_equal(bits(state["master"]), bits(r), err_msg=n)
        assert ember.equal(p.detach(), r.detach().to(dtype)), n
        assert p.dtype == dtype and p.grad.dtype == dtype
        assert all(v.dtype == ember.float32 for k, v in state.items() if k != "step")


def test_small_updates_accumulate_where_plain_bfloat16_rounds_them_away():
    def final(master_weights):
        w = ember.ones(4, dtype=ember.bfloat16, requires_grad=True)
        opt = ember.optim.SGD([("w", w)], lr=1e-3, master_weights=master_weights)
        for _ in range(200):
            w.grad = ember.ones(4, dtype=ember.bfloat16)
            opt.step()
        return w.detach().float()

    assert final(False).tolist() == [1.0] * 4  # each 1e-3 step is under half of bf16's ulp at 1
    np.testing.assert_allclose(final(True).numpy(), 0.8, atol=4e-3)


def test_the_flag_is_a_hyperparameter_per_group_and_in_the_state_dict():
    model = net(ember.bfloat16)
    opt = ember.optim.AdamW([{"params": model[0].named_parameters(prefix="0"), "master_weights": True},
                             {"params": model[2].named_parameters(prefix="2")}], lr=1e-3)
    assert [g["master_weights"] for g in opt.param_groups] == [True, False]
    F.cross_entropy(model(ember.randn(4, 6, dtype=ember.bfloat16)), ember.tensor([0, 1, 2, 0])).backward()
    opt.step()
    state = opt.state_dict()
    assert "master" in state["state"]["0.weight"] and "master" not in state["state"]["2.weight"]
    assert state["param_groups"][0]["master_weights"] is True
    with pytest.raises(TypeError, match="master_weights"):
        ember.optim.SGD(model.parameters(), master_weights=1.5)
    assert ember.optim.Rprop(model.parameters(), master_weights=True).param_groups[0]["master_weights"] is True
    with pytest.raises(ValueError, match="LBFGS: unknown hyperparameter 'master_weights'"):
        ember.optim.LBFGS(model.parameters(), master_weights=True)  # not offered


def train(model, opt, scaler, batches):
    for x, y in batches:
        opt.zero_grad()
        scaler.scale(F.cross_entropy(model(x), y)).backward()
        scaler.step(opt)
        scaler.update()


def test_a_pure_bfloat16_run_with_a_scaler_resumes_bit_for_bit(tmp_path):
    ember.manual_seed(1)
    batches = [(ember.randn(8, 6, dtype=ember.bfloat16), ember.randint(0, 3, (8,))) for _ in range(12)]
    batches[4] = (batches[4][0] * float("inf"), batches[4][1])  # an overflow: that step is skipped

    def fresh():
        model = net(ember.bfloat16)
        opt = ember.optim.AdamW(model.parameters(), lr=1e-3, master_weights=True)
        return model, opt, ember.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=3)

    whole = fresh()
    train(*whole, batches)

    first = fresh()
    train(*first, batches[:6])
    manager = ember.io.CheckpointManager(tmp_path / "run")
    manager.save({"model": first[0].state_dict(), "optimizer": first[1].state_dict(),
                  "scaler": first[2].state_dict()}, step=6)
    del first

    model, opt, scaler = fresh()
    restored = manager.restore()
    model.load_state_dict(restored.state["model"])
    opt.load_state_dict(restored.state["optimizer"])
    scaler.load_state_dict(restored.state["scaler"])
    assert opt.state["0.weight"]["master"].dtype == ember.float32
    train(model, opt, scaler, batches[6:])

    assert scaler.get_scale() == whole[2].get_scale()
    for (n, p), q in zip(model.named_parameters(), whole[0].parameters()):
        assert ember.equal(p, q), n
        np.testing.assert_array_equal(bits(opt.state[n]["master"]), bits(whole[1].state[n]["master"]), err_msg=n)


def test_the_scaler_refuses_float16_gradients_as_pytorchs_does():
    model = net(ember.float16)
    opt = ember.optim.AdamW(model.parameters(), master_weights=True)
    scaler = ember.amp.GradScaler("cpu")
    scaler.scale(model(ember.randn(2, 6, dtype=ember.float16)).sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.step(opt)
