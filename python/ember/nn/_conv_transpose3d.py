"""conv_transpose3d and nn.ConvTranspose3d, composed of Ember's conv_transpose2d: every input depth
slice goes into the batch and the kernel's depth taps are stacked along the output channels (group by
group), so one conv_transpose2d call gives each (tap, input depth) plane; an index_add then puts plane
(kd, d) at output depth d * stride + kd * dilation - padding. autograd gives every gradient."""
from __future__ import annotations

import math

import numpy as np

from .. import _C
from . import init
from ._conv3d import _triple
from .modules import Module
from .parameter import Parameter
from .._autocast_op import autocast_op


def _check(input, weight, bias, groups: int) -> None:  # noqa: A002  (PyTorch's names)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input "
                           f"of size: {list(input.shape)}")
    if weight.dim() != 5:
        raise RuntimeError(f"conv_transpose3d: expected a 5-D weight [in, out / groups, kd, kh, kw], got weight "
                           f"of size {list(weight.shape)}")
    if groups < 1 or weight.shape[0] % groups:
        raise RuntimeError(f"conv_transpose3d: groups={groups} must be positive and divide weight's first dim "
                           f"{weight.shape[0]}")
    if input.shape[-4] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input "
                           f"{list(input.shape)} to have {weight.shape[0]} channels, but got {input.shape[-4]} "
                           "channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[1] * groups):
        raise RuntimeError(f"conv_transpose3d: expected bias of {weight.shape[1] * groups} elements, got "
                           f"{list(bias.shape)}")


@autocast_op("conv_transpose3d")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,  # noqa: A002
                     dilation=1):
    """The transposed 3-D convolution of [N, Cin, D, H, W] (or [Cin, D, H, W]) with weight
    [Cin, Cout / groups, kD, kH, kW] and optional bias [Cout]."""
    _check(input, weight, bias, groups)
    if input.dim() == 4:
        return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    (sd, sh, sw), (pd, ph, pw) = _triple(stride, "stride"), _triple(padding, "padding")
    (od, oh, ow), (dd, dh, dw) = _triple(output_padding, "output_padding"), _triple(dilation, "dilation")
    if not (0 <= od < max(sd, dd) and 0 <= oh < max(sh, dh) and 0 <= ow < max(sw, dw)):
        raise RuntimeError("conv_transpose3d: output padding must be smaller than either stride or dilation, got "
                           f"output_padding={(od, oh, ow)}, stride={(sd, sh, sw)}, dilation={(dd, dh, dw)}")
    n, cin, depth, height, width = input.shape
    _, cout_g, kd, kh, kw = weight.shape
    # weight [Cin, Cout/g, kD, kh, kw] -> [Cin, kD * Cout/g, kh, kw]: within a group, channel kd * Cout/g + c.
    taps = weight.permute(0, 2, 1, 3, 4).reshape(cin, kd * cout_g, kh, kw)
    planes = input.permute(0, 2, 1, 3, 4).reshape(n * depth, cin, height, width)
    out2d = _C.conv_transpose2d(planes, taps, None, (sh, sw), (ph, pw), (oh, ow), groups, (dh, dw))
    ho, wo = out2d.shape[-2], out2d.shape[-1]
    # [N, D, g, kD, Cout/g, Ho, Wo] -> [N, g, Cout/g, kD, D, Ho, Wo] -> [N, Cout, kD * D, Ho, Wo]
    stacked = out2d.reshape(n, depth, groups, kd, cout_g, ho, wo).permute(0, 2, 4, 3, 1, 5, 6)
    stacked = stacked.reshape(n, groups * cout_g, kd * depth, ho, wo)
    full = (depth - 1) * sd + dd * (kd - 1) + 1 + od  # the output depth before padding is cut
    target = [k * dd + d * sd for k in range(kd) for d in range(depth)]
    index = _C.from_numpy(np.array(target, dtype=np.int64)).to(input.device)
    zeros = _C.zeros(n, groups * cout_g, full, ho, wo, dtype=out2d.dtype, device=out2d.device)
    out = _C.index_add(zeros, 2, index, stacked)[:, :, pd:full - pd]
    if out.shape[2] <= 0:
        raise RuntimeError(f"conv_transpose3d: padding {pd} leaves no output depth (the full depth is {full})")
    return out if bias is None else out + bias.reshape(1, -1, 1, 1, 1)


class ConvTranspose3d(Module):
    """ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1): weight [in, out / groups, kD, kH, kW], bias [out], initialised
    as PyTorch's."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _triple(kernel_size, "kernel_size"), _triple(stride, "stride")
        self.padding, self.output_padding = _triple(padding, "padding"), _triple(output_padding, "output_padding")
        self.dilation = _triple(dilation, "dilation")
        options = dict(dtype=dtype or _C.float32, device=device)
        self.weight = Parameter(_C.empty(in_channels, out_channels // groups, *self.kernel_size, **options))
        self.bias = Parameter(_C.empty(out_channels, **options)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # As PyTorch's: kaiming_uniform_(a=sqrt(5)), the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with
        # fan_in = weight.size(1) * kD * kH * kW.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.weight.shape[1] * math.prod(self.kernel_size))
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input, output_size=None):  # noqa: A002
        output_padding = self.output_padding
        if output_size is not None:
            spatial = list(output_size)[-3:]
            output_padding = []
            for i in range(3):
                least = ((input.shape[i - 3] - 1) * self.stride[i] - 2 * self.padding[i]
                         + self.dilation[i] * (self.kernel_size[i] - 1) + 1)
                extra = spatial[i] - least
                if not 0 <= extra < max(self.stride[i], self.dilation[i]):
                    raise ValueError(f"ConvTranspose3d: requested an output size of {spatial}, but dim {i} can "
                                     f"only range from {least} to {least + max(self.stride[i], self.dilation[i]) - 1}")
                output_padding.append(extra)
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, tuple(output_padding),
                                self.groups, self.dilation)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0, 0):
            s += f", padding={self.padding}"
        if self.output_padding != (0, 0, 0):
            s += f", output_padding={self.output_padding}"
        if self.dilation != (1, 1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        return s + ("" if self.bias is not None else ", bias=False")


__all__ = ["conv_transpose3d", "ConvTranspose3d"]
