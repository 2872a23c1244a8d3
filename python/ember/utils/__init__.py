"""ember.utils: torch.utils's data loading (ember.utils.data)."""
from . import data  # noqa: F401
