"""The Python half of ember.Tensor: what PyTorch scripts do with a tensor that is plain Python
protocol rather than an op: f"{loss:.4f}" (__format__), and a __repr__ that pprint can look up
(pybind11's own method objects are unhashable, and pprint keys a dict by the type's __repr__)."""
from __future__ import annotations

from ._C import Tensor

_c_repr = Tensor.__repr__


def _repr(self: Tensor) -> str:
    return _c_repr(self)


def _format(self: Tensor, format_spec: str) -> str:
    # As PyTorch: a one-element 0-d tensor formats as its number; anything else only with an
    # empty spec (str(t)).
    if self.dim() == 0:
        return self.item().__format__(format_spec)
    return object.__format__(self, format_spec)


Tensor.__repr__ = _repr
Tensor.__format__ = _format
