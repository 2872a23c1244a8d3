"""torch.nn.modules.conv: the convolutions, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
