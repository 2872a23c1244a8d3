"""Two small models' training steps under autocast against PyTorch's from the same weights and inputs
(tests/fixtures/autocast_models.json, make_autocast_model_fixtures.py; the models are
autocast_models.py): the logits' dtype, their values and the loss to the 16-bit dtype's rounding,
and every parameter's gradient, which comes back in float32.

Tolerance: PyTorch and Ember both compute each product in float32 and round it once to 16 bits, but
in different orders of summation, so a result can round to the neighbouring 16-bit number; through
the layers that becomes a unit or two of the 16-bit dtype's precision (4 allowed), relative to the
largest logit or gradient.
"""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from autocast_models import MODELS
from fixture_replay import array, load_cases, numpy_of, tensor

CASES = load_cases("autocast_models.json")
EPS = {"bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_training_step_under_autocast_matches_pytorchs(name):
    case = CASES[name]
    t, s = case["tensors"], case["strings"]
    ember.manual_seed(0)
    model = MODELS[s["model"]](ember)
    model.load_state_dict({k[len("param."):]: tensor(v) for k, v in t.items() if k.startswith("param.")})
    x, y = tensor(t["input"]), tensor(t["target"])
    with ember.autocast("cpu", dtype=getattr(ember, s["dtype"])):
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    assert str(logits.dtype) == "ember." + s["logits_dtype"] and loss.dtype == ember.float32
    loss.backward()
    tol = 4 * EPS[s["dtype"]]
    want = array(t["logits"])
    np.testing.assert_allclose(numpy_of(logits), want, atol=tol * np.abs(want).max(), err_msg="logits")
    np.testing.assert_allclose(loss.item(), array(t["loss"]), rtol=tol, err_msg="loss")
    # NB: relative to the model's largest gradient: some are sums that cancel (a bias in front of batch
    # norm has gradient 0, which rounding leaves at 1e-5)
    scale = max(np.abs(array(t[f"grad.{k}"])).max() for k, _ in model.named_parameters())
    for k, p in model.named_parameters():
        assert p.grad.dtype == ember.float32, k
        np.testing.assert_allclose(p.grad.numpy(), array(t[f"grad.{k}"]), atol=tol * scale, err_msg=k)
