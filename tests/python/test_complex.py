"""complex64 and complex128 as PyTorch users meet them: tensors from Python complex numbers and NumPy,
view_as_real / view_as_complex and the .real / .imag views, conversions, printing, and checkpoints
(Ember files, plain safetensors, torch.save files), and arithmetic against NumPy."""
import io

import numpy as np
import pytest

import ember


def test_python_complex_numbers_make_complex64_as_in_torch():
    t = ember.tensor([1 + 2j, -0.5j])
    assert t.dtype == ember.complex64 and t.is_complex() and not t.is_floating_point()
    assert t.tolist() == [1 + 2j, -0.5j]
    assert t[1].item() == -0.5j and isinstance(t[1].item(), complex)
    assert ember.tensor([1j], dtype=ember.complex128).dtype == ember.cdouble
    assert ember.cfloat == ember.complex64 and ember.complex64.is_complex
    assert ember.ones(2).cdouble().tolist() == [1 + 0j, 1 + 0j]
    assert repr(t) == "tensor([1.+2.0000j, -0.-0.5000j])"  # torch's printout (-0.5j has real part -0.)
    assert repr(t.cdouble()[0]) == "tensor(1.+2.j, dtype=ember.complex128)"


def test_numpy_shares_complex_memory_both_ways():
    a = (np.arange(6) + 1j * np.arange(6, 12)).reshape(2, 3)
    t = ember.from_numpy(a)
    assert t.dtype == ember.complex128 and t.shape == (2, 3)
    a[1, 2] = 7 - 7j
    assert t[1, 2].item() == 7 - 7j
    back = t.t().contiguous().numpy()
    np.testing.assert_array_equal(back, a.T)
    assert np.asarray(memoryview(ember.tensor([1j]))).dtype == np.complex64


def test_view_as_real_is_a_writable_view_with_torch_layout():
    z = ember.tensor(np.arange(12, dtype=np.float32).reshape(3, 2, 2)).reshape(3, 4)
    c = ember.view_as_complex(z.reshape(3, 2, 2))
    assert c.dtype == ember.complex64 and c.shape == (3, 2)
    r = ember.view_as_real(c.t())
    assert r.shape == (2, 3, 2) and r.stride() == (2, 4, 1)
    r[..., 1] *= -1  # conjugate through the real view
    np.testing.assert_array_equal(c.imag.numpy(), -np.arange(12, dtype=np.float32).reshape(3, 2, 2)[..., 1])
    assert c.real.data_ptr() == c.data_ptr()
    plain = ember.ones(3)
    assert ember.equal(plain.real, plain) and plain.real.data_ptr() == plain.data_ptr()  # itself
    with pytest.raises(TypeError, match="imag: only complex tensors have imaginary parts, got float32"):
        plain.imag
    with pytest.raises(ValueError, match="the last dim must have size 2"):
        ember.view_as_complex(ember.ones(3, 3))


def cplx(shape, dtype=ember.complex128, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return a, ember.tensor(a, dtype=dtype)


@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_arithmetic_matches_numpy(dtype):
    tol = 1e-6 if dtype == ember.complex64 else 1e-14
    a, ta = cplx((3, 4), dtype, 1)
    b, tb = cplx((4,), dtype, 2)  # broadcast
    for got, want in [(ta + tb, a + b), (ta - tb, a - b), (ta * tb, a * b), (ta / tb, a / b), (-ta, -a),
                      (ember.add(ta, tb, alpha=2.5), a + 2.5 * b), (ember.sub(ta, tb, alpha=-3), a + 3 * b),
                      (ta.exp(), np.exp(a)), (ta.log(), np.log(a)), (ta.sqrt(), np.sqrt(a)),
                      (ta.reciprocal(), 1 / a), (ta.conj(), np.conj(a)), (ember.conj_physical(ta), np.conj(a)),
                      (ta.sum(), a.sum()), (ta.sum(0), a.sum(0)), (ta.mean(-1, keepdim=True), a.mean(-1, keepdims=True)),
                      (ta.sum(dim=(0, 1)), a.sum())]:
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    for got, want in [(ta.abs(), np.abs(a)), (ta.angle(), np.angle(a)), (ember.abs(ta), np.abs(a))]:
        assert got.dtype == (ember.float32 if dtype == ember.complex64 else ember.float64)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_real_operands_promote_to_complex_as_in_torch():
    a, ta = cplx((3,))
    r = np.array([1.5, -2.0, 0.25])
    tr = ember.tensor(r)  # float32: float32 with complex128 computes in complex128
    np.testing.assert_allclose((ta * tr).numpy(), a * r.astype(np.float32))
    assert (ember.ones(2, dtype=ember.float32) + ember.ones(2, dtype=ember.complex64)).dtype == ember.complex64
    assert (ember.ones(2, dtype=ember.float64) * ember.ones(2, dtype=ember.complex64)).dtype == ember.complex128
    assert (ember.arange(3) * ember.ones(3, dtype=ember.complex64)).dtype == ember.complex64
    c = ember.tensor([1 + 1j])
    assert (c * 2).tolist() == [2 + 2j] and (c + 1).tolist() == [2 + 1j] and (c / 2).tolist() == [0.5 + 0.5j]
    assert (2 - c).tolist() == [1 - 1j]


def test_boundary_values_follow_the_c_standard():
    big = ember.tensor([2e38 + 2e38j], dtype=ember.complex64)
    assert np.isclose(big.abs().item(), np.hypot(2e38, 2e38), rtol=1e-6)  # re^2 + im^2 would overflow
    assert (ember.tensor([1 + 1j]) / ember.tensor([1e38 + 1e38j])).abs().item() > 0  # scaled division
    z = ember.tensor([0j, complex("inf"), complex("nan")], dtype=ember.complex128)
    np.testing.assert_array_equal(z.abs().numpy(), [0, np.inf, np.nan])
    assert ember.tensor([-1 + 0j]).sqrt().item() == 1j
    assert ember.tensor([complex(-1, -0.0)], dtype=ember.complex128).angle().item() == -np.pi  # the sign of zero counts
    assert ember.tensor([1 + 0j]).conj().imag.item() == 0.0 and str(ember.tensor([1 + 0j]).conj().imag.item()) == "-0.0"


def test_equality_compares_both_parts():
    a = ember.tensor([1 + 2j, 1 + 2j, 3j])
    b = ember.tensor([1 + 2j, 1 - 2j, 3j])
    assert (a == b).tolist() == [True, False, True]
    assert (a != b).tolist() == [False, True, False]
    assert ember.eq(a, ember.tensor([1.0, 0.0, 0.0])).tolist() == [False, False, False]
    with pytest.raises(TypeError, match="complex64"):
        a < b


def test_complex_polar_and_angle_build_and_take_apart():
    re, im = ember.tensor([1.0, -2.0]), ember.tensor([[0.5], [-1.0]])
    z = ember.complex(re, im)
    assert z.dtype == ember.complex64 and z.shape == (2, 2)
    np.testing.assert_array_equal(z.numpy(), np.array([1.0, -2.0]) + 1j * np.array([[0.5], [-1.0]]))
    r, theta = ember.tensor([2.0, 1.0], dtype=ember.float64), ember.tensor([np.pi / 2, np.pi], dtype=ember.float64)
    p = ember.polar(r, theta)
    assert p.dtype == ember.complex128
    np.testing.assert_allclose(p.numpy(), r.numpy() * np.exp(1j * theta.numpy()), atol=1e-15)
    np.testing.assert_allclose(p.abs().numpy(), r.numpy())
    assert ember.angle(ember.tensor([-2.0, 0.0, 3.0, float("nan")])).tolist()[:3] == [np.float32(np.pi), 0.0, 0.0]
    assert ember.angle(ember.tensor([-1])).dtype == ember.float32
    with pytest.raises(TypeError, match="float32 and float64"):
        ember.complex(ember.ones(1), ember.ones(1, dtype=ember.float64))
    plain = ember.ones(2)
    assert plain.conj() is plain or plain.conj().data_ptr() == plain.data_ptr()


def test_real_leaves_get_real_gradients_through_complex_ops():
    # Gradient values are checked in test_complex_autograd.py; here the dtypes a user sees.
    x = ember.ones(2, requires_grad=True)
    (x * ember.tensor([1j, 1j])).abs().sum().backward()
    assert x.grad.dtype == ember.float32 and x.grad.tolist() == [1.0, 1.0]
    x.grad = None
    ember.complex(x, x).abs().sum().backward()  # |x + ix| = sqrt(2) x
    np.testing.assert_allclose(x.grad.numpy(), [np.sqrt(2)] * 2, rtol=1e-6)
    z = ember.tensor([1j]).requires_grad_(True)
    assert z.requires_grad and z.is_leaf
    with pytest.raises(TypeError, match="only floating point and complex tensors can require gradients, got int64"):
        ember.tensor([1]).requires_grad_(True)


def test_casting_to_real_keeps_the_real_part_and_warns_as_torch():
    c = ember.tensor([3 - 4j, 0j])
    with pytest.warns(UserWarning, match="casting complex64 to float32 discards the imaginary part"):
        f = c.float()
    assert f.tolist() == [3.0, 0.0]
    assert c.bool().tolist() == [True, False]


@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_checkpoints_keep_complex_tensors_bit_for_bit(tmp_path, dtype):
    a = np.array([[1.5 - 2j, np.nan + 1j], [np.inf - np.inf * 1j, -0.0 + 5e-300j]])
    t = ember.tensor(a, dtype=dtype).t()  # non-contiguous
    path = tmp_path / "c.ember"
    ember.save({"z": t, "note": ("best", t)}, path)
    back = ember.load(path)
    assert back["z"].dtype == dtype and back["note"][0] == "best"
    np.testing.assert_array_equal(back["z"].numpy(), t.numpy())
    assert ember.io.load_tensor(path, "z").dtype == dtype


def test_complex64_is_safetensors_c64_and_complex128_float64_pairs(tmp_path):
    from safetensors.numpy import load_file, save_file
    c64 = ember.tensor([1 + 2j, 3 - 4j])
    c128 = ember.tensor([[0.1 + 0.2j]], dtype=ember.complex128)
    path = tmp_path / "ckpt.ember"  # an Ember checkpoint is a safetensors file
    ember.save({"c64": c64, "c128": c128}, path)
    read = load_file(str(path))
    np.testing.assert_array_equal(read["c64"], c64.numpy())
    # safetensors has no complex128: the pairs, as torch.view_as_real lays them out
    np.testing.assert_array_equal(read["c128"], np.array([[[0.1, 0.2]]]))
    # and Ember reads a C64 file that another writer made
    other = tmp_path / "other.safetensors"
    save_file({"w": np.array([5 - 6j], dtype=np.complex64)}, str(other))
    assert ember.load(other)["w"].tolist() == [5 - 6j]


def test_torch_save_complex_storages_load():
    import struct
    import zipfile

    def storage_pickle():
        # {'c': rebuild_tensor_v2(('storage', torch.ComplexDoubleStorage, '0', 'cpu', 2), 0, (2,), (1,), False, OrderedDict())}
        def s(x):
            b = x.encode()
            return b"X" + struct.pack("<I", len(b)) + b
        return (b"\x80\x02}q\x00(" + s("c") + b"ctorch._utils\n_rebuild_tensor_v2\n(" +
                b"(" + s("storage") + b"ctorch\nComplexDoubleStorage\n" + s("0") + s("cpu") + b"K\x02tQ" +
                b"K\x00K\x02\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtRu.")

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", storage_pickle())
        z.writestr("archive/data/0", np.array([1 + 2j, -3j], dtype=np.complex128).tobytes())
        z.writestr("archive/version", "3\n")
        z.writestr("archive/byteorder", "little")
    buf.seek(0)
    back = ember.load(buf)
    assert back["c"].dtype == ember.complex128 and back["c"].tolist() == [1 + 2j, -3j]


def test_ops_without_complex_kernels_refuse_rather_than_truncate():
    m = ember.tensor([1 + 2j, 3 - 1j])
    for op in (lambda: m.cumsum(0), lambda: m.cumprod(0), lambda: m.tanh(), lambda: m.max()):
        with pytest.raises(TypeError, match="complex64 is a storage type here"):
            op()  # cumsum and cumprod used to cast to int64 with a warning


def test_python_complex_numbers_are_operands_as_in_torch():
    x = ember.tensor([1.0, -2.0])
    assert (x * 1j).dtype == ember.complex64 and (x * 1j).tolist() == [1j, -2j]
    assert (x.double() * 1j).dtype == ember.complex128
    assert (ember.arange(2) * 1j).dtype == ember.complex64  # integers meet a complex number in the default complex
    z = ember.tensor([1 + 1j, 2 - 1j], dtype=ember.complex128)
    np.testing.assert_allclose((2j - z).numpy(), 2j - z.numpy())
    np.testing.assert_allclose((z / (1 + 2j)).numpy(), z.numpy() / (1 + 2j))
    np.testing.assert_allclose((1j / z).numpy(), 1j / z.numpy())
    np.testing.assert_allclose((z + 0.5j).numpy(), z.numpy() + 0.5j)
    assert (z == 1 + 1j).tolist() == [True, False] and (z != 1 + 1j).tolist() == [False, True]
    # NumPy's complex128 is a Python complex (its imaginary part kept); a NumPy float stays a real scalar.
    assert (x * np.complex128(1j)).tolist() == [1j, -2j]
    assert (x * np.float64(2.0)).dtype == ember.float32
    # A phase ramp, as signal code writes it; the gradient flows to the real phase.
    phase = ember.linspace(0, 1, 5, dtype=ember.float64, requires_grad=True)
    ember.exp(1j * phase).real.sum().backward()
    np.testing.assert_allclose(phase.grad.numpy(), -np.sin(np.linspace(0, 1, 5)))


def test_in_place_arithmetic_on_complex_tensors():
    z = ember.tensor([1 + 1j, 2j], dtype=ember.complex128)
    ref = z.numpy().copy()
    z.mul_(2)
    z.add_(ember.tensor([1j, 1.0], dtype=ember.complex128), alpha=2)
    z.sub_(1)
    z.div_(ember.tensor(1 - 1j, dtype=ember.complex128))
    z *= 1j
    z += 0.5j
    z /= 2 + 1j
    z -= 3
    ref = ((ref * 2 + 2 * np.array([1j, 1.0]) - 1) / (1 - 1j) * 1j + 0.5j) / (2 + 1j) - 3
    np.testing.assert_allclose(z.numpy(), ref, rtol=1e-15)
    # Recorded when it requires grad: d|1j w| / dw = w / |w|.
    w = ember.tensor([3 + 4j], dtype=ember.complex128, requires_grad=True)
    v = w * 1
    v.mul_(1j)
    v.abs().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.6 + 0.8j])
    with pytest.raises(RuntimeError, match="mul_: result type .* can't be cast to the desired output type"):
        ember.ones(2).mul_(ember.tensor([1j, 1j]))
