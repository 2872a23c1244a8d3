"""ember.io.register_module_type: save_module / load_module for modules written in Python.

A saved architecture names each module's type and holds its constructor's arguments, never a class
path (io/architecture.h). A class registered here records the arguments each of its instances was
built with; save_module writes them as the module's options, and load_module builds the module
again with cls(**options) (the module builds its own children) before loading its state. Ember
registers its own layers written in Python (Conv3d, the 3-D pools, the
activation modules, ...) when ember is imported.

    @ember.io.register_module_type
    class Block(nn.Module):
        def __init__(self, width, act="relu"):
            ...

The type name is the class name (what Module records); the arguments must be None, bools, ints,
floats, strings, or lists, tuples and str-keyed dicts of them: anything else (a tensor, a dtype)
makes save_module raise a TypeError naming the module and the argument.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Dict, Optional

from . import _C

_PLAIN = (type(None), bool, int, float, str)
_ARGUMENTS = "_ember_constructor_arguments"  # an instance's recorded arguments (in its __dict__)


def _plain(value: Any, where: str) -> Any:
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v, where) for v in value)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v, where) for k, v in value.items()}
    raise TypeError(f"save_module: {where} is a {type(value).__name__}; a registered module's constructor "
                    "arguments must be None, bool, int, float, str, or lists, tuples and str-keyed dicts of them "
                    "(save the module's state_dict instead)")


def _recording(cls: type) -> None:
    """Wraps cls.__init__ to keep the arguments of each call on the instance, with the class whose
    constructor took them: a registered subclass's __init__, calling super().__init__, finishes
    last, so the outermost call's arguments stay."""
    init = cls.__init__
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):  # noqa: N807
        init(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        arguments: Optional[Dict[str, Any]] = {}
        for i, (name, value) in enumerate(bound.arguments.items()):
            kind = signature.parameters[name].kind
            if i == 0:
                continue  # self
            if kind is inspect.Parameter.VAR_POSITIONAL:
                if value:
                    arguments = None  # positional extras have no names to save them under
                    break
            elif kind is inspect.Parameter.VAR_KEYWORD:
                arguments.update(value)
            else:
                arguments[name] = value
        self.__dict__[_ARGUMENTS] = (cls, arguments)

    cls.__init__ = __init__


def _to_options(module: Any) -> Dict[str, Any]:
    name = type(module).__name__
    recorded = module.__dict__.get(_ARGUMENTS)
    if recorded is None or recorded[0] is not type(module):
        raise TypeError(f"save_module: this {name} was built before ember.io.register_module_type({name}), "
                        "so its constructor arguments are unknown")
    if recorded[1] is None:
        raise TypeError(f"save_module: {name} was built with extra positional arguments (*args), which have no "
                        "names to save them under")
    return {k: _plain(v, f"{name}({k}=...)") for k, v in recorded[1].items()}


def register_module_type(cls: type) -> type:
    """Lets save_module / load_module save and rebuild modules of class `cls` (an nn.Module written
    in Python) from their constructor arguments; returns cls, so it also serves as a decorator.
    A KeyError if a type of that name is registered already (built-in names included)."""
    if not (isinstance(cls, type) and issubclass(cls, _C.nn.Module)):
        raise TypeError(f"register_module_type: expected a subclass of ember.nn.Module, got {cls!r}")
    if not inspect.isfunction(cls.__init__):
        raise TypeError(f"register_module_type: {cls.__name__} has no __init__ written in Python (a built-in "
                        "layer's type is registered already)")
    _recording(cls)
    _C.io._register_module_type(cls.__name__, _to_options, lambda options: cls(**(options or {})))
    return cls


# Ember's Python layers that are not rebuilt from their arguments: LazyLinear makes its parameters
# at its first forward, so a rebuilt one could not take the saved state.
_NOT_REBUILT = {"LazyLinear"}


def register_python_layers(namespace: Any) -> None:
    """Registers the layers written in Python in `namespace` (ember.nn) whose names no type has."""
    for name, obj in sorted(vars(namespace).items()):
        if (isinstance(obj, type) and issubclass(obj, _C.nn.Module) and obj.__name__ == name
                and not obj.__module__.startswith("ember._C")  # nn.Module, the C++ layers
                and inspect.isfunction(obj.__init__) and name not in _NOT_REBUILT
                and not _C.io._has_module_type(name)):
            register_module_type(obj)
