"""The tensors a vmapped function sees: BatchedTensor, one tensor per sample of a vmap level, and
the stack of running vmap levels.

A BatchedTensor's `_value` holds every sample, the batch along its dim 0; what the function sees
(shape, dim(), every op) is one sample. The value is a Tensor, or, under nested vmaps, a
BatchedTensor of an outer level (whose own dim 0 is then this level's batch). Ops reach the
dispatcher (_dispatch.py) through the bindings' extra overloads (python/src/batched_dispatch.cpp)
and through the methods and operators defined here, which call the `dispatcher` set below."""
from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional, Tuple

from .._C import Tensor


class _Level:
    __slots__ = ("level", "size", "randomness")

    def __init__(self, level: int, size: int, randomness: str):
        self.level, self.size, self.randomness = level, size, randomness


class _Running(threading.local):
    """The vmaps running on this thread, outermost first (each thread's transforms are its own)."""

    def __init__(self) -> None:
        self.levels: List[_Level] = []


_running = _Running()


def running() -> List[_Level]:
    """This thread's list of running levels, to push and pop (_vmap.py)."""
    return _running.levels


def active_levels() -> List[_Level]:
    return list(_running.levels)


def level_info(level: int) -> _Level:
    for lv in _running.levels:
        if lv.level == level:
            return lv
    raise RuntimeError(f"vmap: a batched tensor of level {level} escaped the vmap that made it (return it from "
                       "the vmapped function rather than keeping it elsewhere)")


def _data_dependent(what: str):
    raise RuntimeError(f"vmap: {what} needs one sample's value, which a vmapped function does not have: rewrite it "
                       "with tensor ops (ember.where for control flow), or call it outside vmap")


class BatchedTensor:
    """One tensor per sample of a running vmap (module docstring)."""
    __slots__ = ("_value", "_level")
    _ember_batched = True  # what flatten (autograd/_tree.py) and the bindings recognise
    __hash__ = object.__hash__  # identity, as a Tensor's (== is elementwise)

    def __init__(self, value: Any, level: int):
        self._value = value
        self._level = level

    # ---- metadata of one sample
    @property
    def shape(self):
        return self._value.shape[1:]

    def size(self, dim: Optional[int] = None):
        shape = self.shape
        if dim is None:
            return shape
        n = len(shape)
        if not -max(n, 1) <= dim < max(n, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, {max(n, 1) - 1}], "
                             f"but got {dim})")
        return shape[dim % n] if n else 1

    def dim(self) -> int:
        return self._value.dim() - 1

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self.dim()

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    nelement = numel

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def device(self):
        return self._value.device

    @property
    def is_cuda(self) -> bool:
        return self._value.is_cuda

    @property
    def layout(self):
        return self._value.layout

    @property
    def requires_grad(self) -> bool:
        return self._value.requires_grad

    @property
    def is_leaf(self) -> bool:
        return self._value.is_leaf

    def is_floating_point(self) -> bool:
        return self._value.is_floating_point()

    def is_complex(self) -> bool:
        return self._value.is_complex()

    def element_size(self) -> int:
        return self._value.element_size()

    def get_device(self) -> int:
        return self._value.get_device()

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        return self.permute(*reversed(range(self.dim())))

    @property
    def mT(self):  # noqa: N802
        return self.transpose(-2, -1)

    @property
    def real(self):
        return _call("real", (self,), {})

    @property
    def imag(self):
        return _call("imag", (self,), {})

    # ---- what needs one sample's value
    def item(self):
        _data_dependent(".item()")

    def tolist(self):
        _data_dependent(".tolist()")

    def numpy(self, *args, **kwargs):
        _data_dependent(".numpy()")

    def __bool__(self):
        _data_dependent("a tensor's truth value (if / while on a tensor)")

    def __float__(self):
        _data_dependent("float() of a tensor")

    def __int__(self):
        _data_dependent("int() of a tensor")

    def __index__(self):
        _data_dependent("a tensor used as an index number")

    def __iter__(self):
        return iter(self.unbind(0))

    def __repr__(self) -> str:
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"

    # ---- every other method: the dispatcher, by the Tensor method's name
    def __getattr__(self, name: str):
        if name.startswith("_") or not hasattr(Tensor, name):  # NB: pybind11 probes _pybind11_conduit_v1_
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")

        def method(*args: Any, **kwargs: Any) -> Any:
            return _call("Tensor." + name, (self,) + args, kwargs)
        method.__name__ = name
        return method

    def __getitem__(self, index: Any):
        return _call("Tensor.__getitem__", (self, index), {})

    def __setitem__(self, index: Any, value: Any) -> None:
        _call("Tensor.__setitem__", (self, index, value), {})


# The dispatcher (_dispatch.py, which sits above this module and sets it when imported).
dispatcher: Optional[Callable[[str, Tuple[Any, ...], dict], Any]] = None


def _call(name: str, args: Tuple[Any, ...], kwargs: dict) -> Any:
    return dispatcher(name, args, kwargs)


def _operator(name: str):
    def op(self, other):
        return _call("Tensor." + name, (self, other), {})
    op.__name__ = name
    return op


# The operators go to the dispatcher under their own names (_dispatch.py turns the reflected ones
# around); a real Tensor's operator gives NotImplemented on a batched operand, so Python comes here.
for _name in ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
              "rshift"]:
    for _form in (f"__{_name}__", f"__r{_name}__", f"__i{_name}__"):
        setattr(BatchedTensor, _form, _operator(_form))
for _name in ["eq", "ne", "lt", "le", "gt", "ge"]:
    setattr(BatchedTensor, f"__{_name}__", _operator(f"__{_name}__"))
for _name in ["neg", "pos", "abs", "invert"]:
    setattr(BatchedTensor, f"__{_name}__", lambda self, _n=_name: _call(f"Tensor.__{_n}__", (self,), {}))
