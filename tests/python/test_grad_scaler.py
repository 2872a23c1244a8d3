"""ember.amp.GradScaler (C++ optim::GradScaler) against torch.amp.GradScaler("cpu"): the scale, growth
tracker, skipped steps and parameters of a recorded run (tests/fixtures/grad_scaler.json, written by
make_grad_scaler_fixtures.py over the loop in grad_scaler_loop.py); exact resume from a saved
state_dict; PyTorch's errors for calls out of order; the forms of scale()'s argument; pickling."""
import json
import os
import pickle
import warnings

import numpy as np
import pytest

import ember
from grad_scaler_loop import STEPS, run

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "grad_scaler.json")) as _f:
    RUN = json.load(_f)["cases"]["run"]


def tensor(name):
    e = RUN["tensors"][name]
    data = [float(v) for v in e["data"]]
    return ember.tensor(np.array(data, dtype=np.float32).reshape(e["shape"]))


def recorded_inputs():
    init = {k: tensor(f"init.{k}") for k in ("w1", "b1", "w2", "b2")}
    return init, [(tensor(f"x_{k}"), tensor(f"y_{k}")) for k in range(STEPS)]


def test_a_run_scales_skips_and_steps_as_pytorchs():
    record = run(ember, *recorded_inputs())
    scalars = RUN["scalars"]
    for k, step in enumerate(record["steps"]):
        assert step["scale"] == scalars[f"scale_{k}"], k
        assert step["tracker"] == scalars[f"tracker_{k}"], k
        assert step["stepped"] == scalars[f"stepped_{k}"], k
        for name, p in step["params"].items():
            np.testing.assert_allclose(p.numpy(), tensor(f"{name}_{k}").numpy(), rtol=2e-5, atol=1e-6,
                                       err_msg=f"{name} after step {k}")
    state = record["state"]
    assert state == {key[len("state."):]: v for key, v in scalars.items() if key.startswith("state.")}
    assert type(state["growth_interval"]) is int and type(state["_growth_tracker"]) is int
    assert [s["stepped"] for s in record["steps"]].count(0.0) == 2  # the inf and the NaN batch


def test_a_run_resumed_from_a_saved_state_goes_on_exactly(tmp_path):
    init, batches = recorded_inputs()
    whole = run(ember, init, batches)
    first = run(ember, init, batches[:5])
    path = str(tmp_path / "ckpt.pt")
    ember.save({"params": first["params"], "opt": first["opt"].state_dict(), "scaler": first["scaler"].state_dict()},
               path)
    ckpt = ember.load(path)
    params = {k: v.detach().clone().requires_grad_() for k, v in ckpt["params"].items()}
    opt = ember.optim.SGD([params["w1"], params["b1"], params["w2"], params["b2"]], lr=0.05, momentum=0.9)
    opt.load_state_dict(ckpt["opt"])
    scaler = ember.amp.GradScaler("cpu")  # defaults: the state brings the rest
    scaler.load_state_dict(ckpt["scaler"])
    assert scaler.get_growth_interval() == 3 and scaler.get_backoff_factor() == 0.25
    rest = run(ember, init, batches, scaler=scaler, start=5, params=params, opt=opt)
    for name in params:
        np.testing.assert_array_equal(rest["params"][name].detach().numpy(), whole["params"][name].detach().numpy())
    assert rest["state"] == whole["state"]


def test_calls_out_of_order_are_pytorchs_errors():
    w = ember.ones(3, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1)
    scaler = ember.amp.GradScaler("cpu")
    scaler.scale((w * 2).sum()).backward()
    with pytest.raises(RuntimeError, match=r"No inf checks were recorded prior to update\."):
        scaler.update()
    scaler.unscale_(opt)
    np.testing.assert_array_equal(w.grad.numpy(), [2, 2, 2])
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        scaler.step(opt)
    scaler.update(ember.tensor([8.0]))
    assert scaler.get_scale() == 8.0
    with pytest.raises(ValueError, match="new_scale should be a float or a 1-element"):
        scaler.update(ember.ones(2))
    with pytest.raises(RuntimeError, match="saved from a disabled instance of GradScaler"):
        scaler.load_state_dict({})
    with pytest.raises(ValueError, match="growth_factor should be > 1"):
        ember.amp.GradScaler("cpu", growth_factor=0.5)


def test_cuda_without_a_device_warns_and_turns_off_and_disabled_passes_through():
    if ember.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = ember.amp.GradScaler()
    loss = ember.tensor(3.0)
    assert not scaler.is_enabled() and scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    assert scaler.state_dict() == {} and scaler._get_growth_tracker() == 0
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not ember.cuda.amp.GradScaler().is_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.amp.GradScaler("cpu").is_enabled()


def test_scale_takes_a_tensor_or_nested_sequences_of_them():
    scaler = ember.amp.GradScaler("cpu", init_scale=4.0)
    a, b = ember.tensor(1.5), ember.tensor([2.0, 3.0], dtype=ember.float64)
    assert scaler.scale(a).item() == 6.0
    out = scaler.scale([a, (b, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[1][0].dtype == ember.float64 and out[1][0].tolist() == [8.0, 12.0]
    assert [t.item() for t in scaler.scale(iter([a, a]))] == [6.0, 6.0]
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale([1.0])


def test_pickles_with_its_state():
    scaler = ember.amp.GradScaler("cpu", init_scale=64.0, growth_interval=7)
    back = pickle.loads(pickle.dumps(scaler))
    assert back.state_dict() == scaler.state_dict() and back.is_enabled()
