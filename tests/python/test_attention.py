"""F.scaled_dot_product_attention, nn.MultiheadAttention and the Transformer family from Python:
PyTorch's keywords and defaults, torch state dicts loading under PyTorch's parameter names, the
outputs and gradients PyTorch gave for the same weights (tests/fixtures/attention.json, written by
tests/fixtures/make_attention_fixtures.py), masks of every kind, Python subclasses running inside
the C++ stacks, and checkpoints that rebuild the modules."""
import json
import os

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "attention.json")


@pytest.fixture(scope="module")
def cases():
    with open(FIXTURES) as f:
        raw = json.load(f)["cases"]

    def tensor(entry):
        data = [float(v) if isinstance(v, str) else v for v in entry["data"]]
        a = np.array(data, dtype=np.float64).reshape(entry["shape"])
        return ember.tensor(a.astype(entry["dtype"]))

    return {name: {k: tensor(v) for k, v in c["tensors"].items()} for name, c in raw.items()}


STACK_TOL = (1e-4, 5e-6)  # float32 stacks: a first layer's weight gradient sums the rounding of every layer


def check(module, case, forward, tol=(1e-5, 1e-6)):
    """Loads the case's parameters as a state dict (PyTorch's names, strict), runs forward on its
    inputs and compares outputs, input gradients and parameter gradients."""
    params = {k[len("param."):]: v for k, v in case.items() if k.startswith("param.")}
    if params:
        module.load_state_dict(params)
    module.eval()
    module.zero_grad()
    inputs = []
    for i in range(1, 10):
        key = "input" if i == 1 else f"input{i}"
        if key not in case:
            break
        x = case[key].clone()
        if x.is_floating_point():
            x.requires_grad_(True)
        inputs.append(x)
    outputs = forward(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    outputs = [o for o in outputs if o is not None]
    rtol, atol = tol
    total = 0
    for i, o in enumerate(outputs):
        suffix = "" if i == 0 else str(i + 1)
        np.testing.assert_allclose(o.numpy(force=True), case["output" + suffix].numpy(), rtol=rtol, atol=atol)
        total = total + (o * case["grad_output" + suffix]).sum()
    total.backward()
    for i, x in enumerate(inputs):
        key = "input" if i == 0 else f"input{i + 1}"
        if "grad." + key in case:
            np.testing.assert_allclose(x.grad.numpy(), case["grad." + key].numpy(), rtol=rtol, atol=atol)
    for name, p in module.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), case["grad." + name].numpy(), rtol=rtol, atol=atol, err_msg=name)


# ---- scaled_dot_product_attention

@pytest.mark.parametrize("name", ["sdpa_plain", "sdpa_bool_mask", "sdpa_float_mask_f64", "sdpa_causal_4x7",
                                  "sdpa_causal_7x4_f64", "sdpa_scale", "sdpa_broadcast", "sdpa_2d", "sdpa_5d",
                                  "sdpa_gqa", "sdpa_seq1"])
def test_sdpa_matches_pytorch(cases, name):
    c = cases[name]
    kwargs = {"is_causal": "causal" in name, "enable_gqa": "gqa" in name}
    if name == "sdpa_scale":
        kwargs["scale"] = 0.3
    mask = c.get("mask.attn_mask")
    check(nn.Module(), c, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kwargs),
          (1e-10, 1e-12) if name.endswith("_f64") else (1e-5, 1e-6))


def test_sdpa_views_broadcast_masks_and_fully_masked_rows():
    """(NumPy comparisons of every shape, layout and mask: tests/python/property/test_attention_property.py.)"""
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(2, 5, 3, 4)), rng.normal(size=(2, 3, 6, 4)), rng.normal(size=(2, 3, 6, 2))
    t = lambda a: ember.tensor(a)
    # heads split out of [N, L, H, D] by a transpose, as attention code does: same as contiguous
    qt = t(q).transpose(1, 2)
    assert not qt.is_contiguous()
    for causal in (False, True):
        a = F.scaled_dot_product_attention(qt, t(k), t(v), is_causal=causal)
        b = F.scaled_dot_product_attention(qt.contiguous(), t(k), t(v), is_causal=causal)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    keep = rng.uniform(size=(5, 6)) > 0.5
    keep[2] = False
    out = F.scaled_dot_product_attention(qt, t(k), t(v), attn_mask=t(keep))
    assert np.all(out.numpy()[:, :, 2] == 0) and np.all(np.isfinite(out.numpy()))
    # a bool mask and the equivalent float mask agree
    bias = np.where(keep, 0.0, -np.inf)
    np.testing.assert_allclose(F.scaled_dot_product_attention(qt, t(k), t(v), attn_mask=t(bias)).numpy(),
                               out.numpy(), rtol=1e-12, atol=1e-12)


def test_sdpa_gradients_and_errors():
    rng = np.random.default_rng(1)
    q, k, v = (ember.tensor(rng.normal(size=s), requires_grad=True) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3)))
    keep = ember.tensor(rng.uniform(size=(3, 5)) > 0.4)
    gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=keep), [q, k, v])
    gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [q, k, v])
    with pytest.raises(ValueError, match="scaled_dot_product_attention: an explicit attn_mask must not be given"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=keep, is_causal=True)
    with pytest.raises(TypeError, match="one dtype"):
        F.scaled_dot_product_attention(q, k.float(), v)
    with pytest.raises(ValueError, match=r"\[2, 5, 4\].*\[2, 6, 3\]"):
        F.scaled_dot_product_attention(q, k, ember.randn(2, 6, 3, dtype=ember.float64))


# ---- MultiheadAttention

def test_mha_options_parameters_and_attributes():
    m = nn.MultiheadAttention(8, 2, kdim=5, vdim=3, add_bias_kv=True, add_zero_attn=True)
    assert [n for n, _ in m.named_parameters()] == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
        "out_proj.bias"]  # PyTorch's order: own parameters, then out_proj's
    assert m.in_proj_weight is None and tuple(m.k_proj_weight.shape) == (8, 5) and tuple(m.bias_k.shape) == (1, 1, 8)
    assert (m.kdim, m.vdim, m.head_dim, m._qkv_same_embed_dim, m.add_zero_attn) == (5, 3, 4, False, True)
    packed = nn.MultiheadAttention(8, 2, bias=False)
    assert packed.in_proj_bias is None and packed.bias_k is None and packed.q_proj_weight is None
    assert tuple(packed.in_proj_weight.shape) == (24, 8)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_kdim_vdim_and_bias_kv_zero_attn_match_pytorch(cases, need_weights):
    suffix = "weights" if need_weights else "noweights"
    m = nn.MultiheadAttention(8, 2, kdim=5, vdim=3)
    check(m, cases[f"mha_kdim_vdim_{suffix}"], lambda q, k, v: m(q, k, v, need_weights=need_weights))
    c = cases[f"mha_bias_kv_zero_attn_{suffix}"]
    m = nn.MultiheadAttention(8, 4, add_bias_kv=True, add_zero_attn=True, batch_first=True)
    check(m, c, lambda q, kv: m(q, kv, kv, key_padding_mask=c["mask.key_padding_mask"],
                                attn_mask=c["mask.attn_mask"], need_weights=need_weights))
    c = cases[f"mha_float_masks_{suffix}"]
    m = nn.MultiheadAttention(6, 3)
    check(m, c, lambda q, kv: m(q, kv, kv, key_padding_mask=c["mask.key_padding_mask"], attn_mask=c["mask.attn_mask"],
                                need_weights=need_weights, average_attn_weights=False))


def test_mha_unbatched_causal_and_fully_padded_match_pytorch(cases):
    m = nn.MultiheadAttention(6, 2, bias=False)
    check(m, cases["mha_unbatched_self"], lambda x: m(x, x, x))
    c = cases["mha_is_causal"]
    check(m, c, lambda x: m(x, x, x, attn_mask=c["mask.attn_mask"], is_causal=True, need_weights=False))
    c = cases["mha_fully_padded_noweights"]
    check(m, c, lambda q, kv: m(q, kv, kv, key_padding_mask=c["mask.key_padding_mask"], need_weights=False))
    with pytest.raises(ValueError, match="is_causal needs attn_mask"):
        m(ember.randn(3, 6), ember.randn(3, 6), ember.randn(3, 6), is_causal=True)


def test_mha_batch_first_both_ways_and_batch_one_agree():
    ember.manual_seed(0)
    seq_first = nn.MultiheadAttention(8, 4)
    batch_first = nn.MultiheadAttention(8, 4, batch_first=True)
    batch_first.load_state_dict(seq_first.state_dict())
    x = ember.randn(5, 3, 8)
    pad = ember.tensor([[False] * 5, [False] * 4 + [True], [False] * 2 + [True] * 3])
    a, wa = seq_first(x, x, x, key_padding_mask=pad)
    b, wb = batch_first(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), key_padding_mask=pad)
    np.testing.assert_allclose(a.numpy(force=True), b.transpose(0, 1).numpy(force=True), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(wa.numpy(force=True), wb.numpy(force=True), rtol=1e-6, atol=1e-6)
    one, _ = seq_first(x[:, :1], x[:, :1], x[:, :1])
    alone, _ = seq_first(x[:, 0], x[:, 0], x[:, 0])  # unbatched
    np.testing.assert_allclose(one[:, 0].numpy(force=True), alone.numpy(force=True), rtol=1e-6, atol=1e-6)


def test_mha_subclass_override_without_is_causal_still_runs_inside_a_layer():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0)
    seen = []

    class Spy(nn.MultiheadAttention):
        def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                    average_attn_weights=True, is_causal=False):
            seen.append(is_causal)
            return super().forward(query, key, value, key_padding_mask=key_padding_mask, need_weights=need_weights,
                                   attn_mask=attn_mask, is_causal=is_causal)

    layer.self_attn = Spy(4, 2)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    layer(ember.randn(3, 2, 4), src_mask=mask, is_causal=True)
    layer(ember.randn(3, 2, 4))
    assert seen == [True, False]


# ---- the transformer layers and stacks

def test_layers_and_stacks_match_pytorch(cases):
    for norm_first in (False, True):
        name = f"decoder_layer_{'pre' if norm_first else 'post'}norm"
        c = cases[name]
        layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=6, dropout=0.0, batch_first=True,
                                           norm_first=norm_first, activation=F.gelu if norm_first else "relu")
        check(layer, c, lambda t, m: layer(t, m, tgt_mask=c["mask.tgt_mask"], tgt_key_padding_mask=c["mask.tgt_key_padding_mask"],
                                           memory_key_padding_mask=c["mask.memory_key_padding_mask"], tgt_is_causal=True))
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=3, norm=nn.LayerNorm(4), enable_nested_tensor=False)
    c = cases["encoder_stack_causal_padding"]
    check(encoder, c, lambda x: encoder(x, mask=c["mask.mask"], src_key_padding_mask=c["mask.src_key_padding_mask"]),
          STACK_TOL)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, dim_feedforward=6, dropout=0.0), 2,
                                    norm=nn.LayerNorm(4))
    c = cases["decoder_stack"]
    check(decoder, c, lambda t, m: decoder(t, m, tgt_mask=c["mask.tgt_mask"]), STACK_TOL)


@pytest.mark.parametrize("name", ["transformer_seq_first", "transformer_batch_first_f64"])
def test_transformer_matches_pytorch(cases, name):
    c = cases[name]
    batch_first = "batch_first" in name
    model = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=6,
                           dropout=0.0, batch_first=batch_first)
    if name.endswith("_f64"):
        model.to(ember.float64)
    pad = c["mask.src_key_padding_mask"]
    check(model, c, lambda s, t: model(s, t, tgt_mask=c["mask.tgt_mask"], src_key_padding_mask=pad,
                                       memory_key_padding_mask=pad),
          (1e-10, 1e-12) if name.endswith("_f64") else STACK_TOL)
    c = cases["transformer_prenorm_gelu_nobias_unbatched"]
    model = nn.Transformer(d_model=6, nhead=3, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=4,
                           dropout=0.0, activation=nn.GELU(), norm_first=True, bias=False)
    check(model, c, lambda s, t: model(s, t, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3)), STACK_TOL)


def test_transformer_attributes_custom_stacks_and_errors():
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16)
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)
    assert model.encoder.num_layers == 2 and isinstance(model.encoder.norm, nn.LayerNorm)
    assert isinstance(model.decoder.layers[0], nn.TransformerDecoderLayer)
    assert "decoder.layers.0.multihead_attn.in_proj_weight" in model.state_dict()
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 3)
    assert encoder.norm is None and len(encoder.layers) == 3
    custom = nn.Transformer(d_model=8, nhead=2, custom_encoder=encoder, num_decoder_layers=1, dim_feedforward=16)
    assert custom.encoder.num_layers == 3
    with pytest.raises(TypeError, match="custom_encoder must be a TransformerEncoder"):
        nn.Transformer(d_model=8, nhead=2, custom_encoder=nn.Linear(8, 8))
    with pytest.raises(NotImplementedError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, activation=lambda x: x)
    with pytest.raises(ValueError, match="activation must be 'relu' or 'gelu'"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(ValueError, match="the batch number of src and tgt must be equal"):
        model(ember.randn(3, 2, 8), ember.randn(3, 4, 8))
    with pytest.raises(ValueError, match="feature number of src and tgt must be equal to d_model"):
        model(ember.randn(3, 2, 8), ember.randn(3, 2, 6))
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == ember.float32 and mask.numpy().tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=ember.float64).dtype == ember.float64


def test_python_subclasses_of_layers_run_inside_the_stacks_with_pytorch_keywords():
    calls = []

    class Encoder(nn.TransformerEncoder):
        def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
            calls.append(("encoder", is_causal))
            return super().forward(src, mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=is_causal)

    class Decoder(nn.TransformerDecoder):
        def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
            calls.append(("decoder", tgt_is_causal))
            return super().forward(tgt, memory, tgt_mask=tgt_mask, tgt_is_causal=tgt_is_causal)

    encoder = Encoder(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0), 2)
    decoder = Decoder(nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0), 1)
    model = nn.Transformer(d_model=4, nhead=2, custom_encoder=encoder, custom_decoder=decoder)
    out = model(ember.randn(5, 2, 4), ember.randn(3, 2, 4), tgt_mask=nn.Transformer.generate_square_subsequent_mask(3))
    assert out.shape == (3, 2, 4)
    assert calls == [("encoder", None), ("decoder", None)]


def test_stack_of_a_subclassed_layer_copies_it_or_says_why_not():
    class Layer(nn.TransformerEncoderLayer):
        pass

    try:
        encoder = nn.TransformerEncoder(Layer(4, 2, dim_feedforward=8), 2)
    except TypeError as e:  # no copy.deepcopy for this module
        assert "TransformerEncoder: cannot copy the layer, a Layer" in str(e)
    else:
        assert type(encoder.layers[0]) is Layer and encoder.layers[0] is not encoder.layers[1]


def test_causal_masks_are_detected_and_sequence_positions_do_not_see_the_future():
    ember.manual_seed(1)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2).eval()
    x = ember.randn(2, 6, 8)
    later = x.clone()
    later[:, 5] = 0.0
    for mask in (nn.Transformer.generate_square_subsequent_mask(6),
                 ember.tensor(np.triu(np.ones((6, 6), dtype=bool), 1))):
        a, b = encoder(x, mask=mask), encoder(later, mask=mask)
        np.testing.assert_allclose(a[:, :5].numpy(force=True), b[:, :5].numpy(force=True), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(encoder(x, mask=mask, is_causal=True).numpy(force=True), a.numpy(force=True),
                                   rtol=1e-5, atol=1e-6)


def test_transformer_checkpoint_rebuilds_the_modules(tmp_path):
    ember.manual_seed(2)
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                           dropout=0.0, batch_first=True, norm_first=True, activation="gelu", bias=False)
    mha = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True)
    path = tmp_path / "t.ember"
    ember.io.save_module(nn.ModuleDict({"model": model, "mha": mha}), str(path))
    back = ember.io.load_module(str(path))
    assert isinstance(back["model"], nn.Transformer) and isinstance(back["model"].encoder, nn.TransformerEncoder)
    assert back["model"].batch_first and back["model"].encoder.num_layers == 2
    src, tgt = ember.randn(2, 5, 8), ember.randn(2, 3, 8)
    model.eval()
    back.eval()
    np.testing.assert_array_equal(back["model"](src, tgt).numpy(force=True), model(src, tgt).numpy(force=True))
    q, k, v = ember.randn(4, 2, 8), ember.randn(6, 2, 3), ember.randn(6, 2, 5)
    np.testing.assert_array_equal(back["mha"](q, k, v)[0].numpy(force=True), mha(q, k, v)[0].numpy(force=True))
