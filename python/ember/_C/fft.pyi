"""
ember.fft's C++ half: discrete Fourier transforms (ops/fft.h)
"""
from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['fft', 'fft2', 'fftfreq', 'fftn', 'fftshift', 'hfft', 'ifft', 'ifft2', 'ifftn', 'ifftshift', 'ihfft', 'irfft', 'irfft2', 'irfftn', 'rfft', 'rfft2', 'rfftfreq', 'rfftn']
def fft(input: ember._C.Tensor, n: typing.SupportsInt | typing.SupportsIndex | None = None, dim: typing.SupportsInt | typing.SupportsIndex = -1, norm: str | None = None) -> ember._C.Tensor:
    """
    The 1-D discrete Fourier transform along dim (torch.fft.fft).
    """
def fft2(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = (-2, -1), norm: str | None = None) -> ember._C.Tensor:
    """
    fftn over the last two dims (torch.fft.fft2).
    """
def fftfreq(n: typing.SupportsInt | typing.SupportsIndex, d: typing.SupportsFloat | typing.SupportsIndex = 1.0, *, dtype: ember._C.dtype | None = None, device: ember._C._device | None = None, requires_grad: bool = False) -> ember._C.Tensor:
    """
    The sample frequencies of an n-point transform: [0, 1, ..., -1] / (d n) (torch.fft.fftfreq).
    """
def fftn(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = None, norm: str | None = None) -> ember._C.Tensor:
    """
    The n-dimensional transform over dim (torch.fft.fftn).
    """
def fftshift(input: ember._C.Tensor, dim: typing.Any = None) -> ember._C.Tensor:
    """
    Rolls the zero frequency to the centre of each dim (every dim by default).
    """
def hfft(input: ember._C.Tensor, n: typing.SupportsInt | typing.SupportsIndex | None = None, dim: typing.SupportsInt | typing.SupportsIndex = -1, norm: str | None = None) -> ember._C.Tensor:
    """
    The transform of a Hermitian signal given by its first half (torch.fft.hfft).
    """
def ifft(input: ember._C.Tensor, n: typing.SupportsInt | typing.SupportsIndex | None = None, dim: typing.SupportsInt | typing.SupportsIndex = -1, norm: str | None = None) -> ember._C.Tensor:
    """
    The inverse of fft (torch.fft.ifft).
    """
def ifft2(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = (-2, -1), norm: str | None = None) -> ember._C.Tensor:
    """
    The inverse of fft2 (torch.fft.ifft2).
    """
def ifftn(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = None, norm: str | None = None) -> ember._C.Tensor:
    """
    The inverse of fftn (torch.fft.ifftn).
    """
def ifftshift(input: ember._C.Tensor, dim: typing.Any = None) -> ember._C.Tensor:
    """
    The inverse of fftshift.
    """
def ihfft(input: ember._C.Tensor, n: typing.SupportsInt | typing.SupportsIndex | None = None, dim: typing.SupportsInt | typing.SupportsIndex = -1, norm: str | None = None) -> ember._C.Tensor:
    """
    The inverse of hfft: half the inverse transform of a real signal (torch.fft.ihfft).
    """
def irfft(input: ember._C.Tensor, n: typing.SupportsInt | typing.SupportsIndex | None = None, dim: typing.SupportsInt | typing.SupportsIndex = -1, norm: str | None = None) -> ember._C.Tensor:
    """
    The real signal whose rfft is input; n defaults to 2 (bins - 1) (torch.fft.irfft).
    """
def irfft2(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = (-2, -1), norm: str | None = None) -> ember._C.Tensor:
    """
    The inverse of rfft2 (torch.fft.irfft2).
    """
def irfftn(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = None, norm: str | None = None) -> ember._C.Tensor:
    """
    The inverse of rfftn (torch.fft.irfftn).
    """
def rfft(input: ember._C.Tensor, n: typing.SupportsInt | typing.SupportsIndex | None = None, dim: typing.SupportsInt | typing.SupportsIndex = -1, norm: str | None = None) -> ember._C.Tensor:
    """
    The n/2+1 non-negative frequencies of a real signal's transform (torch.fft.rfft).
    """
def rfft2(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = (-2, -1), norm: str | None = None) -> ember._C.Tensor:
    """
    rfftn over the last two dims (torch.fft.rfft2).
    """
def rfftfreq(n: typing.SupportsInt | typing.SupportsIndex, d: typing.SupportsFloat | typing.SupportsIndex = 1.0, *, dtype: ember._C.dtype | None = None, device: ember._C._device | None = None, requires_grad: bool = False) -> ember._C.Tensor:
    """
    The sample frequencies of rfft's bins: [0, 1, ..., n/2] / (d n) (torch.fft.rfftfreq).
    """
def rfftn(input: ember._C.Tensor, s: typing.Any = None, dim: typing.Any = None, norm: str | None = None) -> ember._C.Tensor:
    """
    fftn of a real input, the last dim's half spectrum (torch.fft.rfftn).
    """
