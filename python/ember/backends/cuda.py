"""torch.backends.cuda: CUDA's matmul flags. Ember's float32 products on CUDA keep full precision
(no TF32, cuda/matmul_kernel.cpp), so the flags are recorded only."""
from __future__ import annotations

import types

from .. import _C

matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                               allow_bf16_reduced_precision_reduction=True)


def is_built() -> bool:
    """Whether this build has the CUDA backend and it loads here (a GPU need not be present)."""
    return _C._cuda_backend_built()


def preferred_linalg_library(backend: str | None = None) -> str:
    """Ember's CUDA linear algebra is cuSOLVER's (the answer PyTorch gives for that choice)."""
    return "cusolver"
