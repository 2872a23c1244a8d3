"""The convolution, normalisation, resampling and padding layers PyTorch scripts use (Conv1d,
Conv2d(padding='same', padding_mode=...), ConvTranspose2d, GroupNorm, InstanceNorm1d/2d, PReLU,
AdaptiveMaxPool2d, Upsample, F.interpolate, F.pad modes) run from the same Python code PyTorch ran
for tests/fixtures/conv.json (make_conv_fixtures.py): outputs, gradients and buffers match; and
their PyTorch-facing API: attributes, repr, state_dict keys, errors. Finite-difference gradients of
the functional forms in float64, on batch 1, odd sizes and strided inputs."""
import json
import os

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "conv.json")

with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]


def tensor_of(entry):
    data = np.array(entry["data"], dtype=np.float64).reshape(entry["shape"])
    return ember.tensor(data, dtype=getattr(ember, entry["dtype"]))


def close(got, want, what, rtol=1e-5, atol=1e-5):
    # float32 on both sides: a weight gradient sums a few hundred products, whose rounding differs between
    # the libraries by a few 1e-6 where the terms cancel
    assert list(got.shape) == list(want.shape), what
    np.testing.assert_allclose(got.detach().numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=rtol,
                               atol=atol, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_code_pytorch_ran_gives_pytorchs_outputs_and_gradients(name):
    case = CASES[name]
    tensors = {k: tensor_of(v) for k, v in case["tensors"].items()}
    strings = case["strings"]
    m = eval(strings["module"], {"nn": nn})
    state = {k.split(".", 1)[1]: v for k, v in tensors.items() if k.startswith(("param.", "buffer."))}
    m.load_state_dict(state)
    m.train(strings["train"] == "1")
    inputs = []
    for i in range(1, 10):
        key = "input" if i == 1 else f"input{i}"
        if key not in tensors:
            break
        x = tensors[key].clone()
        if x.is_floating_point():
            x.requires_grad_(True)
        inputs.append(x)
    names = ["x"] + [f"x{i + 2}" for i in range(len(inputs) - 1)]
    out = eval(strings["forward"], {"m": m, "F": F, **dict(zip(names, inputs))})
    outs = out if isinstance(out, tuple) else (out,)
    total = None
    for i, o in enumerate(outs):
        suffix = "" if i == 0 else str(i + 1)
        close(o, tensors["output" + suffix], "output" + suffix)
        if "grad_output" + suffix in tensors:
            term = (o * tensors["grad_output" + suffix]).sum()
            total = term if total is None else total + term
    total.backward()
    for i, x in enumerate(inputs):
        key = "input" if i == 0 else f"input{i + 1}"
        if "grad." + key in tensors:
            close(x.grad, tensors["grad." + key], "grad." + key)
    params = dict(m.named_parameters())
    assert sorted(params) == sorted(k[6:] for k in tensors if k.startswith("param."))  # PyTorch's names
    for pname, p in params.items():
        close(p.grad, tensors["grad." + pname], "grad." + pname)
    for bname, b in m.named_buffers():
        close(b, tensors["buffer_after." + bname], "buffer_after." + bname)


# ---- the API scripts touch

@pytest.mark.parametrize("module,expected", [
    ("nn.Conv2d(3, 4, 3, padding='same')", "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=same)"),
    ("nn.Conv2d(2, 3, (4, 2), padding='same', dilation=(1, 3), padding_mode='reflect', bias=False, groups=1)",
     "Conv2d(2, 3, kernel_size=(4, 2), stride=(1, 1), padding=same, dilation=(1, 3), bias=False, padding_mode=reflect)"),
    ("nn.Conv2d(2, 4, 3, padding='valid', groups=2)",
     "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1), padding=valid, groups=2)"),
    ("nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2)",
     "Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(2,), dilation=(2,), groups=2)"),
    ("nn.Conv1d(2, 3, 4, padding='same', padding_mode='circular')",
     "Conv1d(2, 3, kernel_size=(4,), stride=(1,), padding=same, padding_mode=circular)"),
    ("nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2, bias=False)",
     "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), output_padding=(1, 1), "
     "groups=2, bias=False)"),
    ("nn.ConvTranspose2d(3, 4, 3)", "ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(1, 1))"),
    ("nn.GroupNorm(2, 6)", "GroupNorm(2, 6, eps=1e-05, affine=True, bias=True)"),
    ("nn.GroupNorm(3, 3, affine=False, eps=1e-3)", "GroupNorm(3, 3, eps=0.001, affine=False, bias=False)"),
    ("nn.InstanceNorm2d(3)",
     "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"),
    ("nn.InstanceNorm1d(4, affine=True, track_running_stats=True, momentum=0.2)",
     "InstanceNorm1d(4, eps=1e-05, momentum=0.2, affine=True, bias=True, track_running_stats=True)"),
    ("nn.PReLU()", "PReLU(num_parameters=1)"),
    ("nn.PReLU(4, init=0.1)", "PReLU(num_parameters=4)"),
    ("nn.AdaptiveMaxPool2d((3, 2))", "AdaptiveMaxPool2d(output_size=(3, 2))"),
    ("nn.AdaptiveMaxPool2d(2, return_indices=True)", "AdaptiveMaxPool2d(output_size=2)"),
    ("nn.Upsample(scale_factor=2)", "Upsample(scale_factor=2.0, mode='nearest')"),
    ("nn.Upsample(size=(5, 7), mode='bilinear', align_corners=True)", "Upsample(size=(5, 7), mode='bilinear')"),
    ("nn.UpsamplingNearest2d(scale_factor=3)", "UpsamplingNearest2d(scale_factor=3.0, mode='nearest')"),
    ("nn.UpsamplingBilinear2d(size=(4, 5))", "UpsamplingBilinear2d(size=(4, 5), mode='bilinear')"),
])
def test_repr_is_pytorchs(module, expected):
    assert repr(eval(module)) == expected


def test_attributes_and_state_dict_keys_are_pytorchs():
    same = nn.Conv2d(3, 4, 3, padding="same")
    assert (same.padding, same.padding_mode, same.stride, same.kernel_size) == ("same", "zeros", (1, 1), (3, 3))
    c1 = nn.Conv1d(3, 4, (3,), padding=2)
    assert (c1.padding, c1.stride, c1.kernel_size, c1.dilation, c1.weight.shape) == ((2,), (1,), (3,), (1,), (4, 3, 3))
    ct = nn.ConvTranspose2d(3, 4, 3, groups=1)
    assert (ct.output_padding, ct.padding_mode, tuple(ct.weight.shape)) == ((0, 0), "zeros", (3, 4, 3, 3))
    inorm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    assert sorted(inorm.state_dict()) == ["bias", "num_batches_tracked", "running_mean", "running_var", "weight"]
    assert list(nn.InstanceNorm2d(3, affine=True, bias=False).state_dict()) == ["weight"]
    assert list(nn.GroupNorm(2, 4, bias=False).state_dict()) == ["weight"]
    assert nn.PReLU(3).weight.tolist() == [0.25, 0.25, 0.25]
    gn = nn.GroupNorm(2, 4)
    assert gn.weight.tolist() == [1.0] * 4 and gn.bias.tolist() == [0.0] * 4
    up = nn.Upsample(scale_factor=(2, 3), mode="bicubic", align_corners=False)
    assert (up.scale_factor, up.mode, up.align_corners, up.size) == ((2.0, 3.0), "bicubic", False, None)


def test_instance_norm_counts_no_batches_and_uses_running_stats_in_eval():
    m = nn.InstanceNorm2d(2, track_running_stats=True)
    x = ember.randn(3, 2, 4, 4) * 2 + 1
    m(x)
    assert m.num_batches_tracked.item() == 0  # as PyTorch: only BatchNorm counts
    assert not np.allclose(m.running_mean.numpy(), 0)
    m.eval()
    rm, rv = m.running_mean.clone(), m.running_var.clone()
    y = m(x)
    want = (x - rm.reshape(1, 2, 1, 1)) / (rv.reshape(1, 2, 1, 1) + 1e-5).sqrt()
    close(y, want, "eval")


def test_functional_forms_take_pytorchs_spellings():
    x, w = ember.randn(2, 3, 9), ember.randn(4, 3, 3)
    close(F.conv1d(x, w, None, (2,), (1,), (1,), 1), F.conv1d(x, w, stride=2, padding=1), "conv1d tuples")
    close(F.conv1d(x, w, padding="same"), F.conv1d(x, w, padding=1), "conv1d same")
    x2, w2 = ember.randn(1, 3, 6, 7), ember.randn(5, 3, 3, 3)
    close(F.conv2d(x2, w2, padding="same"), F.conv2d(x2, w2, padding=1), "conv2d same")
    close(F.conv2d(x2, w2, padding="valid"), F.conv2d(x2, w2), "conv2d valid")
    close(ember.conv2d(x2, w2, None, 1, "same"), F.conv2d(x2, w2, padding=(1, 1)), "ember.conv2d")
    values, indices = F.adaptive_max_pool2d(x2, (2, 3), return_indices=True)
    close(values, F.adaptive_max_pool2d(x2, (2, 3)), "adaptive_max_pool2d")
    assert indices.dtype == ember.int64 and list(indices.shape) == [1, 3, 2, 3]
    v2, i2 = nn.AdaptiveMaxPool2d((2, 3), return_indices=True)(x2)
    assert i2.tolist() == indices.tolist()
    y = F.conv_transpose2d(ember.randn(1, 3, 4, 4), ember.randn(3, 2, 3, 3), stride=2, output_padding=1)
    assert list(y.shape) == [1, 2, 10, 10]
    assert list(nn.ConvTranspose2d(3, 2, 3, stride=2)(ember.randn(1, 3, 4, 4), output_size=[1, 2, 10, 10]).shape) == [
        1, 2, 10, 10]
    g = F.group_norm(ember.randn(2, 4, 3), 2)
    assert list(g.shape) == [2, 4, 3]
    assert F.prelu(ember.tensor([-2.0, 3.0]), ember.tensor([0.5])).tolist() == [-1.0, 3.0]
    assert ember.randn(2, 3).prelu(ember.tensor([0.1, 0.2, 0.3])).shape == (2, 3)


def test_interpolate_sizes_and_scale_factors_as_pytorch():
    x = ember.randn(1, 2, 5, 6)
    assert list(F.interpolate(x, scale_factor=1.7).shape) == [1, 2, 8, 10]
    assert list(F.interpolate(x, size=4).shape) == [1, 2, 4, 4]
    assert list(F.interpolate(x, scale_factor=(0.5, 2), mode="bilinear").shape) == [1, 2, 2, 12]
    assert list(F.interpolate(ember.randn(2, 3, 4), scale_factor=2.5, mode="linear").shape) == [2, 3, 10]
    close(F.upsample_bilinear(x, scale_factor=2), F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
          "upsample_bilinear")
    close(F.upsample_nearest(x, size=(3, 3)), F.interpolate(x, size=(3, 3)), "upsample_nearest")
    # recompute_scale_factor: the scale comes from the sizes, not the factor
    close(F.interpolate(x, scale_factor=1.7, recompute_scale_factor=True), F.interpolate(x, size=(8, 10)), "recompute")


def test_interpolate_and_layer_errors_name_the_problem():
    x = ember.randn(1, 2, 4, 4)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="Input and output size must have the same number of spatial dimensions"):
        F.interpolate(x, size=(3, 3, 3))
    with pytest.raises(NotImplementedError, match="mode 'trilinear' needs a 5-D input"):
        F.interpolate(x, scale_factor=2, mode="trilinear")
    with pytest.raises(NotImplementedError, match="'lanczos' is not implemented"):
        F.interpolate(x, scale_factor=2, mode="lanczos")
    with pytest.raises(NotImplementedError, match="antialias=True is not implemented"):
        F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True)
    with pytest.raises(NotImplementedError, match="5-D input is not implemented"):
        F.interpolate(ember.randn(1, 1, 2, 2, 2), scale_factor=2)
    with pytest.raises(ValueError, match="conv2d: invalid padding string 'full', expected 'valid' or 'same'"):
        F.conv2d(x, ember.randn(3, 2, 3, 3), padding="full")
    with pytest.raises(ValueError, match="Conv2d: invalid padding string 'full'"):
        nn.Conv2d(2, 3, 3, padding="full")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(2, 3, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', got 'edge'"):
        nn.Conv1d(2, 3, 3, padding_mode="edge")
    with pytest.raises(ValueError, match="ConvTranspose2d: only padding_mode='zeros' is supported"):
        nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="GroupNorm: num_channels \\(6\\) must be divisible by num_groups \\(4\\)"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="requested an output size of \\[7, 7\\], but valid sizes range from"):
        nn.ConvTranspose2d(2, 3, 3, stride=2)(ember.randn(1, 2, 4, 4), output_size=[7, 7])
    with pytest.raises(ValueError, match="pad: Padding size should be less than the corresponding input dimension"):
        F.pad(ember.randn(1, 2, 4), (4, 0), mode="reflect")
    with pytest.raises(ValueError, match="InstanceNorm2d: expected a 3-D \\(unbatched\\) or 4-D input"):
        nn.InstanceNorm2d(2)(ember.randn(2, 2))


def f64(*shape, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=ember.float64, requires_grad=True)


@pytest.mark.parametrize("name,fn,shapes", [
    ("conv1d stride 2 dilation 2 groups 2", lambda x, w, b: F.conv1d(x, w, b, 2, 1, 2, 2), [(1, 4, 9), (2, 2, 3), (2,)]),
    ("conv1d same", lambda x, w, b: F.conv1d(x, w, b, padding="same"), [(2, 2, 5), (3, 2, 4), (3,)]),
    ("conv2d same even kernel", lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(2, 1)),
     [(1, 2, 5, 4), (2, 2, 2, 3), (2,)]),
    ("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, 2, 1, 1, 1, 1), [(1, 2, 3, 3), (2, 3, 3, 3), (3,)]),
    ("conv_transpose2d groups dilation", lambda x, w, b: F.conv_transpose2d(x, w, b, (1, 2), 0, 0, 2, (2, 1)),
     [(1, 4, 3, 2), (4, 1, 2, 2), (2,)]),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [(2, 3, 5), (3,), (3,)]),
])
def test_functional_gradients_match_finite_differences(name, fn, shapes):
    inputs = [f64(*s, seed=i) for i, s in enumerate(shapes)]
    gradcheck(fn, inputs)
    # a strided input
    strided = f64(*reversed(shapes[0]), seed=9).permute(*reversed(range(len(shapes[0]))))
    gradcheck(lambda x: fn(x, *inputs[1:]), [strided])


@pytest.mark.parametrize("mode,kw", [("nearest", {}), ("nearest-exact", {}), ("bilinear", {"align_corners": False}),
                                     ("bilinear", {"align_corners": True}), ("bicubic", {}), ("area", {})])
def test_interpolate_gradients_match_finite_differences(mode, kw):
    x = f64(1, 2, 3, 4)
    gradcheck(lambda a: F.interpolate(a, size=(5, 3), mode=mode, **kw), [x])
    gradcheck(lambda a: F.interpolate(a, scale_factor=1.5, mode=mode, **kw), [x])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad_modes_gradients_and_numpy(mode):
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap", "constant": "constant"}[mode]
    got = F.pad(ember.tensor(x), (1, 2, 3, 0), mode=mode)
    np.testing.assert_array_equal(got.numpy(), np.pad(x, [(0, 0), (0, 0), (3, 0), (1, 2)], mode=np_mode))
    gradcheck(lambda a: F.pad(a, (2, 1), mode=mode), [f64(2, 3, 4)])
