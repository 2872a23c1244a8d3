"""ember.distributions against torch.distributions (tests/fixtures/distributions.json, written by
make_distributions_fixtures.py): each case is one expression that runs unchanged under both
libraries; its output and the gradient of every float64 input match torch's. Then what fixtures
cannot show: sampling (statistically, with a fixed seed), shapes, validation errors, KL lookup, and
a policy-gradient step as an RL script writes it."""
import math

import numpy as np
import pytest

import ember
import ember.distributions as D
import ember.nn as nn
from fixture_replay import load_cases, replay

CASES = load_cases("distributions.json")
F64 = ember.float64


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    case = CASES[name]
    replay(case, {"T": ember, "D": D}, grad_rtol=float(case["strings"].get("grad_rtol", 1e-8)), grad_atol=1e-10)


# ---- sampling: moments over many draws, within a few standard errors (seeded: deterministic)

def f64(*values):
    return ember.tensor(list(values), dtype=F64)


N = 40000


def check_moments(samples, mean, var, n_sigma=5.0):
    """The sample mean within n_sigma standard errors of `mean`, the sample variance within
    n_sigma of its own standard error (taken from the sample's fourth moment) of `var`."""
    x = samples.detach().numpy().reshape(samples.shape[0], -1)
    mean, var = np.broadcast_to(np.asarray(mean, dtype=np.float64).reshape(-1), x.shape[1:]), \
        np.broadcast_to(np.asarray(var, dtype=np.float64).reshape(-1), x.shape[1:])
    n = x.shape[0]
    se_mean = np.sqrt(var / n)
    assert np.all(np.abs(x.mean(0) - mean) < n_sigma * se_mean + 1e-12), (x.mean(0), mean)
    m4 = ((x - x.mean(0)) ** 4).mean(0)
    se_var = np.sqrt(np.maximum(m4 - x.var(0) ** 2, 0) / n)
    assert np.all(np.abs(x.var(0) - var) < n_sigma * se_var + 1e-12), (x.var(0), var)


SAMPLERS = {
    "Normal": lambda: D.Normal(f64(-1.0, 2.0), f64(0.5, 3.0)),
    "Uniform": lambda: D.Uniform(f64(-1.0, 2.0), f64(0.5, 7.0)),
    "Bernoulli": lambda: D.Bernoulli(probs=f64(0.1, 0.5, 0.93)),
    "Bernoulli logits": lambda: D.Bernoulli(logits=f64(-2.0, 0.0, 3.0)),
    "Exponential": lambda: D.Exponential(f64(0.5, 4.0)),
    "Laplace": lambda: D.Laplace(f64(1.0, -3.0), f64(0.5, 2.0)),
    "Gamma": lambda: D.Gamma(f64(0.2, 0.9, 1.0, 3.5, 40.0), f64(1.0, 2.0, 0.5, 1.0, 3.0)),
    "Beta": lambda: D.Beta(f64(0.3, 2.0, 5.0), f64(0.7, 2.0, 1.5)),
    "Poisson": lambda: D.Poisson(f64(0.0, 0.3, 4.0, 60.0)),
    "Binomial": lambda: D.Binomial(f64(1.0, 10.0, 25.0), probs=f64(0.5, 0.2, 0.9)),
    "LogNormal": lambda: D.LogNormal(f64(0.0, 1.0), f64(0.25, 0.5)),
    "Independent": lambda: D.Independent(D.Normal(f64(1.0, 2.0), f64(1.0, 0.1)), 1),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_samples_have_the_distributions_moments(name):
    ember.manual_seed(1234)
    dist = SAMPLERS[name]()
    x = dist.sample((N,))
    assert tuple(x.shape) == (N,) + dist.batch_shape + dist.event_shape and x.dtype == F64
    assert not x.requires_grad
    check_moments(x, dist.mean.detach().numpy(), dist.variance.detach().numpy())
    support = dist.support
    assert bool(support.check(x).all()), f"{name}: a draw outside {support}"


def test_categorical_and_one_hot_frequencies_follow_probs():
    ember.manual_seed(5)
    probs = f64(0.1, 0.2, 0.3, 0.4)
    k = D.Categorical(probs=probs * 3).sample((N,))
    assert k.dtype == ember.int64 and tuple(k.shape) == (N,)
    freq = np.bincount(k.numpy(), minlength=4) / N
    np.testing.assert_allclose(freq, probs.numpy(), atol=5 * math.sqrt(0.25 / N))
    oh = D.OneHotCategorical(logits=ember.log(probs)).sample((N,))
    assert tuple(oh.shape) == (N, 4) and oh.dtype == F64 and bool((oh.sum(-1) == 1).all())
    np.testing.assert_allclose(oh.mean(0).numpy(), probs.numpy(), atol=5 * math.sqrt(0.25 / N))


def test_dirichlet_and_multivariate_normal_draws_match_their_moments():
    ember.manual_seed(6)
    alpha = f64(0.5, 2.0, 4.0)
    d = D.Dirichlet(alpha)
    x = d.sample((N,))
    assert tuple(x.shape) == (N, 3)
    np.testing.assert_allclose(x.sum(-1).numpy(), 1.0, rtol=1e-12)
    check_moments(x, d.mean.numpy(), d.variance.numpy())
    cov = ember.tensor([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]], dtype=F64)
    mvn = D.MultivariateNormal(f64(1.0, -2.0, 0.5), covariance_matrix=cov)
    y = mvn.sample((N,)).numpy()
    np.testing.assert_allclose(y.mean(0), [1.0, -2.0, 0.5], atol=5 * math.sqrt(2.0 / N))
    np.testing.assert_allclose(np.cov(y.T), cov.numpy(), atol=0.05)


def test_rsample_is_differentiable_and_sample_is_not():
    ember.manual_seed(7)
    loc = f64(1.0, -2.0).requires_grad_()
    scale = f64(0.5, 2.0).requires_grad_()
    x = D.Normal(loc, scale).rsample((N,))
    assert x.requires_grad
    x.mean(0).sum().backward()
    # d mean(loc + scale eps) / d loc = 1; / d scale = mean(eps), near 0
    np.testing.assert_allclose(loc.grad.numpy(), [1.0, 1.0], rtol=1e-12)
    assert np.all(np.abs(scale.grad.numpy()) < 5 / math.sqrt(N))
    rate = f64(2.0).requires_grad_()
    e = D.Exponential(rate).rsample((N,))
    e.mean().backward()  # d mean(E / rate) / d rate = -mean(E) / rate^2, near -1/4
    assert abs(float(rate.grad) + 0.25) < 5 * 0.25 / math.sqrt(N)
    for dist in (D.Uniform(loc, loc + 1), D.Laplace(loc, scale), D.LogNormal(loc, scale),
                 D.MultivariateNormal(loc, scale_tril=ember.diag_embed(scale)), D.Gamma(scale, scale),
                 D.Beta(scale, scale), D.Dirichlet(scale)):
        assert dist.has_rsample and dist.rsample((3,)).requires_grad
    assert not D.Normal(loc, scale).sample((3,)).requires_grad


def test_seed_makes_sampling_repeatable():
    ember.manual_seed(3)
    a = [D.Gamma(f64(0.5, 3.0), f64(1.0, 1.0)).sample((10,)), D.Categorical(logits=f64(0.0, 1.0)).sample((10,))]
    ember.manual_seed(3)
    b = [D.Gamma(f64(0.5, 3.0), f64(1.0, 1.0)).sample((10,)), D.Categorical(logits=f64(0.0, 1.0)).sample((10,))]
    assert all(ember.equal(x, y) for x, y in zip(a, b))


# ---- shapes

@pytest.mark.parametrize("make,batch,event", [
    (lambda: D.Normal(ember.zeros(2, 3), 1.0), (2, 3), ()),
    (lambda: D.Normal(0.0, 1.0), (), ()),
    (lambda: D.Categorical(logits=ember.zeros(2, 3, 5)), (2, 3), ()),
    (lambda: D.OneHotCategorical(probs=ember.ones(2, 5)), (2,), (5,)),
    (lambda: D.Bernoulli(logits=ember.zeros(4)), (4,), ()),
    (lambda: D.MultivariateNormal(ember.zeros(2, 3), scale_tril=ember.eye(3)), (2,), (3,)),
    (lambda: D.MultivariateNormal(ember.zeros(3), covariance_matrix=ember.eye(3).expand(4, 3, 3)), (4,), (3,)),
    (lambda: D.Independent(D.Normal(ember.zeros(2, 3, 4), 1.0), 2), (2,), (3, 4)),
    (lambda: D.Dirichlet(ember.ones(2, 4)), (2,), (4,)),
    (lambda: D.Beta(ember.ones(3), 2.0), (3,), ()),
    (lambda: D.Gamma(ember.ones(3), ember.ones(2, 1)), (2, 3), ()),
    (lambda: D.Poisson(ember.ones(2)), (2,), ()),
    (lambda: D.LogNormal(ember.zeros(2, 1), ember.ones(3)), (2, 3), ()),
    (lambda: D.Binomial(5, ember.full((2,), 0.5)), (2,), ()),
])
def test_sample_and_log_prob_shapes(make, batch, event):
    ember.manual_seed(0)
    dist = make()
    assert dist.batch_shape == batch and dist.event_shape == event
    assert tuple(dist.sample().shape) == batch + event
    x = dist.sample((6, 2))
    assert tuple(x.shape) == (6, 2) + batch + event
    assert tuple(dist.log_prob(x).shape) == (6, 2) + batch
    assert tuple(dist.sample(7).shape) == (7,) + batch + event  # an int sample_shape, as torch's
    if not isinstance(dist, (D.Poisson, D.Binomial)):  # as torch's, they have no closed-form entropy here
        assert tuple(dist.entropy().shape) == batch


def test_expand_broadcasts_the_batch():
    dist = D.Normal(ember.zeros(3, dtype=F64), ember.ones(3, dtype=F64)).expand((4, 3))
    assert dist.batch_shape == (4, 3) and tuple(dist.sample((2,)).shape) == (2, 4, 3)
    cat = D.Categorical(logits=ember.zeros(5)).expand((2, 3))
    assert cat.batch_shape == (2, 3) and tuple(cat.sample().shape) == (2, 3)


# ---- validation

def test_invalid_parameters_raise_value_errors_naming_the_parameter():
    with pytest.raises(ValueError, match=r"Expected parameter scale .* to satisfy the constraint GreaterThan"):
        D.Normal(f64(0.0), f64(-1.0))
    with pytest.raises(ValueError, match="Expected parameter probs"):
        D.Bernoulli(probs=f64(1.5))
    with pytest.raises(ValueError, match="Expected parameter probs .*Simplex"):
        D.Categorical(probs=f64(-0.5, 1.0))
    with pytest.raises(ValueError, match="Uniform is not defined when low>= high"):
        D.Uniform(f64(1.0), f64(0.0))
    with pytest.raises(ValueError, match="Expected parameter covariance_matrix .*PositiveDefinite"):
        D.MultivariateNormal(f64(0.0, 0.0), covariance_matrix=ember.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=F64))
    with pytest.raises(ValueError, match="Expected parameter scale_tril"):
        D.MultivariateNormal(f64(0.0, 0.0), scale_tril=ember.tensor([[1.0, 0.0], [0.5, -1.0]], dtype=F64))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both"):
        D.Categorical(probs=f64(0.5, 0.5), logits=f64(0.0, 0.0))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(f64(0.0))
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        D.Gamma(f64(0.0), f64(1.0))
    with pytest.raises(ValueError, match="Expected parameter rate"):
        D.Poisson(f64(-1.0))


def test_values_outside_the_support_raise():
    with pytest.raises(ValueError, match=r"Expected value argument .* to be within the support \(IntegerInterval"):
        D.Categorical(logits=ember.zeros(3)).log_prob(ember.tensor([3]))
    with pytest.raises(ValueError, match="within the support"):
        D.Bernoulli(probs=f64(0.3)).log_prob(f64(0.5))
    with pytest.raises(ValueError, match="within the support"):
        D.Exponential(f64(1.0)).log_prob(f64(-1.0))
    with pytest.raises(ValueError, match="within the support"):
        D.Uniform(f64(0.0), f64(1.0)).log_prob(f64(1.5))
    with pytest.raises(ValueError, match="within the support"):
        D.Beta(f64(1.0), f64(1.0)).log_prob(f64(1.5))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Normal(f64(0.0), f64(1.0)).log_prob(0.5)
    with pytest.raises(ValueError, match=r"The right-most size of value must match event_shape: \(2,\) vs \(3,\)"):
        D.MultivariateNormal(ember.zeros(3), scale_tril=ember.eye(3)).log_prob(ember.zeros(2))
    with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape"):
        D.Normal(ember.zeros(3), ember.ones(3)).log_prob(ember.zeros(4))


def test_validation_can_be_turned_off():
    assert math.isnan(D.Normal(f64(0.0), f64(-1.0), validate_args=False).log_prob(f64(0.0)).item())
    assert D.Uniform(f64(0.0), f64(1.0), validate_args=False).log_prob(f64(2.0)).item() == -math.inf
    D.Distribution.set_default_validate_args(False)
    try:
        D.Normal(f64(0.0), f64(-1.0))
        assert D.Exponential(f64(1.0)).log_prob(f64(-1.0)).item() == 1.0
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(f64(0.0), f64(-1.0))
    with pytest.raises(ValueError, match="expected True or False"):
        D.Distribution.set_default_validate_args("yes")


# ---- kl_divergence lookup

def test_kl_divergence_dispatch_and_register_kl():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type "
                                                  "Categorical"):
        D.kl_divergence(D.Normal(f64(0.0), f64(1.0)), D.Categorical(logits=f64(0.0, 1.0)))

    class Wide(D.Normal):
        pass

    p, q = Wide(f64(0.0), f64(1.0)), D.Normal(f64(1.0), f64(2.0))
    assert D.kl_divergence(p, q).item() == pytest.approx(math.log(2) + 2 / 8 - 0.5)  # Normal's formula

    @D.register_kl(Wide, D.Normal)
    def _kl_wide(p, q):
        return ember.zeros_like(p.loc) - 1

    try:
        assert D.kl_divergence(p, q).item() == -1.0
        assert D.kl_divergence(q, q).item() == 0.0
    finally:
        from ember.distributions import kl
        del kl._KL_REGISTRY[Wide, D.Normal]
        kl._KL_MEMOIZE.clear()


def test_kl_is_a_monte_carlo_mean_of_the_log_ratio():
    ember.manual_seed(11)
    p = D.Gamma(f64(2.0, 0.7), f64(1.5, 1.0))
    q = D.Gamma(f64(3.0, 1.2), f64(1.0, 2.0))
    x = p.sample((N,))
    mc = (p.log_prob(x) - q.log_prob(x)).mean(0).numpy()
    np.testing.assert_allclose(mc, D.kl_divergence(p, q).numpy(), atol=0.03)


# ---- a policy-gradient step (REINFORCE), as RL scripts write it

def test_reinforce_step_with_categorical_logits():
    ember.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
    x = ember.randn(32, 4)
    dist = D.Categorical(logits=net(x))
    a = dist.sample()
    assert tuple(a.shape) == (32,) and a.dtype == ember.int64 and not a.requires_grad
    advantage = ember.randn(32)
    loss = (-dist.log_prob(a) * advantage).mean() - 0.01 * dist.entropy().mean()
    loss.backward()
    assert all(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in net.parameters())
    # the log_prob gradient with respect to the logits is onehot(a) - softmax(logits)
    logits = net(x).detach().requires_grad_()
    D.Categorical(logits=logits).log_prob(a).sum().backward()
    want = np.eye(3)[a.numpy()] - ember.softmax(logits.detach(), -1).numpy()
    np.testing.assert_allclose(logits.grad.numpy(), want, rtol=1e-5, atol=1e-6)
