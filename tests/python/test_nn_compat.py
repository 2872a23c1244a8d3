"""The loss and activation modules PyTorch scripts build (nn.CrossEntropyLoss(), nn.SiLU(), ...), the
functionals behind them that Ember lacked (elu, softplus, hardtanh, relu6, logsigmoid, mish,
binary_cross_entropy, huber_loss, kl_div, normalize, cosine_similarity, pad), Dropout2d and
Unflatten: values against NumPy in float64, gradients by finite differences."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck


def arr(seed, *shape, lo=-3.0, hi=3.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def t(a, grad=False):
    return ember.tensor(a, dtype=ember.float64, requires_grad=grad)


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


ACTIVATIONS = {
    "elu": (lambda x: F.elu(x, alpha=0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x)), nn.ELU(0.7)),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=4.0), lambda x: _softplus(x, 2.0, 4.0),
                 nn.Softplus(2.0, 4.0)),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0), nn.Hardtanh(-0.5, 2.0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6), nn.ReLU6()),
    "logsigmoid": (F.logsigmoid, lambda x: -np.logaddexp(0, -x), nn.LogSigmoid()),
    "mish": (F.mish, lambda x: x * np.tanh(np.logaddexp(0, x)), nn.Mish()),
    "silu": (F.silu, lambda x: x / (1 + np.exp(-x)), nn.SiLU()),
    "log_softmax": (lambda x: F.log_softmax(x, 1),
                    lambda x: x - np.log(np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)) - x.max(1, keepdims=True),
                    nn.LogSoftmax(dim=1)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_numpy_and_finite_differences(name):
    fn, ref, module = ACTIVATIONS[name]
    x = arr(1, 4, 5, lo=-8, hi=8)
    x[np.abs(x) < 0.05] += 0.1  # away from kinks, where finite differences are one-sided
    for v in (-0.5, 2.0, 6.0, 4.0 / 2.0):
        x[np.abs(x - v) < 0.05] += 0.1
    np.testing.assert_allclose(fn(t(x)).numpy(), ref(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(module(t(x)).numpy(), ref(x), rtol=1e-12, atol=1e-12)
    gradcheck(fn, [t(x, True)])
    assert fn(ember.tensor([[1e4, -1e4]])).isfinite().all().item()  # no overflow at the extremes


def test_logsigmoid_and_softplus_keep_precision_far_out():
    x = t(np.array([-800.0, -40.0, 40.0, 800.0]))
    np.testing.assert_allclose(F.logsigmoid(x).numpy(), [-800.0, -40.0, -np.exp(-40.0), 0.0], rtol=1e-12)
    np.testing.assert_allclose(F.softplus(x).numpy(), [0.0, np.exp(-40.0), 40.0, 800.0], rtol=1e-12)


def _bce(p, y):
    return -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log(1 - p), -100))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_numpy(reduction):
    red = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    x, y = arr(2, 6, 4), arr(3, 6, 4)
    p, q = arr(4, 6, 4, lo=0.01, hi=0.99), arr(5, 6, 4, lo=0, hi=1)
    np.testing.assert_allclose(nn.MSELoss(reduction=reduction)(t(x), t(y)).numpy(), red((x - y) ** 2))
    np.testing.assert_allclose(nn.L1Loss(reduction=reduction)(t(x), t(y)).numpy(), red(np.abs(x - y)))
    np.testing.assert_allclose(nn.BCELoss(reduction=reduction)(t(p), t(q)).numpy(), red(_bce(p, q)), rtol=1e-12)
    d = np.abs(x - y)
    np.testing.assert_allclose(nn.HuberLoss(reduction=reduction, delta=0.5)(t(x), t(y)).numpy(),
                               red(np.where(d < 0.5, 0.5 * d * d, 0.5 * (d - 0.25))), rtol=1e-12)
    logp = np.log(p / p.sum(1, keepdims=True))
    target = q / q.sum(1, keepdims=True)
    np.testing.assert_allclose(nn.KLDivLoss(reduction=reduction)(t(logp), t(target)).numpy(),
                               red(target * (np.log(target) - logp)), rtol=1e-12)


def test_kl_div_batchmean_zero_targets_and_log_target():
    logp, target = np.log(np.full((2, 3), 1 / 3)), np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    want = np.nansum(np.where(target > 0, target * (np.log(np.where(target > 0, target, 1)) - logp), 0)) / 2
    assert F.kl_div(t(logp), t(target), reduction="batchmean").item() == pytest.approx(want, rel=1e-12)
    lt = np.log(np.array([[0.2, 0.8]]))
    assert F.kl_div(t(np.log([[0.5, 0.5]])), t(lt), reduction="sum", log_target=True).item() == pytest.approx(
        float((np.exp(lt) * (lt - np.log(0.5))).sum()), rel=1e-12)


def test_loss_gradients_match_finite_differences():
    x, y = t(arr(6, 3, 4), True), t(arr(7, 3, 4))
    p, q = t(arr(8, 3, 4, lo=0.05, hi=0.95), True), t(arr(9, 3, 4, lo=0, hi=1))
    gradcheck(lambda a: F.huber_loss(a, y, delta=0.7), [x])
    gradcheck(lambda a: F.binary_cross_entropy(a, q), [p])
    gradcheck(lambda a: F.kl_div(F.log_softmax(a, 1), F.softmax(y, 1), reduction="batchmean"), [x])
    gradcheck(lambda a: F.normalize(a, dim=1), [x])
    gradcheck(lambda a: F.cosine_similarity(a, y, dim=1), [x])
    gradcheck(lambda a: F.pad(a, (1, 2, -1, 1), value=0.5), [x])


def test_loss_modules_take_pytorchs_arguments():
    logits, target = ember.randn(6, 4), ember.tensor([0, 1, 2, 3, -100, 1])
    w = ember.tensor([1.0, 2.0, 0.5, 1.0])
    assert nn.CrossEntropyLoss(weight=w, ignore_index=-100)(logits, target).item() == pytest.approx(
        F.cross_entropy(logits, target, weight=w, ignore_index=-100).item())
    assert nn.NLLLoss()(F.log_softmax(logits, 1), target.clamp(0, 3)).item() == pytest.approx(
        F.cross_entropy(logits, target.clamp(0, 3)).item(), rel=1e-6)
    assert nn.BCEWithLogitsLoss(pos_weight=ember.full((4,), 2.0))(logits, ember.ones(6, 4)).item() > 0
    assert "weight" in dict(nn.CrossEntropyLoss(weight=w).named_buffers())
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none', got 'avg'"):
        nn.MSELoss(reduction="avg")


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 4), h=st.integers(1, 3), d=st.integers(1, 3), data=st.data())
def test_normalize_cosine_and_pad_match_numpy(n, c, h, d, data):
    x, y = arr(data.draw(st.integers(0, 99)), n, c, h), arr(data.draw(st.integers(0, 99)), n, c, h)
    norm = np.sqrt((x * x).sum(1, keepdims=True))
    np.testing.assert_allclose(F.normalize(t(x)).numpy(), x / np.maximum(norm, 1e-12), rtol=1e-12)
    cos = (x * y).sum(1) / np.maximum(np.sqrt((x * x).sum(1)) * np.sqrt((y * y).sum(1)), 1e-8)
    np.testing.assert_allclose(F.cosine_similarity(t(x), t(y)).numpy(), cos, rtol=1e-10)
    left, right = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    np.testing.assert_array_equal(F.pad(t(x), (left, right), value=-1.0).numpy(),
                                  np.pad(x, [(0, 0), (0, 0), (left, right)], constant_values=-1.0))
    crop = data.draw(st.integers(0, h - 1))
    np.testing.assert_array_equal(F.pad(t(x), (-crop, 0)).numpy(), x[:, :, crop:])
    reflect = min(left, h - 1)
    np.testing.assert_array_equal(F.pad(t(x), (reflect, 0), mode="reflect").numpy(),
                                  np.pad(x, [(0, 0), (0, 0), (reflect, 0)], mode="reflect"))
    np.testing.assert_array_equal(F.pad(t(x), (0, h - 1), mode="reflect").numpy(),
                                  np.pad(x, [(0, 0), (0, 0), (0, h - 1)], mode="reflect"))


def test_dropout2d_drops_whole_channels_and_unflatten_reshapes():
    ember.manual_seed(0)
    layer = nn.Dropout2d(0.5)
    out = layer(ember.ones(8, 16, 3, 3))
    per_channel = out.reshape(8, 16, 9)
    assert ((per_channel == 0).all(2) | (per_channel == 2).all(2)).all().item()  # all or nothing, scaled by 2
    assert 0 < (per_channel[:, :, 0] == 0).sum().item() < 128
    layer.eval()
    assert layer(ember.ones(2, 3, 2, 2)).eq(1).all().item()
    assert tuple(nn.Unflatten(1, (2, 5))(ember.zeros(3, 10, 4)).shape) == (3, 2, 5, 4)
    assert tuple(nn.Sequential(nn.Flatten(), nn.Unflatten(1, (4, 3)))(ember.zeros(2, 12)).shape) == (2, 4, 3)


def test_dropout2d_on_other_ranks_warns_and_masks_the_first_two_dims_as_pytorch():
    import warnings
    ember.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        flat = nn.Dropout2d(0.5)(ember.ones(40, 30))  # 2-D: element-wise, as PyTorch's
    assert any("Received a 2-D input to dropout2d" in str(w.message) for w in caught)
    values = set(flat.flatten().tolist())
    assert values == {0.0, 2.0}
    assert not ((flat == 0).all(1) | (flat == 2).all(1)).all().item()  # rows are not all or nothing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seq = nn.Dropout2d(0.5)(ember.ones(6, 20, 5))  # 3-D: (N, C, L), a mask of [N, C, 1]
    assert any("interpreted as shape (N, C, L)" in str(w.message) for w in caught)
    assert ((seq == 0).all(2) | (seq == 2).all(2)).all().item()
    assert 0 < (seq[:, :, 0] == 0).sum().item() < 120  # dropped per (n, c), not per n
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 4-D: no warning
        nn.Dropout2d(0.5)(ember.ones(2, 3, 4, 4))
    with pytest.raises(ValueError, match=r"at least 2 dims.*\[5\]"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nn.functional.dropout2d(ember.ones(5), 0.5)


@pytest.mark.parametrize("a, b, dtype", [(1, 0, "int64"), (1, 0.5, "float32"), (True, False, "bool"),
                                         (1.5, 0.5, "float32"), (2.5, 1, "float32")])
def test_where_of_two_python_numbers_promotes_as_pytorch(a, b, dtype):
    cond = ember.tensor([[True, False, True]])
    out = ember.where(cond, a, b)
    assert out.dtype == getattr(ember, dtype) and tuple(out.shape) == (1, 3)
    np.testing.assert_array_equal(out.numpy(), np.where([[True, False, True]], a, b).astype(dtype))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_class_weights_in_cross_entropy_and_nll_loss_match_numpy(reduction):
    x = arr(11, 5, 4, 3)  # [N, C, d]: classes on dim 1
    target = np.array([[0, 1, 3], [2, -100, 1], [3, 3, 0], [1, 2, -100], [0, 0, 2]])
    w = np.array([1.0, 2.0, 0.5, 3.0])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    keep = target != -100
    safe = np.where(keep, target, 0)
    picked = np.take_along_axis(logp, safe[:, None, :], 1)[:, 0, :]
    losses = -picked * w[safe] * keep
    want = {"mean": losses.sum() / (w[safe] * keep).sum(), "sum": losses.sum(), "none": losses}[reduction]
    got = F.cross_entropy(t(x), ember.tensor(target), weight=t(w), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    got = F.nll_loss(t(logp), ember.tensor(target), weight=t(w), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    gradcheck(lambda a: F.cross_entropy(a, ember.tensor(target), weight=t(w), reduction=reduction).sum(), [t(x, True)])
