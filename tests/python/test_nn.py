"""ember.nn from Python: subclassing Module, the registration rules (and the warning for a plain
Tensor attribute), nesting Python and C++ modules both ways, state_dict, modes, the built-in layers
against values computed here with NumPy, nn.functional and nn.init."""
import collections
import gc
import inspect
import math
import warnings

import numpy as np
import pytest

import ember
from ember import nn
import ember.nn.functional as F


def values(t):
    return t.tolist()


class Affine(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.fc = nn.Linear(n, 2)
        self.scale = nn.Parameter(ember.ones(2))
        self.register_buffer("shift", ember.zeros(2))
        self.register_buffer("scratch", ember.zeros(1), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.fc(x) * self.scale + self.shift


class Double(nn.Module):
    def forward(self, x):
        return x * 2.0


def test_subclass_registers_parameters_buffers_and_children():
    m = Affine()
    assert [n for n, _ in m.named_parameters()] == ["scale", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == ["shift", "scratch"]
    assert [n for n, _ in m.named_children()] == ["fc"]
    assert isinstance(m.scale, nn.Parameter) and m.scale.requires_grad
    assert isinstance(m.fc, nn.Linear) and m.fc is m.fc  # a registered child keeps its identity
    assert m.note == "plain attribute"
    assert len(list(m.parameters())) == 3 and len(list(m.buffers())) == 2
    assert [type(c).__name__ for c in m.children()] == ["Linear"]
    assert [n for n, _ in m.named_modules()] == ["", "fc"]


def test_state_dict_is_ordered_dict_in_pytorch_order_without_non_persistent_buffers():
    m = Affine()
    sd = m.state_dict()
    assert isinstance(sd, collections.OrderedDict)
    assert list(sd) == ["scale", "shift", "fc.weight", "fc.bias"]
    assert not sd["scale"].requires_grad  # detached, as PyTorch's
    assert sd["fc.weight"]._is_same(sd["fc.weight"]) and np.shares_memory(
        sd["fc.weight"].numpy(), m.fc.weight.detach().numpy())


def test_forward_through_call_and_values():
    m = Affine()
    x = ember.randn(4, 3)
    w, b = m.fc.weight.detach().numpy(), m.fc.bias.detach().numpy()
    expected = x.numpy() @ w.T + b
    np.testing.assert_allclose(m(x).numpy(force=True), expected, rtol=1e-5, atol=1e-6)


def test_plain_tensor_attribute_warns_naming_it_and_register_buffer():
    m = Affine()
    with pytest.warns(UserWarning, match=r"Affine\.stats is a plain Tensor.*register_buffer\('stats'"):
        m.stats = ember.zeros(3)
    assert "stats" not in m.state_dict()  # the silent bug the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.shift = ember.ones(2)  # a buffer's name: replaces the buffer, no warning
        m.scale = nn.Parameter(ember.full((2,), 3.0))  # replaces the parameter
        m.count = 3
    assert m.state_dict()["shift"].tolist() == [1.0, 1.0]
    assert m.state_dict()["scale"].tolist() == [3.0, 3.0]


def test_warning_points_at_the_users_line():
    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.mask = ember.ones(2)

    with pytest.warns(UserWarning) as record:
        Bad()
    assert record[0].filename == __file__


def test_plain_list_of_modules_is_not_registered_and_warns():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]
            self.good = nn.ModuleList([nn.Linear(2, 2)])

    with pytest.warns(UserWarning, match="ModuleList"):
        net = Net()
    assert [n for n, _ in net.named_parameters()] == ["good.0.weight", "good.0.bias"]


def test_registration_type_errors():
    m = Affine()
    with pytest.raises(TypeError, match="as parameter 'scale'"):
        m.scale = ember.ones(2)
    with pytest.raises(TypeError, match="as child module 'fc'"):
        m.fc = 3
    with pytest.raises(TypeError, match="as buffer 'shift'"):
        m.shift = 1.0

    class Early(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
            super().__init__()

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
        Early()
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        m.nothing


def test_parameter_constructor_and_requires_grad_false():
    t = ember.randn(3)
    p = nn.Parameter(t)
    assert p.requires_grad and p.is_leaf and np.shares_memory(p.detach().numpy(), t.numpy())
    assert "Parameter containing" in repr(p)
    frozen = nn.Parameter(ember.zeros(2), requires_grad=False)
    m = nn.Module()
    m.frozen = frozen
    assert not m.frozen.requires_grad
    assert m.frozen._is_same(frozen)


def test_python_module_inside_cpp_sequential_survives_and_runs():
    inner = Affine()
    inner.tag = "kept"
    seq = nn.Sequential(nn.Linear(3, 3), inner, Double())
    x = ember.randn(5, 3)
    expected = (inner(seq[0](x)) * 2.0).numpy(force=True)
    del inner
    gc.collect()
    assert seq[1].tag == "kept"  # the Python half lives as long as the container holds it
    np.testing.assert_allclose(seq(x).numpy(force=True), expected, rtol=1e-6)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "1.scale", "1.fc.weight", "1.fc.bias"]
    assert "(1): Affine(" in repr(seq) and "(2): Double()" in repr(seq)


def test_cpp_containers_in_python_module_and_indexing():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": Double()})

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return self.heads["a"](x) + self.heads["b"](x).sum(dim=1, keepdim=True)

    net = Net()
    assert len(net.blocks) == 3 and isinstance(net.blocks[-1], nn.Linear)
    assert net.heads.keys() == ["a", "b"] and "b" in net.heads
    assert isinstance(net.heads["b"], Double)
    out = net(ember.randn(4, 2))
    assert out.shape == (4, 1)
    net.blocks.append(nn.Linear(2, 2))
    assert [n for n, _ in net.named_parameters()][-2:] == ["heads.a.weight", "heads.a.bias"]
    assert "blocks.3.weight" in net.state_dict()
    net.heads["c"] = nn.Identity()
    assert net.heads.keys() == ["a", "b", "c"]
    seq = nn.Sequential(collections.OrderedDict(first=nn.Linear(2, 2), act=nn.ReLU()))
    assert [n for n, _ in seq.named_children()] == ["first", "act"]
    assert len(seq[:1]) == 1


def test_load_state_dict_strict_and_non_strict():
    a, b = Affine(), Affine()
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    np.testing.assert_array_equal(b.fc.weight.detach().numpy(), a.fc.weight.detach().numpy())
    partial = a.state_dict()
    del partial["shift"]
    partial["extra"] = ember.zeros(1)
    with pytest.raises(RuntimeError, match="shift"):
        b.load_state_dict(partial)
    result = b.load_state_dict(partial, strict=False)
    assert result.missing_keys == ["shift"] and result.unexpected_keys == ["extra"]
    bad = a.state_dict()
    bad["fc.weight"] = ember.zeros(5, 5)
    with pytest.raises(RuntimeError, match=r"size mismatch for 'fc.weight': checkpoint \[5, 5\], model \[2, 3\]"):
        b.load_state_dict(bad, strict=False)


def test_train_eval_zero_grad_to_apply():
    m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), Affine(2))
    assert m.training and all(c.training for c in m.modules())
    assert m.eval() is m and not any(c.training for c in m.modules())
    m.train()
    assert m[2].training
    m(ember.randn(3, 2)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    assert m.to(ember.float64) is m
    assert all(p.dtype == ember.float64 for p in m.parameters())
    assert m[2].shift.dtype == ember.float64  # buffers are converted too
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Dropout", "Linear", "Affine", "Sequential"]


def test_dropout_train_vs_eval():
    d = nn.Dropout(0.5)
    x = ember.ones(1000)
    y = d(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 300 < (y == 0).sum() < 700
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())


def test_extra_repr_override_and_type_name():
    class Scaled(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def extra_repr(self):
            return f"k={self.k}"

        def forward(self, x):
            return x * self.k

    assert repr(nn.Sequential(Scaled(3))) == "Sequential(\n  (0): Scaled(k=3)\n)"


def test_linear_bias_none_and_replacing_weight():
    lin = nn.Linear(3, 2, bias=False)
    assert lin.bias is None and lin.in_features == 3
    w = nn.Parameter(ember.ones(2, 3))
    lin.weight = w
    assert lin(ember.ones(1, 3)).tolist() == [[3.0, 3.0]]


def test_layers_against_numpy():
    x = ember.randn(2, 3, 6, 6)
    conv = nn.Conv2d(3, 4, kernel_size=3, stride=1, padding=1)
    ref = F.conv2d(x, conv.weight, conv.bias, padding=1)
    np.testing.assert_allclose(conv(x).numpy(force=True), ref.numpy(force=True), rtol=1e-5)
    assert conv(x).shape == (2, 4, 6, 6) and conv.kernel_size == (3, 3)

    xn = x.numpy()
    mp = nn.MaxPool2d(2)(x).numpy()
    np.testing.assert_allclose(mp, xn.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    ap = nn.AvgPool2d(kernel_size=2, stride=2)(x).numpy()
    np.testing.assert_allclose(ap, xn.reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)), rtol=1e-5)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d(1)(x).numpy(), xn.mean(axis=(2, 3), keepdims=True),
                               rtol=1e-5, atol=1e-6)

    h = ember.randn(4, 5)
    hn = h.numpy()
    ln = nn.LayerNorm(5)
    expected = (hn - hn.mean(-1, keepdims=True)) / np.sqrt(hn.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(h).numpy(force=True), expected, rtol=1e-4, atol=1e-5)

    bn = nn.BatchNorm1d(5, momentum=0.1)
    out = bn(h).numpy(force=True)
    np.testing.assert_allclose(out, (hn - hn.mean(0)) / np.sqrt(hn.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * hn.mean(0), rtol=1e-5, atol=1e-7)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert nn.BatchNorm2d(3)(x).shape == x.shape

    # momentum=None keeps the cumulative average of the batch statistics, as torch's
    cumulative = nn.BatchNorm1d(5, momentum=None)
    batches = [ember.randn(4, 5), ember.randn(6, 5), ember.randn(3, 5)]
    for b in batches:
        cumulative(b)
    np.testing.assert_allclose(cumulative.running_mean.numpy(), np.mean([b.numpy().mean(0) for b in batches], 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cumulative.running_var.numpy(),
                               np.mean([b.numpy().var(0, ddof=1) for b in batches], 0), rtol=1e-5, atol=1e-6)
    assert cumulative.momentum is None and "momentum=None" in repr(cumulative)
    cumulative.momentum = 0.5
    assert cumulative.momentum == 0.5
    assert nn.BatchNorm3d(2, momentum=None).momentum is None

    emb = nn.Embedding(10, 3, padding_idx=0)
    idx = ember.tensor([[1, 0, 9]])
    np.testing.assert_array_equal(emb(idx).numpy(force=True)[0], emb.weight.detach().numpy()[[1, 0, 9]])
    assert emb.weight.detach().numpy()[0].tolist() == [0.0, 0.0, 0.0]

    np.testing.assert_allclose(nn.ReLU()(h).numpy(), np.maximum(hn, 0))
    np.testing.assert_allclose(nn.Tanh()(h).numpy(), np.tanh(hn), rtol=1e-5)
    np.testing.assert_allclose(nn.Sigmoid()(h).numpy(), 1 / (1 + np.exp(-hn)), rtol=1e-5)
    np.testing.assert_allclose(nn.LeakyReLU(0.2)(h).numpy(), np.where(hn > 0, hn, 0.2 * hn), rtol=1e-6)
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))
    np.testing.assert_allclose(nn.GELU()(h).numpy(), gelu(hn), rtol=1e-5, atol=1e-6)
    sm = np.exp(hn) / np.exp(hn).sum(1, keepdims=True)
    np.testing.assert_allclose(nn.Softmax(dim=1)(h).numpy(), sm, rtol=1e-5)
    assert nn.Flatten()(x).shape == (2, 108) and nn.Identity()(h)._is_same(h)


def test_attention_and_transformer_layer():
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    assert [n for n, _ in mha.named_parameters()] == [
        "in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    q = ember.randn(2, 5, 8)
    out, weights = mha(q, q, q)
    assert out.shape == (2, 5, 8) and weights.shape == (2, 5, 5)
    np.testing.assert_allclose(weights.numpy(force=True).sum(-1), np.ones((2, 5)), rtol=1e-5)
    out2, none = mha(q, q, q, need_weights=False)
    assert none is None
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    assert layer(q).shape == (2, 5, 8)
    layer.eval()
    causal = ember.tensor(np.triu(np.ones((5, 5), dtype=bool), 1))  # True = masked out
    changed = ember.tensor(q.numpy().copy())
    changed[:, 4] = 0.0  # a later position may not influence position 0 under the causal mask
    a, b = layer(q, src_mask=causal), layer(changed, src_mask=causal)
    np.testing.assert_allclose(a[:, 0].numpy(force=True), b[:, 0].numpy(force=True), rtol=1e-5, atol=1e-6)
    assert not np.allclose(layer(q)[:, 0].numpy(force=True), layer(changed)[:, 0].numpy(force=True))


def test_functional_losses_against_numpy():
    logits = ember.randn(4, 3)
    target = ember.tensor([0, 2, 1, 2])
    ln = logits.numpy()
    logp = ln - np.log(np.exp(ln).sum(1, keepdims=True))
    ce = -logp[np.arange(4), target.numpy()].mean()
    assert F.cross_entropy(logits, target).item() == pytest.approx(ce, rel=1e-5)
    assert F.nll_loss(F.log_softmax(logits, 1), target, reduction="sum").item() == pytest.approx(ce * 4, rel=1e-5)
    a, b = ember.randn(6), ember.randn(6)
    d = a.numpy() - b.numpy()
    assert F.mse_loss(a, b).item() == pytest.approx((d ** 2).mean(), rel=1e-5)
    assert F.l1_loss(a, b, reduction="sum").item() == pytest.approx(np.abs(d).sum(), rel=1e-5)
    sl1 = np.where(np.abs(d) < 1, 0.5 * d ** 2, np.abs(d) - 0.5)
    assert F.smooth_l1_loss(a, b).item() == pytest.approx(sl1.mean(), rel=1e-5)
    y = ember.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    s = 1 / (1 + np.exp(-a.numpy()))
    bce = -(y.numpy() * np.log(s) + (1 - y.numpy()) * np.log(1 - s)).mean()
    assert F.binary_cross_entropy_with_logits(a, y).item() == pytest.approx(bce, rel=1e-5)
    assert F.mse_loss(a, b, reduction="none").shape == (6,)
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(a, b, reduction="avg")
    w, bias = ember.randn(2, 6), ember.randn(2)
    np.testing.assert_allclose(F.linear(a.reshape(1, 6), w, bias).numpy(force=True)[0],
                               w.numpy() @ a.numpy() + bias.numpy(), rtol=1e-5)


def test_init_functions():
    t = ember.empty(200, 100)
    nn.init.constant_(t, 0.5)
    assert set(np.unique(t.numpy())) == {0.5}
    nn.init.zeros_(t)
    assert not t.numpy().any()
    bound = math.sqrt(6 / (100 + 200))
    nn.init.xavier_uniform_(t, generator=ember.Generator(0))
    assert np.abs(t.numpy()).max() <= bound and np.abs(t.numpy()).max() > 0.9 * bound
    nn.init.kaiming_normal_(t, mode="fan_in", nonlinearity="relu")
    assert t.numpy().std() == pytest.approx(math.sqrt(2 / 100), rel=0.05)
    assert nn.init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    nn.init.trunc_normal_(t, std=1.0, a=-1.0, b=1.0)
    assert np.abs(t.numpy()).max() <= 1.0
    assert nn.init._calculate_fan_in_and_fan_out(ember.empty(4, 3, 2, 2)) == (12, 16)


def test_clip_grad():
    p = nn.Parameter(ember.zeros(4))
    p.grad = ember.tensor([3.0, 4.0, 0.0, 0.0])
    total = nn.utils.clip_grad_norm_([p], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8, 0, 0], rtol=1e-5)
    p.grad = ember.tensor([3.0, -4.0, 0.5, 0.0])
    nn.utils.clip_grad_value_(p, 1.0)
    assert p.grad.tolist() == [1.0, -1.0, 0.5, 0.0]


# ---- a Python subclass of a built-in layer runs its own forward wherever it sits (regression:
# inside a C++ container the built-in forward ran and the override was silently skipped)

class Negated(nn.Linear):
    def forward(self, x):
        return -super().forward(x)


class Halved(nn.ReLU):
    def forward(self, x):
        return super().forward(x) * 0.5


def test_subclass_override_runs_inside_sequential_and_nested_containers():
    torch_like = Negated(2, 2)
    x = ember.randn(4, 2)
    direct = torch_like(x).numpy(force=True)
    np.testing.assert_array_equal(nn.Sequential(torch_like)(x).numpy(force=True), direct)
    nested = nn.Sequential(nn.Sequential(torch_like, Halved()), nn.Identity())
    np.testing.assert_allclose(nested(x).numpy(force=True), np.maximum(direct, 0) * 0.5, rtol=1e-6)
    ordered = nn.Sequential(collections.OrderedDict(neg=torch_like))
    np.testing.assert_array_equal(ordered(x).numpy(force=True), direct)
    assert isinstance(ordered.neg, Negated)


def test_every_builtin_layer_subclass_is_dispatched_from_cpp():
    made = [nn.Linear(3, 3), nn.Conv2d(3, 3, 1), nn.MaxPool2d(1), nn.AvgPool2d(1), nn.AdaptiveAvgPool2d(2),
            nn.BatchNorm2d(3), nn.LayerNorm(2), nn.Dropout(0.0), nn.Flatten(0, 0), nn.ReLU(), nn.GELU(),
            nn.Tanh(), nn.Sigmoid(), nn.LeakyReLU(), nn.Softmax(-1), nn.Identity()]
    x = ember.rand(1, 3, 2, 2)
    for layer in made:
        cls = type(layer)
        sub = type("Marked" + cls.__name__, (cls,), {"forward": lambda self, t: ember.full_like(t, 42.0)})
        args = {nn.Linear: (3, 3), nn.Conv2d: (3, 3, 1), nn.MaxPool2d: (1,), nn.AvgPool2d: (1,),
                nn.AdaptiveAvgPool2d: (2,), nn.BatchNorm2d: (3,), nn.LayerNorm: (2,), nn.Dropout: (0.0,),
                nn.Flatten: (0, 0), nn.LeakyReLU: (), nn.Softmax: (-1,)}.get(cls, ())
        out = nn.Sequential(nn.Identity(), sub(*args))(x)
        assert values(out.reshape(-1)[:1]) == [42.0], cls.__name__


def test_replaced_and_subclassed_children_of_a_transformer_layer_are_the_ones_that_run():
    layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, batch_first=True)
    x = ember.randn(2, 3, 4)

    class Zero(nn.Linear):
        def forward(self, t):
            return super().forward(t) * 0.0

    layer.linear2 = Zero(8, 4)   # the feed-forward block now adds nothing
    calls = []

    class Spy(nn.MultiheadAttention):
        def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                    average_attn_weights=True):
            calls.append(query.shape)
            out, w = super().forward(query, key, value, key_padding_mask=key_padding_mask,
                                     need_weights=need_weights, attn_mask=attn_mask)
            return out * 0.0, w

    layer.self_attn = Spy(4, 2, batch_first=True)
    out = layer(x)
    assert calls == [(2, 3, 4)]
    # both blocks add zero: two LayerNorms of x itself
    xn = x.numpy()
    norm = lambda a: (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.numpy(force=True), norm(norm(xn)), rtol=1e-4, atol=1e-5)


def test_cross_entropy_over_only_ignored_targets_is_nan_with_zero_gradient():
    logits = ember.randn(3, 5, requires_grad=True)
    loss = F.cross_entropy(logits, ember.full((3,), -100, dtype=ember.int64))
    assert math.isnan(loss.item())
    loss.backward()
    assert np.all(logits.grad.numpy() == 0)


def test_containers_index_slice_and_iterate_from_cpp():
    a, b, c = nn.Linear(1, 1), nn.ReLU(), nn.Linear(1, 1)
    seq = nn.Sequential(collections.OrderedDict(first=a, act=b, last=c))
    assert seq[0] is not None and seq[-1].out_features == 1
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    tail = seq[1:]
    assert isinstance(tail, nn.Sequential) and [n for n, _ in tail.named_children()] == ["act", "last"]
    assert [type(m).__name__ for m in seq[::-1]] == ["Linear", "ReLU", "Linear"]
    with pytest.raises(IndexError, match="index 3 is out of range for Sequential of length 3"):
        seq[3]
    ml = nn.ModuleList([a, b])
    ml += [c]
    ml[-1] = nn.Tanh()
    assert [type(m).__name__ for m in ml] == ["Linear", "ReLU", "Tanh"] and len(ml[:2]) == 2
    md = nn.ModuleDict({"x": a})
    md.update({"y": b})
    assert list(md) == ["x", "y"] and md.keys() == ["x", "y"] and [k for k, _ in md.items()] == ["x", "y"]
    with pytest.raises(KeyError):
        md["z"]
    assert nn.Linear(2, 2, bias=False).bias is None and nn.Linear(2, 2).bias.shape == (2,)
    assert isinstance(nn.Conv2d(1, 1, 1).bias, nn.Parameter)


def test_every_built_in_layer_is_re_exported_by_ember_nn():
    # ember/nn/__init__.py takes ember._C.nn.__all__, which the bindings compute: a new layer
    # needs no line there, and nothing private leaks.
    layers = [name for name, value in vars(ember._C.nn).items()
              if isinstance(value, type) and issubclass(value, ember._C.nn.Module)
              and value is not ember._C.nn.Module and not name.startswith("_")]
    assert sorted(layers) == sorted(ember._C.nn.__all__)
    for name in layers:
        assert getattr(nn, name) is getattr(ember._C.nn, name)
    assert nn.Module is ember._C.nn.Module and not hasattr(nn, "_BatchNorm")


def test_no_module_attribute_is_a_python_function():
    # Module's whole Python API is bound in C++ (python/src/module_protocol.cpp), none patched in.
    patched = [name for name, value in vars(nn.Module).items() if inspect.isfunction(value)]
    assert not patched, f"patched onto Module from Python: {patched}"


def test_module_protocol_edges_match_pytorch():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
            self.register_buffer("step", ember.zeros(()), persistent=False)
            self.register_parameter("missing", None)

    net = Net()
    assert net.missing is None and "missing" not in dict(net.named_parameters())
    assert net.get_submodule("enc.0") is net.enc[0] and net.get_submodule("") is net
    with pytest.raises(AttributeError, match="Sequential has no submodule '7'"):
        net.get_submodule("enc.7")
    assert {"enc", "step"} <= set(dir(net))
    assert [n for n, _ in net.named_modules()] == ["", "enc", "enc.0", "enc.1"]
    assert [n for n, _ in net.named_modules(prefix="net")] == ["net", "net.enc", "net.enc.0", "net.enc.1"]
    assert list(net.state_dict()) == ["enc.0.weight", "enc.0.bias"]  # a non-persistent buffer is not saved
    assert list(net.state_dict(prefix="m.")) == ["m.enc.0.weight", "m.enc.0.bias"]
    it = net.parameters()
    assert next(it) is net.enc[0].weight and next(it) is net.enc[0].bias
    with pytest.raises(StopIteration):
        next(it)
    assert net.requires_grad_(False) is net and not any(p.requires_grad for p in net.parameters())
    assert net.double() is net and net.enc[0].weight.dtype == ember.float64
    keys = net.load_state_dict({"enc.0.weight": ember.zeros(3, 2), "extra": ember.zeros(1)}, strict=False)
    assert keys.missing_keys == ["enc.0.bias"] and keys.unexpected_keys == ["extra"]
    assert type(keys).__name__ == "_IncompatibleKeys" and "missing_keys=['enc.0.bias']" in repr(keys)
    with pytest.raises(RuntimeError, match=r"(?s)Error\(s\) in loading state_dict for Net:\n.*missing key 'enc.0.bias'"):
        net.load_state_dict({"enc.0.weight": ember.zeros(3, 2)})
    with pytest.raises(RuntimeError, match=r"shape mismatch for 'enc.0.weight': checkpoint \[2, 2\], model \[3, 2\]"):
        net.load_state_dict({"enc.0.weight": ember.zeros(2, 2), "enc.0.bias": ember.zeros(3)})
    with pytest.raises(TypeError, match="'enc.0.bias' is a list, expected a Tensor"):
        net.load_state_dict({"enc.0.weight": ember.zeros(3, 2), "enc.0.bias": [0.0]})
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        net.nope
    with pytest.raises(AttributeError, match="can't delete 'enc'"):
        del net.enc
    net.note = "kept"
    del net.note
    assert not hasattr(net, "note")


def test_assigning_before_init_names_the_attribute():
    class Early(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)
            super().__init__()

    with pytest.raises(AttributeError, match="cannot assign module 'fc' before Module.__init__\\(\\) call"):
        Early()
