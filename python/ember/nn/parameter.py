"""ember.nn.Parameter (torch.nn.parameter.Parameter): the tensor a Module registers as a parameter."""
from __future__ import annotations

from .. import _C
from .._C import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor that a Module registers as a parameter when assigned to one of its attributes
    (torch.nn.Parameter): nn.Parameter(ember.randn(3, 4)). It shares `data`'s memory and is a
    leaf with requires_grad (unless requires_grad=False). A tensor is one Python object, so a
    module hands out the same Parameter each time (model.fc.weight is model.fc.weight)."""

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: expected a Tensor, got {type(data).__name__}")
        super().__init__(data)  # a new tensor on data's memory, cut from the graph
        self.requires_grad_(requires_grad)

    @classmethod
    def _wrap(cls, t: Tensor) -> "Parameter":
        # The registered tensor's own object as a Parameter. A tensor made in C++ (a built-in
        # layer's weight) may first have reached Python as a plain Tensor: its object becomes a
        # Parameter in place (the classes share one layout), so every holder sees the change.
        if type(t) is Tensor:
            t.__class__ = cls
        return t

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__
