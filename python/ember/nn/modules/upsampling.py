"""torch.nn.modules.upsampling: the upsampling, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
