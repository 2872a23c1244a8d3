"""torch.nn.modules.pixelshuffle: the pixel shuffles, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
