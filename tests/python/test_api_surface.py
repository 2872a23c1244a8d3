"""The functions, layers and Tensor methods Ember writes in Python for PyTorch scripts, against torch
(tests/fixtures/api.json, written by make_api_fixtures.py): each case is one expression that runs
unchanged under both libraries; its output and the gradient of every float64 input match torch's.
Then what the fixtures cannot show: errors, random fills, and in-place rules."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from fixture_replay import load_cases, replay

CASES = load_cases("api.json")
# NB: torch's float64 gradients of celu (against the exact exp(x / alpha), checked with NumPy) and of
# hardsigmoid (a float32 1/6) are off by up to 1e-7 relative; Ember's are the exact ones.
GRAD_RTOL = {"F.celu": 1e-6, "nn.CELU(0.5)": 1e-6, "F.hardsigmoid": 1e-6, "nn.Hardsigmoid()": 1e-6}
# NB: torch's trigamma (polygamma(1, x), digamma's gradient) stops its asymptotic series at x^-7 and is
# off by up to 1e-9 relative (polygamma(1, 1) = 1.6449340676, pi^2 / 6 = 1.6449340668); Ember's sums
# the Hurwitz zeta to double's precision (tests/ops/special_test.cpp checks the closed forms).
for _name in ("T.digamma", "T.digamma negative", "T.special.gammaln psi expit"):
    GRAD_RTOL[_name] = 2e-8
OUT_RTOL = {"T.polygamma 1": 2e-8}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    replay(CASES[name], {"T": ember, "F": F, "nn": nn}, out_rtol=OUT_RTOL.get(name, 1e-12),
           grad_rtol=GRAD_RTOL.get(name, 1e-10))


def test_errors_say_what_is_wrong():
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension -1 is size 5"):
        F.glu(ember.randn(2, 5))
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(ember.randn(1, 6, 2, 2), 2)
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        ember.dot(ember.randn(2, 2), ember.randn(2))
    with pytest.raises(ValueError, match="softmin: give dim"):
        F.softmin(ember.randn(3))
    with pytest.raises(RuntimeError, match="Invalid precision 'low'"):
        ember.set_float32_matmul_precision("low")
    with pytest.raises(RuntimeError, match="movedim: Invalid source or destination dims"):
        ember.movedim(ember.randn(2, 3), (0, 1), 0)


def test_random_fills_follow_the_generator_and_keep_dtype_and_device():
    w = ember.empty(200, 300, dtype=ember.float64)
    assert w.normal_(1.0, 0.5) is w
    assert abs(float(w.mean()) - 1.0) < 0.01 and abs(float(w.std()) - 0.5) < 0.01 and w.dtype == ember.float64
    w.uniform_(-2.0, 3.0)
    assert float(w.min()) >= -2.0 and float(w.max()) < 3.0 and abs(float(w.mean()) - 0.5) < 0.05
    b = ember.empty(10000).bernoulli_(0.25)
    assert set(np.unique(b.numpy())) <= {0.0, 1.0} and abs(float(b.mean()) - 0.25) < 0.02
    e = ember.empty(20000).exponential_(2.0)
    assert float(e.min()) >= 0 and abs(float(e.mean()) - 0.5) < 0.02
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    assert ember.equal(ember.empty(5).normal_(generator=g1), ember.empty(5).normal_(generator=g2))
    # GPT-2's _init_weights: module.weight.data.normal_(mean=0.0, std=0.02) on a parameter
    layer = nn.Linear(64, 64)
    layer.weight.data.normal_(mean=0.0, std=0.02)
    assert abs(float(layer.weight.std()) - 0.02) < 0.002 and layer.weight.requires_grad


def test_in_place_forms_write_through_views_and_refuse_leaves_that_require_grad():
    base = ember.zeros(3, 4)
    base[1].masked_fill_(ember.tensor([True, False, True, False]), 9.0)
    assert base.tolist()[1] == [9.0, 0.0, 9.0, 0.0] and base.tolist()[0] == [0.0] * 4
    leaf = ember.ones(3, requires_grad=True)
    with pytest.raises(Exception, match="leaf"):
        leaf.exp_()
    with ember.no_grad():
        leaf.lerp_(ember.zeros(3), 0.5)
    assert leaf.tolist() == [0.5, 0.5, 0.5]
    # an optimizer written by hand, Adam's second-moment and update steps
    v, g = ember.zeros(4), ember.tensor([1.0, -2.0, 3.0, 0.5])
    v.mul_(0.999).addcmul_(g, g, value=0.001)
    p = ember.ones(4)
    p.addcdiv_(g, v.sqrt().add_(1e-8), value=-0.1)
    np.testing.assert_allclose(p.numpy(), 1.0 - 0.1 * g.numpy() / (np.sqrt(0.001 * g.numpy() ** 2) + 1e-8),
                               rtol=1e-6)


def test_switches_scripts_flip():
    model = nn.Linear(3, 2)
    assert ember.compile(model) is model
    assert ember.compile()(math.sqrt) is math.sqrt  # as a decorator
    ember.set_float32_matmul_precision("high")
    assert ember.get_float32_matmul_precision() == "high"
    ember.set_float32_matmul_precision("highest")
    assert ember.get_default_dtype() == ember.float32
    assert ember.is_floating_point(ember.ones(1)) and not ember.is_complex(ember.ones(1))


def test_random_training_modes_have_their_distributions():
    ember.manual_seed(0)
    x = ember.randn(200000, dtype=ember.float64)
    # alpha_dropout keeps a standard normal input's mean 0 and variance 1 (SELU's fixed point)
    y = F.alpha_dropout(x, 0.2, training=True)
    assert abs(float(y.mean())) < 0.01 and abs(float(y.var()) - 1.0) < 0.02
    assert ember.equal(F.alpha_dropout(x, 0.2, training=False), x)
    # rrelu's negative slopes lie in [lower, upper], their mean near (lower + upper) / 2
    neg = -ember.rand(100000, dtype=ember.float64) - 0.1
    slopes = F.rrelu(neg, 0.1, 0.3, training=True) / neg
    assert float(slopes.min()) >= 0.1 and float(slopes.max()) <= 0.3 and abs(float(slopes.mean()) - 0.2) < 0.005
    # gumbel_softmax: soft samples are distributions; hard ones one-hot, with the soft gradient
    logits = ember.randn(1000, 5, dtype=ember.float64).requires_grad_()
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.detach().numpy())) == {0.0, 1.0} and float(hard.sum()) == 1000
    (hard * ember.arange(5, dtype=ember.float64)).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0
    # the argmax of the noisy logits follows softmax(logits): class frequencies near their probabilities
    p = ember.softmax(ember.tensor([[0.0, 1.0, 2.0]], dtype=ember.float64), -1)
    draws = F.gumbel_softmax(ember.zeros(20000, 3, dtype=ember.float64) + ember.log(p), hard=True)
    np.testing.assert_allclose(draws.mean(0).numpy(), p[0].numpy(), atol=0.015)


# ---- bitwise ops and special functions: what the fixtures cannot show

def test_bitwise_ops_refuse_floats_and_bool_shifts_by_name():
    f, i, b = ember.tensor([1.5]), ember.tensor([3]), ember.tensor([True])
    with pytest.raises(TypeError, match="bitwise_and: only integer and bool tensors, got float32 and int64"):
        f & i
    with pytest.raises(TypeError, match="bitwise_not"):
        ~f
    with pytest.raises(TypeError, match="bitwise_left_shift: only integer tensors"):
        b << b


def test_bitwise_in_place_writes_through_views_and_refuses_a_wider_result():
    base = ember.arange(8)
    view = base[2:6]
    view &= 1
    assert base.tolist() == [0, 1, 0, 1, 0, 1, 6, 7]
    view <<= ember.tensor([1, 2, 3, 4])
    assert base.tolist() == [0, 1, 0, 4, 0, 16, 6, 7]
    mask = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        mask &= ember.tensor([1, 1])
    mask |= ember.tensor([False, True])
    assert mask.tolist() == [True, True]


def test_special_namespace_and_edges():
    import ember.special as special
    assert special.psi is special.digamma and special.gammaln is ember.lgamma
    assert ember.polygamma(2, ember.tensor([0.0])).item() == -math.inf
    assert math.isnan(ember.erfinv(ember.tensor([1.5])).item())
    with pytest.raises(ValueError, match="polygamma: n must be >= 0"):
        ember.polygamma(-1, ember.tensor([1.0]))
    x = ember.tensor([0.5, 2.0], requires_grad=True)
    ember.lgamma(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ember.digamma(x.detach()).numpy())
    # erf(erfinv(y)) = y to float32's precision, across (-1, 1).
    y = ember.linspace(-0.999, 0.999, 101)
    np.testing.assert_allclose(ember.erf(ember.erfinv(y)).numpy(), y.numpy(), rtol=2e-6, atol=1e-7)
