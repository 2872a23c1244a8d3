"""ember.linalg against NumPy's LAPACK and against its own identities: det, slogdet, inv, solve and
cholesky of drawn batches (any leading dims, any layout) of invertible matrices that need pivoting
(diagonally dominant ones with their rows shuffled and signs flipped), det(AB) = det(A) det(B),
A inv(A) = I, solve(A, A X) = X; gradients against central differences."""
import numpy as np
from hypothesis import given, strategies as st

import ember
from reference import assert_close, check_gradients
from strategies import layout, shapes

# NB: not "expanded": a stride-0 copy of a row would make the matrix singular.
LAYOUTS = ("contiguous", "permuted", "strided")


@st.composite
def invertible(draw, batch=None, n=None):
    """A float64 batch of n x n matrices, well conditioned, whose LU must swap rows: M + (n + 1) I
    (|M| <= 1) with its rows permuted and negated at random."""
    batch = draw(shapes(max_dims=2, max_side=3)) if batch is None else batch
    n = draw(st.integers(1, 5)) if n is None else n
    m = draw(st.lists(st.floats(-1, 1), min_size=int(np.prod(batch, dtype=np.int64)) * n * n,
                      max_size=int(np.prod(batch, dtype=np.int64)) * n * n))
    a = np.array(m, dtype=np.float64).reshape(*batch, n, n) + (n + 1) * np.eye(n)
    rows = draw(st.permutations(range(n)))
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    return a[..., list(rows), :] * signs[:, None]


@given(data=st.data())
def test_det_slogdet_inv_match_numpy(data):
    drawn = data.draw(layout(data.draw(invertible()), layouts=LAYOUTS))
    t, a = drawn.tensor, drawn.array
    assert_close(ember.linalg.det(t), np.linalg.det(a), what="det")
    sign, logabs = np.linalg.slogdet(a)
    got = ember.linalg.slogdet(t)
    assert_close(got.sign, sign, what="slogdet sign")
    assert_close(got.logabsdet, logabs, what="slogdet logabsdet")
    assert_close(ember.linalg.inv(t), np.linalg.inv(a), what="inv")
    assert_close(t @ ember.linalg.inv(t), np.broadcast_to(np.eye(a.shape[-1]), a.shape), atol=1e-12, what="A inv(A)")


@given(data=st.data())
def test_det_of_a_product_is_the_product_of_dets(data):
    a = data.draw(invertible())
    b = data.draw(invertible(batch=a.shape[:-2], n=a.shape[-1]))
    ta, tb = ember.tensor(a), ember.tensor(b)
    assert_close(ember.linalg.det(ta @ tb), (ember.linalg.det(ta) * ember.linalg.det(tb)).numpy(), what="det(AB)")


@given(data=st.data())
def test_solve_recovers_x(data):
    a = data.draw(invertible())
    k = data.draw(st.integers(1, 3))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    x, y = rng.standard_normal(a.shape[:-1] + (k,)), rng.standard_normal(a.shape[:-2] + (k, a.shape[-1]))
    ta = ember.tensor(a)
    assert_close(ember.linalg.solve(ta, ta @ ember.tensor(x)), x, what="solve(A, A X)")
    assert_close(ember.linalg.solve(ta, ember.tensor(y) @ ta, left=False), y, what="solve(A, Y A, left=False)")
    assert_close(ember.linalg.solve(ta, ember.tensor(x[..., 0])), np.linalg.solve(a, x)[..., 0], what="solve vector")


@given(data=st.data())
def test_cholesky_matches_numpy(data):
    a = data.draw(invertible())
    spd = a @ np.swapaxes(a, -1, -2)
    lower = ember.linalg.cholesky(data.draw(layout(spd, layouts=LAYOUTS)).tensor)
    assert_close(lower, np.linalg.cholesky(spd), what="cholesky")
    assert_close(lower @ lower.mT, spd, what="L L^T")


@given(data=st.data())
def test_gradients_match_finite_differences(data):
    a = data.draw(invertible(batch=data.draw(shapes(max_dims=1, max_side=2)), n=data.draw(st.integers(1, 3))))
    seed = data.draw(st.integers(0, 2 ** 16))
    b = np.random.default_rng(seed).standard_normal(a.shape[:-1] + (2,))
    for name, fn in (("det", ember.linalg.det), ("inv", ember.linalg.inv),
                     ("logabsdet", lambda m: ember.linalg.slogdet(m).logabsdet),
                     ("cholesky", lambda m: ember.linalg.cholesky(m @ m.mT))):
        check_gradients(fn, [ember.tensor(a).requires_grad_()], seed, what=name)
    check_gradients(ember.linalg.solve, [ember.tensor(a).requires_grad_(), ember.tensor(b).requires_grad_()], seed,
                    what="solve")
