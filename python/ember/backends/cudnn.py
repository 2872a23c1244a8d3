"""torch.backends.cudnn: cuDNN's flags. Ember's cuDNN convolutions take cuDNN's heuristic choice
among the algorithms that keep float32 exact (no TF32, cuda/conv_kernel.cpp), so `benchmark`,
`deterministic` and `allow_tf32` are recorded for the scripts that read them back and change
nothing. As PyTorch's, `is_available()` says whether this build has cuDNN (its CUDA backend loads),
not whether there is a GPU."""
from __future__ import annotations

from .. import _C

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """True when this build has the CUDA backend and its library loads (no GPU needed)."""
    return _C._cuda_backend_built()


def version() -> int | None:
    """cuDNN's version as an int (91900 for 9.19.0), as PyTorch's; None without cuDNN."""
    return _C._cudnn_version() if is_available() else None
