"""ember.return_types (torch.return_types): the named tuples ops return. ember.max(x, 0) is an
ember.return_types.max(values, indices); each class is C++-made (python/src/return_types.cpp) and
pickles by this module's path."""
from ._C.return_types import *  # noqa: F401,F403
from ._C import return_types as _types

__all__ = [name for name in dir(_types) if not name.startswith("_")]
