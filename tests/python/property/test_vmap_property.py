"""vmap over every op of the op database (ops/ops.toml's `test` entries): each batches as its
loop over samples, with the batch at dim 0 or 1, operands batched or not and of different ranks;
ops with a batching rule must not fall back to the loop (tests/python/test_vmap.py has the rest)."""
import warnings

import numpy as np
import pytest

import ember
from ember.func import _rules, _rules_nn, vmap  # noqa: F401  (_rules_nn registers nn.functional's rules)
from op_db import BINARY, UNARY, function

RULED = set(_rules.RULES)


def per_sample(f, in_dims, *args):
    size = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    return ember.stack([f(*[a.select(d, b) if d is not None else a for a, d in zip(args, in_dims)])
                        for b in range(size)])


def assert_same(got, want):
    assert list(got.shape) == list(want.shape)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def _draw(case, k, shape, seed):
    lo, hi = case.domain[k]
    rng = np.random.default_rng(seed)
    if case.dtypes == "integral":  # the bitwise ops
        return ember.tensor(rng.integers(int(lo), int(hi) + 1, shape), dtype=ember.int64)
    return ember.tensor(rng.uniform(lo, hi, shape), dtype=ember.float64)


def _rules_only(case):
    """Where the op has a rule, the loop fallback's warning is an error."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    if case.python_names[0] in RULED:
        warnings.filterwarnings("error", message="vmap: there is a performance drop")
    else:
        warnings.simplefilter("ignore")
    return ctx


@pytest.mark.parametrize("case", UNARY, ids=lambda c: c.name)
def test_unary_ops_batch_as_their_loop(case):
    f = function(case)
    x = _draw(case, 0, (3, 4, 2), 1)
    ctx = _rules_only(case)
    try:
        got = vmap(f)(x)
        got_dim1 = vmap(f, in_dims=1, out_dims=1)(x)
    finally:
        ctx.__exit__(None, None, None)
    assert_same(got, per_sample(f, (0,), x))
    assert_same(got_dim1, per_sample(f, (1,), x).movedim(0, 1))


@pytest.mark.parametrize("case", BINARY, ids=lambda c: c.name)
def test_binary_ops_batch_as_their_loop(case):
    f = function(case)
    x, other = _draw(case, 0, (3, 4, 2), 2), _draw(case, 1, (3, 4, 2), 5)
    y, low = _draw(case, 1, (2,), 3), _draw(case, 1, (3, 2), 4)
    ctx = _rules_only(case)
    try:
        both = vmap(f)(x, other)
        left = vmap(f, in_dims=(0, None))(x, y)
        right = vmap(f, in_dims=(None, 0))(_draw(case, 0, (2,), 6), other)
        ranks = vmap(f)(x, low)  # a batched operand of lower rank broadcasts from the right
    finally:
        ctx.__exit__(None, None, None)
    assert_same(both, per_sample(f, (0, 0), x, other))
    assert_same(left, per_sample(f, (0, None), x, y))
    assert_same(right, per_sample(f, (None, 0), _draw(case, 0, (2,), 6), other))
    assert_same(ranks, per_sample(f, (0, 0), x, low))
