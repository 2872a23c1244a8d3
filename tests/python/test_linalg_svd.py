"""ember.linalg's SVD/eigen family (the C++ ops of ops/linalg.cpp and linalg.py)
and nn.utils.parametrizations.orthogonal against torch (tests/fixtures/linalg_svd.json, written by
make_linalg_svd_fixtures.py): each case is one sign-invariant expression that runs unchanged under
both libraries; its output and the gradient of every floating input match torch's. Then what the
fixtures cannot show: finite-difference gradients, errors, aliases, non-contiguous inputs, and
properties (reconstruction, orthogonality, Moore-Penrose identities) on drawn matrices."""
import math
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from fixture_replay import load_cases, replay

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fixtures"))
from orthogonal_linear import orth, orth_weight  # noqa: E402  (shared with the fixture generator)

CASES = load_cases("linalg_svd.json")
# (output rtol, gradient rtol, atol) by dtype
TOLERANCE = {"float64": (1e-9, 1e-7, 1e-10), "float32": (2e-4, 2e-3, 2e-5), "int64": (0, 0, 0)}
L = ember.linalg
D = ember.float64




@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    replay(CASES[name], {"T": ember, "math": math, "orth": orth, "orth_weight": orth_weight}, by_dtype=TOLERANCE)


def rand(*shape, seed=0, requires_grad=True):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=D, requires_grad=requires_grad)


def flat(*tensors):
    return ember.cat([t.reshape(-1) for t in tensors])


# ---- finite differences (float64)

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 4, 2), (1, 1), (1, 3)])
def test_svd_qr_pinv_gradients_match_finite_differences(shape):
    a = rand(*shape)
    assert gradcheck(lambda x: (lambda r: flat(r.U @ ember.diag_embed(r.S) @ r.Vh, r.U ** 2, r.Vh ** 2, r.S))(
        L.svd(x, full_matrices=False)), (a,))
    assert gradcheck(lambda x: (lambda r: r.U[..., :1] @ r.Vh[..., :1, :])(L.svd(x)), (a,))
    assert gradcheck(L.svdvals, (a,))
    assert gradcheck(lambda x: (lambda r: flat(r.Q ** 2, r.R ** 2, r.Q @ r.R))(L.qr(x)), (a,))
    assert gradcheck(L.pinv, (a,))
    assert gradcheck(lambda x: L.matrix_norm(x, "nuc") + L.matrix_norm(x, 2) + L.cond(x), (a,))


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1)])
def test_eigh_matrix_exp_power_cond_gradients_match_finite_differences(shape):
    a = rand(*shape)
    # NB: eigh reads one triangle; its gradient is the symmetric one, so check on a symmetrised input
    assert gradcheck(lambda x: (lambda r: flat(r.eigenvalues, r.eigenvectors ** 2))(L.eigh(x + x.mT)), (a,))
    assert gradcheck(lambda x: L.eigvalsh(x + x.mT, "U"), (a,))
    assert gradcheck(L.matrix_exp, (a,))
    assert gradcheck(lambda x: L.matrix_exp(4 * x), (a,))
    well = rand(*shape, seed=1, requires_grad=False) * 0.1 + ember.eye(shape[-1], dtype=D) * 2
    assert gradcheck(lambda x: L.matrix_power(x * 0.1 + well, -3), (a,))
    assert gradcheck(lambda x: L.cond(x * 0.1 + well, "fro") + L.cond(x * 0.1 + well, math.inf), (a,))
    assert gradcheck(lambda x: L.pinv(x + x.mT, hermitian=True), (a,))


def test_lstsq_gradients_match_finite_differences():
    a, b = rand(5, 3), rand(5, 2, seed=1)
    assert gradcheck(lambda x, y: L.lstsq(x, y).solution, (a, b))
    assert gradcheck(lambda x, y: L.lstsq(x, y, driver="gelsd").residuals, (a, b))
    assert gradcheck(lambda x, y: L.lstsq(x.mT, y[:3]).solution, (a, b))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_second_derivatives_match_finite_differences(shape):
    # the C++ ops' backward formulas are differentiable ops: double backward works, as PyTorch's
    a = rand(*shape)
    assert gradgradcheck(L.svdvals, (a,))
    assert gradgradcheck(lambda x: (lambda r: flat(r.U ** 2, r.Vh ** 2, r.S))(L.svd(x, full_matrices=False)), (a,))
    assert gradgradcheck(lambda x: (lambda r: flat(r.Q, r.R))(L.qr(x)), (a,))
    sq = a[..., :3, :3]
    assert gradgradcheck(lambda x: (lambda r: flat(r.eigenvalues, r.eigenvectors ** 2))(L.eigh(x + x.mT)), (sq,))
    assert gradgradcheck(lambda x: L.matrix_norm(x, "nuc") + L.matrix_norm(x, 2), (a,))
    b = rand(*shape[:-2], 3, 2, seed=1)
    assert gradgradcheck(lambda x, y: L.solve_triangular(x + 3 * ember.eye(3, dtype=D), y, upper=True), (sq, b))


def test_solve_triangular_matches_numpy_and_reads_one_triangle():
    a = rand(2, 4, 4, requires_grad=False) + 4 * ember.eye(4, dtype=D)
    b = rand(4, 3, seed=1, requires_grad=False)
    for upper in (True, False):
        used = np.triu(a.numpy()) if upper else np.tril(a.numpy())
        np.testing.assert_allclose(L.solve_triangular(a, b, upper=upper).numpy(), np.linalg.solve(used, b.numpy()),
                                   rtol=1e-12)
        got = L.solve_triangular(a, b.mT, upper=upper, left=False).numpy()
        np.testing.assert_allclose(got @ used, np.broadcast_to(b.numpy().T, got.shape), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="Incompatible shapes of A and B for the equation AX = B"):
        L.solve_triangular(a, b.mT, upper=True)


def test_non_finite_matrices_raise_linalg_error_naming_the_batch_element():
    a = rand(3, 3, 3, requires_grad=False)
    a[1, 2, 0] = math.nan
    with pytest.raises(L.LinAlgError, match=r"linalg.svd: \(Batch element 1\): .*non-finite values"):
        L.svd(a)
    with pytest.raises(L.LinAlgError, match=r"linalg.eigh: \(Batch element 1\): .*non-finite values"):
        L.eigvalsh(a)
    assert issubclass(L.LinAlgError, RuntimeError)
    # an inf too (a deliberate difference: PyTorch returns NaN factors there, python/README.md)
    b = rand(2, 2, requires_grad=False)
    b[1, 0] = math.inf  # in the triangle eigh reads
    for fn in (L.svdvals, L.eigvalsh):
        with pytest.raises(L.LinAlgError, match="contained non-finite values"):
            fn(b)
    # the triangle eigh does not read may hold anything
    assert not ember.isnan(L.eigvalsh(a, UPLO="U")[1]).any()


def test_qr_gradient_errors_as_torch():
    a = rand(4, 3)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        L.qr(a, mode="complete").Q.sum().backward()
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        L.qr(a, mode="r").R.sum().backward()


# ---- shapes, dtypes, layouts

@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 4), (2, 4, 0), (3, 1, 1), (2, 5, 3), (2, 3, 5), (4, 4)])
def test_shapes_and_dtypes(shape, dtype):
    a = rand(*shape, requires_grad=False).to(dtype)
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    U, S, Vh = L.svd(a)
    assert (U.shape, S.shape, Vh.shape) == ((*shape[:-2], m, m), (*shape[:-2], k), (*shape[:-2], n, n))
    assert U.dtype == S.dtype == Vh.dtype == dtype
    U, S, Vh = L.svd(a, full_matrices=False)
    assert (U.shape, Vh.shape) == ((*shape[:-2], m, k), (*shape[:-2], k, n))
    Q, R = L.qr(a)
    assert (Q.shape, R.shape) == ((*shape[:-2], m, k), (*shape[:-2], k, n)) and Q.dtype == dtype
    assert L.pinv(a).shape == (*shape[:-2], n, m)
    assert L.matrix_rank(a).shape == shape[:-2] and L.matrix_rank(a).dtype == ember.int64
    if m == n:
        w, v = L.eigh(a)
        assert w.shape == (*shape[:-2], n) and v.shape == shape and w.dtype == dtype
        assert L.matrix_exp(a).shape == shape and L.matrix_exp(a).dtype == dtype
    tol = 1e-4 if dtype == ember.float32 else 1e-10
    if a.numel():
        np.testing.assert_allclose((U @ ember.diag_embed(S) @ Vh).numpy(), a.numpy(), atol=tol * 10)
        np.testing.assert_allclose(S.numpy(), np.linalg.svd(a.numpy(), compute_uv=False), rtol=tol, atol=tol)


def test_non_contiguous_inputs_give_the_contiguous_results():
    base = rand(2, 5, 4, requires_grad=False)
    t = base.mT  # [2, 4, 5], not contiguous
    assert not t.is_contiguous()
    c = t.contiguous()
    np.testing.assert_allclose(L.svdvals(t).numpy(), L.svdvals(c).numpy(), rtol=1e-14)
    np.testing.assert_allclose(L.pinv(t).numpy(), L.pinv(c).numpy(), rtol=1e-12, atol=1e-14)
    sq = base[:, :4, :4].mT
    np.testing.assert_allclose(L.matrix_exp(sq).numpy(), L.matrix_exp(sq.contiguous()).numpy(), rtol=1e-13)
    np.testing.assert_allclose(L.eigvalsh(sq).numpy(), L.eigvalsh(sq.contiguous()).numpy(), rtol=1e-13)
    q, r = L.qr(t)
    np.testing.assert_allclose((q @ r).numpy(), c.numpy(), atol=1e-13)


# ---- errors name the op

@pytest.mark.parametrize("call, op", [
    (lambda a: L.svd(a), "linalg.svd"), (lambda a: L.svdvals(a), "linalg.svdvals"), (lambda a: L.eigh(a), "linalg.eigh"),
    (lambda a: L.eigvalsh(a), "linalg.eigvalsh"), (lambda a: L.qr(a), "linalg.qr"),
    (lambda a: L.matrix_exp(a), "linalg.matrix_exp"), (lambda a: L.matrix_rank(a), "linalg.matrix_rank"),
    (lambda a: L.cond(a), "linalg.cond"), (lambda a: L.matrix_norm(a, "nuc"), "linalg.matrix_norm")])
def test_errors_name_the_op(call, op):
    with pytest.raises(RuntimeError, match=f"{op}: The input tensor A must have at least 2 dimensions"):
        call(ember.ones(3))
    with pytest.raises(NotImplementedError, match=f"{op}: Expected a floating point or complex tensor as input. "
                                                  "Got Long"):
        call(ember.ones(3, 3, dtype=ember.int64))
    with pytest.raises(NotImplementedError, match=f"{op}: complex inputs are not supported"):
        call(ember.ones(3, 3, dtype=ember.complex64))


def test_other_errors_are_torchs():
    with pytest.raises(RuntimeError, match="linalg.eigh: A must be batches of square matrices, but they are 3 by 2"):
        L.eigh(ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: A must be batches of square matrices"):
        L.matrix_exp(ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'x'"):
        L.qr(ember.ones(3, 3), mode="x")
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        L.eigh(ember.ones(3, 3), UPLO="X")
    with pytest.raises(RuntimeError, match=r"linalg.pinv\(Float\{\[3\]\}\): expected a tensor with 2 or more"):
        L.pinv(ember.ones(3))
    with pytest.raises(RuntimeError, match="linalg.matrix_power: A must be batches of square matrices"):
        L.matrix_power(ember.ones(3, 2), 2)
    with pytest.raises(NotImplementedError, match="linalg.inv: Expected a floating point"):
        L.matrix_power(ember.ones(3, 3, dtype=ember.int64), -1)
    with pytest.raises(RuntimeError, match=r"torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)"):
        L.lstsq(ember.ones(3, 2), ember.ones(4, 2))
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        L.lstsq(ember.ones(3, 2), ember.ones(3, 2), driver="foo")
    with pytest.raises(RuntimeError, match=r"linalg.cond\(ord=fro\): A must be batches of square matrices"):
        L.cond(ember.ones(3, 2), "fro")
    with pytest.raises(RuntimeError, match="linalg.cond got an invalid norm type: 3"):
        L.cond(ember.ones(3, 3), 3)
    with pytest.raises(NotImplementedError, match="linalg.svd: Low precision dtypes not supported. Got Half"):
        L.svd(ember.ones(3, 3, dtype=ember.float16))


# ---- aliases and result types

def test_aliases_and_named_tuples():
    a = rand(4, 3, requires_grad=False)
    r = L.svd(a)
    assert type(r).__name__ == "linalg_svd" and r._fields == ("U", "S", "Vh")
    legacy = ember.svd(a)
    assert type(legacy).__name__ == "svd" and legacy._fields == ("U", "S", "V")
    np.testing.assert_allclose(np.abs(legacy.V.numpy()), np.abs(L.svd(a, False).Vh.mT.numpy()), rtol=1e-12)
    np.testing.assert_allclose(a.svd().S.numpy(), L.svdvals(a).numpy())
    assert L.eigh(a[:3]). _fields == ("eigenvalues", "eigenvectors")
    assert type(L.qr(a)).__name__ == "linalg_qr" and L.qr(a)._fields == ("Q", "R")
    assert L.lstsq(a, a)._fields == ("solution", "residuals", "rank", "singular_values")
    # torch 2.15 removed torch.qr / Tensor.qr; Ember keeps them as linalg.qr with some -> mode
    q, r = ember.qr(a)
    assert q.shape == (4, 3) and ember.qr(a, some=False).Q.shape == (4, 4) and a.qr().R.shape == (3, 3)
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-14)
    np.testing.assert_allclose(ember.matrix_power(a[:3], 3).numpy(), L.matrix_power(a[:3], 3).numpy())
    np.testing.assert_allclose(a[:3].matrix_exp().numpy(), L.matrix_exp(a[:3]).numpy())
    assert L.matrix_power(a[:3], 1) is not a[:3]
    assert L.qr(a, mode="r").Q.shape == (0,)


def test_cond_of_singular_matrix_is_inf_not_an_error():
    a = ember.tensor([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]], dtype=D)
    got = L.cond(a, "fro")
    assert math.isinf(got[0].item()) and got[1].item() == pytest.approx(2.5)


# ---- properties on drawn matrices

matrix_shapes = st.tuples(st.lists(st.integers(0, 2), max_size=2), st.integers(1, 5), st.integers(1, 5))


def drawn(batch, m, n, seed):
    return np.random.default_rng(seed).standard_normal((*batch, m, n))


@settings()
@given(matrix_shapes, st.integers(0, 2 ** 32 - 1), st.sampled_from([ember.float32, ember.float64]))
def test_svd_properties(shape, seed, dtype):
    batch, m, n = shape
    a = ember.tensor(drawn(batch, m, n, seed), dtype=dtype)
    tol = 1e-4 if dtype == ember.float32 else 1e-11
    U, S, Vh = L.svd(a, full_matrices=False)
    s = S.numpy()
    assert (s >= 0).all() and (np.diff(s, axis=-1) <= 0).all()
    np.testing.assert_allclose((U @ ember.diag_embed(S) @ Vh).numpy(), a.numpy(), atol=tol * 10)
    k = min(m, n)
    eye = np.eye(k)
    np.testing.assert_allclose((U.mT @ U).numpy(), np.broadcast_to(eye, (*batch, k, k)), atol=tol)
    np.testing.assert_allclose((Vh @ Vh.mT).numpy(), np.broadcast_to(eye, (*batch, k, k)), atol=tol)
    Uf, _, Vhf = L.svd(a)
    np.testing.assert_allclose((Uf.mT @ Uf).numpy(), np.broadcast_to(np.eye(m), (*batch, m, m)), atol=tol)
    np.testing.assert_allclose((Vhf @ Vhf.mT).numpy(), np.broadcast_to(np.eye(n), (*batch, n, n)), atol=tol)


@settings()
@given(matrix_shapes, st.integers(0, 2 ** 32 - 1))
def test_qr_and_pinv_properties(shape, seed):
    batch, m, n = shape
    a = ember.tensor(drawn(batch, m, n, seed), dtype=D)
    Q, R = L.qr(a)
    k = min(m, n)
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.broadcast_to(np.eye(k), (*batch, k, k)), atol=1e-12)
    assert (np.tril(R.numpy(), -1) == 0).all()
    np.testing.assert_allclose((Q @ R).numpy(), a.numpy(), atol=1e-12)
    p = L.pinv(a)
    an, pn = a.numpy(), p.numpy()
    np.testing.assert_allclose(an @ pn @ an, an, atol=1e-9)
    np.testing.assert_allclose(pn @ an @ pn, pn, atol=1e-9)
    np.testing.assert_allclose(np.swapaxes(an @ pn, -1, -2), an @ pn, atol=1e-9)
    np.testing.assert_allclose(np.swapaxes(pn @ an, -1, -2), pn @ an, atol=1e-9)


@settings()
@given(st.lists(st.integers(0, 2), max_size=2), st.integers(1, 5), st.integers(0, 2 ** 32 - 1),
       st.floats(0.01, 8.0))
def test_eigh_and_matrix_exp_properties(batch, n, seed, scale):
    x = drawn(batch, n, n, seed)
    sym = ember.tensor(x + np.swapaxes(x, -1, -2), dtype=D)
    w, v = L.eigh(sym)
    assert (np.diff(w.numpy(), axis=-1) >= 0).all()
    np.testing.assert_allclose((v @ ember.diag_embed(w) @ v.mT).numpy(), sym.numpy(), atol=1e-11)
    np.testing.assert_allclose((v.mT @ v).numpy(), np.broadcast_to(np.eye(n), (*batch, n, n)), atol=1e-12)
    a = ember.tensor(x / max(1.0, np.abs(x).max(initial=0.0)) * scale, dtype=D)
    prod = (L.matrix_exp(a) @ L.matrix_exp(-a)).numpy()
    np.testing.assert_allclose(prod, np.broadcast_to(np.eye(n), prod.shape), atol=1e-8 * math.exp(2 * n * scale / 4))


# ---- parametrizations.orthogonal

@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder", None])
@pytest.mark.parametrize("use_trivialization", [True, False])
@pytest.mark.parametrize("features", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal_keeps_a_linear_weight_orthogonal_through_sgd(orthogonal_map, use_trivialization, features):
    ember.manual_seed(0)
    lin = ember.nn.Linear(features[1], features[0])
    ember.nn.utils.parametrizations.orthogonal(lin, orthogonal_map=orthogonal_map,
                                               use_trivialization=use_trivialization)
    keys = list(lin.state_dict())
    assert "parametrizations.weight.original" in keys and "bias" in keys
    assert ("parametrizations.weight.0.base" in keys) == use_trivialization
    opt = ember.optim.SGD(lin.parameters(), lr=0.1)
    before = lin.weight.detach().numpy().copy()
    for _ in range(3):
        loss = (lin(ember.randn(6, features[1])) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    w = lin.weight.detach().numpy()
    gram = w.T @ w if features[0] >= features[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(min(features)), atol=1e-5)
    assert not np.allclose(w, before)  # it trained
    np.testing.assert_allclose(lin(ember.ones(1, features[1])).detach().numpy(),
                               (ember.ones(1, features[1]) @ lin.weight.mT + lin.bias).detach().numpy(), atol=1e-6)


def test_orthogonal_errors_and_assignment():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3), orthogonal_map="qr")
    lin = ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3))
    q = L.qr(ember.randn(3, 3)).Q
    lin.weight = q  # right_inverse: an orthogonal value is kept as it is
    np.testing.assert_allclose(lin.weight.detach().numpy(), q.numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        lin.weight = ember.randn(2, 3)
    lin = ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3), orthogonal_map="cayley",
                                                     use_trivialization=False)
    with pytest.raises(NotImplementedError, match="It is not possible to assign to the matrix exponential"):
        lin.weight = q
