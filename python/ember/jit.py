"""ember.jit: torch.jit's entry points for scripts that script or trace a model. Ember is eager (as
its `compile`): script and trace return what they are given, which runs as it did. Saving a
TorchScript program has no counterpart; save and load raise and point at ember.save."""
from __future__ import annotations

from typing import Any, Callable

_NO_TORCHSCRIPT = ("Ember has no TorchScript: save the model's state with ember.save(model.state_dict(), path) "
                   "and load it with model.load_state_dict(ember.load(path))")


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, example_inputs: Any = None) -> Any:
    """obj itself (a module, function or class): Ember runs it eagerly."""
    return obj


def trace(func: Any, example_inputs: Any = None, optimize: Any = None, check_trace: bool = True,
          check_inputs: Any = None, check_tolerance: float = 1e-5, strict: bool = True, **kwargs: Any) -> Any:
    """func itself (not run on example_inputs): Ember runs it eagerly."""
    return func


def trace_module(mod: Any, inputs: Any, **kwargs: Any) -> Any:
    return mod


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    raise NotImplementedError(f"ember.jit.save: {_NO_TORCHSCRIPT}")


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> Any:
    raise NotImplementedError(f"ember.jit.load: {_NO_TORCHSCRIPT}")


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
    return False


__all__ = ["script", "trace", "trace_module", "save", "load", "ignore", "unused", "export", "is_scripting",
           "is_tracing"]
