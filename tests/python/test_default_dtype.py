"""ember.set_default_dtype / get_default_dtype, as torch's: every factory without a dtype, Python floats
(in ember.tensor and in arithmetic with integer tensors), arange with float bounds, layers'
parameters and Python complex numbers follow it; integer dtypes are refused. Checked against
torch 2.15 by hand (torch.set_default_dtype(torch.float64) gives each of these float64)."""
import pytest

import ember
import ember.nn as nn


@pytest.fixture
def float64_default():
    ember.set_default_dtype(ember.float64)
    try:
        yield
    finally:
        ember.set_default_dtype(ember.float32)


def test_float32_is_the_default():
    assert ember.get_default_dtype() == ember.float32
    assert ember.tensor([1.5]).dtype == ember.float32 and ember.zeros(2).dtype == ember.float32


def test_factories_numbers_and_layers_follow_the_default(float64_default):
    assert ember.get_default_dtype() == ember.float64
    made = {
        "tensor": ember.tensor([1.5, 2.0]), "tensor 0-d": ember.tensor(2.5), "zeros": ember.zeros(2, 3),
        "ones": ember.ones(2), "empty": ember.empty(3), "full": ember.full((2,), 1.5), "rand": ember.rand(2),
        "randn": ember.randn(2), "arange float": ember.arange(0.0, 1.0, 0.25), "linspace": ember.linspace(0, 1, 5),
        "eye": ember.eye(3), "int + float": ember.tensor([1, 2]) + 0.5, "int * float 0-d": ember.arange(3) * 2.0,
        "Linear weight": nn.Linear(3, 2).weight, "Conv2d bias": nn.Conv2d(1, 2, 3).bias,
        "LayerNorm": nn.LayerNorm(4).weight,
    }
    wrong = {k: str(v.dtype) for k, v in made.items() if v.dtype != ember.float64}
    assert not wrong, wrong
    # 1e-300 survives (float32 would make it 0) and integers stay integers.
    assert ember.tensor([1e-300]).item() == 1e-300
    assert ember.tensor([1, 2]).dtype == ember.int64 and ember.arange(3).dtype == ember.int64
    assert ember.tensor([1 + 2j]).dtype == ember.complex128
    assert ember.result_type(ember.tensor([1], dtype=ember.int32), 2.5) == ember.float64
    # A model trains in the default dtype.
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    loss = model(ember.randn(5, 4)).pow(2).mean()
    loss.backward()
    assert loss.dtype == ember.float64 and model[0].weight.grad.dtype == ember.float64


def test_only_floating_dtypes_are_accepted():
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        ember.set_default_dtype(ember.int64)
    assert ember.get_default_dtype() == ember.float32
