"""The allow-list of globals a torch.save file may name (torch.serialization's add_safe_globals,
safe_globals) and the building of those objects from what Ember's reader returns.

The C++ reader (io/pt_load.h) executes nothing: a global that is allowed comes back as a
description, {"__ember_global__": "argparse.Namespace", "call": "new" | "reduce" | "global",
"args": (...), "state": ...}, and build() makes the object from the class or function the user
allowed, as pickle would (cls.__new__(cls, *args) or fn(*args), then __setstate__ or __dict__).
With weights_only=False the file is trusted, as torch.load's: any global it names is imported.
"""
from __future__ import annotations

import _codecs
import _compat_pickle
import collections
import importlib
import pickle
import threading
from typing import Any, Callable, Dict, Iterable, List, Tuple, Union

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals", "WeightsOnlyUnpicklingError"]

MARKER = "__ember_global__"
ANY = "*"

_Allowed = Union[Callable, Tuple[Callable, str]]
_lock = threading.Lock()
_safe: List[_Allowed] = []


class WeightsOnlyUnpicklingError(pickle.UnpicklingError, ValueError):
    """A checkpoint names a global that is not allowed: pickle.UnpicklingError, as torch.load
    raises, and the ValueError Ember's reader raised before allow-lists existed."""


def add_safe_globals(safe_globals: Iterable[_Allowed]) -> None:
    """Allows these classes and functions (or (object, "module.name") pairs) in files ember.load
    reads with weights_only (the default)."""
    items = list(safe_globals)
    for item in items:
        _name_of(item)  # a TypeError now rather than at load time
    with _lock:
        _safe.extend(items)


def get_safe_globals() -> List[_Allowed]:
    with _lock:
        return list(_safe)


def clear_safe_globals() -> None:
    with _lock:
        _safe.clear()


class safe_globals:
    """Allows the globals inside the with block only (a context manager, as torch's)."""

    def __init__(self, safe_globals: Iterable[_Allowed]) -> None:
        self.safe_globals = list(safe_globals)
        for item in self.safe_globals:
            _name_of(item)

    def __enter__(self) -> None:
        with _lock:
            self._saved = list(_safe)
            _safe.extend(self.safe_globals)

    def __exit__(self, *exc: Any) -> bool:
        with _lock:
            _safe[:] = self._saved
        return False


def _name_of(item: _Allowed) -> str:
    if isinstance(item, tuple):
        if len(item) != 2 or not isinstance(item[1], str):
            raise TypeError(f"safe globals: a pair is (object, 'module.name'), got {item!r}")
        return item[1]
    module, qualname = getattr(item, "__module__", None), getattr(item, "__qualname__", None)
    if not module or not qualname:
        raise TypeError(f"safe globals: {item!r} has no __module__ and __qualname__; pass (object, 'module.name')")
    return f"{module}.{qualname}"


def _device(*args: Any) -> Any:
    from . import _C
    return _C.device(*args)


# What torch.load(weights_only=True) allows without being told: a device, sets, complex numbers,
# Counters, bytes (protocol 2 writes them as _codecs.encode(text, "latin1")).
_DEFAULTS: Dict[str, Any] = {"_codecs.encode": _codecs.encode, "builtins.set": set, "builtins.frozenset": frozenset,
                             "builtins.complex": complex, "builtins.bytearray": bytearray,
                             "collections.Counter": collections.Counter, "torch.device": _device}


def _spellings(name: str) -> List[str]:
    """name and its Python 2 spelling, which pickle protocol 2 writes (builtins.set: __builtin__.set)."""
    module, _, attr = name.rpartition(".")
    old = {new: old for old, new in _compat_pickle.IMPORT_MAPPING.items()}.get(module)
    return [name, f"{old}.{attr}"] if old else [name]


def allowed_names(trust_file: bool) -> Dict[str, Any]:
    """"module.name" -> the object allowed under it ({"*": None}: anything, imported)."""
    if trust_file:
        return {ANY: None}
    with _lock:
        named = {**_DEFAULTS, **{_name_of(item): (item[0] if isinstance(item, tuple) else item) for item in _safe}}
    return {spelling: obj for name, obj in named.items() for spelling in _spellings(name)}


def build(tree: Any, allowed: Dict[str, Any]) -> Any:
    """tree with each object description replaced by the object. The loader's fresh dicts and lists
    are changed in place (their types and attributes stay); tuples are rebuilt."""
    if isinstance(tree, dict):
        if MARKER in tree:
            return _make(tree, allowed)
        for k, v in tree.items():
            new = build(v, allowed)
            if new is not v:
                tree[k] = new
        return tree
    if isinstance(tree, list):
        for i, v in enumerate(tree):
            new = build(v, allowed)
            if new is not v:
                tree[i] = new
        return tree
    if type(tree) is tuple:
        items = [build(v, allowed) for v in tree]
        return tree if all(a is b for a, b in zip(items, tree)) else tuple(items)
    return tree


def _resolve(name: str, allowed: Dict[str, Any]) -> Any:
    if name in allowed:
        return allowed[name]
    if ANY not in allowed:
        short = name.rsplit(".", 1)[-1]
        raise WeightsOnlyUnpicklingError(
            f"Weights only load failed: the file names the global {name}, which is not allowed. If you trust it, "
            f"allow it with ember.serialization.add_safe_globals([{short}]) or the "
            f"ember.serialization.safe_globals([{short}]) context manager, or load with weights_only=False "
            f"(which imports and runs whatever the file names)")
    # weights_only=False: the module part is the longest importable prefix, the rest attributes.
    if name in _DEFAULTS or any(name in _spellings(d) for d in _DEFAULTS):
        return next(obj for d, obj in _DEFAULTS.items() if name in _spellings(d))
    module, _, attr = name.rpartition(".")
    parts = [*_compat_pickle.IMPORT_MAPPING.get(module, module).split("."), attr]
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise pickle.UnpicklingError(f"load: cannot import the global {name} the file names")


def _make(desc: Dict[str, Any], allowed: Dict[str, Any]) -> Any:
    target = _resolve(desc[MARKER], allowed)
    call = desc["call"]
    if call == "global":
        return target
    args = tuple(build(a, allowed) for a in desc.get("args", ()))
    obj = target.__new__(target, *args) if call == "new" else target(*args)
    if "state" in desc:
        _set_state(obj, build(desc["state"], allowed))
    return obj


def _set_state(obj: Any, state: Any) -> None:
    # pickle's BUILD: __setstate__ when the class has its own, else the instance dict (and slots).
    setstate = getattr(type(obj), "__setstate__", None)
    if setstate is not None and setstate is not getattr(object, "__setstate__", None):
        obj.__setstate__(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    if slots:
        for k, v in slots.items():
            setattr(obj, k, v)
