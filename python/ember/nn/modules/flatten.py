"""torch.nn.modules.flatten: the flattening, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
