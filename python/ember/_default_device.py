"""ember.set_default_device / get_default_device and `with ember.device(...)` (torch's forms).

While a non-CPU default is set, the factories of the ember namespace (tensor, as_tensor, zeros,
ones, empty, full, rand, randn, randint, randperm, arange, linspace, logspace, eye, scalar_tensor)
place tensors without device= (or with device=None) on it, and every layer built then moves its
parameters and buffers there once its constructor returns (the built-in C++ layers and the Module
classes defined so far; a Module class defined later gets there through the factories). The *_like
factories and from_numpy keep their input's device, as in torch.

Cost: the default is CPU, and then the namespace holds the factories themselves. Only setting a
non-CPU default installs the wrappers, and setting 'cpu' or None takes them away again, so a
factory call pays nothing while the default is CPU. A name bound earlier (`from ember import
zeros`) keeps the plain factory.

A device this build cannot use raises as torch does on a machine without one: 'cuda' (no index)
at once, with the error a CUDA allocation gives ("no CUDA device: ..."); 'cuda:N' at the first
factory call or layer built, which then raises that error.
"""
from __future__ import annotations

import functools
import sys
import threading
from typing import Any, Optional

from . import _C

# The factories that take device=; the others (randperm, logspace's keyword is kept) move the result.
_WITH_DEVICE = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange",
                "linspace", "logspace", "eye", "scalar_tensor")
_MOVED = ("randperm",)

_default: Optional[_C.device] = None  # None: CPU, nothing installed
_originals: dict = {}      # factory name -> the function the wrapper replaced
_inits: dict = {}          # Module class -> its own __init__ that the wrapper replaced
_stack: list = []          # the defaults `with ember.device(...)` blocks replaced
_building = threading.local()  # depth of wrapped layer constructors (only the outermost moves)


def _ember():
    return sys.modules["ember"]


def _as_device(device: Any) -> Optional[_C.device]:
    if device is None or isinstance(device, _C.device):
        return device
    if isinstance(device, int):
        return _C.device("cuda", device)
    return _C.device(device)


def get_default_device() -> _C.device:
    """The device factories use without device= (torch.get_default_device): cpu unless
    set_default_device or a `with ember.device(...)` block chose another."""
    return _default if _default is not None else _C.device("cpu")


def set_default_device(device: Any) -> None:
    """Makes `device` (a device, 'cpu', 'cuda', 'cuda:1', an index, or None = cpu) the default of
    the factories and of the layers built from now on (torch.set_default_device)."""
    global _default
    target = _as_device(device)
    if isinstance(device, str) and target.type == "cuda" and ":" not in device:
        # torch resolves a bare 'cuda' to the current device at once: without one it raises here.
        _C.empty(0, device=target)
    if target is not None and target.type == "cpu":
        target = None
    _default = target
    if target is None:
        _uninstall()
    else:
        _install()


# ---- the factories

def _factory(name: str, fn):
    if name == "as_tensor":
        # NB: as_tensor(data, dtype, device) calls ember.as_tensor (this wrapper) again: move here.
        @functools.wraps(fn)
        def factory(data, dtype=None, device=None):
            device = _default if device is None else device
            result = fn(data, dtype)
            return result if device is None else result.to(device)
    elif name in _WITH_DEVICE:
        @functools.wraps(fn)
        def factory(*args, **kwargs):
            if kwargs.get("device") is None and _default is not None:
                kwargs["device"] = _default
            return fn(*args, **kwargs)
    else:
        @functools.wraps(fn)
        def factory(*args, **kwargs):
            result = fn(*args, **kwargs)
            return result if _default is None else result.to(_default)
    factory._default_device_wraps = fn
    return factory


def _install() -> None:
    ember = _ember()
    for name in _WITH_DEVICE + _MOVED:
        current = getattr(ember, name, None)
        if current is None or hasattr(current, "_default_device_wraps"):
            continue
        _originals[name] = current
        setattr(ember, name, _factory(name, current))
    for cls in _module_classes():
        own = cls.__dict__.get("__init__")
        if own is None or cls in _inits or hasattr(own, "_default_device_wraps"):
            continue
        _inits[cls] = own
        setattr(cls, "__init__", _layer_init(own))


def _uninstall() -> None:
    ember = _ember()
    for name, fn in _originals.items():
        if hasattr(getattr(ember, name, None), "_default_device_wraps"):  # not replaced since by another
            setattr(ember, name, fn)
    _originals.clear()
    for cls, init in _inits.items():
        setattr(cls, "__init__", init)
    _inits.clear()


# ---- the layers

def _module_classes():
    # Every Module class defined so far: the C++ layers and the Python subclasses.
    seen, todo = [], [_C.nn.Module]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def _layer_init(init):
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        depth = getattr(_building, "depth", 0)
        _building.depth = depth + 1
        try:
            init(self, *args, **kwargs)
        finally:
            _building.depth = depth
        if depth == 0 and _default is not None:
            self.to(_default)  # the whole module, children built in C++ included
    __init__._default_device_wraps = init
    return __init__


# ---- `with ember.device("cuda:0"):`

def _enter(self):
    _stack.append(_default)
    set_default_device(self)
    return self


def _exit(self, *exc) -> None:
    set_default_device(_stack.pop())


_C.device.__enter__ = _enter
_C.device.__exit__ = _exit
