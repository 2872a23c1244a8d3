"""nn.functional.multi_head_attention_forward and nn.SyncBatchNorm against torch 2.15
(tests/fixtures/misc_gaps.json, written by make_misc_gaps_fixtures.py: outputs, gradients, running
buffers); SyncBatchNorm over two real processes against BatchNorm on the whole batch; what torch does
on a machine without a GPU for set_default_device / `with ember.device(...)`, pin_memory, is_pinned,
share_memory_, is_shared and DataLoader(pin_memory=True); finite-difference gradients and properties
of the attention."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, Dataset

import fixture_replay as fr

CASES = fr.load_cases("misc_gaps.json")
EXPR_CASES = sorted(k for k, v in CASES.items() if v["strings"]["kind"] == "expr")
LAYER_CASES = sorted(k for k, v in CASES.items() if v["strings"]["kind"] == "layer")


def cuda_error() -> str:
    """The message ember gives for a CUDA allocation on this machine (the one to mirror)."""
    try:
        ember.zeros(2, device="cuda")
    except RuntimeError as e:
        return str(e)
    pytest.skip("a CUDA device is present: these checks are for a machine without one")


@pytest.fixture(autouse=True)
def cpu_default():
    yield
    ember.set_default_device(None)  # a failing test must not leave a default behind


# ---- multi_head_attention_forward against torch

@pytest.mark.parametrize("name", EXPR_CASES)
def test_multi_head_attention_forward_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mismatched mask dtypes warn (deprecated), as torch's
        fr.replay(CASES[name], {"T": ember, "F": F})


def test_fixtures_cover_the_argument_combinations():
    exprs = " ".join(CASES[k]["strings"]["expr"] for k in EXPR_CASES)
    for needle in ("need_weights=False", "average_attn_weights=False", "key_padding_mask=kpm", "attn_mask=am",
                   "bk, bv", "True, 0.0", "use_separate_proj_weight=True", "static_k=sk", "is_causal=True",
                   "training=False", "transpose(0, 1)", ")[1]"):
        assert needle in exprs, needle
    assert len(EXPR_CASES) >= 80


def test_mismatched_mask_dtypes_warn_like_torch():
    q = ember.randn(3, 2, 4, dtype=ember.float64)
    w, ow = ember.randn(12, 4, dtype=ember.float64), ember.randn(4, 4, dtype=ember.float64)
    kpm = ember.tensor([[False, True, False], [False, False, False]])
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None,
                                       key_padding_mask=kpm, attn_mask=ember.zeros(3, 3, dtype=ember.float64))


def test_multi_head_attention_forward_errors_like_torch():
    q = ember.randn(3, 2, 4)
    w, ow = ember.randn(12, 4), ember.randn(4, 4)
    args = (q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        F.multi_head_attention_forward(*args, is_causal=True)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(3, 2\), but should be \(3, 3\)"):
        F.multi_head_attention_forward(*args, attn_mask=ember.zeros(3, 2))
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask are supported"):
        F.multi_head_attention_forward(*args, attn_mask=ember.zeros(3, 3, dtype=ember.int64))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 4"):
        F.multi_head_attention_forward(q, q, q, 8, 2, *args[5:])
    with pytest.raises(AssertionError, match="embed_dim 4 not divisible by num_heads 3"):
        F.multi_head_attention_forward(q, q, q, 4, 3, *args[5:])
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        F.multi_head_attention_forward(q, q, q, 4, 2, w, None, ember.zeros(1, 1, 4), None, *args[9:])
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        F.multi_head_attention_forward(q[None], q, q, *args[3:])
    with pytest.raises(AssertionError, match="use_separate_proj_weight is True but q_proj_weight is None"):
        F.multi_head_attention_forward(*args, use_separate_proj_weight=True)


def test_multi_head_attention_forward_agrees_with_the_module():
    # nn.MultiheadAttention is C++: an oracle written apart from the function.
    ember.manual_seed(1)
    m = nn.MultiheadAttention(6, 3).double()
    q, kv = ember.randn(4, 2, 6, dtype=ember.float64), ember.randn(5, 2, 6, dtype=ember.float64)
    kpm = ember.tensor([[False, False, True, False, False], [True, False, False, False, False]])
    want_out, want_w = m(q, kv, kv, key_padding_mask=kpm, average_attn_weights=False)
    got_out, got_w = F.multi_head_attention_forward(
        q, kv, kv, 6, 3, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight,
        m.out_proj.bias, training=False, key_padding_mask=kpm, average_attn_weights=False)
    np.testing.assert_allclose(got_out.detach().numpy(), want_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_w.detach().numpy(), want_w.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_dropout_applies_only_in_training():
    ember.manual_seed(0)
    q = ember.randn(5, 3, 4)
    w, ow = ember.randn(12, 4), ember.randn(4, 4)
    _, weights = F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.5, ow, None,
                                                average_attn_weights=False)
    dropped = (weights.numpy() == 0).mean()
    assert 0.3 < dropped < 0.7, dropped  # half the weights zeroed, the rest scaled by 2
    _, weights = F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.5, ow, None,
                                                training=False, average_attn_weights=False)
    np.testing.assert_allclose(weights.numpy().sum(-1), 1.0, rtol=1e-6)


def _mha_inputs(seed, L=3, S=4, N=2, E=4):
    g = ember.Generator(seed)
    r = lambda *s: ember.randn(*s, generator=g, dtype=ember.float64).requires_grad_()  # noqa: E731
    return r(L, N, E), r(S, N, E), r(S, N, E), r(3 * E, E), r(3 * E), r(E, E), r(E), r(1, 1, E), r(1, 1, E)


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")
@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_forward_gradcheck(need_weights):
    inputs = _mha_inputs(5)
    am = ember.tensor([[0.0, -1.0, 0.5, 0.0, 0.0, 0.0], [0.2, 0.0, 0.0, -0.3, 0.0, 0.0], [0.0] * 6],
                      dtype=ember.float64)[:, :4]
    kpm = ember.tensor([[False, True, False, False], [False, False, False, True]])

    def f(q, k, v, w, b, ow, ob, bk, bv):
        out, weights = F.multi_head_attention_forward(q, k, v, 4, 2, w, b, bk, bv, True, 0.0, ow, ob,
                                                      key_padding_mask=kpm, attn_mask=am, need_weights=need_weights)
        return out if weights is None else out.sum() + (weights * weights).sum()

    assert ember.autograd.gradcheck(f, inputs, atol=1e-7, rtol=1e-5)


def test_multi_head_attention_forward_gradcheck_separate_projections():
    g = ember.Generator(9)
    r = lambda *s: ember.randn(*s, generator=g, dtype=ember.float64).requires_grad_()  # noqa: E731
    q, k, v = r(2, 3, 4), r(5, 3, 3), r(5, 3, 2)
    wq, wk, wv, b, ow = r(4, 4), r(4, 3), r(4, 2), r(12), r(4, 4)

    def f(q, k, v, wq, wk, wv, b, ow):
        return F.multi_head_attention_forward(q, k, v, 4, 2, None, b, None, None, False, 0.0, ow, None,
                                              use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk,
                                              v_proj_weight=wv, average_attn_weights=False)[1]

    assert ember.autograd.gradcheck(f, (q, k, v, wq, wk, wv, b, ow), atol=1e-7, rtol=1e-5)


@settings(deadline=None)
@given(seed=st.integers(0, 2 ** 16), src=st.integers(1, 6), need_weights=st.booleans(), data=st.data())
def test_attention_is_invariant_to_the_order_of_keys(seed, src, need_weights, data):
    # Without masks, attention is a weighted sum over key/value pairs: permuting them together
    # changes nothing in the output and permutes the weights the same way.
    q, k, v, w, b, ow, ob, _, _ = _mha_inputs(seed, S=src)
    perm = data.draw(st.permutations(list(range(src))))
    idx = ember.tensor(perm)
    args = (w, b, None, None, False, 0.0, ow, ob)
    out, weights = F.multi_head_attention_forward(q, k, v, 4, 2, *args, need_weights=need_weights)
    out_p, weights_p = F.multi_head_attention_forward(q, k.index_select(0, idx), v.index_select(0, idx), 4, 2, *args,
                                                      need_weights=need_weights)
    np.testing.assert_allclose(out_p.detach().numpy(), out.detach().numpy(), rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(weights_p.detach().numpy(), weights.detach().numpy()[..., perm], rtol=1e-10,
                                   atol=1e-13)


@settings(deadline=None)
@given(seed=st.integers(0, 2 ** 16), add_zero=st.booleans(), bias=st.booleans(), causal=st.booleans())
def test_weighted_and_fused_paths_agree(seed, add_zero, bias, causal):
    # need_weights=True runs softmax by hand, False the fused attention: same output; the weights
    # are rows of a distribution over the keys (plus bias_k and the zero key).
    q, _, _, w, b, ow, ob, bk, bv = _mha_inputs(seed)
    x = q
    # NB: with bias_k or the zero key the fused causal mask (no attn_mask left) also hides the added key
    # from every query, while the explicit path attends it: torch's paths differ there too.
    causal = causal and not (bias or add_zero)
    am = ember.triu(ember.ones(3, 3, dtype=ember.bool), 1) if causal else None
    args = (x, x, x, 4, 2, w, b, bk if bias else None, bv if bias else None, add_zero, 0.0, ow, ob)
    out_w, weights = F.multi_head_attention_forward(*args, attn_mask=am, is_causal=causal)
    out_f, none = F.multi_head_attention_forward(*args, attn_mask=am, is_causal=causal, need_weights=False)
    assert none is None
    np.testing.assert_allclose(out_f.detach().numpy(), out_w.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert tuple(weights.shape) == (2, 3, 3 + bias + add_zero)
    np.testing.assert_allclose(weights.detach().numpy().sum(-1), 1.0, rtol=1e-12)
    if causal:
        assert (weights.detach().numpy()[:, 0, 1:3] == 0).all()


# ---- SyncBatchNorm

@pytest.mark.parametrize("name", LAYER_CASES)
def test_sync_batchnorm_matches_torch_without_a_process_group(name):
    case = CASES[name]
    tensors, build = case["tensors"], case["strings"]["build"]
    layer = eval(build, {"nn": nn, "T": ember}).double()
    assert isinstance(layer, nn.SyncBatchNorm)
    state = {k[len("param."):]: fr.tensor(v) for k, v in tensors.items() if k.startswith("param.")}
    state.update({k[len("buffer."):]: fr.tensor(v) for k, v in tensors.items() if k.startswith("buffer.")})
    assert sorted(layer.state_dict()) == sorted(state), build
    layer.load_state_dict(state)
    layer.train(case["strings"]["train"] == "1")
    x = fr.tensor(tensors["input"], True)
    y = layer(x)
    close = lambda got, key: np.testing.assert_allclose(  # noqa: E731
        got.detach().numpy(), fr.array(tensors[key]), rtol=1e-10, atol=1e-12, err_msg=f"{build}: {key}")
    close(y, "output")
    y.backward(fr.tensor(tensors["grad_output"]))
    close(x.grad, "grad.input")
    params, buffers = dict(layer.named_parameters()), dict(layer.named_buffers())
    for k in tensors:
        if k.startswith("grad.") and k != "grad.input":
            close(params[k[len("grad."):]].grad, k)
        if k.startswith("buffer_after."):
            close(buffers[k[len("buffer_after."):]], k)


def test_sync_batchnorm_errors_and_repr_like_torch():
    m = nn.SyncBatchNorm(3)
    assert repr(m) == "SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        m(ember.randn(3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        m(ember.randn(1, 3))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(ember.randn(2, 0))
    m.eval()
    assert tuple(m(ember.randn(1, 3)).shape) == (1, 3)  # eval: the running statistics, one row is fine
    assert nn.SyncBatchNorm(3, bias=False).bias is None and nn.SyncBatchNorm(3, affine=False).weight is None


def test_convert_sync_batchnorm_shares_parameters_and_buffers():
    net = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.ReLU(), nn.Sequential(nn.BatchNorm1d(4)))
    bn = net[1]
    net.eval()
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert out is net
    assert isinstance(net[1], nn.SyncBatchNorm) and isinstance(net[3][0], nn.SyncBatchNorm)
    assert isinstance(net[0], nn.Conv2d) and not net[1].training
    assert net[1].weight is bn.weight and net[1].running_var is bn.running_var
    assert sorted(net.state_dict()) == ['0.bias', '0.weight', '1.bias', '1.num_batches_tracked', '1.running_mean',
                                        '1.running_var', '1.weight', '3.0.bias', '3.0.num_batches_tracked',
                                        '3.0.running_mean', '3.0.running_var', '3.0.weight']
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(3, affine=False, track_running_stats=False))
    assert single.weight is None and single.running_mean is None and list(single.state_dict()) == []


def test_sync_batchnorm_over_two_processes_equals_one_process_on_the_whole_batch():
    worker = os.path.join(os.path.dirname(__file__), "sync_batchnorm_worker.py")
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", "2", "--grace", "1", worker]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    for case in ("3-D uneven", "2-D", "4-D affine=False", "one rank empty"):
        for r in (0, 1):
            assert f"ok {r} sync_batchnorm {case}" in out, out


# ---- set_default_device / get_default_device / with ember.device(...)

FACTORIES = ["ember.tensor([1.0])", "ember.as_tensor([1, 2])", "ember.zeros(2)", "ember.ones(2, 3)", "ember.empty(2)",
             "ember.full((2,), 3.0)", "ember.rand(2)", "ember.randn(2)", "ember.randint(0, 5, (3,))",
             "ember.randperm(4)", "ember.arange(3)", "ember.linspace(0, 1, 4)", "ember.logspace(0, 1, 3)",
             "ember.eye(2)", "ember.scalar_tensor(1.0)", "ember.zeros(2, device=None)"]


def test_the_default_is_cpu_and_costs_nothing():
    assert ember.get_default_device() == ember.device("cpu")
    # While the default is CPU the namespace holds the C++ factories themselves: no wrapper to pay for.
    assert ember.zeros is ember._C.zeros and ember.randn is ember._C.randn
    for name in ("cpu", None, ember.device("cpu")):
        ember.set_default_device(name)
        assert ember.get_default_device() == ember.device("cpu") and ember.zeros is ember._C.zeros
    for expr in FACTORIES:
        assert eval(expr).device == ember.device("cpu"), expr


def test_bare_cuda_raises_at_once_like_an_allocation():
    msg = cuda_error()
    with pytest.raises(RuntimeError) as e:
        ember.set_default_device("cuda")
    assert str(e.value) == msg
    assert ember.get_default_device() == ember.device("cpu") and ember.zeros is ember._C.zeros


def test_cuda_index_is_recorded_and_factories_and_layers_then_raise():
    msg = cuda_error()
    ember.set_default_device("cuda:0")
    assert ember.get_default_device() == ember.device("cuda", 0)
    for expr in FACTORIES:
        with pytest.raises(RuntimeError) as e:
            eval(expr)
        assert str(e.value) == msg, expr

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

    for build in (lambda: nn.Linear(2, 3), lambda: nn.BatchNorm3d(2), lambda: nn.SyncBatchNorm(2), Net,
                  lambda: nn.TransformerEncoderLayer(4, 2)):
        with pytest.raises(RuntimeError) as e:
            build()
        assert str(e.value) == msg
    # what names its device, and what keeps its input's, still works
    assert ember.zeros(2, device="cpu").device.type == "cpu"
    cpu = ember.ones(2, device="cpu")
    assert ember.zeros_like(cpu).device.type == "cpu" and ember.randn_like(cpu).device.type == "cpu"
    assert ember.from_numpy(np.ones(2)).device.type == "cpu"
    ember.set_default_device(None)
    assert ember.zeros is ember._C.zeros and nn.Linear(2, 3).weight.device.type == "cpu"
    assert nn.Linear.__init__ is ember._C.nn.Linear.__dict__["__init__"]


LAYER_ARGS = {"Bilinear": (2, 2, 2), "Embedding": (4, 2), "EmbeddingBag": (4, 2), "MultiheadAttention": (4, 2),
              "TransformerEncoderLayer": (4, 2), "TransformerDecoderLayer": (4, 2), "GroupNorm": (1, 2), "PReLU": ()}


def test_every_layer_with_state_is_built_on_the_default_device():
    # Each public layer that holds parameters or buffers, built as a newcomer would, lands on the
    # default device (here cuda:0 on a machine without one: the build raises CUDA's error).
    msg = cuda_error()
    checked = []
    for name in sorted(dir(nn)):
        cls = getattr(nn, name)
        if not (isinstance(cls, type) and issubclass(cls, nn.Module)) or cls is nn.Module:
            continue
        args = LAYER_ARGS.get(name, (2, 2, 3) if "Conv" in name else (2,) if "Norm" in name or "Linear" in name
                              or name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell") else ())
        if name in ("Linear", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"):
            args = (2, 2)
        try:
            layer = cls(*args)
        except Exception:  # noqa: BLE001  (a layer these arguments do not build)
            continue
        if not list(layer.parameters()) and not list(layer.buffers()):
            continue
        ember.set_default_device("cuda:0")
        try:
            with pytest.raises(RuntimeError) as e:
                cls(*args)
            assert str(e.value) == msg, name
        finally:
            ember.set_default_device(None)
        checked.append(name)
    assert {"Linear", "Conv2d", "BatchNorm2d", "LSTM", "Embedding", "EmbeddingBag", "MultiheadAttention",
            "Transformer", "LayerNorm", "SyncBatchNorm"} <= set(checked), checked


def test_unknown_devices_raise():
    with pytest.raises(ValueError, match="unknown device 'mps'"):
        ember.set_default_device("mps")
    assert ember.get_default_device() == ember.device("cpu")


def test_device_as_a_context_manager_restores_the_previous_default():
    with ember.device("cpu") as d:
        assert d == ember.device("cpu") and ember.get_default_device() == ember.device("cpu")
    msg = cuda_error()
    with pytest.raises(RuntimeError) as e:
        with ember.device("cuda:0"):
            assert ember.get_default_device() == ember.device("cuda", 0)
            with ember.device("cpu"):  # nested: cpu inside, cuda:0 again after
                assert ember.zeros(1).device.type == "cpu"
            assert ember.get_default_device() == ember.device("cuda", 0)
            ember.ones(1)
    assert str(e.value) == msg
    assert ember.get_default_device() == ember.device("cpu") and ember.ones is ember._C.ones


# ---- pin_memory / is_pinned / share_memory_ / is_shared / DataLoader(pin_memory=True)

def test_pinning_raises_without_a_gpu_like_torch():
    msg = cuda_error()
    t = ember.ones(3)
    assert t.is_pinned() is False
    with pytest.raises(RuntimeError) as e:
        t.pin_memory()
    assert str(e.value) == msg
    assert t.is_pinned() is False


def test_share_memory_marks_the_tensor_and_returns_it():
    t = ember.ones(3, requires_grad=True)
    assert t.is_shared() is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch is silent
        assert t.share_memory_() is t
    assert t.is_shared() is True and t.clone().is_shared() is False
    p = nn.Linear(2, 2).weight
    assert p.share_memory_() is p and p.is_shared()


class _Writes(Dataset):
    def __init__(self, buf):
        self.buf = buf

    def __len__(self):
        return len(self.buf)

    def __getitem__(self, i):
        self.buf[i] = float(i + 1)  # a worker writes into the shared tensor
        return i


def test_thread_workers_write_into_the_shared_tensor():
    buf = ember.zeros(6).share_memory_()
    list(DataLoader(_Writes(buf), batch_size=2, num_workers=2, worker_type="thread"))
    assert buf.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_dataloader_pin_memory_warns_and_keeps_batches():
    cuda_error()
    data = list(range(5))
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found, then "
                                         "device pinned memory won't be used."):
        pinned = list(DataLoader(data, batch_size=2, pin_memory=True))
    plain = list(DataLoader(data, batch_size=2))
    assert [b.tolist() for b in pinned] == [b.tolist() for b in plain]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(DataLoader(data, batch_size=2))  # pin_memory=False: silent
    loader = DataLoader(data, batch_size=2, pin_memory=True, pin_memory_device="cuda")
    with pytest.warns(UserWarning) as record:
        list(loader)
    messages = [str(w.message) for w in record]
    assert any("pin_memory_device is deprecated" in m for m in messages) and len(messages) == 2
    with pytest.warns(UserWarning) as record:
        iter(loader)  # each new iterator warns, as torch's
    assert any("no accelerator is found" in str(w.message) for w in record)
