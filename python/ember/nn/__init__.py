"""ember.nn: modules and layers with PyTorch's API (torch.nn).

    import ember
    from ember import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))

        def forward(self, x):
            return self.body(x)

The built-in layers are C++ (ember._C.nn); modules written in Python and built-in ones nest in
each other both ways. See ember.nn.modules for the registration rules.
"""
from __future__ import annotations

from typing import Iterator

from .. import _C
from .._C.nn import (  # noqa: F401  (re-exported)
    AdaptiveAvgPool2d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    GELU,
    Identity,
    LayerNorm,
    LeakyReLU,
    Linear,
    MaxPool2d,
    ModuleDict,
    ModuleList,
    MultiheadAttention,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
    TransformerEncoderLayer,
)
from .modules import Module, Parameter  # noqa: F401
from . import functional, init, utils  # noqa: F401,E402


def _bias(self):
    """The bias parameter, or None for a layer built with bias=False."""
    entry = self._entry("bias")
    return None if entry is None else Parameter._wrap(entry[1])


for _layer in (Linear, Conv2d):
    # NB: read-only here; `layer.bias = nn.Parameter(...)` goes through Module.__setattr__.
    _layer.bias = property(_bias)


def _child_at(container, index: int):
    children = list(container._named_children())
    n = len(children)
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of range for {type(container).__name__} of length {n}")
    return children[index][1]


def _sequential_getitem(self, index):
    if isinstance(index, slice):
        return Sequential(dict(list(self._named_children())[index]))
    return _child_at(self, index)


def _iter_children(self) -> Iterator[Module]:
    for _, m in self._named_children():
        yield m


def _module_list_getitem(self, index):
    if isinstance(index, slice):
        return ModuleList([m for _, m in list(self._named_children())[index]])
    return _child_at(self, index)


def _module_list_setitem(self, index: int, module: Module) -> None:
    n = len(self)
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of range for ModuleList of length {n}")
    self._replace_module(str(index % n), module)


def _module_list_iadd(self, modules):
    return self.extend(modules)


Sequential.__getitem__ = _sequential_getitem
Sequential.__iter__ = _iter_children
ModuleList.__getitem__ = _module_list_getitem
ModuleList.__setitem__ = _module_list_setitem
ModuleList.__iter__ = _iter_children
ModuleList.__iadd__ = _module_list_iadd


def _dict_getitem(self, key: str) -> Module:
    entry = self._entry(key) if isinstance(key, str) else None
    if entry is None or entry[0] != 3:
        raise KeyError(key)
    return entry[1]


def _dict_keys(self):
    return [k for k, _ in self._named_children()]


def _dict_values(self):
    return [m for _, m in self._named_children()]


def _dict_items(self):
    return list(self._named_children())


def _dict_update(self, modules) -> None:
    items = modules.items() if hasattr(modules, "items") else modules
    for k, m in items:
        self[k] = m


ModuleDict.__getitem__ = _dict_getitem
ModuleDict.__iter__ = lambda self: iter(_dict_keys(self))
ModuleDict.keys = _dict_keys
ModuleDict.values = _dict_values
ModuleDict.items = _dict_items
ModuleDict.update = _dict_update

__all__ = [name for name in dir() if not name.startswith("_")]
