"""torch.nn.modules.fold: the sliding-window folding, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import Fold, Unfold

__all__ = ["Fold", "Unfold"]
