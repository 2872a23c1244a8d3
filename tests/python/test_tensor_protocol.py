"""The Tensor methods bound in C++ that were patched in from Python before (issue 30), through the public
API: the in-place comparison, logical and bitwise forms and their gradients, the arithmetic aliases, the
random fills, to()'s forms, format(), pickling and deepcopy, new_tensor / new_empty / type_as / mT,
apply_ / map_ / map2_, unique and the legacy linalg methods. Expected values are PyTorch's (2.15, CPU)."""
import copy
import inspect
import math
import pickle
import pprint

import pytest

import ember


def test_no_tensor_attribute_is_a_python_function():
    patched = [name for name, value in vars(ember.Tensor).items()
               if inspect.isfunction(value) or (isinstance(value, property) and inspect.isfunction(value.fget))]
    assert not patched, f"patched onto Tensor from Python: {patched}"


def test_an_inplace_comparison_gives_both_operands_a_zero_gradient():
    a = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = ember.tensor([2.0, 2.0, 2.0], requires_grad=True)
    x = a * 1
    assert x.lt_(y) is x
    assert x.tolist() == [1.0, 0.0, 0.0] and x.requires_grad
    x.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0] and y.grad.tolist() == [0.0, 0.0, 0.0]
    b = ember.tensor([1.0, 2.0, 3.0])
    b.greater_equal_(y)  # PyTorch's other name; b now requires grad, as y does
    assert b.tolist() == [0.0, 1.0, 1.0] and b.requires_grad
    assert ember.not_equal(ember.tensor([1, 2]), 2).tolist() == [True, False]


def test_an_inplace_logical_op_keeps_selfs_history():
    a = ember.tensor([1.0, 0.0, 2.0], requires_grad=True)
    x = a * 2
    x.logical_and_(ember.tensor([1.0, 1.0, 0.0]))
    assert x.tolist() == [1.0, 0.0, 0.0]
    x.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_augmented_bitwise_assignment_writes_in_place():
    t = ember.tensor([5, 3])
    same = t
    t &= 6
    t <<= 1
    assert same is t and t.tolist() == [8, 4]
    assert t.bitwise_xor_(ember.tensor([True, False])).tolist() == [9, 4] and t.dtype == ember.int64
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t.eq_(1.0).exp_()


def test_the_arithmetic_aliases_and_alpha():
    t = ember.tensor([1.0, 2.0])
    assert t.multiply_(2) is t and t.tolist() == [2.0, 4.0]
    t.divide_(ember.tensor([2.0, 4.0])).subtract_(1, alpha=2).clip_(-1.5, 5)
    assert t.tolist() == [-1.0, -1.0]
    t.add_(ember.tensor([1.0, 1.0]), alpha=ember.tensor(3.0))  # a one-element tensor alpha (L-BFGS passes one)
    assert t.tolist() == [2.0, 2.0]
    t.clamp_min_(2.5).clamp_max_(ember.tensor([3.0, 2.0]))
    assert t.tolist() == [2.5, 2.0]
    i = ember.tensor([1, 2])
    i.add_(3, alpha=2)
    assert i.tolist() == [7, 8] and i.dtype == ember.int64


def test_random_fills_return_self_and_replay_with_a_generator():
    p = ember.nn.Parameter(ember.zeros(4))
    with ember.no_grad():
        assert p.normal_(0, 1) is p and type(p) is ember.nn.Parameter
    draws = [ember.zeros(5).uniform_(2, 3, generator=ember.Generator().manual_seed(4)).tolist() for _ in range(2)]
    assert draws[0] == draws[1] and all(2 <= v < 3 for v in draws[0])
    r = ember.zeros(200, dtype=ember.int64).random_(3, 5)
    assert set(r.tolist()) == {3, 4}
    assert set(ember.zeros(200, dtype=ember.uint8).random_(2).tolist()) == {0, 1}
    mask = ember.zeros(500, 2).bernoulli_(ember.tensor([0.0, 1.0]))
    assert mask[:, 0].sum().item() == 0 and mask[:, 1].sum().item() == 500
    with pytest.raises(RuntimeError, match="normal_ expects a floating point tensor"):
        ember.zeros(3, dtype=ember.int64).normal_()
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"):
        ember.zeros(3).bernoulli_(1.5)


def test_to_takes_pytorchs_forms():
    t = ember.tensor([1.0, 2.0])
    assert t.to("cpu") is t and t.to(ember.float32) is t and t.to(device=None) is t
    c = t.to(ember.float32, copy=True)
    assert c is not t and c.tolist() == t.tolist()
    assert t.to(ember.float64, False, True).dtype == ember.float64  # non_blocking, copy positional
    assert t.to(ember.zeros(1, dtype=ember.int32)).dtype == ember.int32
    assert t.to("cpu", ember.float64, non_blocking=True, memory_format=None).dtype == ember.float64
    with pytest.raises(TypeError, match="unexpected keyword argument 'pin'"):
        t.to(pin=True)
    assert t.type_as(ember.zeros(1, dtype=ember.float64)).dtype == ember.float64


def test_format_of_a_number_tensor_and_of_others():
    assert f"{ember.tensor(0.123456):.3f}" == "0.123" and f"{ember.tensor(7):>3}" == "  7"
    assert f"{ember.tensor([1.0])}" == "tensor([1.])"
    with pytest.raises(TypeError):
        f"{ember.tensor([1.0, 2.0]):.2f}"


def test_pickle_and_deepcopy_keep_class_flags_and_attributes():
    p = ember.nn.Parameter(ember.tensor([1.5, -2.0]))
    p.lr_scale = 0.1
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is ember.nn.Parameter and back.requires_grad and back.lr_scale == 0.1
    assert back.tolist() == [1.5, -2.0]
    b16 = pickle.loads(pickle.dumps(ember.tensor([1.0, 3.0], dtype=ember.bfloat16)))
    assert b16.dtype == ember.bfloat16 and b16.tolist() == [1.0, 3.0]
    p.grad = ember.tensor([0.5, 0.5])
    twin = copy.deepcopy(p)
    assert type(twin) is ember.nn.Parameter and twin is not p and twin.grad.tolist() == [0.5, 0.5]
    assert twin.lr_scale == 0.1
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(p * 2)
    assert "tensor([ 1.5000, -2.0000], requires_grad=True)" in pprint.pformat({"w": p})


def test_new_tensors_and_views():
    t = ember.zeros(2, 3, dtype=ember.float64)
    assert t.new_tensor([1, 2]).dtype == ember.float64
    assert t.new_tensor([1, 2], dtype=ember.int32, requires_grad=False).dtype == ember.int32
    e = t.new_empty((4, 5), requires_grad=True)
    assert e.shape == (4, 5) and e.dtype == ember.float64 and e.requires_grad
    assert t.new_empty(1, 2).shape == (1, 2)
    assert t.mT.shape == (3, 2)
    with pytest.raises(RuntimeError, match="mT is only supported on matrices"):
        ember.zeros(3).mT
    assert t.real is not None and t.real.tolist() == t.tolist()


def test_apply_map_and_map2_run_a_python_callable_per_element():
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.apply_(lambda v: v * 10) is t and t.tolist() == [[10.0, 20.0], [30.0, 40.0]]
    t.map_(ember.tensor([1.0, 2.0]), lambda a, b: a - b)
    assert t.tolist() == [[9.0, 18.0], [29.0, 38.0]]
    t.map2_(ember.tensor(1.0), ember.tensor([[0.0], [1.0]]), lambda s, a, b: s * a + b)
    assert t.tolist() == [[9.0, 18.0], [30.0, 39.0]]
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        ember.ones(2, requires_grad=True).apply_(abs)


def test_unique_and_its_optional_results():
    x = ember.tensor([3, 1, 3, 2])
    assert ember.unique(x).tolist() == [1, 2, 3]
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    assert inverse.tolist() == [2, 0, 2, 1] and counts.tolist() == [1, 1, 2]
    values, counts = ember.unique(x, return_counts=True)
    assert counts.tolist() == [1, 1, 2]


def test_the_legacy_linalg_functions_and_methods():
    a = ember.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=ember.float64)
    assert math.isclose(a.det().item(), 5.0) and math.isclose(ember.logdet(a).item(), math.log(5.0))
    assert math.isnan(ember.logdet(ember.tensor([[0.0, 1.0], [1.0, 0.0]])).item())  # det -1
    sign, logabsdet = a.slogdet()
    assert sign.item() == 1.0
    assert ember.allclose(a.inverse() @ a, ember.eye(2, dtype=ember.float64))
    U, S, V = ember.svd(a)
    assert ember.allclose(U @ ember.diag(S) @ V.mT, a)
    U0, S0, V0 = a.svd(compute_uv=False)
    assert U0.abs().sum().item() == 0 and V0.shape == (2, 2) and ember.allclose(S0, S)
    Q, R = a.qr()
    assert ember.allclose(Q @ R, a)
    assert ember.allclose(a.cholesky() @ a.cholesky().mT, a)
    assert ember.allclose(a.matrix_power(2), a @ a) and ember.allclose(a.pinverse(), a.inverse())
