"""einsum against np.einsum over drawn equations: 1 to 3 operands, subscripts of both cases repeated
within an operand (diagonals), sizes 0 to 3 and size-1 dims that broadcast, "..." covering 0 to 3
broadcast dims, explicit outputs (with or without the ellipsis: left out, its dims are summed) and
implicit ones, every float and integer dtype and every layout; also the list and sublist forms."""
import numpy as np
from hypothesis import given, strategies as st

import ember
from reference import assert_close
from strategies import FLOAT_DTYPES, layout

LETTERS = "abcdeABC"


@st.composite
def equations(draw):
    """(equation, operand shapes, output has an ellipsis, inputs have one)."""
    n_ops = draw(st.integers(1, 3))
    pool = draw(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=5, unique=True))
    size = {c: draw(st.integers(0, 3) if draw(st.integers(0, 5)) == 0 else st.integers(1, 3)) for c in pool}
    ell_dims = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 3)))]
    terms, shapes, any_ellipsis = [], [], False
    for _ in range(n_ops):
        labels = draw(st.lists(st.sampled_from(pool), max_size=4))
        use_ell = bool(ell_dims) and draw(st.booleans())
        at = draw(st.integers(0, len(labels)))
        covered = ell_dims[len(ell_dims) - draw(st.integers(0, len(ell_dims))):] if use_ell else []
        shape = []
        for i, c in enumerate(labels):
            if use_ell and i == at:
                shape += [1 if draw(st.integers(0, 3)) == 0 else s for s in covered]
            # a labelled dim may be 1 where the others have the full size (it broadcasts)
            shape.append(1 if size[c] > 1 and draw(st.integers(0, 5)) == 0 and labels.count(c) == 1 else size[c])
        if use_ell and at == len(labels):
            shape += [1 if draw(st.integers(0, 3)) == 0 else s for s in covered]
        term = "".join(labels)
        if use_ell:
            term = term[:at] + "..." + term[at:]
            any_ellipsis = True
        terms.append(term)
        shapes.append(tuple(shape))
    lhs = ",".join(terms)
    if draw(st.booleans()):
        return lhs, shapes, None, any_ellipsis
    used = sorted({c for t in terms for c in t if c != "."})
    out = draw(st.permutations(draw(st.lists(st.sampled_from(used), unique=True)) if used else []))
    out_ell = any_ellipsis and draw(st.booleans())
    out_term = "".join(out)
    if out_ell:
        k = draw(st.integers(0, len(out_term)))
        out_term = out_term[:k] + "..." + out_term[k:]
    return lhs + "->" + out_term, shapes, out_ell, any_ellipsis


def _numpy_einsum(equation, arrays, out_ell, any_ellipsis):
    if out_ell is False and any_ellipsis:  # NumPy wants the ellipsis kept: keep it first, then sum it away
        lhs, rhs = equation.split("->")
        full = np.einsum(lhs + "->..." + rhs, *arrays)
        return full.sum(axis=tuple(range(full.ndim - len(rhs)))) if full.ndim > len(rhs) else full
    return np.einsum(equation, *arrays)


@given(data=st.data())
def test_einsum_matches_numpy(data):
    equation, shapes, out_ell, any_ellipsis = data.draw(equations())
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES + [ember.int64, ember.int32]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    np_dtype = {ember.float32: np.float32, ember.float64: np.float64, ember.int64: np.int64, ember.int32: np.int32}[dtype]
    arrays = [rng.integers(-3, 4, s).astype(np_dtype) if dtype in (ember.int64, ember.int32)
              else rng.uniform(-2, 2, s).astype(np_dtype) for s in shapes]
    drawn = [data.draw(layout(a)) for a in arrays]  # an expanded layout repeats values: use the drawn ones
    operands = [d.tensor for d in drawn]
    wide = [d.array.astype(np.float64 if np.issubdtype(d.array.dtype, np.floating) else np.int64) for d in drawn]
    want = _numpy_einsum(equation, wide, out_ell, any_ellipsis)
    got = ember.einsum(equation, *operands)
    # Integers: contractions keep the dtype, a sum alone gives int64 (PyTorch's sum), as torch.einsum.
    assert got.dtype == dtype or (dtype == ember.int32 and got.dtype == ember.int64), (equation, got.dtype)
    # float32 sums of a few products of values in [-2, 2]
    assert_close(got, want, rtol=1e-4 if dtype == ember.float32 else None,
                 atol=1e-4 if dtype == ember.float32 else None, what=equation)
    assert_close(ember.einsum(equation, operands), want, rtol=1e-4, atol=1e-4, what="list form")


def test_sublist_form_is_the_same_equation():
    a, b = ember.randn(2, 3), ember.randn(3, 4)
    np.testing.assert_allclose(ember.einsum(a, [0, 1], b, [1, 2], [0, 2]).numpy(), (a @ b).numpy(), rtol=1e-6)
    np.testing.assert_allclose(ember.einsum(a, [Ellipsis, 1], b, [1, 27]).numpy(), (a @ b).numpy(), rtol=1e-6)


def test_regression_a_dim_summed_in_one_int32_operand_keeps_its_dtype():
    # Found by hypothesis: "aa," on int32 summed the diagonal into int64, and the bmm with the int32
    # scalar then refused the mixed dtypes.
    got = ember.einsum("aa,", ember.tensor([[2, 1], [0, 3]], dtype=ember.int32), ember.tensor(-1, dtype=ember.int32))
    assert got.item() == -5
