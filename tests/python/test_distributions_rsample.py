"""Reparameterised sampling of Gamma, Beta and Dirichlet, Gamma.cdf and ember.special.gammainc /
gammaincc (tests/fixtures/distributions_rsample.json, written by make_distributions_rsample_fixtures.py).

Oracles: mpmath's P(a, x), Q(a, x) and -(dP/da) / p at 40 digits over alpha in [1e-3, 1e4] and x at
alpha's quantiles 1e-6 .. 1 - 1e-6; finite differences of the inverse-CDF path; torch 2.15's values
(replayed expressions, and torch._standard_gamma_grad, whose own approximation is within 2%).
Then statistics of the pathwise gradients (d E[x]/d alpha, d E[x^2]/d alpha), shapes, dtypes,
validation and torch's gradient errors, and hypothesis properties (P monotone in x inside [0, 1],
the gradients' signs)."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import ember.distributions as D
from fixture_replay import array, load_cases, replay

CASES = load_cases("distributions_rsample.json")
ORACLES = ("standard_gamma_grad", "gammainc oracle")
F64, F32 = ember.float64, ember.float32
N = 20000


def standard_gamma_grad(alpha, x):
    """Ember's C++ _standard_gamma_grad on float64 NumPy arrays."""
    return ember._C._standard_gamma_grad(ember.from_numpy(np.asarray(alpha, dtype=np.float64)),
                                         ember.from_numpy(np.asarray(x, dtype=np.float64))).numpy()


def f64(*values):
    return ember.tensor(list(values), dtype=F64)


# ---- torch's expressions replayed

@pytest.mark.parametrize("name", sorted(k for k in CASES if k not in ORACLES))
def test_matches_torch(name):
    # NB: Ember's series and fraction are within 1e-11 of mpmath (test below); torch's Cephes igammac
    # is off by 1e-9 at a = 30, x = 33 (its asymptotic expansion for large a), hence 1e-8.
    f64_rtol = 1e-8
    if name == "gammainc mixed dtypes":
        f64_rtol = 1e-6  # torch's backward takes lgamma of the float32 a before promoting it
    replay(CASES[name], {"T": ember, "D": D}, by_dtype={"float64": (f64_rtol, f64_rtol, 1e-13),
                                                        "float32": (1e-5, 1e-4, 1e-6)})


# ---- independent oracles

def test_standard_gamma_grad_matches_mpmath_oracle():
    t = CASES["standard_gamma_grad"]["tensors"]
    alpha, x, oracle, torch_grad = (array(t[k]) for k in ("alpha", "x", "oracle", "torch"))
    assert alpha.min() == 1e-3 and alpha.max() == 1e4 and len(alpha) > 200
    got = standard_gamma_grad(alpha, x)
    rel = np.abs(got - oracle) / np.abs(oracle)
    assert rel.max() < 1e-9, (rel.max(), alpha[rel.argmax()], x[rel.argmax()])
    # torch's own approximation (Taylor / Rice / rational) is coarser: within 2% everywhere here.
    np.testing.assert_allclose(torch_grad, oracle, rtol=2e-2)


def test_gammainc_matches_mpmath_oracle():
    t = CASES["gammainc oracle"]["tensors"]
    a, x, p, q = (ember.tensor(array(t[k]), dtype=F64) for k in ("a", "x", "P", "Q"))
    np.testing.assert_allclose(ember.special.gammainc(a, x).numpy(), p.numpy(), rtol=1e-9, atol=0)
    np.testing.assert_allclose(ember.special.gammaincc(a, x).numpy(), q.numpy(), rtol=1e-9, atol=0)


@pytest.mark.parametrize("alpha,u", [(0.05, 0.3), (0.7, 0.9), (1.0, 0.5), (3.0, 0.02), (40.0, 0.6), (2000.0, 0.99)])
def test_standard_gamma_grad_is_the_derivative_of_the_inverse_cdf_path(alpha, u):
    """z(alpha) with P(alpha, z) = u fixed, by bisection on log z; central differences in alpha."""
    def quantile(a):
        lo, hi = -700.0, math.log(a + 50 * math.sqrt(a) + 100)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            p = float(ember.special.gammainc(f64(a), f64(math.exp(mid))))
            lo, hi = (mid, hi) if p < u else (lo, mid)
        return math.exp(0.5 * (lo + hi))
    h = 1e-4 * alpha
    numeric = (quantile(alpha + h) - quantile(alpha - h)) / (2 * h)
    got = standard_gamma_grad(np.array([alpha]), np.array([quantile(alpha)]))[0]
    assert abs(got - numeric) < 1e-6 * abs(numeric), (got, numeric)


def test_rsample_gradients_are_the_implicit_gradient_at_the_draw():
    ember.manual_seed(11)
    alpha = f64(0.01, 0.4, 1.0, 2.5, 9.0, 300.0).requires_grad_()
    rate = f64(1.0, 0.5, 2.0, 3.0, 0.25, 7.0).requires_grad_()
    x = D.Gamma(alpha, rate).rsample()
    g = ember.randn(6, dtype=F64)
    x.backward(g)
    z = (x * rate).detach().numpy()
    want = g.numpy() * standard_gamma_grad(alpha.detach().numpy(), z) / rate.detach().numpy()
    np.testing.assert_allclose(alpha.grad.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(rate.grad.numpy(), -g.numpy() * x.detach().numpy() / rate.detach().numpy(),
                               rtol=1e-12)


def test_grad_edges():
    got = standard_gamma_grad(np.array([2.0, 0.5, 0.0, -1.0, np.nan, 2.0, 1e-3]),
                              np.array([0.0, 0.0, 1.0, 1.0, 1.0, np.nan, 2.2250738585072014e-308]))
    assert got[0] == 0 and got[1] == 0 and np.isnan(got[2:6]).all()
    assert 0 < got[6] < 1e-300  # (z / a)(psi(a + 1) - log z) at the smallest normal


# ---- statistics of the pathwise gradients: E[dx/dtheta] = dE[x]/dtheta

def per_sample(value, *leaves):
    """value.sum() backpropagated: each leaf's .grad holds per-draw gradients (leaves of shape (N, ...))."""
    value.sum().backward()
    return [leaf.grad.numpy() for leaf in leaves]


def assert_mean(draws, want, n_sigma=5.0):
    draws = np.asarray(draws)
    se = draws.std(0) / math.sqrt(draws.shape[0])
    assert np.all(np.abs(draws.mean(0) - want) < n_sigma * se + 1e-12), (draws.mean(0), want, se)


@pytest.mark.parametrize("alpha,rate", [(0.02, 1.0), (0.3, 2.0), (1.0, 0.5), (4.0, 1.0), (50.0, 3.0), (5000.0, 0.1)])
def test_gamma_rsample_gradient_is_unbiased(alpha, rate):
    ember.manual_seed(21)
    a = ember.full((N,), alpha, dtype=F64).requires_grad_()
    r = ember.full((N,), rate, dtype=F64).requires_grad_()
    x = D.Gamma(a, r).rsample()
    (ga,) = per_sample(x, a)
    assert np.isfinite(ga).all() and (ga >= 0).all()
    assert_mean(ga, 1 / rate)  # d(alpha / rate)/d alpha
    a.grad = None
    (ga2,) = per_sample(D.Gamma(a, rate).rsample() ** 2, a)
    assert_mean(ga2, (2 * alpha + 1) / rate ** 2)  # d(alpha (alpha + 1) / rate^2)/d alpha


def test_beta_rsample_gradient_is_unbiased():
    ember.manual_seed(22)
    for c1, c0 in ((0.5, 3.0), (2.0, 2.0), (0.05, 0.2), (30.0, 5.0)):
        a = ember.full((N,), c1, dtype=F64).requires_grad_()
        b = ember.full((N,), c0, dtype=F64).requires_grad_()
        x = D.Beta(a, b).rsample()
        assert bool(((x > 0) & (x < 1)).all())
        ga, gb = per_sample(x, a, b)
        assert (ga >= 0).all() and (gb <= 0).all()
        s = c1 + c0
        assert_mean(ga, c0 / s ** 2)
        assert_mean(gb, -c1 / s ** 2)


def test_dirichlet_rsample_gradient_is_unbiased():
    ember.manual_seed(23)
    conc = np.array([0.3, 1.0, 4.0])
    c = ember.tensor(np.tile(conc, (N, 1)), dtype=F64).requires_grad_()
    x = D.Dirichlet(c).rsample()
    assert tuple(x.shape) == (N, 3)
    np.testing.assert_allclose(x.detach().numpy().sum(-1), 1.0, rtol=1e-12)
    s = conc.sum()
    for i in range(3):  # d E[x_i] / d c_j = (delta_ij s - c_i) / s^2
        c.grad = None
        x = D.Dirichlet(c).rsample()
        (g,) = per_sample(x[:, i], c)
        assert_mean(g, ((np.arange(3) == i) * s - conc[i]) / s ** 2)


# ---- shapes, dtypes, clamping, errors

@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("make,sample_shape,shape", [
    (lambda t: D.Gamma(t(2, 3), t(3)), (), (2, 3)),
    (lambda t: D.Gamma(t(3), t(2, 1)), (4,), (4, 2, 3)),
    (lambda t: D.Gamma(t(0, 2), t(2)), (3,), (3, 0, 2)),
    (lambda t: D.Gamma(t(2), t(2)), (0,), (0, 2)),
    (lambda t: D.Beta(t(2, 3), t(3)), (5,), (5, 2, 3)),
    (lambda t: D.Beta(t(0), t(0)), (2,), (2, 0)),
    (lambda t: D.Dirichlet(t(2, 4)), (3,), (3, 2, 4)),
    (lambda t: D.Dirichlet(t(0, 4)), (), (0, 4)),
])
def test_rsample_shapes_and_dtypes(dtype, make, sample_shape, shape):
    ember.manual_seed(0)
    leaves = []

    def t(*s):
        leaf = (ember.rand(*s, dtype=dtype) * 3 + 0.2).requires_grad_()
        leaves.append(leaf)
        return leaf
    dist = make(t)
    assert dist.has_rsample
    x = dist.rsample(sample_shape)
    assert tuple(x.shape) == shape and x.dtype == dtype and x.requires_grad
    x.sum().backward()
    for leaf in leaves:
        assert leaf.grad.dtype == dtype and tuple(leaf.grad.shape) == tuple(leaf.shape)
        assert np.isfinite(leaf.grad.numpy()).all()
    assert not dist.sample(sample_shape).requires_grad


@pytest.mark.parametrize("dtype,tiny", [(F32, 1.1754943508222875e-38), (F64, 2.2250738585072014e-308)])
def test_tiny_concentrations_clamp_to_the_smallest_normal(dtype, tiny):
    ember.manual_seed(3)
    a = ember.full((2000,), 1e-3, dtype=dtype).requires_grad_()
    x = D.Gamma(a, 1.0).rsample()
    assert float(x.min()) >= tiny
    x.sum().backward()
    g = a.grad.numpy()
    assert np.isfinite(g).all() and (g >= 0).all()
    b = D.Dirichlet(ember.full((500, 3), 1e-3, dtype=dtype)).rsample()
    assert float(b.min()) >= tiny and float(b.max()) <= 1.0


def test_validation_names_the_parameter():
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        D.Gamma(f64(-1.0), f64(1.0))
    with pytest.raises(ValueError, match="Expected parameter rate"):
        D.Gamma(f64(1.0), f64(0.0))
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        D.Beta(f64(1.0), f64(-2.0))
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        D.Dirichlet(f64(1.0, 0.0))
    with pytest.raises(ValueError, match="within the support"):
        D.Gamma(f64(1.0), f64(1.0)).cdf(f64(-0.5))
    assert np.isnan(D.Gamma(f64(1.0), f64(1.0), validate_args=False).cdf(f64(-0.5)).numpy()).all()


def test_torch_gradient_errors():
    c = f64(1.5, 2.0).requires_grad_()
    y = D.Gamma(c, f64(1.0, 1.0)).cdf(f64(0.5, 1.0))
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not implemented"):
        y.sum().backward()
    with pytest.raises(NotImplementedError, match="igammac: input"):
        ember.special.gammaincc(c, f64(0.5, 1.0)).sum().backward()
    with pytest.raises(NotImplementedError, match="not implemented for 'Int64'"):
        ember.special.gammainc(ember.tensor([1]), ember.tensor([2]))
    with pytest.raises(TypeError, match="argument 'other' must be Tensor"):
        ember.special.gammainc(f64(1.0), 2.0)
    # rsample's concentration gradient, like torch's, is not differentiable again
    a = f64(2.0).requires_grad_()
    (g,) = ember.autograd.grad(D.Gamma(a, 1.0).rsample().sum(), a, create_graph=True)
    with pytest.raises(NotImplementedError, match="the derivative for '_standard_gamma_grad' is not implemented"):
        g.sum().backward()


def test_gammainc_x_gradient_is_differentiable_again():
    a, x = f64(2.5), f64(1.3).requires_grad_()
    (g,) = ember.autograd.grad(ember.special.gammainc(a, x), x, create_graph=True)
    (g2,) = ember.autograd.grad(g, x)
    # d/dx of x^(a-1) e^-x / Gamma(a) = pdf * ((a - 1) / x - 1)
    pdf = 1.3 ** 1.5 * math.exp(-1.3) / math.gamma(2.5)
    assert abs(float(g) - pdf) < 1e-12 and abs(float(g2) - pdf * (1.5 / 1.3 - 1)) < 1e-12


# ---- properties

log_alpha = st.floats(-3.0, 4.0)


@given(log_alpha, st.lists(st.floats(-8.0, 5.0), min_size=2, max_size=12))
def test_gammainc_is_a_cdf_in_x(la, log_x_over_a):
    a = 10.0 ** la
    x = np.sort(a * 10.0 ** np.array(log_x_over_a) * 0.5)
    p = ember.special.gammainc(f64(a).expand(len(x)), ember.tensor(x, dtype=F64)).numpy()
    q = ember.special.gammaincc(f64(a).expand(len(x)), ember.tensor(x, dtype=F64)).numpy()
    assert ((p >= 0) & (p <= 1)).all() and ((q >= 0) & (q <= 1)).all()
    assert (np.diff(p) >= -1e-14).all() and (np.diff(q) <= 1e-14).all()
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-12)


@given(log_alpha, st.floats(-2.0, 2.0), st.integers(0, 2 ** 31 - 1), st.sampled_from([F32, F64]))
def test_gamma_rsample_gradients_are_finite_with_the_right_signs(la, log_rate, seed, dtype):
    ember.manual_seed(seed)
    a = ember.full((64,), 10.0 ** la, dtype=dtype).requires_grad_()
    r = ember.full((64,), 10.0 ** log_rate, dtype=dtype).requires_grad_()
    x = D.Gamma(a, r).rsample()
    x.sum().backward()
    ga, gr = a.grad.numpy(), r.grad.numpy()
    assert np.isfinite(ga).all() and np.isfinite(gr).all()
    assert (ga >= 0).all() and (gr <= 0).all()  # a draw grows with the shape, shrinks with the rate
