"""ember.utils: torch.utils's data loading (ember.utils.data) and activation checkpointing
(ember.utils.checkpoint)."""
from . import checkpoint, data  # noqa: F401
