"""Gradients through complex tensors, as PyTorch defines them: for a real loss L of z = x + iy,
z.grad is dL/dx + i dL/dy (the conjugate Wirtinger derivative, times two). Each case is checked
against two oracles: PyTorch's gradients (tests/fixtures/complex_grad.json, made by
make_complex_grad_fixtures.py) and central finite differences of the loss over every real and
imaginary part."""
import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

FIXTURES = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "complex_grad.json").read_text())["cases"]


def dot(z, w):
    """The real loss sum(Re z * w[..., 0] + Im z * w[..., 1]) (the fixture maker defines it alike)."""
    return (z.real * w[..., 0]).sum() + (z.imag * w[..., 1]).sum()


def from_entry(e):
    data = np.array(e["data"], dtype=np.float64)
    if e["dtype"] == "complex128":
        return data.reshape(*e["shape"], 2).view(np.complex128)[..., 0]
    return data.reshape(e["shape"])


def loss_of(expr, arrays, wrt=()):
    leaves = {k: ember.tensor(v).requires_grad_(k in wrt) for k, v in arrays.items()}
    return eval(expr, {"torch": ember, "dot": dot}, dict(leaves)), leaves


def finite_difference(expr, arrays, name, eps=1e-6):
    """dL/dx + i dL/dy of `name`'s every entry by central differences (float64 throughout)."""
    base = arrays[name]
    grad = np.zeros(base.shape, dtype=base.dtype)
    steps = [1.0, 1j] if np.iscomplexobj(base) else [1.0]
    for idx in np.ndindex(base.shape):
        for step in steps:
            hi, lo = base.copy(), base.copy()
            hi[idx] += eps * step
            lo[idx] -= eps * step
            d = (loss_of(expr, {**arrays, name: hi})[0].item() - loss_of(expr, {**arrays, name: lo})[0].item()) / (2 * eps)
            grad[idx] += d * step
    return grad


@pytest.mark.parametrize("case", sorted(FIXTURES))
def test_gradients_match_pytorch_and_finite_differences(case):
    spec = FIXTURES[case]
    arrays = {k: from_entry(e) for k, e in spec["inputs"].items()}
    loss, leaves = loss_of(spec["expr"], arrays, wrt=tuple(spec["grads"]))
    assert loss.dtype == ember.float64 and abs(loss.item() - spec["loss"]) <= 1e-10 * max(1.0, abs(spec["loss"]))
    loss.backward()
    for name, entry in spec["grads"].items():
        got = leaves[name].grad
        want = from_entry(entry)
        # A real input gets a real gradient (the real part of its complex one), a complex input a complex one.
        assert got.dtype == leaves[name].dtype and tuple(got.shape) == want.shape, name
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10, err_msg=f"{case}: {name} vs PyTorch")
        np.testing.assert_allclose(got.numpy(), finite_difference(spec["expr"], arrays, name), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case}: {name} vs finite differences")


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), data=st.data())
def test_nd_transform_gradients_match_finite_differences(shape, data):
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    norm = data.draw(st.sampled_from([None, "ortho", "forward"]))
    rng = np.random.default_rng(len(shape) * 31 + sum(dims))
    x = rng.standard_normal(shape)
    spec_shape = list(shape)
    spec_shape[dims[-1]] = shape[dims[-1]] // 2 + 1
    w = rng.standard_normal(spec_shape + [2])
    u = rng.standard_normal(shape)
    s = tuple(shape[d] for d in dims)
    # rfftn of a real x, then irfftn of a complex spectrum back to x's shape.
    expr = (f"dot(torch.fft.rfftn(x, dim={dims}, norm={norm!r}), w)"
            f" + (torch.fft.irfftn(torch.fft.rfftn(x, dim={dims}) * 1.5, s={s}, dim={dims}, norm={norm!r}) * u).sum()")
    arrays = {"x": x, "w": w, "u": u}
    loss, leaves = loss_of(expr, arrays, wrt=("x",))
    loss.backward()
    np.testing.assert_allclose(leaves["x"].grad.numpy(), finite_difference(expr, arrays, "x"), rtol=1e-5, atol=1e-6)


def test_abs_and_angle_have_zero_gradient_at_zero_as_in_torch():
    z = ember.tensor([0j, 3 - 4j], dtype=ember.complex128, requires_grad=True)
    (z.abs().sum() + z.angle().sum()).backward()
    # d|z| = z/|z| = 0.6 - 0.8i; d arg z = i z / |z|^2 = (4 + 3i) / 25.
    np.testing.assert_allclose(z.grad.numpy(), [0, 0.6 - 0.8j + (4 + 3j) / 25], atol=1e-15)
    # A subnormal z still has a unit direction (z / |z|, not z * (1 / |z|), which overflows float32).
    tiny = ember.tensor([1e-40 + 1e-40j], dtype=ember.complex64, requires_grad=True)
    tiny.abs().sum().backward()
    np.testing.assert_allclose(tiny.grad.numpy(), [np.sqrt(0.5) * (1 + 1j)], rtol=1e-4)  # subnormal precision
    # arg z's gradient where |z|^2 underflows but z is not 0: NaN in both parts (torch 2.15 gives
    # nan+nanj for 1e-30, 1e-30j, 1e-30+1e-30j and 3e-39 in complex64), 0 at 0 itself.
    small = ember.tensor([1e-30, 1e-30j, 1e-30 + 1e-30j, 3e-39, 0j], dtype=ember.complex64, requires_grad=True)
    small.angle().sum().backward()
    got = small.grad.numpy()
    assert np.isnan(got[:4].real).all() and np.isnan(got[:4].imag).all() and got[4] == 0


def test_a_complex_loss_needs_an_explicit_gradient():
    z = ember.tensor([1 + 1j], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar outputs"):
        (z * z).sum().backward()
    (z * z).sum().backward(ember.tensor(1 + 0j))  # dL/dz* for L = Re(z^2): conj(2z)
    assert z.grad.tolist() == [2 - 2j]
    assert z.grad.dtype == ember.complex64


def test_double_backward_through_complex_ops():
    # L = sum |z|^4: grad = 4 |z|^2 z; the gradient of sum(Re(grad)) by hand below.
    z = ember.tensor([1 + 2j, -0.5 + 1j], dtype=ember.complex128, requires_grad=True)
    (g,) = ember.autograd.grad((z.abs() ** 4).sum(), z, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 4 * np.abs(z.detach().numpy()) ** 2 * z.detach().numpy())
    (gg,) = ember.autograd.grad(g.real.sum(), z)
    x, y = z.detach().numpy().real, z.detach().numpy().imag
    # d/dx of 4(x^2 + y^2) x is 12x^2 + 4y^2; d/dy of it 8xy.
    np.testing.assert_allclose(gg.numpy(), 12 * x**2 + 4 * y**2 + 1j * 8 * x * y, rtol=1e-12)


def test_a_learnable_complex_filter_trains():
    # A user's spectral layer: a complex weight per frequency bin, fitted to a target filter with SGD.
    ember.manual_seed(0)
    x = ember.randn(16, 32)
    target = ember.fft.irfft(ember.fft.rfft(x) * ember.linspace(1, 0, 17), n=32)
    w = ember.ones(17, dtype=ember.complex64, requires_grad=True)
    opt = ember.optim.SGD([w], lr=2.0)
    first = None
    for _ in range(60):
        opt.zero_grad()
        loss = ((ember.fft.irfft(ember.fft.rfft(x) * w, n=32) - target) ** 2).mean()
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < 1e-6 * first
    np.testing.assert_allclose(w.detach().real.numpy(), np.linspace(1, 0, 17), atol=0.01)
    assert w.detach().imag.abs().max() < 1e-6  # the target filter is real: no imaginary part is learnt


def test_complex_matmul_matches_numpy():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    b = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    np.testing.assert_allclose((ember.tensor(a) @ ember.tensor(b)).numpy(), a @ b, rtol=1e-12)
    c64 = ember.tensor(a, dtype=ember.complex64)
    assert (c64 @ c64.transpose(-1, -2)).dtype == ember.complex64
    with pytest.raises(TypeError, match="matmul: expected both operands to have the same dtype, got complex128 and float64"):
        ember.tensor(a) @ ember.ones(4, 5, dtype=ember.float64)


@pytest.mark.parametrize("make", [lambda p: ember.optim.Adam(p, lr=0.1), lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9),
                                  lambda p: ember.optim.RMSprop(p, lr=0.01)])
def test_optimizers_step_a_complex_parameter_as_its_real_pairs(make):
    # PyTorch's optimizers view a complex parameter as real (view_as_real): each part has its own moments.
    rng = np.random.default_rng(1)
    start = rng.standard_normal(5) + 1j * rng.standard_normal(5)
    z = ember.tensor(start, requires_grad=True)
    pairs = ember.tensor(np.stack([start.real, start.imag], -1), requires_grad=True)
    opt_z, opt_p = make([z]), make([pairs])
    target = ember.tensor(rng.standard_normal(5) + 1j * rng.standard_normal(5))
    for _ in range(5):
        for opt, loss in ((opt_z, lambda: (z - target).abs().pow(3).sum()),
                          (opt_p, lambda: (ember.view_as_complex(pairs) - target).abs().pow(3).sum())):
            opt.zero_grad()
            loss().backward()
            opt.step()
    np.testing.assert_allclose(ember.view_as_real(z.detach()).numpy(), pairs.detach().numpy(), rtol=1e-12)
    (state,) = opt_z.state_dict()["state"].values()
    assert all(v.dtype == ember.complex128 for k, v in state.items() if k != "step" and v.dim() > 0)


def test_in_place_writes_into_complex_views_carry_gradients():
    # A slice of a complex tensor written in place (a spectral layer's out_ft[:, :k] = ...).
    w = ember.tensor([1 + 1j, 2 - 1j], dtype=ember.complex128, requires_grad=True)
    out = ember.zeros(4, dtype=ember.complex128)
    out[1:3] = w * 2
    out[3] = 1j
    assert out.requires_grad and out.tolist() == [0, 2 + 2j, 4 - 2j, 1j]
    dot(out, ember.tensor([[1.0, 1.0], [0.5, -1.0], [2.0, 3.0], [7.0, 7.0]], dtype=ember.float64)).backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.array([0.5 - 1j, 2 + 3j]))
    # Writes through views that change the dtype: .real, .imag and view_as_real of a complex tensor.
    z0 = ember.tensor([1 + 2j, 3 - 1j, -1 + 0.5j], dtype=ember.complex128, requires_grad=True)
    z = z0 * 1
    z.real.mul_(3)
    z.imag[1] = 5.0
    ember.view_as_real(z)[2, 1] = 0.0
    (z.abs() ** 2).sum().backward()
    x, y = z0.detach().numpy().real, z0.detach().numpy().imag
    # L = sum 9x^2 + y^2 over the imaginary parts not overwritten.
    np.testing.assert_allclose(z0.grad.numpy(), 18 * x + 1j * 2 * y * np.array([1, 0, 0]))
    with pytest.raises(TypeError, match="a complex value cannot be written into a float32 tensor"):
        ember.zeros(2)[0] = 1j


def test_complex_random_draws_as_in_torch():
    ember.manual_seed(0)
    r = ember.randn(20000, dtype=ember.complex128)
    assert r.dtype == ember.complex128 and r.shape == (20000,)
    # Normal parts of variance 1/2 each, so that E|z|^2 = 1.
    assert abs(r.real.var().item() - 0.5) < 0.02 and abs(r.imag.var().item() - 0.5) < 0.02
    u = ember.rand(3, 4, dtype=ember.cfloat, requires_grad=True)
    assert u.dtype == ember.complex64 and u.shape == (3, 4) and u.requires_grad
    parts = ember.view_as_real(u.detach())
    assert parts.min() >= 0 and parts.max() < 1
