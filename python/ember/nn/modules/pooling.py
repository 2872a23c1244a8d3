"""torch.nn.modules.pooling: the pooling, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
    AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d,
    MaxPool1d, MaxPool2d, MaxPool3d)

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d",
           "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d"]
