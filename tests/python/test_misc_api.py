"""The smaller PyTorch APIs Ember writes in Python, against torch (tests/fixtures/misc_api.json,
written by make_misc_api_fixtures.py): the Bessel functions, put / index_reduce, Softmax2d,
channel_shuffle, BatchNorm3d, conv_transpose3d and ConvTranspose3d, Embedding(Bag).from_pretrained;
outputs, gradients and running buffers match torch's. Then what the fixtures cannot show: the random
layers and samplers (rates, whole channels, scale), LazyLinear, assert_close's messages, the flags,
jit, cuda.amp, apply_ / map_, and the errors."""
import json
import os
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "misc_api.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]

DTYPES = {"float64": ember.float64, "int64": ember.int64, "bool": ember.bool}


def array(entry):
    data = [float(v) if isinstance(v, str) else v for v in entry["data"]]
    return np.array(data, dtype=np.float64 if entry["dtype"] == "float64" else np.int64).reshape(entry["shape"])


def tensor(entry, requires_grad=False):
    t = ember.tensor(array(entry), dtype=DTYPES[entry["dtype"]])
    return t.requires_grad_() if requires_grad else t


def close(got, want, what, rtol=1e-12, atol=1e-12):
    got = got.detach().numpy() if isinstance(got, ember.Tensor) else got
    assert got.shape == want.shape, f"{what}: shape {got.shape}, torch's {want.shape}"
    np.testing.assert_allclose(got.astype(want.dtype), want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


EXPR_CASES = sorted(k for k, v in CASES.items() if v["strings"]["kind"] == "expr")
LAYER_CASES = sorted(k for k, v in CASES.items() if v["strings"]["kind"] == "layer")


@pytest.mark.parametrize("name", EXPR_CASES)
def test_function_matches_torch(name):
    case = CASES[name]
    tensors, expr = case["tensors"], case["strings"]["expr"]
    inputs = {k[len("input."):]: tensor(v, f"grad.{k[len('input.'):]}" in tensors)
              for k, v in tensors.items() if k.startswith("input.")}
    out = eval(expr, {"T": ember, "F": F, "nn": nn, **inputs})
    assert str(out.dtype) == "ember." + tensors["output"]["dtype"], f"{expr}: {out.dtype}"
    # NB: float32 i0 is compared after rounding to float32 on both sides: within float32's precision.
    rtol = 1e-6 if "float32" in name else 1e-12
    close(out, array(tensors["output"]), expr, rtol=rtol)
    if case["strings"]["grad"] != "1":
        return
    out.backward(tensor(tensors["grad_output"]))
    for k, entry in tensors.items():
        if k.startswith("grad."):
            leaf = inputs[k[len("grad."):]]
            grad = leaf.grad if leaf.grad is not None else np.zeros(tuple(leaf.shape))
            close(grad, array(entry), f"{expr}: {k}", rtol=max(rtol, 1e-10))


@pytest.mark.parametrize("name", LAYER_CASES)
def test_layer_matches_torch(name):
    case = CASES[name]
    tensors, build = case["tensors"], case["strings"]["build"]
    params = {k[len("param."):]: tensor(v) for k, v in tensors.items() if k.startswith("param.")}
    layer = eval(build, {"nn": nn, "T": ember, "p": {k: v.clone() for k, v in params.items()}}).double()
    state = dict(params)
    state.update({k[len("buffer."):]: tensor(v) for k, v in tensors.items() if k.startswith("buffer.")})
    assert sorted(layer.state_dict()) == sorted(state), f"{build}: state_dict keys"
    layer.load_state_dict(state)
    layer.train(case["strings"]["train"] == "1")
    x = tensor(tensors["input"], "grad.input" in tensors)
    y = layer(x)
    close(y, array(tensors["output"]), f"{build}: output")
    y.backward(tensor(tensors["grad_output"]))
    if "grad.input" in tensors:
        close(x.grad, array(tensors["grad.input"]), f"{build}: grad.input", rtol=1e-10)
    named = dict(layer.named_parameters())
    for k, entry in tensors.items():
        if k.startswith("grad.") and k != "grad.input":
            close(named[k[len("grad."):]].grad, array(entry), f"{build}: {k}", rtol=1e-10)
    buffers = dict(layer.named_buffers())
    for k, entry in tensors.items():
        if k.startswith("buffer_after."):
            close(buffers[k[len("buffer_after."):]], array(entry), f"{build}: {k}")


# ---- the random layers and samplers

def test_channel_dropouts_zero_whole_channels_at_the_rate_and_scale_the_rest():
    ember.manual_seed(3)
    for fn, shape in ((F.dropout1d, (400, 50, 7)), (F.dropout3d, (400, 50, 2, 2, 2)), (nn.Dropout1d(0.3), (400, 50, 7)),
                      (nn.Dropout3d(0.3), (400, 50, 2, 2, 2))):
        p = 0.3
        y = (fn(ember.ones(*shape), p) if not isinstance(fn, nn.Module) else fn(ember.ones(*shape))).numpy()
        per_channel = y.reshape(shape[0], shape[1], -1)
        assert (per_channel == per_channel[..., :1]).all(), "a channel is all kept or all dropped"
        kept = per_channel[per_channel != 0]
        np.testing.assert_allclose(kept, 1 / (1 - p), rtol=1e-6)
        rate = float((per_channel[..., 0] == 0).mean())
        assert abs(rate - p) < 0.02, rate
    unbatched = F.dropout1d(ember.ones(1000, 3), 0.5).numpy()  # [C, L]: a mask per channel
    assert (unbatched == unbatched[:, :1]).all()
    module = nn.Dropout3d(0.5).eval()
    x = ember.randn(2, 3, 2, 2, 2)
    assert ember.equal(module(x), x)


def test_feature_alpha_dropout_keeps_selu_moments_and_drops_whole_channels():
    ember.manual_seed(0)
    x = F.selu(ember.randn(200, 300, 4, dtype=ember.float64) * 0.2) * 0 + ember.randn(200, 300, 1, dtype=ember.float64)
    y = nn.FeatureAlphaDropout(0.2).train()(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    dropped = y.reshape(200, 300, 4)
    assert (np.abs(dropped - dropped[..., :1]) < 1e-12).all()
    assert ember.equal(F.feature_alpha_dropout(x, 0.2), x)  # training=False by default, as torch


def test_weighted_random_sampler_draws_in_proportion_and_resumes():
    sampler = ember.utils.data.WeightedRandomSampler([1.0, 3.0, 0.0, 6.0], 20000, generator=ember.Generator().manual_seed(5))
    draws = np.array(list(sampler))
    assert len(sampler) == 20000 and len(draws) == 20000
    freq = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(freq, [0.1, 0.3, 0.0, 0.6], atol=0.012)
    no_repeat = list(ember.utils.data.WeightedRandomSampler(ember.tensor([1.0, 1.0, 5.0]), 3, replacement=False))
    assert sorted(no_repeat) == [0, 1, 2]
    again = ember.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0], 50, generator=ember.Generator().manual_seed(1))
    first = list(again)
    state = again.state_dict()
    list(again)
    again.load_state_dict(state)
    assert list(again) == first
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        ember.utils.data.WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=1"):
        ember.utils.data.WeightedRandomSampler([1.0], 2, replacement=1)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
        ember.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2)
    loader = ember.utils.data.DataLoader(ember.utils.data.TensorDataset(ember.arange(4.0)), batch_size=5,
                                         sampler=ember.utils.data.WeightedRandomSampler([0, 0, 1, 0], 5))
    assert next(iter(loader))[0].tolist() == [2.0] * 5


def test_distributed_sampler_is_where_torch_has_it():
    from ember.utils.data.distributed import DistributedSampler
    assert DistributedSampler is ember.utils.data.DistributedSampler


# ---- modules without fixtures

def test_lazy_linear_makes_its_parameters_at_the_first_forward():
    layer = nn.LazyLinear(4)
    assert layer.has_uninitialized_params() and list(layer.state_dict()) == [] and layer.in_features == 0
    x = ember.randn(2, 7)
    y = layer(x)
    assert tuple(y.shape) == (2, 4) and layer.in_features == 7
    assert {k: tuple(v.shape) for k, v in layer.state_dict().items()} == {"weight": (4, 7), "bias": (4,)}
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ layer.weight.detach().numpy().T
                               + layer.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    bound = 1 / np.sqrt(7)  # Linear's initialisation: both within 1 / sqrt(in_features)
    assert np.abs(layer.weight.detach().numpy()).max() <= bound and np.abs(layer.bias.detach().numpy()).max() <= bound
    weight = layer.weight
    layer(ember.randn(3, 7))
    assert layer.weight is weight, "the parameters are made once"
    no_bias = nn.LazyLinear(3, bias=False)
    no_bias(ember.randn(1, 2))
    assert list(no_bias.state_dict()) == ["weight"] and repr(no_bias) == "LazyLinear(in_features=2, out_features=3, bias=False)"


def test_batchnorm3d_and_conv_transpose3d_check_their_input_and_print_as_torch():
    with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
        nn.BatchNorm3d(3)(ember.randn(2, 3, 4, 4))
    assert repr(nn.BatchNorm3d(3)) == "BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"
    assert repr(nn.ConvTranspose3d(2, 4, 3, stride=2)) == "ConvTranspose3d(2, 4, kernel_size=(3, 3, 3), stride=(2, 2, 2))"
    layer = nn.ConvTranspose3d(2, 4, 3, stride=2)
    assert tuple(layer(ember.randn(1, 2, 3, 3, 3), output_size=[8, 8, 8]).shape) == (1, 4, 8, 8, 8)
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 5 channels and 2 groups."):
        F.channel_shuffle(ember.randn(1, 5, 2), 2)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(ember.randn(2, 3))
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(ember.randn(1, 2, 3, 4))


def test_from_pretrained_freezes_shares_and_refuses_what_ember_lacks():
    vectors = ember.randn(4, 3)
    frozen = nn.Embedding.from_pretrained(vectors)
    assert not frozen.weight.requires_grad and ember.equal(frozen(ember.tensor([2])), vectors[2:3])
    assert nn.EmbeddingBag.from_pretrained(vectors).weight.requires_grad is False
    with pytest.raises(ValueError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(ember.randn(4))
    with pytest.raises(NotImplementedError, match="max_norm=1.0 is not supported"):
        nn.Embedding.from_pretrained(vectors, max_norm=1.0)


# ---- Tensor methods without fixtures

def test_apply_and_map_run_python_on_every_element_in_place():
    t = ember.tensor([[1, 2], [3, 4]])
    assert t.apply_(lambda v: v * 10) is t and t.tolist() == [[10, 20], [30, 40]] and t.dtype == ember.int64
    f = ember.tensor([1.0, 2.0, 3.0])
    f.map_(ember.tensor([10.0]), lambda x, y: x + y)
    assert f.tolist() == [11.0, 12.0, 13.0]
    view = ember.zeros(2, 3)[:, 1]
    view.apply_(lambda v: 7.0)
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        ember.ones(2, requires_grad=True).apply_(abs)
    with pytest.raises(RuntimeError, match=r"Can't call map_\(\) on Variable that requires grad"):
        ember.ones(2).map_(ember.ones(2, requires_grad=True), max)


def test_put_and_index_reduce_errors_name_the_problem():
    with pytest.raises(RuntimeError, match="put_\\(\\): Expected source and index to have the same number of elements"):
        ember.zeros(3).put_(ember.tensor([0, 1]), ember.tensor([1.0]))
    with pytest.raises(IndexError, match="put_\\(\\): index 3 out of range"):
        ember.zeros(3).put(ember.tensor([3]), ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        ember.zeros(3).index_reduce(0, ember.tensor([0]), ember.ones(1), "sum")
    t = ember.zeros(2, 2)
    assert t.put_(ember.tensor([3]), ember.tensor([5.0])) is t and t.tolist() == [[0.0, 0.0], [0.0, 5.0]]


# ---- assert_close: torch's messages, checked against torch 2.15's text

def _message(*args, **kwargs):
    with pytest.raises(AssertionError) as info:
        ember.testing.assert_close(*args, **kwargs)
    return str(info.value)


def test_assert_close_passes_within_the_dtype_tolerances():
    ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-6]))
    ember.testing.assert_close(ember.tensor([1.0, float("nan")]), ember.tensor([1.0, float("nan")]), equal_nan=True)
    ember.testing.assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64), check_dtype=False)
    ember.testing.assert_close([ember.tensor(1.0), {"a": 2}], [ember.tensor(1.0), {"a": 2}])
    ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.1]), rtol=0.1, atol=0.0)


def test_assert_close_messages_are_torchs():
    assert _message(ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.5, 3.0])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)")
    nan = float("nan")
    assert _message(ember.tensor([[1.0, 2.0], [3.0, nan]]), ember.tensor([[1.0, 2.0], [3.5, nan]])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\n"
        "Greatest absolute difference: nan at index (1, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (1, 1) (up to 1.3e-06 allowed)")
    assert _message(ember.tensor([1, 2, 3]), ember.tensor([1, 3, 3])) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 1 at index (1,)\nGreatest relative difference: 0.3333333432674408 at index (1,)")
    assert _message(ember.tensor(1.5), ember.tensor(1.0)) == (
        "Scalars are not close!\n\nExpected 1.0 but got 1.5.\nAbsolute difference: 0.5 (up to 1e-05 allowed)\n"
        "Relative difference: 0.5 (up to 1.3e-06 allowed)")
    assert _message(ember.tensor([0.0, 1.0]), ember.tensor([1e-6, 1.0], dtype=ember.float64), check_dtype=False) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 1e-06 at index (0,) (up to 1e-07 allowed)\n"
        "Greatest relative difference: 1.0 at index (0,) (up to 1e-07 allowed)")
    assert _message({"a": ember.tensor(1.0)}, {"a": ember.tensor(2.5)}).endswith(
        "Relative difference: 0.6 (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['a']")
    assert _message([1.0, 2.0], [1.0, 2.5]) == (
        "Scalars are not close!\n\nExpected 2.5 but got 2.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\n"
        "Relative difference: 0.2 (up to 1e-07 allowed)\n\nThe failure occurred for item [1]")
    assert _message(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0, 3.0])) == \
        "The values for attribute 'shape' do not match: (2,) != (3,)."
    assert _message(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64)) == \
        "The values for attribute 'dtype' do not match: ember.float32 != ember.float64."
    assert _message(ember.tensor([1.0]), ember.tensor([2.0]), msg="custom") == "custom"
    assert _message(ember.tensor([1.0]), ember.tensor([2.0]), msg=lambda m: "X" + m[:10]) == "XTensor-lik"
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."):
        ember.testing.assert_close(ember.tensor([1.0]), ember.tensor([1.0]), rtol=1e-3)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs"):
        ember.testing.assert_close(ember.tensor(1.0), 1.0)


# ---- flags, jit, cuda.amp

def test_deterministic_flag_is_recorded():
    assert not ember.are_deterministic_algorithms_enabled()
    try:
        ember.use_deterministic_algorithms(True, warn_only=True)
        assert ember.are_deterministic_algorithms_enabled() and ember.is_deterministic_algorithms_warn_only_enabled()
        assert ember.get_deterministic_debug_mode() == 1
        ember.set_deterministic_debug_mode("error")
        assert ember.are_deterministic_algorithms_enabled() and not ember.is_deterministic_algorithms_warn_only_enabled()
        with pytest.raises(TypeError, match="argument 'mode' must be bool"):
            ember.use_deterministic_algorithms(1)
    finally:
        ember.use_deterministic_algorithms(False)
    assert not ember.are_deterministic_algorithms_enabled()


def test_anomaly_detection_flag_as_call_context_manager_and_decorator():
    assert not ember.is_anomaly_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ember.autograd.detect_anomaly():
            assert ember.autograd.is_anomaly_enabled()
    assert not ember.is_anomaly_enabled()
    with ember.autograd.set_detect_anomaly(True):
        assert ember.is_anomaly_enabled()
    assert not ember.is_anomaly_enabled()
    ember.autograd.set_detect_anomaly(True)
    assert ember.is_anomaly_enabled()
    ember.autograd.set_detect_anomaly(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seen = ember.autograd.detect_anomaly(check_nan=False)(lambda: (ember.is_anomaly_enabled(),
                                                                        ember.is_anomaly_check_nan_enabled()))()
    assert seen == (True, False) and not ember.is_anomaly_enabled()


def test_jit_script_returns_its_argument_and_trace_a_program(tmp_path):
    model = nn.Linear(2, 2)
    assert ember.jit.script(model) is model and not ember.jit.is_scripting()
    traced = ember.jit.trace(model, ember.randn(1, 2))
    assert isinstance(traced, ember.jit.TracedModule) and traced.weight is model.weight
    with pytest.raises(TypeError, match="ember.jit.trace"):
        ember.jit.save(model, tmp_path / "m.pt")
    with pytest.raises(Exception, match="m.pt"):
        ember.jit.load(tmp_path / "m.pt")


def test_cuda_amp_spellings_are_ember_amps():
    from ember.cuda.amp import GradScaler, autocast
    assert issubclass(GradScaler, ember.amp.GradScaler) and issubclass(autocast, ember.amp.autocast)
    scaler = GradScaler(enabled=False)
    loss = ember.tensor(2.0)
    assert scaler.scale(loss) is loss and not scaler.is_enabled()
    with autocast(enabled=False):
        pass
    if ember.cuda.device_count() == 0:
        with pytest.warns(UserWarning, match="CUDA is not available. Disabling"):
            autocast()


def test_named_parameters_and_buffers_list_a_tie_under_each_name_without_remove_duplicate():
    class Tied(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = ember.nn.Embedding(3, 2)
            self.out = ember.nn.Linear(2, 3)
            self.out.weight = self.embed.weight
            self.register_buffer("scale", ember.ones(1))
            self.shared = ember.nn.BatchNorm1d(2)
            self.again = self.shared  # a module reachable twice

    m = Tied()
    assert [k for k, _ in m.named_parameters()] == ["embed.weight", "out.bias", "shared.weight", "shared.bias"]
    every = dict(m.named_parameters(remove_duplicate=False))
    assert list(every) == ["embed.weight", "out.weight", "out.bias", "shared.weight", "shared.bias",
                           "again.weight", "again.bias"]
    assert every["out.weight"] is every["embed.weight"] is m.embed.weight
    assert [k for k, _ in m.named_buffers(remove_duplicate=False)] == [
        "scale", "shared.running_mean", "shared.running_var", "shared.num_batches_tracked",
        "again.running_mean", "again.running_var", "again.num_batches_tracked"]
    assert [k for k, _ in m.out.named_parameters(prefix="out", recurse=False, remove_duplicate=False)] == [
        "out.weight", "out.bias"]
