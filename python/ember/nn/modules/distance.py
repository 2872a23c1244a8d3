"""torch.nn.modules.distance: the distances, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import CosineSimilarity, PairwiseDistance

__all__ = ["CosineSimilarity", "PairwiseDistance"]
