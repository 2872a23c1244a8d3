"""torch.fft: discrete Fourier transforms, all C++ (ops/fft.h, ember._C.fft) on Eigen's FFT module.

    spectrum = ember.fft.rfft(signal)                  # the n/2+1 non-negative frequencies
    back = ember.fft.irfft(spectrum, n=signal.shape[-1])
    freqs = ember.fft.rfftfreq(signal.shape[-1], d=1 / sample_rate)

n (or s) trims or zero-pads the input along the transformed dims; norm is "backward" (default: the
inverse transforms divide by n), "forward" or "ortho". Integer inputs compute in the default float
dtype and real inputs of the complex transforms become complex, as in PyTorch; float16 and bfloat16
are refused (PyTorch's CPU refuses them too). Results are complex64/complex128 tensors, on which
+, -, *, /, abs, angle, conj, exp, log, sqrt, sum, mean, ==, real, imag and view_as_real work.
Gradients through complex tensors are not implemented yet: the transforms raise NotImplementedError
on an input that requires grad rather than drop its gradient.
"""
from ._C.fft import (  # noqa: F401  (re-exported)
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
