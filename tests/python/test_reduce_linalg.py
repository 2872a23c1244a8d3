"""scatter_reduce, mode and ember.linalg (python/ember/_scatter_reduce.py, ops/reduce_composite.cpp, _lu.py, linalg.py)
against torch (tests/fixtures/reduce_linalg.json, written by make_reduce_linalg_fixtures.py): each
case is one expression that runs unchanged under both libraries; its output and the gradient of
every floating input match torch's (float64: outputs to 1e-10, gradients to 1e-8 relative; float32
to float32's precision). Then what the fixtures cannot show: errors, aliases, named tuples."""
import math

import numpy as np
import pytest

import ember
from fixture_replay import load_cases, replay

CASES = load_cases("reduce_linalg.json")
# (output rtol, gradient rtol, atol) by dtype
TOLERANCE = {"float64": (1e-10, 1e-8, 1e-12), "float32": (2e-5, 1e-4, 1e-5)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    replay(CASES[name], {"T": ember, "math": math}, by_dtype=TOLERANCE)


# ---- scatter_reduce

def test_scatter_reduce_errors_name_the_argument():
    x, i, s = ember.zeros(2, 3), ember.tensor([[0, 1]]), ember.ones(1, 2)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got max"):
        ember.scatter_reduce(x, 1, i, s, "max")
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        x.scatter_reduce(1, i, s.double(), "sum")
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as self tensor"):
        x.scatter_reduce(1, ember.tensor([0, 1]), s, "sum")
    with pytest.raises(RuntimeError, match=r"Expected index \[3, 2\] to be no larger than self \[2, 3\] apart from "
                                           r"dimension 1 and to be no larger size than src \[1, 2\]"):
        x.scatter_reduce(1, ember.zeros(3, 2, dtype=ember.int64), s, "sum")
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        x.scatter_reduce(1, ember.zeros(1, 2), s, "sum")


def test_scatter_reduce_in_place_writes_through_and_int32_index_works():
    x = ember.zeros(2, 4)
    row = x[1]
    row.scatter_reduce_(0, ember.tensor([3, 3, 0], dtype=ember.int32), ember.tensor([2.0, 5.0, -1.0]), "amax",
                        include_self=False)
    assert x.tolist() == [[0.0] * 4, [-1.0, 0.0, 0.0, 5.0]]


def test_scatter_reduce_prod_gradient_with_zeros_is_the_exclusive_product():
    # three values into one position, one of them 0: only the 0 gets a gradient (the others' product)
    s = ember.tensor([2.0, 0.0, 3.0], dtype=ember.float64, requires_grad=True)
    out = ember.scatter_reduce(ember.ones(1, dtype=ember.float64), 0, ember.tensor([0, 0, 0]), s, "prod")
    out.backward(ember.ones(1, dtype=ember.float64))
    assert out.tolist() == [0.0] and s.grad.tolist() == [0.0, 6.0, 0.0]


# ---- mode

def test_mode_is_a_named_tuple_like_max_and_rejects_empty_dims():
    x = ember.tensor([[2.0, 1.0, 2.0, 1.0, 3.0]])
    got = ember.mode(x)
    # as torch.return_types: one class per op (mode, max), the same fields
    assert type(got).__name__ == "mode" and got._fields == ember.max(x, 1)._fields == ("values", "indices")
    assert got.values.tolist() == [1.0] and got.indices.tolist() == [3]  # smallest value, last index
    values, indices = x.mode(0)
    assert indices.tolist() == [0] * 5
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero size."):
        ember.mode(ember.zeros(2, 0), 1)


# ---- linalg

def test_linalg_is_a_module_and_the_aliases_are_its_functions():
    a = ember.tensor([[4.0, 1.0], [2.0, 3.0]], dtype=ember.float64)
    assert ember.linalg.det(a).item() == pytest.approx(10.0)
    assert ember.det(a).item() == a.det().item() == pytest.approx(10.0)
    assert ember.logdet(a).item() == a.logdet().item() == pytest.approx(math.log(10.0))
    sign, logabs = ember.slogdet(a)
    assert type(ember.slogdet(a)).__name__ == "slogdet" and ember.slogdet(a)._fields == ("sign", "logabsdet")
    assert sign.item() == 1.0 and logabs.item() == pytest.approx(math.log(10.0))
    np.testing.assert_allclose(ember.inverse(a).numpy(), np.linalg.inv(a.numpy()), rtol=1e-14)
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(a.numpy()), rtol=1e-14)
    spd = a @ a.mT
    lower = ember.linalg.cholesky(spd)
    # NB: torch.cholesky (removed in PyTorch 2.x) is kept as torch 1.x had it: upper positional
    np.testing.assert_array_equal(ember.cholesky(spd).numpy(), lower.numpy())
    np.testing.assert_array_equal(ember.cholesky(spd, True).numpy(), lower.mT.numpy())
    np.testing.assert_array_equal(spd.cholesky(upper=True).numpy(), lower.mT.numpy())
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)


SINGULAR = [[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 1.0, 1.0]]


def test_inv_and_solve_of_a_singular_matrix_raise_as_torch():
    a = ember.tensor(SINGULAR, dtype=ember.float64)
    with pytest.raises(ember.linalg.LinAlgError, match=r"^linalg.inv: The diagonal element 3 is zero, the inversion "
                                                       r"could not be completed because the input matrix is singular.$"):
        ember.linalg.inv(a)
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 3 is zero"):
        ember.inverse(ember.stack([ember.eye(3, dtype=ember.float64), a]))
    with pytest.raises(RuntimeError, match="torch.linalg.solve: The solver failed because the input matrix is singular."):
        ember.linalg.solve(a, ember.ones(3, dtype=ember.float64))
    assert ember.linalg.det(a).item() == 0.0
    sign, logabs = ember.linalg.slogdet(a)
    assert sign.item() == 0.0 and logabs.item() == -math.inf


def test_det_gradient_at_a_singular_matrix_is_the_adjugate():
    # NB: torch 2.15 returns 0 here (even for diag(1, 0), whose det grows along A[1, 1]); Ember's
    # gradient is the derivative, adj(A)^T, where the factorisation's zero pivot is the last one.
    for rows in ([[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 0.0]], SINGULAR):
        a = ember.tensor(rows, dtype=ember.float64, requires_grad=True)
        ember.linalg.det(a).backward()
        m = np.array(rows)
        cofactors = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) if len(m) > 1 else 1.0
                               for j in range(len(m))] for i in range(len(m))])
        np.testing.assert_allclose(a.grad.numpy(), cofactors, atol=1e-12, err_msg=str(rows))


def test_cholesky_of_a_matrix_that_is_not_positive_definite_names_the_minor():
    with pytest.raises(ember.linalg.LinAlgError, match=r"^linalg.cholesky: The factorization could not be completed "
                                                       r"because the input is not positive-definite \(the leading "
                                                       r"minor of order 2 is not positive-definite\).$"):
        ember.linalg.cholesky(ember.tensor([[1.0, 2.0], [2.0, 1.0]]))
    batch = ember.stack([ember.eye(3), -ember.eye(3)])
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): .*\(the leading minor of order 1 is not"):
        ember.linalg.cholesky(batch)
    with pytest.raises(RuntimeError, match="leading minor of order 1"):
        ember.linalg.cholesky(ember.tensor([[math.nan]]))


@pytest.mark.parametrize("fn", ["det", "slogdet", "inv", "cholesky"])
def test_non_square_and_integer_matrices_are_refused(fn):
    f = getattr(ember.linalg, fn)
    with pytest.raises(RuntimeError, match=f"linalg.{fn}: A must be batches of square matrices, but they are 2 by 3 matrices"):
        f(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match=f"linalg.{fn}: The input tensor A must have at least 2 dimensions."):
        f(ember.ones(3))
    with pytest.raises(NotImplementedError, match=f"linalg.{fn}: Expected a floating point or complex tensor as input. Got Long"):
        f(ember.ones(2, 2, dtype=ember.int64))


def test_solve_checks_shapes_and_dtypes():
    a = ember.eye(2)
    with pytest.raises(RuntimeError, match=r"linalg.solve: Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1\)"):
        ember.linalg.solve(a, ember.ones(3))
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype, but found A of type Float and B of type Double"):
        ember.linalg.solve(a, ember.ones(2, 2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match=r"XA = B \(2x2 and 2x3\)"):
        ember.linalg.solve(a, ember.ones(2, 3), left=False)


def test_norm_errors():
    a = ember.ones(2, 3)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order 3 not supported."):
        ember.linalg.matrix_norm(a, 3)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: dim must be a 2-tuple. Got 1"):
        ember.linalg.norm(a, "fro", dim=1)
    with pytest.raises(RuntimeError, match="the input must be 1D or 2D. Got 3D."):
        ember.linalg.norm(ember.ones(2, 2, 2), 1)
    with pytest.raises(NotImplementedError, match="linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"):
        ember.linalg.vector_norm(ember.ones(3, dtype=ember.int64))


def test_linalg_on_float32_stays_float32():
    a = ember.tensor([[0.0, 2.0], [3.0, 1.0]])
    for out in (ember.linalg.det(a), ember.linalg.inv(a), ember.linalg.solve(a, ember.ones(2)),
                ember.linalg.slogdet(a).logabsdet, ember.linalg.cholesky(a @ a.mT + ember.eye(2))):
        assert out.dtype == ember.float32
