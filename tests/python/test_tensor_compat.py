"""Tensor calls PyTorch scripts make that are argument handling rather than new math: add_/sub_
with alpha, to(non_blocking=, copy=), clamp with tensor bounds, meshgrid (against NumPy), new_tensor,
new_empty, type_as, mT, and cuda() without a GPU (tests/python/test_cuda.py has the rest)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember


def test_add_sub_in_place_with_alpha():
    t, x = ember.ones(3), ember.arange(3).float()
    same = t.add_(x, alpha=2)
    assert same._is_same(t) and t.tolist() == [1.0, 3.0, 5.0]
    t.sub_(x, alpha=0.5)
    assert t.tolist() == [1.0, 2.5, 4.0]
    t.add_(1.5)
    assert t.tolist() == [2.5, 4.0, 5.5]
    p = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        p.add_(ember.ones(2), alpha=-0.1)  # the SGD update scripts write by hand
    assert p.tolist() == pytest.approx([0.9, 0.9])


def test_to_accepts_non_blocking_and_copy():
    t = ember.ones(2)
    assert t.to("cpu", non_blocking=True)._is_same(t)
    assert t.to(ember.float64, non_blocking=True).dtype == ember.float64
    copied = t.to("cpu", copy=True)
    assert not copied._is_same(t) and copied.tolist() == t.tolist()


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_clamp_with_tensor_bounds_matches_numpy(data):
    n = data.draw(st.integers(0, 6))
    finite = st.floats(-5, 5, width=32)
    x = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), dtype=np.float32)
    lo = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), dtype=np.float32)
    hi = lo + np.float32(data.draw(st.floats(0, 3, width=32)))
    got = ember.clamp(ember.from_numpy(x), min=ember.from_numpy(lo), max=ember.from_numpy(hi))
    np.testing.assert_array_equal(got.numpy(), np.minimum(np.maximum(x, lo), hi))
    np.testing.assert_array_equal(ember.from_numpy(x).clamp(min=ember.from_numpy(lo)).numpy(), np.maximum(x, lo))
    np.testing.assert_array_equal(ember.clip(ember.from_numpy(x), max=1.0).numpy(), np.minimum(x, 1.0))


def test_clamp_with_tensor_bounds_propagates_nan_and_gradients():
    x = ember.tensor([float("nan"), -2.0, 0.5, 3.0], requires_grad=True)
    out = ember.clamp(x, min=ember.zeros(4), max=ember.ones(4))
    assert np.isnan(out[0].item()) and out[1:].tolist() == [0.0, 0.5, 1.0]
    out[1:].sum().backward()
    assert x.grad[1:].tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="at least one of 'min' and 'max'"):
        ember.clamp(x)


def test_clamp_with_tensor_bounds_keeps_xs_zero_at_a_bound_everywhere():
    # as PyTorch's scalar loop and its clamp with number bounds (its vectorised loop gives the upper
    # bound's zero); a value's result does not depend on where it sits
    x, lo, hi = ember.zeros(24), ember.tensor(-0.0), ember.zeros(24)
    assert not ember.clip(x, min=lo, max=hi).signbit().any()
    assert ember.clip(-x, min=hi, max=hi).signbit().all()
    assert ember.clamp(x, min=ember.tensor(3.0), max=ember.tensor(2.0)).tolist() == [2.0] * 24


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [[3], [2, 3], [2, 0, 4], [1, 2, 3]])
def test_meshgrid_matches_numpy(indexing, sizes):
    inputs = [ember.arange(n) * (k + 1) for k, n in enumerate(sizes)]
    got = ember.meshgrid(*inputs, indexing=indexing)
    want = np.meshgrid(*[t.numpy() for t in inputs], indexing=indexing)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.numpy().shape == w.shape and (g.numpy() == w).all()
    assert [tuple(t.shape) for t in ember.meshgrid(inputs, indexing=indexing)] == [w.shape for w in want]
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: yx'):
        ember.meshgrid(*inputs, indexing="yx")


def test_new_tensor_new_empty_type_as_mT_and_cuda():
    t = ember.zeros(2, 3, dtype=ember.float64)
    assert t.new_tensor([1, 2]).dtype == ember.float64 and t.new_tensor([1, 2]).tolist() == [1.0, 2.0]
    assert tuple(t.new_empty(4, 5).shape) == (4, 5) and t.new_empty((2,)).dtype == ember.float64
    assert ember.arange(3).type_as(t).dtype == ember.float64
    assert tuple(t.mT.shape) == (3, 2) and tuple(ember.zeros(4, 2, 3).mT.shape) == (4, 3, 2)
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA device: cannot allocate memory on cuda:0"):
            t.cuda()


def test_floor_division_is_pythons():
    a = ember.tensor([7, -7, 7, -7, 0, 5])
    b = ember.tensor([2, 2, -2, -2, 3, 5])
    assert (a // b).tolist() == [x // y for x, y in zip(a.tolist(), b.tolist())] == [3, -4, -4, 3, 0, 1]
    assert (a // b).dtype == ember.int64
    assert ember.div(a, b, rounding_mode="trunc").tolist() == [3, -3, -3, 3, 0, 1]
    assert a.div(b, rounding_mode="floor").tolist() == [3, -4, -4, 3, 0, 1]
    assert (a / b).dtype == ember.float32  # no rounding mode: true division
    assert (7 // ember.tensor([2, -2])).tolist() == [3, -4]
    x = ember.tensor([1.0, -1.0, 7.5, -0.5])
    # floats as Python's (and PyTorch's): 1 // 0.1 is 9, not floor(1 / 0.1) = 10
    assert (x // 0.1).tolist() == [v // 0.1 for v in [1.0, -1.0, 7.5, -0.5]]
    assert ember.div(x, 2, rounding_mode="trunc").tolist() == [0.0, -0.0, 3.0, -0.0]
    y = ember.tensor([9, -9])
    y //= 4
    assert y.tolist() == [2, -3]
    with pytest.raises(ValueError, match="floor_divide: integer division by zero"):
        a // ember.zeros(6, dtype=ember.int64)
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        ember.div(a, b, rounding_mode="round")
    w = ember.ones(3, requires_grad=True)
    q = w // 2  # piecewise constant: recorded with a zero gradient (python/README.md)
    q.sum().backward()
    assert q.requires_grad and w.grad.tolist() == [0.0, 0.0, 0.0]


# ---- in-place view ops, detach_ and resize_ (PyTorch's behaviour, checked against torch 2.15 by hand)

def test_in_place_view_ops_change_the_same_object():
    x = ember.arange(6.0).reshape(2, 3)
    same = x
    assert x.t_() is same and x.shape == (3, 2) and not x.is_contiguous()
    assert x.unsqueeze_(0).shape == (1, 3, 2)
    assert x.transpose_(0, 2).shape == (2, 3, 1)
    assert x.swapdims_(0, 1).shape == (3, 2, 1)
    assert x.squeeze_(-1).shape == (3, 2)
    assert x.squeeze_().shape == (3, 2)
    assert x.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_in_place_view_ops_record_their_gradient_and_refuse_a_leaf():
    a = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match="t_: a leaf tensor that requires grad"):
        a.t_()
    y = a * 2
    y.t_()
    (y * ember.tensor([1.0, 10.0])).sum().backward()
    assert a.grad.tolist() == [[2.0, 2.0, 2.0], [20.0, 20.0, 20.0]]
    with ember.no_grad():
        a.unsqueeze_(0)
    assert a.shape == (1, 2, 3) and a.is_leaf and a.requires_grad


def test_detach_in_place_and_resize():
    a = ember.ones(3, requires_grad=True)
    y = a * 2
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None and y.is_leaf
    with pytest.raises(RuntimeError, match="detach_: cannot detach a view in place"):
        (a * 3)[0].detach_()
    r = ember.arange(6.0)
    assert r.resize_(2, 2).tolist() == [[0.0, 1.0], [2.0, 3.0]]
    r.resize_((3, 3))
    assert r.shape == (3, 3) and r.flatten()[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    r.resize_as_(ember.zeros(2))
    assert r.tolist() == [0.0, 1.0]
    with pytest.raises(RuntimeError, match="resize_: cannot resize a tensor that requires grad"):
        a.resize_(6)
