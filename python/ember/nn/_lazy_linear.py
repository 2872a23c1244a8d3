"""nn.LazyLinear: a Linear whose in_features is the last dim of the first input it sees.

NB: PyTorch holds UninitializedParameter placeholders until then (and turns the module into a
Linear); Ember has no such placeholder, so before the first forward the module holds no parameters
(weight and bias are None, parameters() and state_dict() are empty, in_features is 0): run one
batch through it before building the optimizer, as PyTorch's documentation also asks."""
from __future__ import annotations

import math

from .. import _C
from . import functional as F
from . import init
from .modules.module import Module
from .parameter import Parameter


class LazyLinear(Module):
    """LazyLinear(out_features, bias=True, device=None, dtype=None): Linear(in_features,
    out_features) with in_features = input.shape[-1] at the first call; the parameters are made and
    initialised (as Linear's: kaiming_uniform_(a=sqrt(5)), bias from U(+-1/sqrt(in_features))) then."""

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = 0, out_features
        self._use_bias, self._options = bias, dict(dtype=dtype or _C.float32, device=device)
        self.weight = None
        self.bias = None

    def has_uninitialized_params(self) -> bool:
        """True until the first forward has made the parameters."""
        return self.weight is None

    def initialize_parameters(self, input) -> None:  # noqa: A002
        """Makes weight [out_features, input.shape[-1]] (and bias) unless they exist."""
        if not self.has_uninitialized_params():
            return
        self.in_features = int(input.shape[-1])
        self.weight = Parameter(_C.empty(self.out_features, self.in_features, **self._options))
        if self._use_bias:
            self.bias = Parameter(_C.empty(self.out_features, **self._options))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.has_uninitialized_params():
            return
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):  # noqa: A002
        self.initialize_parameters(input)
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self._use_bias}"


__all__ = ["LazyLinear"]
