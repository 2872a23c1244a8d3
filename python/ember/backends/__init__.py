"""ember.backends: the flags PyTorch scripts set (torch.backends.cudnn.benchmark = True, ...).

Setting them is accepted. Ember's CPU kernels already give the same bits for the same inputs and
thread count, so `cudnn.deterministic` has nothing to change; the cuDNN and MPS flags have no
device to act on in this build, and their is_available() say so.
"""
from __future__ import annotations

import types

from .. import _C


def _flags(name: str, doc: str, **attrs) -> types.SimpleNamespace:
    ns = types.SimpleNamespace(**attrs)
    ns.__doc__ = doc
    return ns


cudnn = _flags("cudnn", "cuDNN flags (no cuDNN in this build).", enabled=True, benchmark=False,
               deterministic=False, allow_tf32=True, is_available=lambda: False,
               version=lambda: None)
cuda = _flags("cuda", "CUDA flags (no CUDA in this build).",
              matmul=types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                           allow_bf16_reduced_precision_reduction=True),
              is_built=lambda: False)
mps = _flags("mps", "Apple MPS (not in this build).", is_available=lambda: False, is_built=lambda: False)


class _Mkldnn:
    """oneDNN flags. Ember's float GEMM is oneDNN's sgemm, always on (`enabled` is recorded only).
    allow_winograd (Ember's own, default True): float32 3x3 stride-1 convolutions use Winograd's
    F(4x4, 3x3), oneDNN's kernels on AVX-512 (32+ channels) and Ember's own elsewhere (64+): 4x
    fewer multiplies, rounding within about 2e-6 (oneDNN's) or 1.5e-5 (Ember's) of the output's
    scale instead of 4e-7; False keeps im2col + GEMM or the direct kernels."""

    def __init__(self) -> None:
        self.enabled, self.deterministic, self.allow_tf32 = True, False, False

    @staticmethod
    def is_available() -> bool:
        return True

    @property
    def allow_winograd(self) -> bool:
        return _C._conv_winograd()

    @allow_winograd.setter
    def allow_winograd(self, value: bool) -> None:
        _C._set_conv_winograd(bool(value))


mkldnn = _Mkldnn()
openmp = _flags("openmp", "Ember runs its own thread pool, not OpenMP.", is_available=lambda: False)
