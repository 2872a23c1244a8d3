"""nn.utils.parametrize / parametrizations / weight_norm / spectral_norm / prune, nn.init's
orthogonal_, sparse_, dirac_, eye_, and optim.swa_utils, against PyTorch 2.15
(tests/fixtures/nn_utils.json, made by tests/fixtures/make_nn_utils_fixtures.py): each case
rebuilds the fixture's model with its weights, applies the feature, trains a few SGD steps and
compares outputs, gradients, parameters and state_dict (keys and values) to 1e-10 in float64.
orthogonal_ is checked by its properties (Q^T Q = gain^2 I)."""
import copy
import io
import json
import os
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.nn.utils import parametrizations, parametrize, prune
from ember.optim import swa_utils

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "nn_utils.json")) as _f:
    FIXTURE = json.load(_f)
CASES = FIXTURE["cases"]
TOL = 1e-10


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class Scale(nn.Module):
    def forward(self, x):
        return 2.0 * x


def t(values):
    return ember.tensor(values, dtype=ember.float64)


def close(actual, expected, what):
    a = np.asarray(actual.detach().numpy() if isinstance(actual, ember.Tensor) else actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    assert a.shape == e.shape, f"{what}: shape {a.shape}, PyTorch {e.shape}"
    assert np.allclose(a, e, rtol=TOL, atol=TOL), f"{what}: max diff {np.abs(a - e).max()}"


def build(weights, bn=False):
    layers = [nn.Linear(4, 4), nn.Tanh()] + ([nn.BatchNorm1d(4)] if bn else []) + [nn.Linear(4, 2)]
    model = nn.Sequential(*layers).double()
    with ember.no_grad():
        for name, p in model.named_parameters():
            p.copy_(t(weights[name]))
    return model


def apply(name, model, buffers):
    fc = model[0]
    if name == "parametrize_symmetric":
        parametrize.register_parametrization(fc, "weight", Symmetric())
    elif name == "parametrize_chain_cached":
        parametrize.register_parametrization(fc, "weight", Symmetric())
        parametrize.register_parametrization(fc, "weight", Scale(), unsafe=True)
    elif name == "weight_norm_dim0":
        parametrizations.weight_norm(fc)
        parametrizations.weight_norm(model[2])
    elif name == "weight_norm_dim_none":
        parametrizations.weight_norm(fc, dim=None)
    elif name == "spectral_norm":
        parametrizations.spectral_norm(fc)
    elif name == "spectral_norm_dim1_iters3":
        parametrizations.spectral_norm(fc, n_power_iterations=3, dim=1)
    elif name == "old_weight_norm":
        nn.utils.weight_norm(fc)
        nn.utils.weight_norm(model[2], dim=None)
    elif name == "old_spectral_norm":
        nn.utils.spectral_norm(fc, n_power_iterations=2)
    elif name == "prune_l1":
        prune.l1_unstructured(fc, "weight", amount=0.3)
        prune.l1_unstructured(model[2], "bias", amount=1)
    elif name == "prune_l1_twice":
        prune.l1_unstructured(fc, "weight", amount=4)
        prune.l1_unstructured(fc, "weight", amount=0.25)
    elif name == "prune_global":
        prune.global_unstructured([(fc, "weight"), (model[2], "weight")], prune.L1Unstructured, amount=7)
    with ember.no_grad():
        named = dict(model.named_buffers())
        for key, v in buffers.items():
            named[key].copy_(t(v))


FEATURES = [n for n in CASES if not n.startswith("swa")]


@pytest.mark.parametrize("name", FEATURES)
def test_feature_trains_as_pytorch(name):
    case = CASES[name]
    model = build(case["weights"])
    apply(name, model, case["buffers"])
    x, y = t(case["x"]), t(case["y"])
    opt = ember.optim.SGD(model.parameters(), lr=FIXTURE["lr"])
    for i, expected in enumerate(case["steps"]):
        opt.zero_grad()
        if name == "parametrize_chain_cached":
            with parametrize.cached():
                out = model(x)
        else:
            out = model(x)
        loss = ((out - y) ** 2).mean()
        loss.backward()
        close(out, expected["output"], f"step {i} output")
        assert abs(loss.item() - expected["loss"]) < TOL
        params = dict(model.named_parameters())
        assert list(params) == list(expected["grads"]), "parameter names"
        for n, g in expected["grads"].items():
            close(params[n].grad, g, f"step {i} grad of {n}")
        opt.step()
        for n, v in expected["params"].items():
            close(params[n], v, f"step {i} {n} after the step")
    if "eval_output" in case:
        model.eval()
        close(model(x), case["eval_output"], "eval output")
        close(model[0].weight, case["eval_weight"], "eval weight")
    state = model.state_dict()
    assert list(state) == case["state_keys"]
    for k, v in case["state"].items():
        close(state[k], v, f"state_dict {k}")


@pytest.mark.parametrize("name", FEATURES)
def test_state_dict_round_trips_through_save_and_load(name):
    case = CASES[name]
    model = build(case["weights"])
    apply(name, model, case["buffers"])
    buf = io.BytesIO()
    ember.save(model.state_dict(), buf)
    buf.seek(0)
    loaded = ember.load(buf)
    fresh = build(CASES[FEATURES[0]]["weights"])  # other weights, same feature
    apply(name, fresh, {})
    assert not fresh.load_state_dict(loaded).missing_keys
    x = t(case["x"])
    model.eval()
    fresh.eval()
    close(fresh(x), model(x).detach().numpy(), "output after load")
    with pytest.raises(RuntimeError, match="Missing key"):
        fresh.load_state_dict({k: v for k, v in loaded.items() if not k.endswith("bias")})


def test_optimizer_trains_original_after_register_parametrization():
    model = build(CASES["parametrize_symmetric"]["weights"])
    w = model[0].weight
    opt = ember.optim.SGD(model.parameters(), lr=0.1)  # built before: holds `w`
    parametrize.register_parametrization(model[0], "weight", Symmetric())
    assert model[0].parametrizations.weight.original is w
    before = w.detach().clone()
    model(ember.ones(2, 4, dtype=ember.float64)).sum().backward()
    opt.step()
    assert not ember.equal(before, w.detach())
    opt2 = ember.optim.SGD(model.parameters(), lr=0.1)
    assert opt2.param_groups[0]["param_names"] == ["0.bias", "0.parametrizations.weight.original", "2.weight",
                                                   "2.bias"]


def test_parametrized_weight_reads_computed_and_assignment_goes_through_right_inverse():
    class Double(nn.Module):
        def forward(self, x):
            return 2 * x

        def right_inverse(self, x):
            return x / 2

    lin = nn.Linear(3, 3).double()
    parametrize.register_parametrization(lin, "weight", Double())
    assert parametrize.is_parametrized(lin) and parametrize.is_parametrized(lin, "weight")
    assert not parametrize.is_parametrized(lin, "bias")
    target = ember.arange(9, dtype=ember.float64).reshape(3, 3)
    lin.weight = target
    close(lin.parametrizations.weight.original, (target / 2).numpy(), "original after assignment")
    close(lin.weight, target.numpy(), "weight after assignment")
    assert "weight" not in dict(lin.named_parameters())
    parametrize.remove_parametrizations(lin, "weight")
    assert not parametrize.is_parametrized(lin) and not hasattr(lin, "parametrizations")
    assert list(lin.state_dict()) == ["weight", "bias"]
    close(lin.weight, target.numpy(), "weight left parametrized")
    with pytest.raises(ValueError, match="does not have a parametrization"):
        parametrize.remove_parametrizations(lin, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(lin, "nope", Double())
    parametrize.register_parametrization(lin, "weight", Double())  # again, after a removal
    assert list(lin.state_dict()) == ["bias", "parametrizations.weight.original"]


def test_remove_hook_based_utilities_restore_a_plain_parameter():
    for apply_, remove in [(nn.utils.weight_norm, nn.utils.remove_weight_norm),
                           (nn.utils.spectral_norm, nn.utils.remove_spectral_norm),
                           (lambda m: prune.l1_unstructured(m, "weight", 2), lambda m: prune.remove(m, "weight"))]:
        lin = nn.Linear(3, 2).double()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            apply_(lin)
        lin.eval()
        lin(ember.ones(1, 3, dtype=ember.float64))  # as torch's hooks: the weight is computed by a call
        expected = lin.weight.detach().clone()
        remove(lin)
        assert list(lin.state_dict()) == ["weight", "bias"]
        assert isinstance(lin.weight, nn.Parameter)
        close(lin.weight, expected.numpy(), "weight after remove")
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="has to be pruned before"):
        prune.remove(nn.Linear(2, 2), "weight")


def test_prune_random_unstructured_and_is_pruned():
    model = nn.Sequential(nn.Linear(5, 4), nn.Linear(4, 2))
    assert not prune.is_pruned(model)
    prune.random_unstructured(model[0], "weight", amount=0.4)
    assert prune.is_pruned(model)
    assert int((model[0].weight_mask == 0).sum().item()) == 8
    assert ember.equal(model[0].weight, model[0].weight_orig * model[0].weight_mask)


# ---- swa_utils

SWA = [n for n in CASES if n.startswith("swa")]


def _averaged(name, model):
    if name == "swa_mean":
        return swa_utils.AveragedModel(model)
    if name == "swa_ema":
        return swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    return swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.8), use_buffers=True)


@pytest.mark.parametrize("name", SWA)
def test_swa_utils_as_pytorch(name):
    case = CASES[name]
    model = build(case["weights"], bn=True)
    averaged = _averaged(name, model)
    opt = ember.optim.SGD(model.parameters(), lr=FIXTURE["lr"])
    sched = swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=3, anneal_strategy="cos" if name != "swa_ema" else "linear")
    lrs = []
    for xb, yb in zip(case["batches"], case["targets"]):
        opt.zero_grad()
        ((model(t(xb)) - t(yb)) ** 2).mean().backward()
        opt.step()
        averaged.update_parameters(model)
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(lrs, case["lrs"], rtol=1e-12, atol=1e-15)
    assert int(averaged.n_averaged.item()) == case["n_averaged"]
    state = averaged.state_dict()
    assert list(state) == case["state_keys"]
    for k, v in case["state"].items():
        close(state[k], v, f"averaged {k}")
    swa_utils.update_bn([t(b) for b in case["batches"][:3]], averaged)
    state = averaged.state_dict()
    for k, v in case["after_update_bn"].items():
        close(state[k], v, f"after update_bn {k}")
    averaged.eval()
    close(averaged(t(case["batches"][0])), case["eval_output"], "eval output")


def test_averaged_model_is_a_copy_and_ema_checks_decay():
    model = nn.Sequential(nn.Linear(2, 2))
    averaged = swa_utils.AveragedModel(model)
    assert averaged.module[0].weight is not model[0].weight
    assert ember.equal(averaged.module[0].weight, model[0].weight)
    with pytest.raises(ValueError, match="Invalid decay value"):
        swa_utils.get_ema_multi_avg_fn(1.5)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(), multi_avg_fn=swa_utils.get_ema_multi_avg_fn())
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        swa_utils.SWALR(ember.optim.SGD(model.parameters(), lr=0.1), swa_lr=0.1, anneal_strategy="step")


def test_swa_utils_are_the_cpp_classes_and_swalr_is_a_scheduler():
    model = nn.Sequential(nn.Linear(2, 2))
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    sched = swa_utils.SWALR(opt, swa_lr=[0.05], anneal_epochs=2, anneal_strategy="linear")
    assert isinstance(sched, ember.optim.lr_scheduler.LRScheduler)
    assert opt.param_groups[0]["swa_lr"] == 0.05  # stored in the group, as torch's
    assert (sched.anneal_epochs, sched.anneal_strategy) == (2, "linear")
    assert isinstance(swa_utils.AveragedModel(model), ember._C.optim.AveragedModel)
    with pytest.raises(ValueError, match="swa_lr has 2 values, param_groups has 1"):
        swa_utils.SWALR(opt, swa_lr=[0.1, 0.2])
    with pytest.raises(TypeError):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=1.5)
    with pytest.raises(TypeError, match="is not an ember.nn.Module"):
        swa_utils.AveragedModel(object())


def test_averaged_model_of_a_python_module_with_keyword_forward_and_update_bn_over_pairs():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.bn = nn.BatchNorm1d(4, momentum=0.3)

        def forward(self, x, *, scale=1.0):
            return self.bn(self.fc(x)) * scale

    net = Net()
    ema = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    before = net.fc.weight.detach().clone()
    ema.update_parameters(net)
    with ember.no_grad():
        net.fc.weight.add_(2.0)
    ema.update_parameters(net)
    np.testing.assert_allclose(ema.module.fc.weight.detach().numpy(), before.numpy() + 1.0, rtol=1e-6)
    batches = [(ember.randn(5, 3), ember.randn(5)) for _ in range(3)]
    ema.eval()
    swa_utils.update_bn(batches, ema, device="cpu")
    assert not ema.training and ema.module.bn.momentum == 0.3  # mode and momentum restored
    with ember.no_grad():
        hidden = [ema.module.fc(x).numpy() for x, _ in batches]
    np.testing.assert_allclose(ema.module.bn.running_mean.numpy(), np.mean([h.mean(0) for h in hidden], 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ema.module.bn.running_var.numpy(), np.mean([h.var(0, ddof=1) for h in hidden], 0),
                               rtol=1e-5, atol=1e-6)
    x = ember.randn(2, 3)
    assert ember.allclose(ema(x, scale=2.0), 2.0 * ema.module(x))
    twin = copy.deepcopy(ema)  # a copy averaging into its own copy of the module
    assert int(twin.n_averaged.item()) == 2 and twin.module.fc.weight is not ema.module.fc.weight
    assert ember.equal(twin.module.fc.weight, ema.module.fc.weight) and not twin.training
    twin.update_parameters(net)
    assert int(twin.n_averaged.item()) == 3 and int(ema.n_averaged.item()) == 2

    def broken():
        yield ember.randn(5, 3)
        raise RuntimeError("the loader failed")

    with pytest.raises(RuntimeError, match="the loader failed"):
        swa_utils.update_bn(broken(), ema)
    assert not ema.training and ema.module.bn.momentum == 0.3


def test_deepcopy_of_a_parametrized_python_module():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("shift", ember.ones(3))

        def forward(self, x):
            return self.fc(x) + self.shift

    net = Net()
    parametrize.register_parametrization(net, "shift", Scale())
    c = copy.deepcopy(net)
    x = ember.randn(2, 3)
    assert ember.allclose(c(x), net(x))
    assert list(c.state_dict()) == list(net.state_dict())


# ---- nn.init

@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (4, 2, 3), (6, 2, 2), (2, 3, 2, 2)])
@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_orthogonal_is_orthogonal_times_gain(shape, gain):
    g = ember.Generator()
    g.manual_seed(3)
    w = nn.init.orthogonal_(ember.empty(*shape, dtype=ember.float64), gain=gain, generator=g)
    assert tuple(w.shape) == shape
    a = w.numpy().reshape(shape[0], -1)
    gram = a @ a.T if a.shape[0] <= a.shape[1] else a.T @ a
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(gram.shape[0]), atol=1e-12)
    g.manual_seed(3)
    again = nn.init.orthogonal_(ember.empty(*shape, dtype=ember.float64), gain=gain, generator=g)
    assert ember.equal(w, again)  # Ember's generator drives it
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(ember.empty(3))


def test_orthogonal_fills_a_float32_parameter_in_place():
    lin = nn.Linear(6, 4)
    w = lin.weight
    assert nn.init.orthogonal_(lin.weight) is w
    a = w.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(a @ a.T, np.eye(4), atol=1e-5)


def test_eye_dirac_sparse_and_deprecated_names():
    np.testing.assert_array_equal(nn.init.eye_(ember.empty(2, 3)).numpy(), np.eye(2, 3))
    w = nn.init.dirac_(ember.empty(4, 2, 3, 3), groups=2)
    x = ember.randn(1, 2, 5, 5)
    out = nn.functional.conv2d(x, w[:2], padding=1)
    assert ember.allclose(out, x)
    s = nn.init.sparse_(ember.empty(10, 4), sparsity=0.3)
    assert ((s == 0).sum(0) >= 3).all().item()
    with pytest.warns(FutureWarning, match="deprecated in favor of `nn.init.uniform_`"):
        nn.init.uniform(ember.empty(2))
    for n in ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
              "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]:
        assert callable(getattr(nn.init, n))
