"""torch.nn.modules.batchnorm: the batch normalisation, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .._sync_batchnorm import SyncBatchNorm

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]
