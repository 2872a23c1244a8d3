"""torch.nn.modules.linear: the linear maps, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import Bilinear, Identity, Linear
from .._lazy_linear import LazyLinear

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]
