"""conv3d, the 3-D poolings and the CTC loss that Ember composes in Python, against torch
(tests/fixtures/conv3d_ctc.json, written by make_conv3d_ctc_fixtures.py): each case is one expression that
runs unchanged under both libraries; its output matches torch's to 1e-10 and the gradient of every float64
input to 1e-8. Then what the fixtures cannot show: errors, and the modules' parameters and state dicts."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from fixture_replay import load_cases, replay

CASES = load_cases("conv3d_ctc.json")


def P(module, **params):
    """module with params copied into its parameters of the same names (the generator's helper)."""
    with ember.no_grad():
        for name, value in params.items():
            getattr(module, name).copy_(value)
    return module


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    replay(CASES[name], {"T": ember, "F": F, "nn": nn, "P": P}, grad_atol=1e-11, equal_nan=False)


def test_fixture_covers_every_function():
    exprs = " ".join(c["strings"]["expr"] for c in CASES.values())
    for name in ("F.conv3d", "nn.Conv3d", "F.max_pool3d", "F.avg_pool3d", "F.adaptive_avg_pool3d",
                 "F.adaptive_max_pool3d", "nn.MaxPool3d", "nn.AvgPool3d", "nn.AdaptiveAvgPool3d",
                 "nn.AdaptiveMaxPool3d",
                 "F.ctc_loss", "nn.CTCLoss", "zero_infinity=True", "ceil_mode=True", "padding='same'", "groups=",
                 "divisor_override", "count_include_pad=False", "return_indices=True"):
        assert name in exprs, name


# ---- errors name the op, the argument and the shapes

def test_conv3d_errors():
    w = ember.randn(4, 3, 2, 2, 2)
    with pytest.raises(RuntimeError, match=r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d, but got "
                                           r"input of size: \[2, 3\]"):
        F.conv3d(ember.randn(2, 3), w)
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[4, 3, 2, 2, 2\], expected "
                                           r"input\[1, 5, 4, 4, 4\] to have 3 channels, but got 5 channels instead"):
        F.conv3d(ember.randn(1, 5, 4, 4, 4), w)
    with pytest.raises(RuntimeError, match=r"input\[1, 5, 4, 4, 4\] to have 3 channels"):
        F.conv3d(ember.randn(5, 4, 4, 4), w)  # unbatched: reported with its batch of one, as torch does
    with pytest.raises(RuntimeError, match=r"expected a 5-D weight .*\[4, 3, 2, 2\]"):
        F.conv3d(ember.randn(1, 3, 4, 4, 4), ember.randn(4, 3, 2, 2))
    with pytest.raises(RuntimeError, match=r"Given groups=2, expected weight to be divisible by 2 at dimension 0"):
        F.conv3d(ember.randn(1, 6, 4, 4, 4), ember.randn(5, 3, 2, 2, 2), groups=2)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        F.conv3d(ember.randn(1, 3, 4, 4, 4), w, padding="same", stride=2)
    with pytest.raises(ValueError, match="conv3d: invalid padding string 'foo', expected 'valid' or 'same'"):  # as conv2d's
        F.conv3d(ember.randn(1, 3, 4, 4, 4), w, padding="foo")
    with pytest.raises(RuntimeError, match=r"Kernel size: \(3 x 2 x 2\). Kernel size can't be greater"):
        F.conv3d(ember.randn(1, 3, 2, 4, 4), ember.randn(4, 3, 3, 2, 2))
    with pytest.raises(RuntimeError, match=r"expected bias to be 1-dimensional with 4 elements, but got bias of "
                                           r"size \[3\]"):
        F.conv3d(ember.randn(1, 3, 4, 4, 4), w, ember.randn(3))
    # the layer's checks are Conv2d's (C++ nn/conv.cpp)
    with pytest.raises(ValueError, match=r"Conv3d: in_channels \(5\) and out_channels \(4\) must be divisible by groups"):
        nn.Conv3d(5, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r"Conv3d: in_channels \(4\) and out_channels \(5\) must be divisible by groups"):
        nn.Conv3d(4, 5, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv3d(4, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="Conv3d: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', got 'foo'"):
        nn.Conv3d(4, 4, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="expected an int or a sequence of 3 ints, got 2 values"):
        nn.Conv3d(4, 4, 3, stride=(1, 2))


def test_pool3d_errors():
    with pytest.raises(RuntimeError, match=r"non-empty 4D or 5D \(batch mode\) tensor expected for input"):
        F.max_pool3d(ember.randn(2, 3), 2)
    with pytest.raises(RuntimeError, match=r"non-empty 4D or 5D \(batch mode\) tensor expected for input"):
        F.avg_pool3d(ember.randn(2, 3, 4), 2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size, but got pad=2, "
                                           "kernel_size=2 and dilation=1"):
        F.max_pool3d(ember.randn(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match=r"Given input size: \(1x1x4x4\). Calculated output size: \(1x0x2x2\). "
                                           r"Output size is too small"):
        F.max_pool3d(ember.randn(1, 1, 1, 4, 4), 2)
    with pytest.raises(RuntimeError, match="kernel_size must either be a single int, or a tuple of three ints"):
        F.max_pool3d(ember.randn(1, 1, 4, 4, 4), (2, 2))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size, but got pad=2"):
        F.avg_pool3d(ember.randn(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.avg_pool3d(ember.randn(1, 1, 4, 4, 4), 2, stride=0)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool3d(ember.randn(1, 1, 4, 4, 4), 2, divisor_override=0)
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool3d\(\): Expected 4D or 5D tensor, but got \[2, 3\]"):
        F.adaptive_avg_pool3d(ember.randn(2, 3), 2)
    with pytest.raises(RuntimeError, match="adaptive_max_pool3d: output_size must be 3"):
        F.adaptive_max_pool3d(ember.randn(1, 1, 4, 4, 4), (2, 3))


def test_ctc_loss_errors():
    lp = ember.randn(6, 2, 4).log_softmax(2)
    tg = ember.tensor([[1, 2, 2], [3, 1, 1]])
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.ctc_loss(lp, tg, (6, 5), (3, 1), reduction="foo")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        nn.CTCLoss(reduction="foo")
    with pytest.raises(RuntimeError, match=r"input_lengths must be of size batch_size: got 3 lengths, log_probs of "
                                           r"size \[6, 2, 4\]"):
        F.ctc_loss(lp, tg, (6, 5, 3), (3, 1))
    with pytest.raises(RuntimeError, match="target_lengths must be of size batch_size"):
        F.ctc_loss(lp, tg, (6, 5), (3,))
    with pytest.raises(RuntimeError, match="Expected input_lengths to have values in \\[0, 6\\], but got value 7"):
        F.ctc_loss(lp, tg, (7, 5), (3, 1))
    with pytest.raises(RuntimeError, match="Expected target_lengths to have values in .* but got value -1"):
        F.ctc_loss(lp, tg, (6, 5), (3, -1))
    with pytest.raises(RuntimeError, match=r"expected targets to have size at least 4 at dimension 1 .* targets of "
                                           r"size \[2, 3\]"):
        F.ctc_loss(lp, tg, (6, 5), (3, 4))
    with pytest.raises(RuntimeError, match=r"concatenated targets of size \[3\] must have sum\(target_lengths\) = 4"):
        F.ctc_loss(lp, ember.tensor([1, 2, 1]), (6, 5), (2, 2))
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, tg, (6, 5), (3, 1), blank=4)
    with pytest.raises(RuntimeError, match=r"expected log_probs of 2 .* size \[4\]"):
        F.ctc_loss(ember.randn(4), tg, (6, 5), (3, 1))
    with pytest.raises(RuntimeError, match="expected targets of 1 to 2 dimensions, but got 3-dimensional"):
        F.ctc_loss(lp, ember.zeros(1, 2, 3, dtype=ember.int64), (6, 5), (3, 1))
    with pytest.raises(TypeError, match="input_lengths must hold integers"):
        F.ctc_loss(lp, tg, ember.tensor([6.0, 5.0]), (3, 1))


def test_ctc_loss_float32_keeps_dtype_and_trains():
    logits = ember.randn(10, 3, 5, requires_grad=True)
    loss = nn.CTCLoss()(logits.log_softmax(2), ember.tensor([[1, 2, 3], [4, 4, 0], [2, 0, 0]]), (10, 9, 4), (3, 2, 1))
    assert loss.dtype == ember.float32 and loss.dim() == 0 and math.isfinite(float(loss))
    loss.backward()
    assert logits.grad.shape == (10, 3, 5)
    # frames past an input length get no gradient, as in torch
    assert float(logits.grad[4:, 2].abs().sum()) == 0.0


# ---- the modules: PyTorch's parameter names, shapes and initialisation; state dicts round-trip

def test_conv3d_parameters_shapes_and_init():
    m = nn.Conv3d(4, 6, (3, 2, 1), groups=2)
    assert [name for name, _ in m.named_parameters()] == ["weight", "bias"]
    assert tuple(m.weight.shape) == (6, 2, 3, 2, 1) and tuple(m.bias.shape) == (6,)
    assert m.weight.dtype == ember.float32 and m.weight.requires_grad
    assert m.kernel_size == (3, 2, 1) and m.stride == (1, 1, 1) and m.padding == (0, 0, 0) and m.dilation == (1, 1, 1)
    bound = 1 / math.sqrt(2 * 3 * 2 * 1)  # kaiming_uniform_(a=sqrt(5)) and the bias: U(-1/sqrt(fan_in), ..)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    big = nn.Conv3d(8, 16, 3, bias=False)
    assert big.bias is None and [name for name, _ in big.named_parameters()] == ["weight"]
    w = big.weight.detach().numpy()
    bound = 1 / math.sqrt(8 * 27)
    assert w.max() <= bound and w.min() >= -bound and w.std() > 0.8 * bound / math.sqrt(3)
    assert nn.Conv3d(2, 3, 3, dtype=ember.float64).weight.dtype == ember.float64
    assert repr(nn.Conv3d(4, 6, 3, padding="same", groups=2, bias=False, padding_mode="reflect")) == (
        "Conv3d(4, 6, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=same, groups=2, bias=False, "
        "padding_mode=reflect)")


def test_conv3d_state_dict_round_trip_and_output_shape():
    a, b = nn.Conv3d(3, 4, 3, stride=2, padding=1), nn.Conv3d(3, 4, 3, stride=2, padding=1)
    state = a.state_dict()
    assert list(state) == ["weight", "bias"] and tuple(state["weight"].shape) == (4, 3, 3, 3, 3)
    b.load_state_dict(state)
    x = ember.randn(2, 3, 5, 6, 7)
    assert ember.equal(a(x), b(x)) and tuple(a(x).shape) == (2, 4, 3, 3, 4)
    with pytest.raises(Exception, match="weight"):
        nn.Conv3d(3, 5, 3).load_state_dict(state)
    # inside a container, under its structured names
    net = nn.Sequential(nn.Conv3d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2), nn.AdaptiveAvgPool3d(1))
    assert [k for k in net.state_dict()] == ["0.weight", "0.bias"]
    assert tuple(net(ember.randn(2, 1, 4, 4, 4)).shape) == (2, 2, 1, 1, 1)


def test_pool_modules_hold_no_state_and_print_like_torch():
    for m in (nn.MaxPool3d(2), nn.AvgPool3d(2), nn.AdaptiveAvgPool3d(2), nn.AdaptiveMaxPool3d(2), nn.CTCLoss()):
        assert list(m.state_dict()) == [] and list(m.parameters()) == []
    assert repr(nn.MaxPool3d(2)) == "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool3d((2, 1, 2), padding=1)) == "AvgPool3d(kernel_size=(2, 1, 2), stride=(2, 1, 2), padding=1)"
    assert repr(nn.AdaptiveAvgPool3d((2, None, 3))) == "AdaptiveAvgPool3d(output_size=(2, None, 3))"
