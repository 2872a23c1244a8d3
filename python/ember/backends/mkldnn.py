"""torch.backends.mkldnn: oneDNN's flags. Ember's float GEMM is oneDNN's sgemm, always on
(`enabled` is recorded only). allow_winograd (Ember's own, default True): float32 3x3 stride-1
convolutions use Winograd's F(4x4, 3x3), oneDNN's kernels on AVX-512 (32+ channels) and Ember's
own elsewhere (64+): 4x fewer multiplies, rounding within about 2e-6 (oneDNN's) or 1.5e-5
(Ember's) of the output's scale instead of 4e-7; False keeps im2col + GEMM or the direct kernels."""
from __future__ import annotations

import sys
import types

from .. import _C

enabled = True
deterministic = False
allow_tf32 = False


def is_available() -> bool:
    return True


class _Module(types.ModuleType):
    """This module, with allow_winograd read from and written to the library."""

    @property
    def allow_winograd(self) -> bool:
        return _C._conv_winograd()

    @allow_winograd.setter
    def allow_winograd(self, value: bool) -> None:
        _C._set_conv_winograd(bool(value))


sys.modules[__name__].__class__ = _Module
