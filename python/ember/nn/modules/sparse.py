"""torch.nn.modules.sparse: the embeddings, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import Embedding, EmbeddingBag

__all__ = ["Embedding", "EmbeddingBag"]
