"""Layers with parameters that Ember writes in Python over functional ops: ConvTranspose1d (on
conv_transpose2d) and Bilinear (an einsum). Their parameters, names, shapes and initialisation are
PyTorch's, so state dicts move between the two; they save and load like any module (state_dict,
ember.save), though io::save_module's architectures cover only the C++ layers."""
from __future__ import annotations

import math

from .. import _C
from . import functional as F
from . import init
from .modules import Module
from .parameter import Parameter


def _single(value, what: str) -> int:
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise ValueError(f"{what} must be an int or a 1-element tuple, got {value}")
        return int(value[0])
    return int(value)


class ConvTranspose1d(Module):
    """ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1): weight [in, out / groups, k], bias [out]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = (_single(kernel_size, "kernel_size"),)
        self.stride, self.padding = (_single(stride, "stride"),), (_single(padding, "padding"),)
        self.output_padding, self.dilation = (_single(output_padding, "output_padding"),), (_single(dilation, "dilation"),)
        options = dict(dtype=dtype or _C.float32, device=device)
        self.weight = Parameter(_C.empty(in_channels, out_channels // groups, self.kernel_size[0], **options))
        self.bias = Parameter(_C.empty(out_channels, **options)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # As PyTorch's: kaiming_uniform_(a=sqrt(5)), the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        # with fan_in = weight.size(1) * k.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.weight.shape[1] * self.kernel_size[0])
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input, output_size=None):  # noqa: A002
        output_padding = self.output_padding[0]
        if output_size is not None:
            length = output_size[-1]
            least = (input.shape[-1] - 1) * self.stride[0] - 2 * self.padding[0] + self.dilation[0] * (self.kernel_size[0] - 1) + 1
            output_padding = length - least
            if not 0 <= output_padding < max(self.stride[0], self.dilation[0]):
                raise ValueError(f"ConvTranspose1d: requested an output size of {length}, but valid sizes range "
                                 f"from {least} to {least + max(self.stride[0], self.dilation[0]) - 1}")
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,):
            s += f", padding={self.padding}"
        if self.output_padding != (0,):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        return s + ("" if self.bias is not None else ", bias=False")


class Bilinear(Module):
    """Bilinear(in1_features, in2_features, out_features, bias=True): y = x1^T A x2 + b, weight
    [out, in1, in2], both initialised from U(-1/sqrt(in1), 1/sqrt(in1)) as PyTorch's."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        options = dict(dtype=dtype or _C.float32, device=device)
        self.weight = Parameter(_C.empty(out_features, in1_features, in2_features, **options))
        self.bias = Parameter(_C.empty(out_features, **options)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


__all__ = ["ConvTranspose1d", "Bilinear"]
