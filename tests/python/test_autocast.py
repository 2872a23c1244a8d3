"""Autocast (issue 28): the output dtype of every op of the op table and of every op on PyTorch's CPU
autocast lists, for each mix of its inputs' dtypes, under autocast to bfloat16 and to float16,
against PyTorch's (tests/fixtures/autocast.json, make_autocast_fixtures.py); then what a region does
as a user meets it: nesting, enabled=False, the decorator, the weight-cast cache, no_grad,
gradients in the parameters' dtype, backward and checkpointing, a training loop with GradScaler.
"""
import json
import os
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.checkpoint import checkpoint

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "autocast.json")) as f:
    FIXTURE = json.load(f)

# Where Ember's dtype differs from PyTorch's on purpose: (op, autocast dtype, mix) -> why, and Ember's.
KNOWN = {
    # PyTorch's CPU LSTM takes oneDNN's layer (on its autocast list) for float32 and the region's
    # dtype, and falls back to its cells for the other 16-bit dtype; Ember's LSTM casts all three.
    ("lstm", "bfloat16", "all_float16"): "bfloat16",
    ("lstm", "float16", "all_bfloat16"): "float16",
}

# PyTorch's kernels that have no 16-bit (or no oneDNN on this machine) form: PyTorch raises for a
# reason that is not autocast's, and Ember computes.
TORCH_KERNEL_GAPS = ("not implemented for", "could not create a primitive descriptor",
                     "expected a tensor with 2 or more dimensions of float")


def params():
    return list(_params())


def _params():
    for name, case in FIXTURE["cases"].items():
        for adt, mixes in case["results"].items():
            for mix, want in mixes.items():
                yield pytest.param(case, adt, mix, want, id=f"{name}-{adt}-{mix}")


MIXES = {
    "all_float32": lambda n, a: ["float32"] * n,
    "all_bfloat16": lambda n, a: ["bfloat16"] * n,
    "all_float16": lambda n, a: ["float16"] * n,
    "float32_then_16": lambda n, a: ["float32"] + [a] * (n - 1),
    "16_then_float32": lambda n, a: [a] + ["float32"] * (n - 1),
    "all_float64": lambda n, a: ["float64"] * n,
}


def inputs_of(case, adt, mix):
    n_float = sum(1 for v in case["inputs"].values() if v["kind"] == "float")
    dtypes = iter(MIXES[mix](n_float, adt))
    env = {}
    for name, spec in case["inputs"].items():
        data = np.asarray(spec["data"]).reshape(spec["shape"])
        if spec["kind"] == "float":
            env[name] = ember.tensor(data.astype(np.float64)).to(getattr(ember, next(dtypes)))
        elif spec["kind"] == "int64":
            env[name] = ember.tensor(data.astype(np.int64))
        else:
            env[name] = ember.tensor(data.astype(bool))
    return env


@pytest.mark.parametrize("case,adt,mix,want", params())
def test_output_dtypes_under_autocast_match_pytorchs(case, adt, mix, want):
    env = {"T": ember, "F": F, "nn": nn, **inputs_of(case, adt, mix)}
    ember.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with ember.autocast("cpu", dtype=getattr(ember, adt)):
                out = eval(case["expr"], env)
    except Exception as e:  # noqa: BLE001
        if "error" in want:
            return
        raise AssertionError(f"{case['expr']} raised {type(e).__name__}: {e}; PyTorch gives {want['dtypes']}")
    if "error" in want:
        assert any(g in want["error"] for g in TORCH_KERNEL_GAPS), (
            f"{case['expr']} gave {out.dtype if isinstance(out, ember.Tensor) else out}; PyTorch raised "
            f"{want['error']}")
        return
    outs = out if isinstance(out, (tuple, list)) else [out]
    if (case["op"], adt, mix) in KNOWN:
        want = {"dtypes": [KNOWN[case["op"], adt, mix]]}
    got = [str(o.dtype).replace("ember.", "") if isinstance(o, ember.Tensor) else type(o).__name__ for o in outs]
    assert got == want["dtypes"], f"{case['expr']}: {got}, PyTorch's {want['dtypes']}"


# ---- a region as a user meets it


def test_autocast_state_nests_and_restores():
    assert not ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") == ember.bfloat16
    x = ember.randn(3, 3)
    with ember.autocast("cpu", dtype=ember.float16):
        assert ember.is_autocast_enabled("cpu") and (x @ x).dtype == ember.float16
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu") and (x @ x).dtype == ember.float32
        with ember.autocast("cpu", dtype=ember.bfloat16):
            assert (x @ x).dtype == ember.bfloat16
        assert (x @ x).dtype == ember.float16
    assert not ember.is_autocast_enabled("cpu") and (x @ x).dtype == ember.float32
    with pytest.raises(ZeroDivisionError), ember.autocast("cpu"):
        1 / 0
    assert not ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") == ember.bfloat16


def test_the_decorator_and_the_namespaced_spellings():
    @ember.autocast("cpu")
    def f(a):
        return a @ a

    @ember.amp.autocast("cpu", enabled=False)
    def g(a):
        return a @ a

    x = ember.randn(2, 2)
    assert f(x).dtype == ember.bfloat16 and g(x).dtype == ember.float32
    with ember.cpu.amp.autocast():
        assert (x @ x).dtype == ember.bfloat16 and ember.is_autocast_cpu_enabled()
    with ember.cpu.amp.autocast(dtype=ember.float16):
        assert (x @ x).dtype == ember.float16 and ember.get_autocast_cpu_dtype() == ember.float16
    assert ember.amp.is_autocast_available("cpu") and ember.amp.is_autocast_available("cuda")


def test_what_autocast_refuses_or_turns_off():
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of ember.bfloat16, ember.float16"):
        with ember.autocast("cpu", dtype=ember.float32):
            assert not ember.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xpu'"):
        ember.autocast("xpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(ember.device("cpu"))
    if ember.cuda.device_count() == 0:
        with pytest.warns(UserWarning, match="CUDA is not available. Disabling"):
            with ember.autocast("cuda"):
                assert not ember.is_autocast_enabled("cuda")
    x = ember.randn(2, 2)
    with ember.autocast("cpu", dtype=ember.float16):
        with pytest.raises(TypeError, match="cat under autocast to float16: an input of dtype bfloat16"):
            ember.cat([x.bfloat16(), x.bfloat16()])


def mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def test_float32_parameters_get_float32_gradients_close_to_float32_training():
    # NB: tanh, not ReLU: a pre-activation near 0 that rounds to the other side of a ReLU changes a
    # sample's whole contribution to a row (PyTorch's bfloat16 gradients differ the same way).
    def model():
        ember.manual_seed(0)
        return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))

    x, y = ember.randn(32, 8), ember.randint(0, 4, (32,))
    plain, mixed = model(), model()
    F.cross_entropy(plain(x), y).backward()
    with ember.autocast("cpu"):
        out = mixed(x)
        loss = F.cross_entropy(out, y)
    assert out.dtype == ember.bfloat16 and loss.dtype == ember.float32
    loss.backward()
    for (name, p), q in zip(mixed.named_parameters(), plain.parameters()):
        assert p.grad.dtype == ember.float32, name
        # bfloat16 keeps 8 bits: activations and their gradients round at each of the layers' ops
        # (1.5% at most over 200 draws of x and y)
        error = np.linalg.norm(p.grad.numpy() - q.grad.numpy()) / np.linalg.norm(q.grad.numpy())
        assert error < 0.05, (name, error)


def test_backward_inside_the_region_gives_the_gradients_of_backward_outside_it():
    x, y = ember.randn(16, 8), ember.randint(0, 4, (16,))
    grads = []
    for inside in (False, True):
        model = mlp()
        with ember.autocast("cpu"):
            loss = F.cross_entropy(model(x), y)
            if inside:
                loss.backward()
        if not inside:
            loss.backward()
        grads.append([p.grad.numpy() for p in model.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_a_weight_is_cast_once_per_region_and_again_after_an_in_place_write():
    lin = nn.Linear(4, 4, bias=False)
    x = ember.randn(2, 4)
    for cache_enabled in (True, False):
        with ember.autocast("cpu", cache_enabled=cache_enabled):
            y1 = lin(x)
            y2 = lin(x)
            assert ember.equal(y1, y2)
            with ember.no_grad():
                lin.weight.mul_(2)  # the cast made before must not be reused
            y3 = lin(x)
        np.testing.assert_allclose(y3.detach().float().numpy(), 2 * y1.detach().float().numpy(), rtol=2 ** -7)
        (y1.float().sum() + y3.float().sum()).backward()
        assert lin.weight.grad is not None and lin.weight.grad.dtype == ember.float32
        lin.weight.grad = None


def test_a_cast_made_under_no_grad_does_not_cut_a_later_use_from_the_graph():
    lin = nn.Linear(4, 2)
    x = ember.randn(3, 4)
    with ember.autocast("cpu"):
        with ember.no_grad():
            frozen = lin(x)
        y = lin(x)
    assert not frozen.requires_grad and y.requires_grad and y.dtype == ember.bfloat16
    y.float().sum().backward()
    assert lin.weight.grad is not None and float(lin.weight.grad.abs().sum()) > 0


def test_checkpointing_recomputes_under_the_forwards_autocast_state():
    x = ember.randn(8, 8, requires_grad=True)
    grads = []
    for use_checkpoint in (False, True):
        model = mlp()
        with ember.autocast("cpu"):
            out = checkpoint(model, x, use_reentrant=False) if use_checkpoint else model(x)
        assert out.dtype == ember.bfloat16
        out.float().sum().backward()
        grads.append([p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()])
        x.grad = None
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_custom_fwd_casts_a_functions_inputs_and_custom_bwd_replays_the_state():
    seen = {}

    class Square(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        def forward(ctx, a):
            seen["forward"] = (a.dtype, ember.is_autocast_enabled("cpu"))
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["backward"] = ember.is_autocast_enabled("cpu")
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = ember.randn(3, requires_grad=True)
    with ember.autocast("cpu"):
        y = Square.apply(x.bfloat16())
    y.sum().backward()
    assert seen == {"forward": (ember.float32, False), "backward": True}
    assert x.grad.dtype == ember.float32


def test_a_training_loop_with_autocast_and_grad_scaler_learns_as_float32_does():
    ember.manual_seed(1)
    x = ember.randn(64, 8)
    y = (x[:, :4].sum(1, keepdim=True) > 0).long().squeeze(1)
    losses = {}
    for amp in (False, True):
        model = mlp()
        opt = ember.optim.AdamW(model.parameters(), lr=1e-2)
        scaler = ember.amp.GradScaler("cpu", enabled=amp)
        for _ in range(60):
            opt.zero_grad()
            with ember.autocast("cpu", enabled=amp):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        losses[amp] = float(loss)
        assert all(p.dtype == ember.float32 for p in model.parameters())
    assert losses[True] < 0.2 and abs(losses[True] - losses[False]) < 0.05, losses


def test_norm_layers_of_a_float32_model_take_16_bit_activations():
    # PyTorch's CPU norms compute a 16-bit input with float32 parameters in float32 and round once
    x = ember.randn(4, 3, 5)
    for layer in (nn.BatchNorm1d(3), nn.LayerNorm(5), nn.GroupNorm(1, 3)):
        want = layer(x).bfloat16()
        got = layer(x.bfloat16())
        assert got.dtype == ember.bfloat16
        np.testing.assert_allclose(got.detach().float().numpy(), want.detach().float().numpy(), atol=0.05)


def test_ops_written_in_python_follow_the_same_lists():
    x = ember.randn(1, 2, 4, 4, 4)
    w = ember.randn(3, 2, 3, 3, 3)
    with ember.autocast("cpu"):
        assert F.conv3d(x, w).dtype == ember.bfloat16  # lower precision
        assert F.avg_pool3d(x.bfloat16(), 2).dtype == ember.float32  # float32 list
        assert F.kl_div(ember.randn(2, 3).bfloat16(), ember.rand(2, 3), reduction="batchmean").dtype == ember.float32
    assert ember._C._autocast_policy("conv3d", "cpu") == "lower_precision_fp"
    assert ember._C._autocast_policy("exp", "cpu") is None
    assert ember._C._autocast_policy("exp", "cuda") == "fp32"
    assert ember._C._autocast_policy("cat", "cpu") == "promote"
