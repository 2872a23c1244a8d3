"""conv3d and nn.Conv3d, composed of Ember's conv2d: a 3-D cross-correlation is the sum over the
kernel's depth taps of 2-D ones on strided depth slices. The kd slices are stacked along the
channels (group by group) and every output depth goes into the batch, so one conv2d call does the
whole convolution and autograd gives every gradient."""
from __future__ import annotations

import math

from .. import _C
from . import init
from .modules import Module
from .parameter import Parameter
from .._autocast_op import autocast_op


def _triple(value, what: str):
    if isinstance(value, (tuple, list)):
        if len(value) != 3:
            raise ValueError(f"{what} must be an int or a 3-element tuple, got {value}")
        return tuple(int(v) for v in value)
    return (int(value),) * 3


def _check(input, weight, bias, groups: int) -> None:  # noqa: A002  (PyTorch's names)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
                           f"{list(input.shape)}")
    if weight.dim() != 5:
        raise RuntimeError(f"conv3d: expected a 5-D weight [out, in / groups, kd, kh, kw], got weight of size "
                           f"{list(weight.shape)}")
    if groups < 1:
        raise RuntimeError(f"non-positive groups is not supported, got groups={groups}")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{list(weight.shape)}] instead")
    if input.shape[-4] != weight.shape[1] * groups:
        batched = list(input.shape) if input.dim() == 5 else [1] + list(input.shape)
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{batched} to "
                           f"have {weight.shape[1] * groups} channels, but got {input.shape[-4]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")


def _same_padding(kernel, dilation, stride):
    """(left, right) per spatial dim so the output keeps the input's size; the odd unit goes right, as
    PyTorch puts it."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [(t // 2, t - t // 2) for t in totals]


@autocast_op("conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):  # noqa: A002
    """3-D cross-correlation of [N, C, D, H, W] (or [C, D, H, W]) with weight [O, C / groups, kd, kh, kw]
    and optional bias [O]; padding is an int, a triple, 'valid' or 'same'."""
    _check(input, weight, bias, groups)
    x = input if input.dim() == 5 else input.unsqueeze(0)
    kernel = tuple(weight.shape[2:])
    stride, dilation = _triple(stride, "conv3d: stride"), _triple(dilation, "conv3d: dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0, 0)
        elif padding == "same":
            sides = _same_padding(kernel, dilation, stride)
            x = _C.pad(x, [v for pair in reversed(sides) for v in pair])
            padding = (0, 0, 0)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    (kd, kh, kw), (sd, sh, sw), (dd, dh, dw) = kernel, stride, dilation
    pd, ph, pw = _triple(padding, "conv3d: padding")
    if pd:
        x = _C.pad(x, [0, 0, 0, 0, pd, pd])
    n, c, d, h, w = x.shape
    if d < dd * (kd - 1) + 1 or h + 2 * ph < dh * (kh - 1) + 1 or w + 2 * pw < dw * (kw - 1) + 1:
        raise RuntimeError(f"Calculated padded input size per channel: ({d} x {h + 2 * ph} x {w + 2 * pw}). Kernel "
                           f"size: ({dd * (kd - 1) + 1} x {dh * (kh - 1) + 1} x {dw * (kw - 1) + 1}). Kernel size "
                           f"can't be greater than actual input size")
    od = (d - dd * (kd - 1) - 1) // sd + 1
    # taps[:, i] is the depth slice tap i meets at every output depth: [N, kd, C, oD, H, W].
    taps = _C.stack([x[:, :, i * dd:i * dd + sd * (od - 1) + 1:sd] for i in range(kd)], 1)
    # NB: conv2d's groups split the channels in contiguous blocks, so the taps go inside each group:
    # channel (g, i, c) of the stack meets weight[g * O/g : (g+1) * O/g, c, i].
    cg = c // groups
    planes = (taps.reshape(n, kd, groups, cg, od, h, w).permute(0, 4, 2, 1, 3, 5, 6)
              .reshape(n * od, groups * kd * cg, h, w))
    out_channels = weight.shape[0]
    kernel2d = weight.permute(0, 2, 1, 3, 4).reshape(out_channels, kd * cg, kh, kw)
    y = _C.conv2d(planes, kernel2d, bias, (sh, sw), (ph, pw), (dh, dw), groups)
    y = y.reshape(n, od, out_channels, y.shape[-2], y.shape[-1]).permute(0, 2, 1, 3, 4)
    return y if input.dim() == 5 else y.squeeze(0)


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class Conv3d(Module):
    """Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros'): weight [out, in / groups, kd, kh, kw], bias [out], initialised as PyTorch's."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {{'zeros', 'reflect', 'replicate', 'circular'}}, but got "
                             f"padding_mode='{padding_mode}'")
        self.kernel_size = _triple(kernel_size, "kernel_size")
        self.stride, self.dilation = _triple(stride, "stride"), _triple(dilation, "dilation")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _triple(padding, "padding")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.padding_mode = padding_mode
        options = dict(dtype=dtype or _C.float32, device=device)
        self.weight = Parameter(_C.empty(out_channels, in_channels // groups, *self.kernel_size, **options))
        self.bias = Parameter(_C.empty(out_channels, **options)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # As PyTorch's: kaiming_uniform_(a=sqrt(5)), the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        # with fan_in = in / groups * kd * kh * kw.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):  # noqa: A002
        if self.padding_mode == "zeros":
            return conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        if self.padding == "valid":
            sides = [(0, 0)] * 3
        elif self.padding == "same":
            sides = _same_padding(self.kernel_size, self.dilation, self.stride)
        else:
            sides = [(p, p) for p in self.padding]
        padded = _C.pad(input, [v for pair in reversed(sides) for v in pair], self.padding_mode)
        return conv3d(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


__all__ = ["conv3d", "Conv3d"]
