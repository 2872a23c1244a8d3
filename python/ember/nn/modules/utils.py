"""torch.nn.modules.utils: the helpers layer code written for PyTorch imports to turn an int or a
sequence into a tuple of n (`_pair(3)` is (3, 3), `_pair((2, 3))` is (2, 3))."""
from __future__ import annotations

import collections.abc
import itertools
from typing import Any, Callable


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")
