"""ember.nn.parallel: the names PyTorch scripts wrap their models in (torch.nn.parallel).

DataParallel (data_parallel.py) is what torch's is on a machine without GPUs: a wrapper that calls
its module (state_dict keys gain the prefix "module.", as PyTorch's do, and `.module` is the model).
DistributedDataParallel (distributed.py) needs an initialized process group, as PyTorch's does.
"""
from __future__ import annotations

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
