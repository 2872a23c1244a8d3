"""ember.nn.parallel: DistributedDataParallel (torch.nn.parallel)."""
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
