"""torch.nn.modules.instancenorm: the instance normalisation, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
