"""complex64 and complex128 as PyTorch users meet them: tensors from Python complex numbers and NumPy,
view_as_real / view_as_complex and the .real / .imag views, conversions, printing, and checkpoints
(Ember files, plain safetensors, torch.save files). Arithmetic is done on the real view."""
import io
import warnings

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


def test_arithmetic_asks_for_the_real_view():
    c = ember.tensor([1 + 1j])
    with pytest.raises(TypeError, match="complex64 is a storage type here; compute on view_as_real"):
        c + c
    with pytest.raises(TypeError, match="complex64"):
        c.requires_grad_(True)
    doubled = ember.view_as_complex(ember.view_as_real(c) * 2)
    assert doubled.item() == 2 + 2j


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
