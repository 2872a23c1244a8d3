"""The 3-D poolings (max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d) and their
modules, composed of Ember's 2-D ones. A 3-D window is a box, and maxima and box means are
separable: the 2-D op pools every depth slice over (H, W), then the same op pools the result along
D as a D x (oH * oW) plane with windows k x 1. PyTorch's output sizes (ceil_mode) and divisors
(count_include_pad) are per-dimension products, so the two passes give its values exactly."""
from __future__ import annotations

from .. import _C
from .modules import Module
from .._autocast_op import autocast_op


def _triple(value, who: str, what: str):
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * 3
        if len(value) != 3:
            raise RuntimeError(f"{who}: {what} must either be a single int, or a tuple of three ints")
        return tuple(int(v) for v in value)
    return (int(value),) * 3


def _batched(input, who: str):  # noqa: A002  (PyTorch's names)
    if input.dim() not in (4, 5) or input.numel() == 0:
        raise RuntimeError(f"{who}: non-empty 4D or 5D (batch mode) tensor expected for input, got shape "
                           f"{list(input.shape)}")
    return input if input.dim() == 5 else input.unsqueeze(0)


def _geometry(who, x, kernel_size, stride, padding, dilation, ceil_mode):
    k = _triple(kernel_size, who, "kernel_size")
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    s = k if no_stride else _triple(stride, who, "stride")
    p, d = _triple(padding, who, "padding"), _triple(dilation, who, "dilation")
    if any(v <= 0 for v in k):
        raise RuntimeError(f"{who}: kernel_size must be greater than zero, but got {k}")
    if any(v <= 0 for v in s):
        raise RuntimeError("stride should not be zero")
    for pi, ki, di in zip(p, k, d):
        if pi < 0 or pi > (di * (ki - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pi}, "
                               f"kernel_size={ki} and dilation={di}")
    sizes = []
    for n, ki, si, pi, di in zip(x.shape[2:], k, s, p, d):
        span = n + 2 * pi - di * (ki - 1) - 1
        out = (span + (si - 1 if ceil_mode else 0)) // si + 1
        if ceil_mode and (out - 1) * si >= n + pi:  # the last window must start inside input or left padding
            out -= 1
        sizes.append(out)
    if any(o < 1 for o in sizes):
        raise RuntimeError(f"{who}: Given input size: ({'x'.join(str(v) for v in x.shape[1:])}). Calculated output "
                           f"size: ({x.shape[1]}x{'x'.join(str(v) for v in sizes)}). Output size is too small")
    return k, s, p, d


def _combine_indices(first, second, hw_in: int, hw_out: int):
    """Flat D*H*W positions from the two passes' indices: `second` indexes the D x (oH*oW) plane of the
    first pass's maxima, `first` [N, C, D, oH*oW] each maximum's flat H*W position."""
    depth = second // hw_out
    return depth * hw_in + _C.gather(first, 2, depth)


def _separable(fn2d, x, first_args, second_args, return_indices: bool):
    """fn2d over (H, W) of every depth slice, then along D; with indices into the input's D*H*W."""
    n, c, d, h, w = x.shape
    first = fn2d(x.reshape(n, c * d, h, w), *first_args)
    values, idx1 = first if return_indices else (first, None)
    oh, ow = values.shape[-2], values.shape[-1]
    second = fn2d(values.reshape(n, c, d, oh * ow), *second_args)
    if not return_indices:
        return second.reshape(n, c, second.shape[2], oh, ow)
    out, idx2 = second
    od = out.shape[2]
    index = _combine_indices(idx1.reshape(n, c, d, oh * ow), idx2, h * w, oh * ow)
    return out.reshape(n, c, od, oh, ow), index.reshape(n, c, od, oh, ow)


def _unbatch(result, input):  # noqa: A002
    if input.dim() == 5:
        return result
    if isinstance(result, tuple):
        return tuple(r.squeeze(0) for r in result)
    return result.squeeze(0)


@autocast_op("max_pool3d")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,  # noqa: A002
               return_indices: bool = False):
    """Window maxima over the last three dims of [N, C, D, H, W] or [C, D, H, W] (with their flat D*H*W
    positions, return_indices=True)."""
    x = _batched(input, "max_pool3d")
    k, s, p, d = _geometry("max_pool3d", x, kernel_size, stride, padding, dilation, ceil_mode)
    out = _separable(_C.max_pool2d, x, ((k[1], k[2]), (s[1], s[2]), (p[1], p[2]), (d[1], d[2]), ceil_mode,
                                        return_indices),
                     ((k[0], 1), (s[0], 1), (p[0], 0), (d[0], 1), ceil_mode, return_indices), return_indices)
    return _unbatch(out, input)


@autocast_op("avg_pool3d")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,  # noqa: A002
               count_include_pad: bool = True, divisor_override=None):
    """Window means over the last three dims; count_include_pad counts zero padding in the divisor,
    divisor_override replaces it."""
    x = _batched(input, "avg_pool3d")
    k, s, p, _ = _geometry("avg_pool3d", x, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    # NB: with an override, the first pass sums (divisor 1) and the second divides once.
    first_divisor = None if divisor_override is None else 1
    out = _separable(_C.avg_pool2d, x, ((k[1], k[2]), (s[1], s[2]), (p[1], p[2]), ceil_mode, count_include_pad,
                                        first_divisor),
                     ((k[0], 1), (s[0], 1), (p[0], 0), ceil_mode, count_include_pad, divisor_override), False)
    return _unbatch(out, input)


def _output_size(who: str, x, output_size):
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 3:
            raise RuntimeError(f"{who}: output_size must be 3")
        sizes = [x.shape[2 + i] if v is None else int(v) for i, v in enumerate(output_size)]
    else:
        sizes = [int(output_size)] * 3
    if any(v < 0 for v in sizes):
        raise RuntimeError(f"{who}: elements of output_size must be greater than or equal to 0 but received "
                           f"{tuple(sizes)}")
    return sizes


def _adaptive_input(input, who: str):  # noqa: A002
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{who}(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    return input if input.dim() == 5 else input.unsqueeze(0)


@autocast_op("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """Means over the windows that tile D x H x W into output_size (an int, or a triple whose None keeps
    that dim's size); windows [floor(i * in / out), ceil((i + 1) * in / out)) as PyTorch's."""
    x = _adaptive_input(input, "adaptive_avg_pool3d")
    od, oh, ow = _output_size("adaptive_avg_pool3d", x, output_size)
    out = _separable(_C.adaptive_avg_pool2d, x, ((oh, ow),), ((od, oh * ow),), False)
    return _unbatch(out, input)


@autocast_op("adaptive_max_pool3d")
def adaptive_max_pool3d(input, output_size, return_indices: bool = False):  # noqa: A002
    """Maxima over the windows adaptive_avg_pool3d averages (and their flat D*H*W positions)."""
    x = _adaptive_input(input, "adaptive_max_pool3d")
    od, oh, ow = _output_size("adaptive_max_pool3d", x, output_size)
    out = _separable(_C.adaptive_max_pool2d, x, ((oh, ow), return_indices), ((od, oh * ow), return_indices),
                     return_indices)
    return _unbatch(out, input)


class MaxPool3d(Module):
    """MaxPool3d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):  # noqa: A002
        return max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                          self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool3d(Module):
    """AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):  # noqa: A002
        return avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                          self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(Module):
    """AdaptiveAvgPool3d(output_size)."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):  # noqa: A002
        return adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(Module):
    """AdaptiveMaxPool3d(output_size, return_indices=False)."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):  # noqa: A002
        return adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d"]
