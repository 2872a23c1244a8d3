"""ember.func.vmap: against torch.func (tests/fixtures/vmap.json, cases in vmap_cases.py) and, for
every op of the op database and every batching rule, against the same function run per sample
and stacked (the definition of vmap). The rules must be what runs: the loop fallback warns, and
the common paths are checked not to warn."""
import contextlib
import json
import pathlib
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.func import _batching, functional_call, grad, jacrev, stack_module_state, vmap

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
import vmap_cases  # noqa: E402

VMAP = json.loads((FIXTURES / "vmap.json").read_text())


def as_numpy(t):
    return t.detach().numpy()


def per_sample(f, in_dims, *args):
    """The oracle: f once per sample, stacked (in_dims: one int or None per argument)."""
    size = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    outs = [f(*[a.select(d, b) if d is not None else a for a, d in zip(args, in_dims)]) for b in range(size)]
    if isinstance(outs[0], tuple):
        return tuple(ember.stack([o[i] for o in outs]) for i in range(len(outs[0])))
    return ember.stack(outs)


def assert_same(got, want, tol=1e-12):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, tol)
        return
    assert isinstance(got, ember.Tensor), type(got)
    assert list(got.shape) == list(want.shape)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(as_numpy(got), as_numpy(want), rtol=tol, atol=tol)


@contextlib.contextmanager
def no_fallback():
    """A context in which the loop fallback's warning is an error (the rules must run)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="vmap: there is a performance drop")
        yield


# ---- against torch.func

@pytest.mark.parametrize("case", sorted(VMAP["cases"]))
def test_matches_torch_func(case):
    inputs = vmap_cases.tensors(ember, {k: np.array(v) for k, v in VMAP["inputs"].items()})
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="vmap: there is a performance drop")
        got = vmap_cases.CASES[case](ember, inputs)
    want = VMAP["cases"][case]
    assert sorted(got) == sorted(want)
    for name, entry in want.items():
        g = got[name]
        assert list(g.shape) == entry["shape"], name
        np.testing.assert_allclose(as_numpy(g).reshape(-1), np.array(entry["data"], dtype=np.float64),
                                   rtol=1e-9, atol=1e-10, err_msg=f"{case}: {name}")


def test_per_sample_grads_equal_the_loop_of_backward_calls():
    """The tutorial's check: each sample's gradient by backward() equals vmap(grad)'s."""
    ember.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 6 * 6, 4))
    x, y = ember.randn(5, 1, 8, 8), ember.randint(0, 4, (5,))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xb, yb):
        return F.cross_entropy(functional_call(model, p, (xb.unsqueeze(0),)), yb.unsqueeze(0))
    with no_fallback():
        grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for b in range(5):
        model.zero_grad()
        F.cross_entropy(model(x[b:b + 1]), y[b:b + 1]).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(as_numpy(grads[name][b]), as_numpy(p.grad), rtol=1e-4, atol=1e-5)


# ---- shapes, dims and reductions: random programs against the loop

_UNARY_SHAPE_OPS = [
    ("sum", lambda x, d, k: x.sum(d, keepdim=k)), ("mean", lambda x, d, k: x.mean(d, keepdim=k)),
    ("amax", lambda x, d, k: x.amax(d, keepdim=k)), ("std", lambda x, d, k: x.std(d, keepdim=k)),
    ("prod", lambda x, d, k: x.prod(d, keepdim=k)), ("argmax", lambda x, d, k: x.argmax(d, keepdim=k).double()),
    ("max", lambda x, d, k: x.max(d, keepdim=k).values), ("logsumexp", lambda x, d, k: x.logsumexp(d, keepdim=k)),
    ("softmax", lambda x, d, k: x.softmax(d)), ("cumsum", lambda x, d, k: x.cumsum(d)),
    ("unsqueeze", lambda x, d, k: x.unsqueeze(d)), ("transpose", lambda x, d, k: x.transpose(d, 0)),
    ("flatten", lambda x, d, k: x.flatten(d)), ("flip", lambda x, d, k: x.flip(d)),
    ("select", lambda x, d, k: x.select(d, 0)), ("narrow", lambda x, d, k: x.narrow(d, 0, 1)),
    ("sort", lambda x, d, k: x.sort(d, descending=k).values), ("topk", lambda x, d, k: x.topk(1, d).values),
    ("chunk", lambda x, d, k: x.chunk(2, d)[0]), ("movedim", lambda x, d, k: x.movedim(d, -1)),
    ("roll", lambda x, d, k: x.roll(1, d)), ("cat", lambda x, d, k: ember.cat([x, x * 2], d)),
    ("stack", lambda x, d, k: ember.stack([x, -x], d)), ("squeeze", lambda x, d, k: x.unsqueeze(d).squeeze(d)),
    ("gather", lambda x, d, k: x.gather(d, ember.zeros_like(x, dtype=ember.long))),
]
_FULL_OPS = [
    ("sum()", lambda x: x.sum()), ("mean()", lambda x: x.mean()), ("max()", lambda x: x.max()),
    ("argmax()", lambda x: x.argmax().double()), ("prod()", lambda x: x.prod()), ("std()", lambda x: x.std()),
    ("any()", lambda x: (x > 0).any().double()), ("norm()", lambda x: x.norm()),
    ("view", lambda x: x.reshape(-1).view(x.shape)), ("permute", lambda x: x.permute(*reversed(range(x.dim())))),
    ("t", lambda x: x.t() if x.dim() <= 2 else x), ("T", lambda x: x.T), ("expand", lambda x: x.expand(2, *x.shape)),
    ("repeat", lambda x: x.repeat(2, *([1] * x.dim()))), ("getitem", lambda x: x[..., :1] if x.dim() else x),
    ("setitem", lambda x: _setitem(x)), ("inplace", lambda x: x.clone().mul_(2).add_(x)),
    ("matmul_self", lambda x: x @ x.mT if x.dim() >= 2 else (x @ x if x.dim() == 1 else x * x)),
]


def _setitem(x):
    y = x.clone()
    if y.dim():
        y[0] = y[0] * 3
    return y


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.integers(0, 100), st.booleans(),
       st.sampled_from(range(len(_UNARY_SHAPE_OPS))), st.integers(0, 3), st.integers(0, 2))
def test_dim_ops_batch_as_their_loop(shape, dim_seed, keepdim, which, in_dim, batch):
    name, op = _UNARY_SHAPE_OPS[which]
    ndim = len(shape)
    d = dim_seed % ndim - (ndim if dim_seed % 2 else 0)  # negative dims too
    if name == "unsqueeze":
        d = dim_seed % (ndim + 1)
    in_dim = in_dim % (ndim + 1)
    x = ember.tensor(np.random.default_rng(dim_seed).standard_normal(shape[:in_dim] + [batch + 1] + shape[in_dim:]))
    f = lambda t: op(t, d, keepdim)  # noqa: E731
    with no_fallback():
        got = vmap(f, in_dims=in_dim)(x)
    assert_same(got, per_sample(f, (in_dim,), x))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=4), st.sampled_from(range(len(_FULL_OPS))),
       st.integers(0, 1000))
def test_whole_sample_ops_batch_as_their_loop(shape, which, seed):
    name, f = _FULL_OPS[which]
    x = ember.tensor(np.random.default_rng(seed).standard_normal([3] + shape))
    if name == "t" and len(shape) > 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a 0-d sample may take the loop (dims of a scalar)
        got = vmap(f)(x)
    assert_same(got, per_sample(f, (0,), x))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.sampled_from([(0, 0), (0, None), (None, 0)]),
       st.sampled_from([(1, 2), (2, 2), (2, 1), (3, 2), (1, 3), (3, 3), (1, 1)]))
def test_matmul_batches_as_its_loop(n, k, m, dims, ranks):
    rng = np.random.default_rng(n * 100 + k * 10 + m)
    shapes = {1: [k], 2: [n, k], 3: [2, n, k]}
    a_shape = shapes[ranks[0]]
    b_shape = {1: [k], 2: [k, m], 3: [2, k, m]}[ranks[1]]
    a = ember.tensor(rng.standard_normal(([4] if dims[0] is not None else []) + a_shape))
    b = ember.tensor(rng.standard_normal(([4] if dims[1] is not None else []) + b_shape))
    with no_fallback():
        got = vmap(ember.matmul, in_dims=dims)(a, b)
        einsum = vmap(lambda u, v: ember.einsum("...k,k->...", u, v), in_dims=dims)(a, b) if ranks[1] == 1 else None
    assert_same(got, per_sample(ember.matmul, dims, a, b))
    if einsum is not None:
        assert_same(einsum, per_sample(lambda u, v: ember.einsum("...k,k->...", u, v), dims, a, b))


# ---- layers and nn.functional, against the loop

def _layers():
    ember.manual_seed(3)
    return [
        ("Linear", nn.Linear(4, 3).double(), (5, 4)),
        ("Conv1d", nn.Conv1d(2, 3, 3, padding=1).double(), (2, 2, 6)),
        ("Conv2d", nn.Conv2d(2, 3, 3, stride=2, padding=1).double(), (2, 2, 7, 7)),
        ("Conv2d_groups", nn.Conv2d(4, 4, 3, groups=2).double(), (1, 4, 5, 5)),
        ("Conv2d_sample_without_N", nn.Conv2d(2, 3, 3).double(), (2, 5, 5)),
        ("ConvTranspose2d", nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2).double(),
         (2, 4, 3, 3)),
        ("ConvTranspose1d", nn.ConvTranspose1d(2, 3, 3).double(), (2, 2, 5)),
        ("LayerNorm", nn.LayerNorm(4).double(), (3, 4)),
        ("BatchNorm2d_eval", nn.BatchNorm2d(2).double().eval(), (3, 2, 4, 4)),
        ("MaxPool2d", nn.MaxPool2d(2), (2, 3, 4, 4)),
        ("AvgPool2d", nn.AvgPool2d(2), (2, 3, 4, 4)),
        ("AdaptiveAvgPool2d", nn.AdaptiveAvgPool2d(1), (2, 3, 4, 4)),
        ("Sequential", nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Dropout(0.0), nn.Linear(4, 2)).double(), (3, 4)),
        ("Embedding", nn.Embedding(7, 3).double(), None),
        ("Flatten", nn.Flatten(), (2, 3, 4)),
        ("LeakyReLU_Softmax", nn.Sequential(nn.LeakyReLU(0.2), nn.LogSoftmax(-1)), (3, 4)),
    ]


@pytest.mark.parametrize("name,layer,shape", _layers(), ids=[n for n, _, _ in _layers()])
def test_layers_batch_as_their_loop(name, layer, shape):
    if shape is None:
        x = ember.randint(0, 7, (4, 2, 5))
    else:
        x = ember.randn(4, *shape, dtype=ember.float64)
    with no_fallback():
        got = vmap(layer)(x)
    assert_same(got, per_sample(layer, (0,), x), tol=1e-10)


@pytest.mark.parametrize("name,layer,shape", [e for e in _layers() if list(e[1].parameters())],
                         ids=[n for n, layer, _ in _layers() if list(layer.parameters())])
def test_an_ensemble_of_layers_batches_as_its_loop(name, layer, shape):
    """Batched parameters (stack_module_state) through functional_call: one model per sample."""
    ember.manual_seed(4)
    models = [_layers()[[n for n, _, _ in _layers()].index(name)][1] for _ in range(3)]
    for m in models:
        with ember.no_grad():
            for p in m.parameters():
                p.add_(ember.randn_like(p))
    params, buffers = stack_module_state(models)
    x = ember.randint(0, 7, (2, 5)) if shape is None else ember.randn(*shape, dtype=ember.float64)

    def run(p, b):
        return functional_call(layer, (p, b), (x,))
    with no_fallback():
        got = vmap(run)(params, buffers)
    want = ember.stack([m(x) for m in models])
    assert_same(got, want.detach(), tol=1e-10)


def test_losses_batch_as_their_loop():
    ember.manual_seed(5)
    x, t = ember.randn(4, 3, 5, dtype=ember.float64), ember.randint(0, 5, (4, 3))
    t[0, 1] = 2
    p, q = ember.rand(4, 3, 5, dtype=ember.float64), ember.rand(4, 3, 5, dtype=ember.float64)
    weight = ember.rand(5, dtype=ember.float64)
    cases = [
        (lambda a, b: F.cross_entropy(a, b), (x, t)),
        (lambda a, b: F.cross_entropy(a, b, weight=weight, ignore_index=2), (x, t)),
        (lambda a, b: F.cross_entropy(a, b, reduction="sum", label_smoothing=0.1), (x, t)),
        (lambda a, b: F.nll_loss(a.log_softmax(-1), b, reduction="none"), (x, t)),
        (lambda a, b: F.cross_entropy(a[0], b[0]), (x, t)),  # one sample's scores [C]
        (lambda a, b: F.cross_entropy(a, b.softmax(-1)), (x, p)),
        (lambda a, b: F.mse_loss(a, b), (p, q)),
        (lambda a, b: F.l1_loss(a, b, reduction="sum"), (p, q)),
        (lambda a, b: F.smooth_l1_loss(a, b), (p, q)),
        (lambda a, b: F.binary_cross_entropy(a, b), (p, q)),
        (lambda a, b: F.binary_cross_entropy_with_logits(a, b), (x, q)),
        (lambda a, b: F.kl_div(a.log(), b, reduction="batchmean"), (p, q)),
        (lambda a, b: F.prelu(a, weight) * b, (x, q)),  # prelu's weight goes with dim 1, not the last
    ]
    for f, args in cases:
        with no_fallback():
            got = vmap(f)(*args)
        assert_same(got, per_sample(f, (0, 0), *args), tol=1e-10)


# ---- the rest of vmap's contract

def test_in_dims_out_dims_nesting_and_chunks():
    x, y = ember.randn(3, 5), ember.randn(5, 4)
    assert_same(vmap(lambda a: a * 2, in_dims=1, out_dims=1)(x), x * 2)
    nested = vmap(vmap(ember.dot, in_dims=(None, 0)), in_dims=(0, None))(x, y.t())
    assert_same(nested, x @ y, tol=1e-5)
    chunked = vmap(lambda a: a.sin().sum(), chunk_size=2)(x)
    assert_same(chunked, x.sin().sum(1), tol=1e-6)
    both = vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x)
    assert_same(both[0], x.t())
    d = {"a": x, "b": [y[:3]]}
    got = vmap(lambda t: t["a"] + t["b"][0][:1].sum(), in_dims=({"a": 0, "b": [0]},))(d)
    assert_same(got, x + y[:3, :1].sum(1, keepdim=True))
    assert_same(vmap(lambda a: a)(x), x)
    shared = vmap(lambda a: ember.ones(2), in_dims=0)(x)  # an output that is the same for every sample
    assert_same(shared, ember.ones(3, 2))


def test_errors_name_the_problem():
    x = ember.randn(3, 4)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes \\[3, 4\\]"):
        vmap(ember.add)(x, ember.randn(4, 3))
    with pytest.raises(ValueError, match="at least one input must be mapped"):
        vmap(ember.sin, in_dims=None)(x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda a, b: a * b, in_dims=(0, 0))(x, 2.0)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda pair: pair[0] * pair[1], in_dims=(0,))([x, 2.0])  # inside a container too
    with pytest.raises(ValueError, match="in_dim to satisfy"):
        vmap(ember.sin, in_dims=2)(x)
    with pytest.raises(ValueError, match="must only return Tensors"):
        vmap(lambda a: 3)(x)
    with pytest.raises(ValueError, match="out_dims cannot be None"):
        vmap(lambda a: a, out_dims=None)(x)
    with pytest.raises(RuntimeError, match="needs one sample's value"):
        vmap(lambda a: a.sum().item())(x)
    with pytest.raises(RuntimeError, match="needs one sample's value"):
        vmap(lambda a: a if a.sum() > 0 else -a)(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: F.dropout(a, 0.5))(x)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(ember.sin, randomness="sometimes")
    shared = ember.zeros(4)
    with pytest.raises(RuntimeError, match="is not batched, another argument is"):
        vmap(lambda a: shared.add_(a))(x)
    with pytest.raises(IndexError, match="Dimension out of range"):
        vmap(lambda a: a.sum(2))(x)


def test_randomness_modes():
    x = ember.ones(6, 100)
    ember.manual_seed(0)
    different = vmap(lambda a: F.dropout(a, 0.5), randomness="different")(x)
    same = vmap(lambda a: F.dropout(a, 0.5), randomness="same")(x)
    assert not ember.equal(different[0], different[1])
    for b in range(1, 6):
        assert ember.equal(same[b], same[0])
    assert set(np.unique(as_numpy(same)).tolist()) <= {0.0, 2.0}
    noise = vmap(lambda a: ember.randn_like(a), randomness="same")(x)
    assert ember.equal(noise[0], noise[5])
    assert_same(vmap(lambda a: F.dropout(a, 0.5, training=False))(x), x)


def test_inplace_writes_into_batched_tensors():
    x = ember.randn(3, 4)

    def f(a):
        b = a.clone()
        b.add_(1).mul_(2)
        b[1:] = 0
        b += a
        return b
    with no_fallback():
        got = vmap(f)(x)
    assert_same(got, per_sample(f, (0,), x))


def test_ops_without_a_rule_run_per_sample_and_warn_once():
    x = ember.randn(3, 4, 4, dtype=ember.float64)
    f = lambda a: ember.kron(a, a[:2, :2]).trace()  # noqa: E731
    _batching._warned.clear()  # it warns once per process
    with pytest.warns(UserWarning, match="performance drop because .* has no batching rule"):
        got = vmap(f)(x)
    assert_same(got, per_sample(f, (0,), x))


def test_grad_of_vmap_and_vmap_of_grad_compose():
    w = ember.randn(4, dtype=ember.float64)
    xs = ember.randn(5, 4, dtype=ember.float64)
    f = lambda w, x: (w * x).sin().sum()  # noqa: E731
    total = grad(lambda w: vmap(f, in_dims=(None, 0))(w, xs).sum())(w)
    per = vmap(grad(f), in_dims=(None, 0))(w, xs)
    assert_same(total, per.sum(0), tol=1e-12)
    jac = vmap(jacrev(jacrev(lambda x: x.exp().sum())))(xs)
    assert_same(jac, ember.diag_embed(xs.exp()), tol=1e-12)
    nested = vmap(vmap(grad(lambda a: (a ** 3).sum())))(xs.reshape(5, 2, 2))
    assert_same(nested, 3 * xs.reshape(5, 2, 2) ** 2, tol=1e-12)


def test_the_top_level_name():
    assert ember.vmap is vmap


def test_a_layer_without_a_rule_runs_per_sample_with_its_parameters_sliced():
    """An LSTM's per-sample gradients: the layer has no functional form, so each sample's call gets
    that sample's (batched) parameters; the gradients equal those of backward() per sample."""
    ember.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.rnn = nn.LSTM(8, 16, batch_first=True)
            self.head = nn.Linear(16, 20)

        def forward(self, x):
            out, _ = self.rnn(self.emb(x))
            return self.head(out[:, -1])
    model = Net()
    x, y = ember.randint(0, 20, (5, 7)), ember.randint(0, 20, (5,))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xb, yb):
        return F.cross_entropy(functional_call(model, p, (xb.unsqueeze(0),)), yb.unsqueeze(0))
    _batching._warned.clear()  # it warns once per process
    with pytest.warns(UserWarning, match="performance drop because LSTM has no batching rule"):
        grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for b in range(5):
        model.zero_grad()
        F.cross_entropy(model(x[b:b + 1]), y[b:b + 1]).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(as_numpy(grads[name][b]), as_numpy(p.grad), rtol=1e-4, atol=1e-6)
    assert dict(model.named_parameters())["rnn.weight_ih_l0"] is model.rnn.weight_ih_l0  # restored


def test_attention_batches_as_its_loop():
    ember.manual_seed(1)
    q, k = ember.randn(4, 2, 6, 8, dtype=ember.float64), ember.randn(2, 5, 8, dtype=ember.float64)
    mask = ember.randn(4, 6, 5, dtype=ember.float64)

    def attend(q, k, m):
        return F.scaled_dot_product_attention(q, k, k, attn_mask=m)
    with no_fallback():
        got = vmap(attend, in_dims=(0, None, 0))(q, k, mask)
        causal = vmap(lambda t: F.scaled_dot_product_attention(t, t, t, is_causal=True))(q)
    assert_same(got, per_sample(attend, (0, None, 0), q, k, mask), tol=1e-12)
    assert_same(causal, per_sample(lambda t: F.scaled_dot_product_attention(t, t, t, is_causal=True), (0,), q),
                tol=1e-12)


def test_the_ensembling_tutorial():
    """pytorch/tutorials' model ensembling: stack_module_state, functional_call over a copy of one
    model, vmap with each model's own minibatch and with one shared minibatch."""
    import copy
    ember.manual_seed(0)

    class SimpleMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = nn.Linear(784, 32), nn.Linear(32, 32), nn.Linear(32, 10)

        def forward(self, x):
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x.flatten(1))))))
    models = [SimpleMLP() for _ in range(4)]
    data = ember.randn(4, 8, 1, 28, 28)
    params, buffers = stack_module_state(models)
    assert all(p.shape[0] == 4 and p.requires_grad for p in params.values())
    base = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return functional_call(base, (params, buffers), (x,))
    with no_fallback():
        own = vmap(fmodel)(params, buffers, data)
        shared = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, data[0])
    assert_same(own, ember.stack([m(x) for m, x in zip(models, data)]).detach(), tol=1e-5)
    assert_same(shared, ember.stack([m(data[0]) for m in models]).detach(), tol=1e-5)
    with pytest.raises(RuntimeError, match="same class"):
        stack_module_state([models[0], nn.Linear(2, 2)])


def test_a_custom_autograd_function_runs_per_sample_with_its_gradients():
    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g
    xs = ember.randn(4, 3, dtype=ember.float64)
    _batching._warned.clear()
    with pytest.warns(UserWarning, match="Cube has no batching rule"):
        got = vmap(Cube.apply)(xs)
        grads = vmap(grad(lambda x: Cube.apply(x).sum()))(xs)
    assert_same(got, xs ** 3)
    assert_same(grads, 3 * xs ** 2)
    assert vmap(lambda x: ember.tensor(float(ember.is_tensor(x))))(xs).tolist() == [1.0] * 4


def test_a_vjp_function_called_under_a_deeper_vmap():
    """The neural tangent kernel tutorial's vjp/jvp form: vjp_fn made inside two vmaps and called under
    a third (over the basis of the output); its products equal the Jacobian contraction's."""
    ember.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).double()
    params = {k: v.detach() for k, v in net.named_parameters()}
    x1, x2 = ember.randn(4, 3, dtype=ember.float64), ember.randn(3, 3, dtype=ember.float64)

    def f(p, x):
        return functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)

    def ntk(a, b):
        out, vjp_fn = ember.func.vjp(lambda p: f(p, a), params)
        basis = ember.eye(out.numel(), dtype=out.dtype)
        return vmap(lambda v: ember.func.jvp(lambda p: f(p, b), (params,), vjp_fn(v))[1])(basis)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(vmap(ntk, (None, 0)), (0, None))(x1, x2)
    j1 = vmap(jacrev(f), (None, 0))(params, x1)
    j2 = vmap(jacrev(f), (None, 0))(params, x2)
    want = sum(ember.einsum("Naf,Mbf->NMab", j1[k].flatten(2), j2[k].flatten(2)) for k in params)
    assert_same(got, want, tol=1e-12)


def test_maml_second_order_gradients_through_vmap():
    """MAML: per-task inner SGD steps by grad inside vmap, the query losses' mean differentiated by
    backward() through all of it; equal to the loop over tasks."""
    ember.manual_seed(0)
    net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1)).double()
    params = dict(net.named_parameters())

    def loss(p, x, y):
        return F.mse_loss(functional_call(net, p, (x,)), y)

    def task_loss(p, xs, ys, xq, yq):
        for _ in range(2):
            g = grad(loss)(p, xs, ys)
            p = {k: p[k] - 0.1 * g[k] for k in p}
        return loss(p, xq, yq)
    data = [ember.randn(4, 6, 1, dtype=ember.float64) for _ in range(4)]
    with no_fallback():
        vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(params, *data).mean().backward()
    got = {k: v.grad.clone() for k, v in params.items()}
    for v in params.values():
        v.grad = None
    (sum(task_loss(params, *[d[t] for d in data]) for t in range(4)) / 4).backward()
    for k, v in params.items():
        np.testing.assert_allclose(as_numpy(got[k]), as_numpy(v.grad), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("spatial", [1, 2, 3])
def test_transposed_convolutions_batch_as_their_loop(spatial):
    f = getattr(F, f"conv_transpose{spatial}d")
    kw = dict(stride=2, padding=1, output_padding=1, groups=2)
    x = ember.randn(3, 2, 4, *(4,) * spatial, dtype=ember.float64)
    w = ember.randn(3, 4, 3, *(3,) * spatial, dtype=ember.float64)
    b = ember.randn(3, 6, dtype=ember.float64)
    conv = lambda x, w, b: f(x, w, b, **kw)  # noqa: E731
    # A batched input (the batch folded into N), an ensemble (grouped), weights alone, one sample's [C, *].
    for dims, args in (((0, None, None), (x, w[0], b[0])), ((0, 0, 0), (x, w, b)), ((None, 0, None), (x[0], w, b[0])),
                       ((0, None, None), (x[:, 0], w[0], b[0]))):
        with no_fallback():
            got = vmap(conv, in_dims=dims)(*args)
        assert_same(got, per_sample(conv, dims, *args))


def test_addmm_batches_as_its_loop():
    b, m1 = ember.randn(4, 3, 5, dtype=ember.float64), ember.randn(4, 3, 2, dtype=ember.float64)
    m2 = ember.randn(2, 5, dtype=ember.float64)
    for f, dims in ((lambda b, m1: ember.addmm(b, m1, m2, beta=0.5, alpha=2), (0, 0)),
                    (lambda b, m1: ember.addmm(b, m1, m2), (None, 0)),
                    (lambda b, m1: ember.addmm(b, m1, m2, beta=0), (0, 0))):
        with no_fallback():
            got = vmap(f, in_dims=dims)(b[0] if dims[0] is None else b, m1)
        assert_same(got, per_sample(f, dims, b[0] if dims[0] is None else b, m1))


def test_indexing_by_a_batched_index_takes_each_samples_rows():
    table = ember.randn(10, 4, dtype=ember.float64)
    tables = ember.randn(3, 10, 4, dtype=ember.float64)
    idx = ember.randint(0, 10, (3, 5))
    cases = [(lambda i: table[i], (0,), (idx,)), (lambda i: table[i, 1:], (0,), (idx,)),
             (lambda t, i: t[i], (0, 0), (tables, idx)), (lambda t, i: t[i, ..., :2], (0, 0), (tables, idx)),
             (lambda t, i: t[i[0]], (0, 0), (tables, idx)),
             (lambda i: table.index_select(1, i[:2] % 4), (0,), (idx,)),
             (lambda t, i: ember.index_select(t, 0, i), (0, 0), (tables, idx))]
    for f, dims, args in cases:
        with no_fallback():
            got = vmap(f, in_dims=dims)(*args)
        assert_same(got, per_sample(f, dims, *args))
    # a mask's result has a shape per sample, so it runs once per sample (here every count is equal)
    mask = ember.tensor([[True, False] * 5] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(lambda m: table[m])(mask)
    assert_same(got, per_sample(lambda m: table[m], (0,), mask))


@pytest.mark.parametrize("name,layer,shape", [
    ("LSTM_batch_first", lambda: nn.LSTM(3, 4, num_layers=2, batch_first=True), (2, 5, 3)),
    ("LSTM_seq_first", lambda: nn.LSTM(3, 4, bidirectional=True), (5, 2, 3)),
    ("GRU_one_sequence", lambda: nn.GRU(3, 4), (5, 3)),
    ("RNN_batch_first_one_sequence", lambda: nn.RNN(3, 4, batch_first=True), (5, 3)),
    ("InstanceNorm2d", lambda: nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 4)),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(2, 3, 3, stride=2), (2, 2, 4, 4)),
    ("GroupNorm", lambda: nn.GroupNorm(2, 4), (2, 4, 3)),
    ("PReLU", lambda: nn.PReLU(3, 0.1), (2, 3, 4)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_layers_with_parameters_fold_the_batch(name, layer, shape):
    ember.manual_seed(5)
    module = layer().double()
    x = ember.randn(3, *shape, dtype=ember.float64)
    with no_fallback():
        got = vmap(module)(x)
    want = [module(x[b]) for b in range(3)]
    if isinstance(got, tuple):  # (output, final state)
        assert_same(got[0], ember.stack([w[0] for w in want]).detach(), tol=1e-12)
        states = got[1] if isinstance(got[1], tuple) else (got[1],)
        for k, h in enumerate(states):
            ref = ember.stack([(w[1] if isinstance(w[1], tuple) else (w[1],))[k] for w in want])
            assert_same(h, ref.detach(), tol=1e-12)
    else:
        assert_same(got, ember.stack(want).detach(), tol=1e-12)


def test_each_thread_has_its_own_vmaps():
    import threading
    layer = nn.Linear(3, 2).double()
    x = ember.randn(4, 3, dtype=ember.float64)
    inside, results = threading.Event(), {}

    def slow(a):
        inside.set()
        done.wait(5)
        return layer(a)
    done = threading.Event()
    worker = threading.Thread(target=lambda: results.setdefault("vmap", vmap(slow)(x)))
    worker.start()
    try:
        assert inside.wait(5), "the other thread never entered its vmap"
        results["plain"] = layer(x)  # this thread runs no vmap while the other is inside one
        assert ember.func.active_levels() == []
    finally:
        done.set()  # a failure here must not leave the other thread inside its vmap for the next tests
        worker.join()
    np.testing.assert_allclose(as_numpy(results["vmap"]), as_numpy(results["plain"]), rtol=1e-12)


def test_a_loss_with_a_target_the_same_for_every_sample():
    """binary_cross_entropy refuses a target of another size than its input: an unbatched target
    must be batched alike, not broadcast (found by a user's program); at 0 and 1 too."""
    p = ember.tensor([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]], dtype=ember.float64)
    target = ember.tensor([0.0, 1.0, 1.0], dtype=ember.float64)
    for f in (lambda a: F.binary_cross_entropy(a, target), lambda a: F.mse_loss(a, target, reduction="sum"),
              grad(lambda a: F.binary_cross_entropy(a.clamp(1e-7, 1 - 1e-7), target))):
        with no_fallback():
            got = vmap(f)(p)
        assert_same(got, per_sample(f, (0,), p))
