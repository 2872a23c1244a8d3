"""ember.fft against numpy.fft (an independent pocketfft): every function over dims, lengths that
trim and pad, the three normalisations, even, odd and prime lengths, both precisions, empty batches
and integer inputs; PyTorch's argument rules and error messages; and round trips."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
import ember.fft as efft

NORMS = [None, "backward", "forward", "ortho"]


def close(got, want, dtype):
    tol = 2e-5 if dtype in (ember.float32, ember.complex64) else 1e-12
    scale = max(1.0, float(np.max(np.abs(want)))) if np.size(want) else 1.0
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * scale)


def signal(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype in (ember.complex64, ember.complex128):
        x = x + 1j * rng.standard_normal(shape)
    return x, ember.tensor(x, dtype=dtype)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 12, 17, 60, 97, 128])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_fft_and_ifft_match_numpy_at_every_length(n, norm, dtype):
    x, t = signal((3, n), dtype)
    out = efft.fft(t, norm=norm)
    assert out.dtype == dtype and out.shape == (3, n)
    close(out, np.fft.fft(x, norm=norm), dtype)
    close(efft.ifft(t, norm=norm), np.fft.ifft(x, norm=norm), dtype)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 9, 16, 31, 100])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_rfft_irfft_hfft_ihfft_match_numpy(n, norm, dtype):
    x, t = signal((2, 3, n), dtype, seed=n)
    spec = efft.rfft(t, norm=norm)
    cdtype = ember.complex64 if dtype == ember.float32 else ember.complex128
    assert spec.dtype == cdtype and spec.shape == (2, 3, n // 2 + 1)
    close(spec, np.fft.rfft(x, norm=norm), cdtype)
    back = efft.irfft(spec, n=n, norm=norm)
    assert back.dtype == dtype and back.shape == (2, 3, n)
    close(back, x, dtype)
    close(efft.ihfft(t, norm=norm), np.fft.ihfft(x, norm=norm), cdtype)
    h, th = signal((4, n // 2 + 1), cdtype, seed=n + 1)
    close(efft.hfft(th, n=n, norm=norm), np.fft.hfft(h, n=n, norm=norm), dtype)


def test_irfft_default_length_and_ignored_imaginary_parts():
    h = np.array([1 + 5j, 2 - 1j, 3 + 2j, 4 + 7j])  # bin 0's and (n = 6) bin 3's imaginary parts must be 0
    got = efft.irfft(ember.tensor(h, dtype=ember.complex128))
    assert got.shape == (6,)
    close(got, np.fft.irfft(h), ember.float64)


@pytest.mark.parametrize("n", [3, 8, 11])
def test_n_trims_and_zero_pads_along_any_dim(n):
    x, t = signal((5, 8, 2), ember.complex128)
    for dim in (0, 1, -1, -2):
        close(efft.fft(t, n=n, dim=dim), np.fft.fft(x, n=n, axis=dim), ember.complex128)
    r, tr = signal((6, 9), ember.float64)
    close(efft.rfft(tr, n=n, dim=0), np.fft.rfft(r, n=n, axis=0), ember.complex128)
    spec = np.fft.rfft(r, axis=0)
    close(efft.irfft(ember.tensor(spec), n=n, dim=0), np.fft.irfft(spec, n=n, axis=0), ember.float64)


@pytest.mark.parametrize("norm", NORMS)
def test_two_and_n_dimensional_transforms_match_numpy(norm):
    x, t = signal((2, 6, 5, 4), ember.complex128, seed=3)
    close(efft.fft2(t, norm=norm), np.fft.fft2(x, norm=norm), ember.complex128)
    close(efft.ifft2(t, norm=norm), np.fft.ifft2(x, norm=norm), ember.complex128)
    close(efft.fftn(t, norm=norm), np.fft.fftn(x, norm=norm), ember.complex128)
    close(efft.ifftn(t, dim=(0, 2), norm=norm), np.fft.ifftn(x, axes=(0, 2), norm=norm), ember.complex128)
    close(efft.fftn(t, s=(3, 7)), np.fft.fftn(x, s=(3, 7), axes=(2, 3)), ember.complex128)  # the last two dims
    close(efft.fftn(t, s=(-1, 7), dim=(1, 3)), np.fft.fftn(x, s=(6, 7), axes=(1, 3)), ember.complex128)
    r, tr = signal((3, 6, 7), ember.float64, seed=4)
    close(efft.rfft2(tr, norm=norm), np.fft.rfft2(r, norm=norm), ember.complex128)
    close(efft.rfftn(tr, dim=(2, 0), norm=norm), np.fft.rfftn(r, axes=(2, 0), norm=norm), ember.complex128)
    spec = np.fft.rfftn(r)
    close(efft.irfftn(ember.tensor(spec), s=r.shape, norm=norm),
          np.fft.irfftn(spec, s=r.shape, axes=(0, 1, 2), norm=norm), ember.float64)
    close(efft.irfft2(ember.tensor(np.fft.rfft2(r)), s=(6, 7)), r, ember.float64)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=4), data=st.data())
def test_property_rfftn_then_irfftn_is_the_identity_and_matches_numpy(shape, data):
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    norm = data.draw(st.sampled_from(NORMS))
    x, t = signal(tuple(shape), ember.float64, seed=len(dims))
    spec = efft.rfftn(t, dim=dims, norm=norm)
    close(spec, np.fft.rfftn(x, axes=dims, norm=norm), ember.complex128)
    lengths = [shape[d] for d in dims]
    close(efft.irfftn(spec, s=lengths, dim=dims, norm=norm), x, ember.float64)
    close(efft.fftn(t, dim=dims, norm=norm), np.fft.fftn(x, axes=dims, norm=norm), ember.complex128)


def test_strided_and_empty_inputs():
    x, t = signal((8, 6), ember.complex64)
    close(efft.fft(t.t(), dim=0), np.fft.fft(x.T, axis=0), ember.complex64)  # non-contiguous
    close(efft.fft(t[:, ::2]), np.fft.fft(x[:, ::2]), ember.complex64)
    empty = efft.fft(ember.zeros(0, 4, dtype=ember.complex64))
    assert empty.shape == (0, 4) and empty.dtype == ember.complex64
    assert efft.rfft(ember.zeros(0, 4)).shape == (0, 3)


def test_integers_promote_to_the_default_dtype_and_reals_to_complex():
    assert efft.fft(ember.arange(4)).dtype == ember.complex64
    assert efft.rfft(ember.arange(4)).dtype == ember.complex64
    assert efft.fft(ember.ones(4, dtype=ember.float64)).dtype == ember.complex128
    close(efft.fft(ember.arange(5)), np.fft.fft(np.arange(5)), ember.complex64)
    close(efft.ifft(ember.arange(5.0)), np.fft.ifft(np.arange(5.0)), ember.complex64)


def test_frequencies_and_shifts_match_numpy():
    for n in (1, 4, 5, 10):
        for d in (1.0, 0.1):
            close(efft.fftfreq(n, d), np.fft.fftfreq(n, d), ember.float32)
            close(efft.rfftfreq(n, d), np.fft.rfftfreq(n, d), ember.float32)
    assert efft.fftfreq(4, dtype=ember.float64).dtype == ember.float64
    assert efft.fftfreq(3).dtype == ember.float32
    x = np.arange(30.0).reshape(5, 6)
    t = ember.tensor(x)
    np.testing.assert_array_equal(efft.fftshift(t).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(efft.ifftshift(t).numpy(), np.fft.ifftshift(x))
    np.testing.assert_array_equal(efft.fftshift(t, dim=1).numpy(), np.fft.fftshift(x, axes=1))
    np.testing.assert_array_equal(efft.ifftshift(efft.fftshift(t, dim=(0,)), dim=0).numpy(), x)


def test_bad_arguments_name_the_problem():
    with pytest.raises(ValueError, match='invalid normalization mode "sideways"'):
        efft.fft(ember.ones(4), norm="sideways")
    with pytest.raises(ValueError, match=r"invalid number of data points \(0\)"):
        efft.fft(ember.ones(4), n=0)
    with pytest.raises(ValueError, match=r"invalid number of data points \(0\)"):
        efft.fft(ember.ones(0))
    with pytest.raises(TypeError, match="rfft expects a real input tensor, but got complex64"):
        efft.rfft(ember.ones(4, dtype=ember.complex64))
    with pytest.raises(TypeError, match="float16 transforms are not supported"):
        efft.fft(ember.ones(4, dtype=ember.float16))
    with pytest.raises(IndexError):
        efft.fft(ember.ones(4), dim=1)
    with pytest.raises(ValueError, match="appears twice"):
        efft.fftn(ember.ones(4, 4), dim=(0, -2))
    with pytest.raises(ValueError, match="s and dim must have the same length"):
        efft.fftn(ember.ones(4, 4), s=(2, 2), dim=(0,))


def test_spectra_of_inputs_that_require_grad_carry_gradients():
    # Gradient values are checked in test_complex_autograd.py (PyTorch's and finite differences).
    x = ember.randn(8, requires_grad=True)
    spec = efft.rfft(x)
    assert spec.requires_grad and spec.grad_fn is not None
    spec.abs().sum().backward()
    assert x.grad.shape == (8,) and x.grad.dtype == ember.float32
    assert not efft.rfft(x.detach()).requires_grad


def test_a_filter_in_the_frequency_domain_round_trips():
    # A user's low-pass filter: rfft, zero the high bins, irfft.
    t = ember.arange(256) / 256
    sig = ember.sin(2 * np.pi * 5 * t) + 0.5 * ember.sin(2 * np.pi * 60 * t)
    spec = efft.rfft(sig)
    freqs = efft.rfftfreq(256, d=1 / 256)
    keep = (freqs < 20).to(spec.dtype)
    smooth = efft.irfft(spec * keep, n=256)
    np.testing.assert_allclose(smooth.numpy(), np.sin(2 * np.pi * 5 * t.numpy()), atol=0.05)
    power = spec.abs() ** 2
    assert int(power.argmax()) == 5
