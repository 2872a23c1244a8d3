"""ember.backends: the flags PyTorch scripts set (torch.backends.cudnn.benchmark = True, ...).

Setting them is accepted. Ember's CPU kernels already give the same bits for the same inputs and
thread count, so `cudnn.deterministic` has nothing to change; the cuDNN and MPS flags have no
device to act on in this build, and their is_available() say so.
"""
from __future__ import annotations

import types


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
mkldnn = _flags("mkldnn", "oneDNN flags: Ember's float GEMM is oneDNN's sgemm, always on.",
                enabled=True, is_available=lambda: True)
openmp = _flags("openmp", "Ember runs its own thread pool, not OpenMP.", is_available=lambda: False)
