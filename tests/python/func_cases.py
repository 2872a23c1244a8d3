"""The functions and inputs of the function-transform tests, written once for either library:
`lib` is ember or torch (tests/fixtures/func/make_func_fixtures.py runs them under PyTorch; the
test under Ember). Each case returns a flat dict name -> array of what PyTorch's torch.func and
torch.autograd.functional give."""
import numpy as np

RNG = np.random.default_rng(7)
X = RNG.standard_normal(4)
Y = RNG.standard_normal((4, 3))
Z = RNG.standard_normal(3)
V = RNG.standard_normal(4)
W1 = RNG.standard_normal((5, 4)) * 0.5
B1 = RNG.standard_normal(5) * 0.1
W2 = RNG.standard_normal((2, 5)) * 0.5
B2 = RNG.standard_normal(2) * 0.1
TARGET = RNG.standard_normal((3, 2))
BATCH = RNG.standard_normal((3, 4))


def scalar_fn(x):
    return (x.sin() ** 2 * x.exp()).sum()


def pair_fn(x, y):
    return (x @ y).tanh()


def softmax_fn(x):
    return x.softmax(-1)


def lse_fn(x):
    return x.logsumexp(0)


def compute(lib):
    func, functional = lib.func, lib.autograd.functional
    t = lambda a: lib.tensor(a, dtype=lib.float64)  # noqa: E731
    x, y, z, v = t(X), t(Y), t(Z), t(V)
    out = {}
    out["grad"] = func.grad(scalar_fn)(x)
    g, value = func.grad_and_value(scalar_fn)(x)
    out["grad_and_value.value"] = value
    out["hessian"] = func.hessian(scalar_fn)(x)
    jx, jy = func.jacrev(pair_fn, argnums=(0, 1))(x, y)
    out["jacrev.x"], out["jacrev.y"] = jx, jy
    fx, fy = func.jacfwd(pair_fn, argnums=(0, 1))(x, y)
    out["jacfwd.x"], out["jacfwd.y"] = fx, fy
    out["jacrev.softmax"] = func.jacrev(softmax_fn)(x)
    value, vjp_fn = func.vjp(pair_fn, x, y)
    out["vjp.x"], out["vjp.y"] = vjp_fn(z)
    value, tangent_out = func.jvp(pair_fn, (x, y), (v, t(Y * 0.5)))
    out["jvp"] = tangent_out
    out["grad.grad"] = func.grad(func.grad(lambda s: (s ** 3).sin()))(t(0.7))
    model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).double()
    params = {"0.weight": t(W1), "0.bias": t(B1), "2.weight": t(W2), "2.bias": t(B2)}
    loss = lambda p, xb: ((func.functional_call(model, p, (xb,)) - t(TARGET)) ** 2).mean()  # noqa: E731
    for name, grad in func.grad(loss)(params, t(BATCH)).items():
        out[f"functional_call.grad.{name}"] = grad
    out["functional.jacobian.x"], out["functional.jacobian.y"] = functional.jacobian(pair_fn, (x, y))
    out["functional.hessian"] = functional.hessian(lse_fn, x)
    out["functional.vhp"] = functional.vhp(lse_fn, x, v)[1]
    out["functional.hvp"] = functional.hvp(lse_fn, x, v)[1]
    out["functional.vjp"] = functional.vjp(softmax_fn, x, v)[1]
    out["functional.jvp"] = functional.jvp(softmax_fn, x, v)[1]
    return {k: np.asarray(val.detach().numpy()) for k, val in out.items()}
