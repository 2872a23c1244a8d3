"""torch.nn.modules.transformer: the transformers, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
    TransformerEncoderLayer)

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]
