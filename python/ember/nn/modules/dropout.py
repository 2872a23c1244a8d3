"""torch.nn.modules.dropout: the dropouts, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
