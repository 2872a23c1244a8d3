"""ember.jit: torch.jit's entry points. `trace` records a module's forward as a program of Ember's
ops (ember._C.jit, C++ jit/jit.h): the TracedModule it returns replays the program with autograd,
keeps the module's parameter names, saves with `save` and loads with `load` where the module's
class does not exist, in Python or in C++ (`ember::jit::load`). `script` has no compiler behind it:
it returns what it is given, which runs eagerly as it did."""
from __future__ import annotations

import os
from typing import Any, Callable

from . import _C
from .nn import Module

TracedModule = _C.jit.TracedModule
ScriptModule = TracedModule


class _FunctionModule(Module):
    """A function traced as a module without parameters."""

    def __init__(self, fn: Callable) -> None:
        super().__init__()
        self._fn = fn

    def forward(self, *args: Any) -> Any:
        return self._fn(*args)


def _as_tuple(example_inputs: Any) -> tuple:
    return example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)


def trace(func: Any, example_inputs: Any = None, optimize: Any = None, check_trace: bool = True,
          check_inputs: Any = None, check_tolerance: float = 1e-5, strict: bool = True, **kwargs: Any) -> TracedModule:
    """The module's (or function's) forward on example_inputs (a tensor or a tuple of tensors) recorded
    as a program, traced in training and in eval mode. With check_trace the eval program is replayed
    against the module on the inputs and on the inputs rolled by one along their first dim."""
    module = func if isinstance(func, Module) else _FunctionModule(func)
    return _C.jit._trace(module, _as_tuple(example_inputs), check_trace, check_tolerance)


def trace_module(mod: Module, inputs: dict, **kwargs: Any) -> TracedModule:
    """trace(mod, inputs["forward"]): Ember traces forward only."""
    if set(inputs) != {"forward"}:
        raise ValueError(f"ember.jit.trace_module: only 'forward' can be traced, got {sorted(inputs)}")
    return trace(mod, inputs["forward"], **kwargs)


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Writes a traced module (its program and its state, by name) to the path f."""
    if not isinstance(m, TracedModule):
        raise TypeError(f"ember.jit.save: expected a traced module (ember.jit.trace), got {type(m).__name__}; "
                        "save a module's state with ember.save(model.state_dict(), path)")
    _C.jit.save(m, os.fspath(f))


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> TracedModule:
    """The traced module the file at path f holds; its class is not needed."""
    m = _C.jit.load(os.fspath(f))
    if map_location is not None:
        m.to(map_location)
    return m


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, example_inputs: Any = None) -> Any:
    """obj itself (a module, function or class): Ember has no TorchScript compiler and runs it eagerly."""
    return obj


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """@ignore and @ignore(drop=...): the function unchanged."""
    return drop if callable(drop) else (lambda fn: fn)


def unused(fn: Callable) -> Callable:
    return fn


def export(fn: Callable) -> Callable:
    return fn


def is_scripting() -> bool:
    """False: nothing is ever scripted."""
    return False


def is_tracing() -> bool:
    """True inside a forward that ember.jit.trace is recording."""
    return _C.jit._is_tracing()


__all__ = ["trace", "trace_module", "save", "load", "script", "ignore", "unused", "export", "is_scripting",
           "is_tracing", "TracedModule", "ScriptModule"]
