"""Sliding-window functions of torch.nn.functional that Ember builds from its 2-D ones: the 1-D
poolings and conv_transpose1d (a length L as a 1 x L plane), and unfold / fold (im2col and its adjoint) as an
index_select / index_add over the flattened, padded planes, so their gradients are those ops'."""
from __future__ import annotations

import numpy as np

from .. import _C
from .._autocast_op import autocast_op


def _index(positions, device):
    """An int64 index tensor of NumPy positions, on device."""
    return _C.from_numpy(np.ascontiguousarray(positions, dtype=np.int64)).to(device)


def _one(value, what: str) -> int:
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise ValueError(f"{what} must be an int or a 1-element tuple, got {value}")
        return int(value[0])
    return int(value)


def _on_plane(fn, input, *args, **kwargs):  # noqa: A002  (PyTorch's names)
    # [N, C, L] or [C, L] as [.., 1, L]: the 2-D function's windows are 1 x k.
    out = fn(input.unsqueeze(-2), *args, **kwargs)
    if isinstance(out, (tuple, list)):
        return tuple(o.squeeze(-2) for o in out)
    return out.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,  # noqa: A002
               return_indices: bool = False):
    """Window maxima along the last dim (with their positions along it, return_indices=True)."""
    k = _one(kernel_size, "max_pool1d: kernel_size")
    s = k if stride is None or stride == [] else _one(stride, "max_pool1d: stride")
    return _on_plane(_C.max_pool2d, input, (1, k), (1, s), (0, _one(padding, "max_pool1d: padding")),
                     (1, _one(dilation, "max_pool1d: dilation")), ceil_mode, return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,  # noqa: A002
               count_include_pad: bool = True):
    """Window means along the last dim."""
    k = _one(kernel_size, "avg_pool1d: kernel_size")
    s = k if stride is None or stride == [] else _one(stride, "avg_pool1d: stride")
    return _on_plane(_C.avg_pool2d, input, (1, k), (1, s), (0, _one(padding, "avg_pool1d: padding")), ceil_mode,
                     count_include_pad)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """Means over output_size windows that tile the last dim."""
    return _on_plane(_C.adaptive_avg_pool2d, input, (1, _one(output_size, "adaptive_avg_pool1d: output_size")))


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):  # noqa: A002
    """Maxima over output_size windows that tile the last dim."""
    return _on_plane(_C.adaptive_max_pool2d, input, (1, _one(output_size, "adaptive_max_pool1d: output_size")),
                     return_indices)


def lp_pool2d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):  # noqa: A002
    """(sum over each window of input^p)^(1/p), as PyTorch computes it (through avg_pool2d, the sign of
    the window's sum kept)."""
    kh, kw = _pair(kernel_size)
    out = _C.avg_pool2d(input ** norm_type, (kh, kw), _pair(stride) if stride is not None else (kh, kw), 0, ceil_mode)
    return (_C.sign(out) * _C.relu(_C.abs(out)) * (kh * kw)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):  # noqa: A002
    """lp_pool2d over a 1 x L plane."""
    k = _one(kernel_size, "lp_pool1d: kernel_size")
    s = k if stride is None else _one(stride, "lp_pool1d: stride")
    return _on_plane(lp_pool2d, input, norm_type, (1, k), (1, s), ceil_mode)


@autocast_op("conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,  # noqa: A002
                     dilation=1):
    """The transposed 1-D convolution, as conv_transpose2d over a 1 x L plane (weight [in, out / groups, k])."""
    return _on_plane(_C.conv_transpose2d, input, weight.unsqueeze(-2), bias, (1, _one(stride, "stride")),
                     (0, _one(padding, "padding")), (0, _one(output_padding, "output_padding")), groups,
                     (1, _one(dilation, "dilation")))


def _pair(value):
    return (int(value), int(value)) if isinstance(value, int) else tuple(int(v) for v in value)


def _window_positions(padded_hw, kernel, dilation, stride):
    """(flat positions in the padded plane of every window element, ordered (ki, kj, oh, ow), and
    the number of windows)."""
    (hp, wp), (kh, kw), (dh, dw), (sh, sw) = padded_hw, kernel, dilation, stride
    oh, ow = (hp - dh * (kh - 1) - 1) // sh + 1, (wp - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"unfold: the padded input {hp}x{wp} is smaller than the dilated kernel")
    rows = np.arange(kh)[:, None, None, None] * dh + np.arange(oh)[None, None, :, None] * sh
    cols = np.arange(kw)[None, :, None, None] * dw + np.arange(ow)[None, None, None, :] * sw
    return (rows * wp + cols).reshape(-1), oh * ow


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """im2col: [N, C, H, W] (or [C, H, W]) -> [N, C * kh * kw, L], every window as a column."""
    x = input if input.dim() == 4 else input.unsqueeze(0)
    if x.dim() != 4:
        raise RuntimeError(f"unfold: expected a 3-D or 4-D input, got {input.dim()}-D")
    (kh, kw), (ph, pw) = _pair(kernel_size), _pair(padding)
    n, c, h, w = x.shape
    if ph or pw:
        x = _C.pad(x, [pw, pw, ph, ph])
    index, windows = _window_positions((h + 2 * ph, w + 2 * pw), (kh, kw), _pair(dilation), _pair(stride))
    cols = x.reshape(n, c, -1).index_select(2, _index(index, x.device))
    out = cols.reshape(n, c * kh * kw, windows)
    return out if input.dim() == 4 else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """col2im, unfold's adjoint: [N, C * kh * kw, L] columns summed back into [N, C, H, W]."""
    x = input if input.dim() == 3 else input.unsqueeze(0)
    (h, w), (kh, kw), (ph, pw) = _pair(output_size), _pair(kernel_size), _pair(padding)
    n, ckk, windows = x.shape
    if ckk % (kh * kw):
        raise RuntimeError(f"fold: expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={ckk} and kernel_size=({kh}, {kw})")
    c = ckk // (kh * kw)
    hp, wp = h + 2 * ph, w + 2 * pw
    index, expected = _window_positions((hp, wp), (kh, kw), _pair(dilation), _pair(stride))
    if windows != expected:
        raise RuntimeError(f"fold: expected input's dimension 2 to match the calculated number of sliding "
                           f"blocks {expected}, but got input.size(2)={windows}")
    planes = _C.zeros(n, c, hp * wp, dtype=x.dtype, device=x.device)
    planes = _C.index_add(planes, 2, _index(index, x.device), x.reshape(n, c, kh * kw * windows))
    out = planes.reshape(n, c, hp, wp)[:, :, ph:ph + h, pw:pw + w]
    return out if input.dim() == 3 else out.squeeze(0)


__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "lp_pool1d", "lp_pool2d",
           "conv_transpose1d", "unfold", "fold"]
