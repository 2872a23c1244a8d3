"""ember.Tensor from Python: construction, dtypes, operators, indexing, repr and error mapping."""
import errno
import math

import numpy as np
import pytest

import ember


def values(t):
    return t.tolist()


# ---- construction and metadata

def test_tensor_from_nested_lists_infers_float32_int64_bool():
    assert ember.tensor([[1.0, 2.0], [3.0, 4.0]]).dtype == ember.float32
    assert ember.tensor([1, 2, 3]).dtype == ember.int64
    assert ember.tensor([True, False]).dtype == ember.bool
    t = ember.tensor([[1, 2, 3], [4, 5, 6]], dtype=ember.float64)
    assert t.dtype == ember.float64 and t.shape == (2, 3) and t.ndim == 2 and t.numel() == 6
    assert t.size() == (2, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert t.stride() == (3, 1) and t.is_contiguous()
    assert values(t) == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_python_floats_reach_a_float64_tensor_without_float32_rounding():
    # regression: the list went through float32 first, so 1e-300 became 0 and 0.1 lost digits
    t = ember.tensor([1e-300, 0.1, 1.0 / 3.0], dtype=ember.float64)
    assert values(t) == [1e-300, 0.1, 1.0 / 3.0]
    assert ember.tensor(0.1, dtype=ember.float64).item() == 0.1


def test_tensor_from_scalar_is_zero_dimensional():
    t = ember.tensor(3.5)
    assert t.shape == () and t.ndim == 0 and t.item() == 3.5 and t.dtype == ember.float32
    assert ember.tensor(7).item() == 7 and isinstance(ember.tensor(7).item(), int)
    assert ember.tensor(True).item() is True


def test_tensor_rejects_ragged_lists():
    with pytest.raises(ValueError):
        ember.tensor([[1, 2], [3]])


def test_tensor_copies_its_input():
    src = ember.tensor([1.0, 2.0])
    copy = ember.tensor(src)
    copy[0] = 9.0
    assert values(src) == [1.0, 2.0]


def test_dtype_objects():
    assert repr(ember.float32) == "ember.float32" and str(ember.int64) == "ember.int64"
    assert ember.float32 == ember.float and ember.float64 == ember.double and ember.int64 == ember.long
    assert ember.float32 != ember.float64
    assert ember.float16.is_floating_point and not ember.int32.is_floating_point
    assert ember.bfloat16.itemsize == 2 and ember.float64.itemsize == 8
    assert len({ember.float32, ember.float, ember.int64}) == 2


def test_device():
    t = ember.zeros(2)
    assert t.device == ember.device("cpu") and t.device == "cpu" and str(t.device) == "cpu"
    assert repr(t.device) == "device(type='cpu')"
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        ember.device("tpu")


def test_creation_functions():
    assert ember.zeros(2, 3).shape == (2, 3) and ember.zeros((2, 3)).shape == (2, 3)
    assert values(ember.ones(2, dtype=ember.int32)) == [1, 1]
    assert ember.ones(2, dtype=ember.int32).dtype == ember.int32
    assert values(ember.full((2,), 7)) == [7, 7] and ember.full((2,), 7).dtype == ember.int64
    assert ember.full((2,), 0.5).dtype == ember.float32
    assert values(ember.arange(5)) == [0, 1, 2, 3, 4] and ember.arange(5).dtype == ember.int64
    assert values(ember.arange(1, 7, 2)) == [1, 3, 5]
    assert ember.arange(0, 1, 0.25).dtype == ember.float32 and ember.arange(0, 1, 0.25).numel() == 4
    assert values(ember.linspace(0, 1, 3)) == [0.0, 0.5, 1.0]
    assert values(ember.eye(2)) == [[1.0, 0.0], [0.0, 1.0]]
    assert ember.zeros_like(ember.ones(2, 2, dtype=ember.float64)).dtype == ember.float64
    assert values(ember.full_like(ember.ones(2), 3.0)) == [3.0, 3.0]
    assert ember.zeros(2, requires_grad=True).requires_grad
    r = ember.randint(0, 10, (100,))
    assert r.dtype == ember.int64 and 0 <= r.min().item() and r.max().item() < 10
    assert sorted(values(ember.randperm(5))) == [0, 1, 2, 3, 4]


def test_generator_replays_draws():
    g = ember.Generator().manual_seed(123)
    state = g.get_state()
    a = ember.randn(4, generator=g)
    g.set_state(state)
    b = ember.randn(4, generator=g)
    assert values(a) == values(b)
    ember.manual_seed(5)
    c = ember.rand(3)
    ember.manual_seed(5)
    assert values(ember.rand(3)) == values(c)


# ---- operators

def test_arithmetic_broadcasts_and_takes_python_scalars_on_either_side():
    a = ember.tensor([[1.0], [2.0]])
    b = ember.tensor([10.0, 20.0, 30.0])
    assert values(a + b) == [[11.0, 21.0, 31.0], [12.0, 22.0, 32.0]]
    x = ember.tensor([1.0, 2.0, 4.0])
    assert values(x + 1) == [2.0, 3.0, 5.0] and values(1 + x) == [2.0, 3.0, 5.0]
    assert values(x - 1) == [0.0, 1.0, 3.0] and values(1 - x) == [0.0, -1.0, -3.0]
    assert values(x * 2) == [2.0, 4.0, 8.0] and values(2 * x) == [2.0, 4.0, 8.0]
    assert values(x / 2) == [0.5, 1.0, 2.0] and values(4 / x) == [4.0, 2.0, 1.0]
    assert values(x ** 2) == [1.0, 4.0, 16.0] and values(2 ** x) == [2.0, 4.0, 16.0]
    assert values(x ** x) == [1.0, 4.0, 256.0]
    assert values(-x) == [-1.0, -2.0, -4.0] and values(abs(-x)) == [1.0, 2.0, 4.0]


def test_scalar_kind_decides_result_dtype_as_in_pytorch():
    i = ember.tensor([1, 2])
    assert (i * 2).dtype == ember.int64
    assert (i * 2.5).dtype == ember.float32
    assert (i / 2).dtype == ember.float32
    assert (ember.tensor([1.0], dtype=ember.float64) * 2).dtype == ember.float64
    assert (i + np.int64(3)).dtype == ember.int64 and values(i + np.float64(0.5)) == [1.5, 2.5]


def test_comparisons_give_bool_tensors():
    x = ember.tensor([1, 2, 3])
    assert values(x > 1) == [False, True, True] and values(x <= 2) == [True, True, False]
    assert values(x == ember.tensor([1, 0, 3])) == [True, False, True]
    assert values(x != 2) == [True, False, True] and values(x >= 3) == [False, False, True]
    assert values((x > 1) & (x < 3)) == [False, True, False]
    assert values((x < 2) | (x > 2)) == [True, False, True] and values(~(x > 1)) == [True, False, False]


def test_matmul_operator():
    a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert values(a @ a) == [[7.0, 10.0], [15.0, 22.0]]
    assert values(a @ ember.tensor([1.0, 1.0])) == [3.0, 7.0]
    with pytest.raises(ValueError, match="matmul"):
        a @ ember.ones(3, 3)


def test_inplace_operators_write_through_and_keep_identity():
    x = ember.zeros(3)
    y = x
    x += 1
    x *= 3
    x -= ember.tensor([1.0, 0.0, 0.0])
    x /= 2
    assert x is y and values(y) == [1.0, 1.5, 1.5]
    assert x.add_(1) is x and x.zero_() is x and values(x) == [0.0, 0.0, 0.0]
    assert values(x.fill_(2.0)) == [2.0, 2.0, 2.0]
    assert values(x.clamp_(max=1.0)) == [1.0, 1.0, 1.0]


def test_python_protocols():
    x = ember.tensor([[1, 2], [3, 4]])
    assert len(x) == 2 and [values(r) for r in x] == [[1, 2], [3, 4]]
    assert float(ember.tensor([2.5])) == 2.5 and int(ember.tensor(7)) == 7
    assert bool(ember.tensor([1])) and not bool(ember.tensor(0.0))
    assert [10, 20, 30][ember.tensor(1)] == 20
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    with pytest.raises(TypeError, match="0-d"):
        len(ember.tensor(1.0))
    with pytest.raises(ValueError, match="cannot be converted to a scalar"):
        x.item()


def test_repr_summarises_large_tensors_like_pytorch():
    assert repr(ember.arange(1001)) == "tensor([   0,    1,    2,  ...,  998,  999, 1000])"
    assert repr(ember.zeros(40, 30)).count("\n") == 6  # 3 rows, "...", 3 rows


def test_repr_like_pytorch():
    assert repr(ember.tensor([1.0, 2.5])) == "tensor([1.0000, 2.5000])"
    assert repr(ember.tensor([1, 2], dtype=ember.int32)) == "tensor([1, 2], dtype=ember.int32)"
    w = ember.tensor([1.0], requires_grad=True)
    assert repr(w) == "tensor([1.], requires_grad=True)"
    assert repr(w * 2) == "tensor([2.], grad_fn=<MulBackward>)"
    assert str(ember.tensor([True])) == "tensor([True])"


# ---- ops under PyTorch's names

def test_reductions():
    x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.sum().item() == 21.0 and values(x.sum(0)) == [5.0, 7.0, 9.0]
    assert values(x.sum(dim=1, keepdim=True)) == [[6.0], [15.0]]
    assert values(ember.sum(x, (0, 1))) == 21.0
    assert values(x.mean(1)) == [2.0, 5.0]
    assert x.max().item() == 6.0 and x.min().item() == 1.0
    values_, indices = x.max(dim=1)
    assert values(values_) == [3.0, 6.0] and values(indices) == [2, 2]
    assert values(x.min(0).indices) == [0, 0, 0]
    assert values(ember.max(x, ember.full((3,), 2.5))) == [[2.5, 2.5, 3.0], [4.0, 5.0, 6.0]]
    assert x.argmax().item() == 5 and values(x.argmin(dim=1)) == [0, 0]
    assert math.isclose(x.var().item(), 3.5) and math.isclose(x.std(unbiased=False).item(), math.sqrt(35 / 12), rel_tol=1e-6)
    assert math.isclose(x.var(correction=0).item(), 35 / 12, rel_tol=1e-6)
    assert math.isclose(ember.tensor([3.0, 4.0]).norm().item(), 5.0)
    assert math.isclose(x.logsumexp(dim=(0, 1)).item(), math.log(sum(math.exp(v) for v in range(1, 7))),
                        rel_tol=1e-6)
    assert values(x.amax(1)) == [3.0, 6.0]


def test_elementwise_ops_and_activations():
    x = ember.tensor([-1.0, 0.0, 2.0])
    assert values(x.relu()) == [0.0, 0.0, 2.0] and values(ember.relu(x)) == [0.0, 0.0, 2.0]
    assert values(x.clamp(min=-0.5, max=1.0)) == [-0.5, 0.0, 1.0]
    assert values(x.sign()) == [-1.0, 0.0, 1.0] and values(x.abs()) == [1.0, 0.0, 2.0]
    assert np.allclose(x.exp().numpy(), np.exp([-1.0, 0.0, 2.0]))
    assert np.allclose(x.sigmoid().numpy(), 1 / (1 + np.exp([1.0, 0.0, -2.0])))
    assert np.allclose(x.tanh().numpy(), np.tanh([-1.0, 0.0, 2.0]))
    assert np.allclose(ember.gelu(x).numpy(), [-0.15865526, 0.0, 1.9544997])
    assert np.allclose(ember.leaky_relu(x, 0.1).numpy(), [-0.1, 0.0, 2.0])
    assert np.allclose(x.softmax(0).numpy().sum(), 1.0)
    assert values(ember.where(x > 0, x, 0.0)) == [0.0, 0.0, 2.0]
    assert values(x.where(x > 0, ember.tensor(5.0))) == [5.0, 5.0, 2.0]
    assert values(ember.add(x, 1, alpha=2)) == [1.0, 2.0, 4.0]
    assert values(x.masked_fill(x < 0, 9.0)) == [9.0, 0.0, 2.0]


def test_shape_ops():
    x = ember.arange(6)
    assert x.reshape(2, 3).shape == (2, 3) and x.view((3, 2)).shape == (3, 2) and x.view(-1, 2).shape == (3, 2)
    m = x.reshape(2, 3)
    assert m.t().shape == (3, 2) and m.T.shape == (3, 2) and m.transpose(0, 1).shape == (3, 2)
    assert m.permute(1, 0).shape == (3, 2) and ember.permute(m, (1, 0)).shape == (3, 2)
    assert m.unsqueeze(0).shape == (1, 2, 3) and m.unsqueeze(0).squeeze().shape == (2, 3)
    assert m[:, :1].expand(2, 4).shape == (2, 4) and m.flatten().shape == (6,)
    assert [p.shape for p in x.split(4)] == [(4,), (2,)]
    assert [p.shape for p in x.split([1, 5])] == [(1,), (5,)]
    assert len(x.chunk(3)) == 3
    assert values(ember.cat([x[:2], x[4:]])) == [0, 1, 4, 5]
    assert ember.stack([m, m], dim=1).shape == (2, 2, 3)
    assert values(m.index_select(1, ember.tensor([2, 0]))) == [[2, 0], [5, 3]]
    assert values(m.gather(1, ember.tensor([[0], [2]]))) == [[0], [5]]
    assert [values(r) for r in m.unbind(1)] == [[0, 3], [1, 4], [2, 5]]
    assert m.narrow(1, 1, 2).shape == (2, 2) and values(m.select(1, 2)) == [2, 5]


def test_conv_and_pooling_functions():
    x = ember.arange(16, dtype=ember.float32).reshape(1, 1, 4, 4)
    w = ember.ones(1, 1, 2, 2)
    out = ember.conv2d(x, w, stride=2)
    assert values(out) == [[[[10.0, 18.0], [42.0, 50.0]]]]
    assert values(ember.max_pool2d(x, 2)) == [[[[5.0, 7.0], [13.0, 15.0]]]]
    pooled, idx = ember.max_pool2d(x, (2, 2), return_indices=True)
    assert values(idx) == [[[[5, 7], [13, 15]]]]
    assert values(ember.avg_pool2d(x, 2)) == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert values(ember.adaptive_avg_pool2d(x, 1)) == [[[[7.5]]]]
    y = ember.layer_norm(ember.tensor([[1.0, 2.0, 3.0]]), [3])
    assert np.allclose(y.numpy(), [[-1.2247356, 0.0, 1.2247356]], atol=1e-5)


# ---- indexing

def test_basic_indexing_makes_views():
    x = ember.arange(24).reshape(2, 3, 4)
    assert values(x[1, 2]) == [20, 21, 22, 23] and x[1, 2, 3].item() == 23 and x[-1, -1, -1].item() == 23
    assert x[:, 1].shape == (2, 4) and x[:, 1:3].shape == (2, 2, 4)
    assert values(x[0, 0, ::2]) == [0, 2] and values(x[0, 0, 1::2]) == [1, 3] and values(x[0, 0, -2:]) == [2, 3]
    assert x[None].shape == (1, 2, 3, 4) and x[:, None, 0].shape == (2, 1, 4)
    assert x[..., 0].shape == (2, 3) and values(x[..., 0]) == [[0, 4, 8], [12, 16, 20]]
    assert x[0, ..., 1:].shape == (3, 3) and x[...].shape == (2, 3, 4)
    view = x[0, :, 1:3]
    view.fill_(-1)  # a view: writes reach x
    assert values(x[0, 0]) == [0, -1, -1, 3]


def test_index_errors():
    x = ember.zeros(2, 3)
    with pytest.raises(IndexError, match="select: index 5"):
        x[5]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(TypeError, match="got str"):
        x["a"]
    with pytest.raises(IndexError, match="out of bounds"):
        x[ember.tensor([0, 2])]
    with pytest.raises(IndexError, match="The shape of the mask"):
        x[ember.tensor([True, False, True])]


def test_advanced_indexing_with_masks_and_index_tensors():
    x = ember.arange(12).reshape(3, 4)
    assert values(x[x > 8]) == [9, 10, 11]
    assert values(x[ember.tensor([True, False, True])]) == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert values(x[ember.tensor([2, 0])]) == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert values(x[[2, -3]]) == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert values(x[:, ember.tensor([1, 3])]) == [[1, 3], [5, 7], [9, 11]]
    assert values(x[ember.tensor([0, 2]), ember.tensor([1, 3])]) == [1, 11]
    assert values(x[ember.tensor([[0], [2]]), ember.tensor([1, 3])]) == [[1, 3], [9, 11]]
    assert values(x[np.array([1])]) == [[4, 5, 6, 7]]
    y = ember.arange(24).reshape(2, 3, 4)
    assert y[:, ember.tensor([0, 2]), 1:].shape == (2, 2, 3)          # adjacent: stays in place
    assert y[ember.tensor([0, 1]), :, ember.tensor([0, 3])].shape == (2, 3)  # split: goes first
    assert values(y[ember.tensor([0, 1]), :, ember.tensor([0, 3])]) == [[0, 4, 8], [15, 19, 23]]
    assert y[:, :, ember.tensor(True)].shape == (2, 3, 1, 4)


def test_setitem():
    x = ember.zeros(3, 4)
    x[0] = 1.0
    x[1, 1:3] = ember.tensor([5.0, 6.0])
    x[2, ::2] = 7
    x[:, 3] = ember.tensor([8.0])  # broadcast
    assert values(x) == [[1, 1, 1, 8], [0, 5, 6, 8], [7, 0, 7, 8]]
    x[x > 6] = -1.0
    assert values(x) == [[1, 1, 1, -1], [0, 5, 6, -1], [-1, 0, -1, -1]]
    x[ember.tensor([0, 2]), ember.tensor([0, 1])] = ember.tensor([10.0, 20.0])
    assert values(x[0]) == [10, 1, 1, -1] and values(x[2]) == [-1, 20, -1, -1]
    x[ember.tensor([True, False, False])] = 0
    assert values(x[0]) == [0, 0, 0, 0]


def test_setitem_on_leaf_requiring_grad_is_refused():
    w = ember.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        w[0] = 1.0


# ---- exceptions

@pytest.mark.parametrize("kind, exc", [
    ("ValueError", ValueError), ("TypeError", TypeError), ("IndexError", IndexError),
    ("KeyError", KeyError), ("NotImplementedError", NotImplementedError),
    ("Error", RuntimeError), ("InternalError", RuntimeError)])
def test_cpp_exceptions_map_to_python_exceptions_with_the_message(kind, exc):
    with pytest.raises(exc) as info:
        ember._C._throw(kind, "op: the message [2, 3]")
    text = info.value.args[0]
    assert text == "op: the message [2, 3]"


@pytest.mark.parametrize("kind, exc, code, filename", [
    ("FileNotFoundError", FileNotFoundError, errno.ENOENT, None),
    ("OSError", OSError, errno.ENOSPC, "file.ember")])
def test_cpp_os_errors_map_to_oserror_with_errno_and_filename(kind, exc, code, filename):
    with pytest.raises(exc) as info:
        ember._C._throw(kind, "io: cannot save: no space")
    assert info.value.errno == code and info.value.strerror == "io: cannot save: no space"
    assert info.value.filename == filename


def test_errors_from_real_ops_keep_their_messages():
    with pytest.raises(ValueError, match=r"add: cannot broadcast|\[2\].*\[3\]"):
        ember.ones(2) + ember.ones(3)
    with pytest.raises(TypeError, match="int8"):
        ember.ones(2, dtype=ember.int8) * 2
    with pytest.raises(IndexError):
        ember.ones(2, 3).transpose(0, 5)


def test_randint_spellings():
    assert ember.randint(10, (3,)).shape == (3,) and ember.randint(10, size=(2, 2)).shape == (2, 2)
    assert ember.randint(5, 6, (4,)).tolist() == [5, 5, 5, 5]


def test_numpy_integer_scalars_index_like_ints():
    x = ember.arange(6).reshape(2, 3)
    assert x[np.int64(1)].tolist() == [3, 4, 5] and x[1, np.int32(2)].item() == 5


# ---- type promotion against PyTorch's own table (tests/fixtures/promotion.json, written with torch
# by tests/fixtures/make_promotion_fixture.py)

def _promotion_fixture():
    import json
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "promotion.json")
    with open(path) as f:
        return json.load(f)


# Ember stores these; arithmetic needs a conversion (complex: through view_as_real). PyTorch's
# complex32 (float16 with a complex 0-d tensor) has no Ember dtype.
_STORAGE_ONLY = {"float16", "bfloat16", "int8", "int16", "complex64", "complex128", "complex32", "bcomplex32"}


def _operand(dtype, rank):
    return ember.ones(*((2,) if rank == "d" else ()), dtype=getattr(ember, dtype))


def test_binary_ops_promote_as_pytorch_for_every_dtype_pair_and_rank():
    for a, ra, b, rb, want in _promotion_fixture()["pairs"]:
        if {a, b, want} & _STORAGE_ONLY:
            continue
        x, y = _operand(a, ra), _operand(b, rb)
        # NB: subtraction with a bool operand is refused, as PyTorch refuses it.
        for result in (x + y, x * y, y - x if "bool" not in {a, b} else y * x):
            assert str(result.dtype) == f"ember.{want}", (a, ra, b, rb)


def test_python_numbers_promote_as_pytorch():
    numbers = {"bool": True, "int": 2, "float": 2.5}
    for dtype, rank, kind, want in _promotion_fixture()["scalars"]:
        if {dtype, want} & _STORAGE_ONLY:
            continue
        t = _operand(dtype, rank)
        assert str((t + numbers[kind]).dtype) == f"ember.{want}", (dtype, rank, kind)
        assert str((numbers[kind] + t).dtype) == f"ember.{want}", (dtype, rank, kind)


def test_zero_dim_float64_does_not_promote_a_float32_batch():
    x = ember.ones(3)
    scale = ember.tensor(0.5, dtype=ember.float64)
    assert (x * scale).dtype == ember.float32 and (scale + x).dtype == ember.float32
    assert (ember.ones(3, dtype=ember.int32) * scale).dtype == ember.float64


def test_thread_count_is_settable_as_in_torch():
    saved = ember.get_num_threads()
    assert saved >= 1
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        x = ember.randn(300, 300)
        one = (x @ x).sum(1)
        ember.set_num_threads(2)
        np.testing.assert_allclose((x @ x).sum(1).numpy(), one.numpy(), rtol=1e-5, atol=1e-3)
        with pytest.raises(ValueError, match="at least 1 thread, got 0"):
            ember.set_num_threads(0)
    finally:
        ember.set_num_threads(saved)
