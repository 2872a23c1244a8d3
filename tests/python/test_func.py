"""ember.func and ember.autograd.functional: against PyTorch's torch.func and
torch.autograd.functional on the same functions and inputs (tests/python/func_cases.py; fixture
tests/fixtures/func/torch_func.npz), against finite differences, and as users compose them: nested,
under no_grad, differentiated through by backward(), with aux outputs, dict arguments and tied
weights."""
import os

import numpy as np
import pytest

import ember
import ember.autograd.functional as AF
from ember.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp

import func_cases

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "func", "torch_func.npz")


def t(a, requires_grad=False):
    return ember.tensor(np.asarray(a), dtype=ember.float64, requires_grad=requires_grad)


def test_every_transform_gives_pytorchs_values():
    want = np.load(FIXTURE)
    got = func_cases.compute(ember)
    assert sorted(got) == sorted(k for k in want.files if k != "torch_version")
    for name, value in got.items():
        assert value.shape == want[name].shape, (name, value.shape, want[name].shape)
        np.testing.assert_allclose(value, want[name], rtol=1e-11, atol=1e-13, err_msg=name)


def finite_difference_jacobian(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step.flat[j] = eps
        cols.append((np.asarray(f(x + step)) - np.asarray(f(x - step))).reshape(-1) / (2 * eps))
    return np.stack(cols, -1)


@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 3), (2, 1, 2)])
def test_jacobians_of_every_rank_agree_with_finite_differences(shape):
    rng = np.random.default_rng(len(shape))
    x0 = rng.standard_normal(shape)
    f = lambda x: (x.exp() * x.cos()).cumsum(-1) if x.dim() else x.exp() * x.cos()  # noqa: E731
    numeric = finite_difference_jacobian(lambda a: f(t(a)).numpy(), x0)
    for transform in (jacrev, jacfwd):
        jac = transform(f)(t(x0))
        assert tuple(jac.shape) == shape + shape
        np.testing.assert_allclose(jac.numpy().reshape(numeric.shape), numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(AF.jacobian(f, t(x0), strategy="forward-mode").numpy().reshape(numeric.shape),
                               numeric, rtol=1e-6, atol=1e-8)


def test_hessian_of_a_quadratic_form_is_its_symmetric_matrix():
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, -1.0], [0.0, 4.0, 1.0]])
    f = lambda x: x @ t(a) @ x  # noqa: E731
    x = t([0.3, -1.0, 2.0])
    np.testing.assert_allclose(hessian(f)(x).numpy(), a + a.T, rtol=1e-14)
    np.testing.assert_allclose(AF.hessian(f, x).numpy(), a + a.T, rtol=1e-14)
    out, hv = AF.hvp(f, x, t([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(hv.numpy(), (a + a.T) @ [1.0, 0.0, 2.0], rtol=1e-14)
    assert float(out) == pytest.approx(float(f(x)))


def test_argnums_aux_and_dict_arguments():
    x, y = t([1.0, 2.0]), t([3.0, -1.0])
    f = lambda x, y: ((x * y).sum(), {"norm": x.norm()})  # noqa: E731
    (gx, gy), aux = grad(f, argnums=(0, 1), has_aux=True)(x, y)
    np.testing.assert_array_equal(gx.numpy(), y.numpy())
    np.testing.assert_array_equal(gy.numpy(), x.numpy())
    assert float(aux["norm"]) == pytest.approx(5 ** 0.5) and not aux["norm"].requires_grad
    gy_only = grad(lambda x, y: (x * y).sum(), argnums=-1)(x, y)
    np.testing.assert_array_equal(gy_only.numpy(), x.numpy())
    g = grad(lambda p: (p["a"] ** 2).sum() + p["b"][0] * p["b"][1])({"a": x, "b": (y[0], y[1])})
    np.testing.assert_array_equal(g["a"].numpy(), 2 * x.numpy())
    assert isinstance(g["b"], tuple) and [float(v) for v in g["b"]] == [-1.0, 3.0]


def test_results_need_no_grad_mode_and_leave_the_inputs_alone():
    x = t([0.5, 1.5])
    with ember.no_grad():
        g, value = grad_and_value(lambda x: (x ** 2).sum())(x)
    np.testing.assert_array_equal(g.numpy(), [1.0, 3.0])
    assert not g.requires_grad and not value.requires_grad and not x.requires_grad and x.grad is None


def test_transforms_nest_and_backward_differentiates_through_them():
    x = t([0.4, -0.3], requires_grad=True)
    f = lambda x: (x.sin() * x.sum()).sum()  # noqa: E731
    g = grad(f)(x)  # x is in a graph: the gradient keeps one
    assert g.requires_grad
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), hessian(f)(x.detach()).numpy().sum(0), rtol=1e-12)
    third = grad(lambda s: grad(grad(lambda u: u ** 4))(s))(t(1.5))  # d3/ds3 s^4 = 24 s
    assert float(third) == pytest.approx(36.0)


def test_vjp_and_jvp_give_functions_and_products_of_any_structure():
    x, y = t([1.0, 2.0, 3.0]), t([0.5, -0.5, 2.0])
    f = lambda x, y: (x * y, x.exp())  # noqa: E731
    (prod, expx), vjp_fn = vjp(f, x, y)
    gx, gy = vjp_fn((t([1.0, 1.0, 1.0]), t([0.0, 1.0, 0.0])))
    np.testing.assert_allclose(gx.numpy(), y.numpy() + [0.0, np.exp(2.0), 0.0], rtol=1e-15)
    np.testing.assert_array_equal(gy.numpy(), x.numpy())
    gx2, _ = vjp_fn((t([2.0, 2.0, 2.0]), t([0.0, 0.0, 0.0])))  # callable again
    np.testing.assert_array_equal(gx2.numpy(), 2 * y.numpy())
    (out_prod, _), (tan_prod, tan_exp) = jvp(f, (x, y), (t([1.0, 0.0, 0.0]), t([0.0, 0.0, 1.0])))
    np.testing.assert_array_equal(tan_prod.numpy(), [0.5, 0.0, 3.0])
    np.testing.assert_allclose(tan_exp.numpy(), [np.e, 0.0, 0.0], rtol=1e-15)
    with pytest.raises(ValueError, match=r"cotangent 0 has shape \[2\].*shape \[3\]"):
        vjp_fn((t([1.0, 1.0]), t([0.0, 0.0, 0.0])))
    with pytest.raises(ValueError, match="expected 2 tangent"):
        jvp(f, (x, y), (t([1.0, 0.0, 0.0]),))


def test_functional_call_swaps_parameters_and_buffers_for_one_call_only():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.BatchNorm1d(2)).double()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    weight = t([[1.0, 0.0], [0.0, 2.0]])
    model.eval()
    out = functional_call(model, ({"0.weight": weight, "0.bias": t([0.0, 0.0])},
                                  {"1.running_mean": t([1.0, 1.0])}), (t([[3.0, 4.0]]),))
    bn = model[1]
    expected = (np.array([[3.0, 8.0]]) - 1.0) / np.sqrt(1.0 + bn.eps) * bn.weight.detach().numpy() + bn.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-14)
    for k, v in model.state_dict().items():  # restored, the same tensors
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())
    assert isinstance(model[0].weight, ember.nn.Parameter)
    with pytest.raises(KeyError, match="'0.wieght'"):
        functional_call(model, {"0.wieght": weight}, (t([[3.0, 4.0]]),))
    with pytest.raises(RuntimeError, match="missing"):
        functional_call(model, {"0.weight": weight}, (t([[3.0, 4.0]]),), strict=True)
    with pytest.raises(ValueError, match="more than one"):
        functional_call(model, ({"0.weight": weight}, {"0.weight": weight}), (t([[3.0, 4.0]]),))
    with pytest.raises(ValueError, match="does not match weight"):  # a failing call restores too
        functional_call(model, {"0.weight": t([[1.0, 2.0, 3.0]])}, (t([[3.0, 4.0]]),))
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), before["0.weight"].numpy())


def test_functional_call_keeps_a_tie_tied():
    class Tied(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = ember.nn.Embedding(3, 2)
            self.out = ember.nn.Linear(2, 3, bias=False)
            self.out.weight = self.embed.weight

        def forward(self, i):
            return self.out(self.embed(i))

    model = Tied().double()
    w = t([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    out = functional_call(model, {"embed.weight": w}, (ember.tensor([2]),))
    np.testing.assert_array_equal(out.detach().numpy(), [[1.0, 1.0, 2.0]])  # both uses took w
    with pytest.raises(ValueError, match="tied"):
        functional_call(model, {"embed.weight": w, "out.weight": w * 2}, (ember.tensor([2]),))


def test_errors_name_what_is_wrong():
    with pytest.raises(RuntimeError, match=r"one-element tensor, got a tensor of shape \[2\]"):
        grad(lambda x: x * 2)(t([1.0, 2.0]))
    with pytest.raises(TypeError, match="only floating-point"):
        grad(lambda x: x.sum())(ember.tensor([1, 2]))
    with pytest.raises(ValueError, match="argnums 2 is out of range"):
        grad(lambda x, y: x.sum(), argnums=2)(t([1.0]), t([2.0]))
    with pytest.raises(ValueError, match=r"must return a pair \(output, aux\)"):
        grad(lambda x: x.sum(), has_aux=True)(t([1.0]))
    with pytest.raises(RuntimeError, match="independent of input 0. This is not allowed in strict mode"):
        AF.jacobian(lambda x: t([1.0, 2.0]), t([1.0]), strict=True)
    np.testing.assert_array_equal(AF.jacobian(lambda x: t([1.0, 2.0]), t([1.0])).numpy(), [[0.0], [0.0]])
