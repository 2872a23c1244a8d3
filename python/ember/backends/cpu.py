"""torch.backends.cpu: the CPU's vector extensions, by PyTorch's names."""
from __future__ import annotations

from .. import _C


def get_cpu_capability() -> str:
    """"AVX512", "AVX2" or "DEFAULT": the widest this CPU has (Ember's kernels are compiled for the
    building machine's, -march=native)."""
    return _C._cpu_capability()
