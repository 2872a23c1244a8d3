"""NumPy interop: from_numpy and numpy() share memory both ways; tensor() copies; dtypes map."""
import gc

import numpy as np
import pytest

import ember


@pytest.mark.parametrize("np_dtype, dtype", [
    (np.bool_, ember.bool), (np.uint8, ember.uint8), (np.int8, ember.int8), (np.int16, ember.int16),
    (np.int32, ember.int32), (np.int64, ember.int64),
    (np.float16, ember.float16), (np.float32, ember.float32), (np.float64, ember.float64)])
def test_dtypes_map_both_ways(np_dtype, dtype):
    a = np.array([[1, 0], [1, 1]], dtype=np_dtype)
    t = ember.from_numpy(a)
    assert t.dtype == dtype and t.shape == (2, 2)
    back = t.numpy()
    assert back.dtype == np_dtype and np.array_equal(back, a)


def test_from_numpy_shares_memory_both_ways():
    a = np.zeros((2, 3), dtype=np.float32)
    t = ember.from_numpy(a)
    a[0, 1] = 5.0                      # numpy -> tensor
    assert t[0, 1].item() == 5.0
    t[1] = 7.0                         # tensor -> numpy
    assert a[1].tolist() == [7.0, 7.0, 7.0]
    t.add_(1.0)
    assert a[0, 0] == 1.0
    assert t.data_ptr() == a.ctypes.data


def test_from_numpy_keeps_the_array_alive():
    t = ember.from_numpy(np.arange(1000, dtype=np.int64))
    gc.collect()
    assert t[999].item() == 999 and t.sum().item() == 999 * 1000 // 2


def test_from_numpy_strided_arrays_are_views():
    a = np.arange(12.0).reshape(3, 4)
    t = ember.from_numpy(a[:, ::2])
    assert t.stride() == (4, 2) and t.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    t[0, 1] = -1.0
    assert a[0, 2] == -1.0
    ft = ember.from_numpy(np.asfortranarray(np.ones((2, 3))))
    assert ft.stride() == (1, 2)


def test_from_numpy_refuses_negative_strides_and_unsupported_dtypes():
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="uint16"):
        ember.from_numpy(np.zeros(2, dtype=np.uint16))
    with pytest.raises(TypeError, match="expected a numpy.ndarray"):
        ember.from_numpy([1, 2])
    # ember.tensor copies, so it accepts what from_numpy refuses
    assert ember.tensor(np.arange(4.0)[::-1]).tolist() == [3.0, 2.0, 1.0, 0.0]


def test_tensor_copies_numpy_and_keeps_its_dtype():
    a = np.array([1.5, 2.5])
    t = ember.tensor(a)
    assert t.dtype == ember.float64
    a[0] = 0.0
    assert t[0].item() == 1.5
    assert ember.tensor(a, dtype=ember.float32).dtype == ember.float32
    assert ember.as_tensor(a).data_ptr() == a.ctypes.data


def test_numpy_is_a_view_of_the_tensor():
    t = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    a = t.numpy()
    a[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    t.mul_(2)
    assert a[0, 0] == 84.0
    assert a.ctypes.data == t.data_ptr()


def test_numpy_of_views_keeps_strides_and_the_tensor_alive():
    t = ember.arange(12, dtype=ember.int64).reshape(3, 4)
    view = t.t()[1:, ::2]
    a = view.numpy()
    assert a.strides == tuple(s * 8 for s in view.stride())
    assert a.tolist() == view.tolist()
    del t, view
    gc.collect()
    assert a.tolist() == [[1, 9], [2, 10], [3, 11]]
    b = ember.ones(3).expand(2, 3).numpy()  # stride 0
    assert b.shape == (2, 3) and b.strides[0] == 0


def test_numpy_refuses_bfloat16_and_requires_grad():
    with pytest.raises(TypeError, match="bfloat16 has no NumPy dtype; convert first"):
        ember.ones(2, dtype=ember.bfloat16).numpy()
    assert ember.ones(2, dtype=ember.bfloat16).float().numpy().tolist() == [1.0, 1.0]
    w = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        w.numpy()
    assert w.detach().numpy().tolist() == [1.0, 1.0]
    assert w.numpy(force=True).tolist() == [1.0, 1.0]


def test_buffer_protocol_and_array_interface():
    t = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    m = memoryview(t)
    assert m.format == "i" and m.shape == (2, 2) and m.tolist() == [[1, 2], [3, 4]]
    a = np.asarray(t)
    a[1, 1] = 9
    assert t[1, 1].item() == 9
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    half = memoryview(ember.ones(2, dtype=ember.float16))
    assert half.format == "e"
    with pytest.raises(BufferError) as info:  # the buffer protocol allows no other exception
        memoryview(ember.ones(2, dtype=ember.bfloat16))
    assert "bfloat16 has no buffer format" in str(info.value.__cause__ or info.value.__context__)


def test_scalars_and_zero_sized_arrays():
    assert ember.from_numpy(np.array(3.0)).shape == ()
    assert ember.tensor(np.float32(2.5)).dtype == ember.float32
    empty = ember.from_numpy(np.zeros((0, 3), dtype=np.float32))
    assert empty.shape == (0, 3) and empty.numpy().shape == (0, 3)


def test_tolist_matches_numpy():
    a = np.random.default_rng(0).standard_normal((2, 3, 2))
    assert ember.tensor(a).tolist() == a.tolist()


def test_from_numpy_of_an_empty_array_is_contiguous_as_in_pytorch():
    # NumPy gives an empty array zero strides; PyTorch's tensor keeps them and is contiguous.
    for shape in [(0, 3, 4, 5), (3, 0), (0,)]:
        t = ember.from_numpy(np.zeros(shape, dtype=np.float32))
        assert t.is_contiguous()
        assert t.view(-1).shape == (0,)
        assert t.reshape(shape[::-1]).shape == shape[::-1]
