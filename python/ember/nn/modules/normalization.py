"""torch.nn.modules.normalization: the normalisation, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import GroupNorm, LayerNorm, LocalResponseNorm

__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm"]
