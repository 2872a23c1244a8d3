"""ember.save and ember.load: PyTorch's top-level checkpoint calls over Ember's format (ember.io).

    ember.save(model.state_dict(), "model.pt")              # a path: written atomically
    ember.save({"model": model, "epoch": 3}, buffer)       # or a binary file object (io.BytesIO)
    state = ember.load("model.pt", map_location="cpu")
    model.load_state_dict(state)

What a file holds and how each container comes back is ember.io's (see its docstring); ember.load
also reads files that torch.save wrote (zip format), without executing anything. A file object is
written through a temporary file, so the bytes it receives are those of a complete checkpoint.

A torch.save file that holds Python objects (a script's argparse.Namespace) loads once their
classes are allowed, as with torch.load's weights_only allow-list:

    ember.serialization.add_safe_globals([argparse.Namespace])
    with ember.serialization.safe_globals([argparse.Namespace]):   # or for a block only
        ckpt = ember.load("checkpoint.pth.tar")
"""
from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from typing import Any, BinaryIO, Union

from . import _C
from . import io as _io
from ._pickled_objects import (WeightsOnlyUnpicklingError, add_safe_globals, clear_safe_globals,  # noqa: F401
                               get_safe_globals, safe_globals)
from ._pickled_objects import MARKER as _MARKER
from ._pickled_objects import allowed_names as _allowed_names
from ._pickled_objects import build as _build

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint"]

File = Union[str, os.PathLike, BinaryIO]


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, os.PathLike))


def _map_location(map_location: Any) -> str:
    """The device every tensor loads onto. NB: an Ember file records no device (a CUDA tensor is
    saved from a host copy), so PyTorch's forms reduce to one target: a device or its name; a dict
    whose values all name one device; a callable, which cannot be called without PyTorch's storages,
    loads on the CPU (where `lambda storage, loc: storage` puts them)."""
    if map_location is None or callable(map_location):
        return "cpu"
    if isinstance(map_location, dict):
        targets = {str(_device(v)) for v in map_location.values()}
        if len(targets) > 1:
            raise RuntimeError(f"load: map_location={map_location!r} sends tensors to several devices; an "
                               "Ember file records no device, so name one")
        return targets.pop() if targets else "cpu"
    return str(_device(map_location))


def _device(target: Any) -> Any:
    from . import _C
    name = str(target)
    return _C.device("cpu" if name.startswith("cpu") else name)


def save(obj: Any, f: File, *, durable: bool = True) -> None:
    """Writes obj (tensors, modules, optimizers, schedulers and nested containers of them and of
    plain values) to f: a path, written atomically (a failed save leaves the previous file whole),
    or a binary file object open for writing. durable=False skips the fsync of a path."""
    if _is_path(f):
        _io.save(obj, f, durable=durable)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"save: f must be a path or a binary file object, got {type(f).__name__}")
    with tempfile.TemporaryDirectory(prefix="ember-save-") as scratch:
        path = os.path.join(scratch, "checkpoint.ember")
        _io.save(obj, path, durable=False)
        with open(path, "rb") as src:
            shutil.copyfileobj(src, f)


def load(f: File, map_location: Any = None, weights_only: Any = None, *, mmap: Any = None,
         verify: bool = True) -> Any:
    """Reads what save (or torch.save) wrote to f: a path, or a binary file object open for
    reading (read from its current position to the end). Checksums are verified unless
    verify=False. map_location names the device the tensors go to, in any of PyTorch's forms
    (a CUDA device without one raises "no CUDA device: ..."). The tensors own their memory, so
    changing the file afterwards changes nothing loaded; mmap=True (a path only) maps the file
    instead, as torch's.

    weights_only (the default, as PyTorch's since 2.6): a torch.save pickle may name tensors, plain
    containers, what torch's weights_only loader allows by itself (devices, sets, complex numbers,
    Counters, bytes) and the globals allowed by add_safe_globals / safe_globals; any other global
    is a WeightsOnlyUnpicklingError naming it. Nothing in the file is executed: the allowed classes and
    functions are called by Ember, as pickle would. weights_only=False trusts the file, as torch's:
    whatever global it names is imported and called."""
    device = _map_location(map_location)
    allowed = _allowed_names(trust_file=weights_only is False)
    with (_io._as_path(f) if not _is_path(f) else contextlib.nullcontext(os.fspath(f))) as path:
        # Only a torch.save pickle names globals: an Ember or safetensors file is data, whatever its
        # dicts hold (a key "__ember_global__" there is a key), and nothing in it is ever called.
        pickled = _is_torch_zip(path)
        try:
            tree = _C.io.load(path, verify, _C.device(device), bool(mmap) and _is_path(f),
                              list(allowed) if pickled else [])
        except ValueError as e:
            if "which Ember does not load" in str(e):
                raise WeightsOnlyUnpicklingError(str(e)) from None
            raise
    return _build(tree, allowed) if pickled else tree


def _is_torch_zip(path: str) -> bool:
    """Whether the file is a zip archive, as torch.save writes (what the C++ reader also tests).
    Only a regular file is opened: a FIFO or a device would block here, and the loader refuses them."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(4) == b"PK\x03\x04"
    except OSError:
        return False  # the loader names the file and the reason


def get_unsafe_globals_in_checkpoint(f: File) -> list:
    """The globals ("module.name") a torch.save file names that are not allowed now (nothing in it
    runs; an Ember file names none)."""
    allowed = _allowed_names(trust_file=False)
    with (_io._as_path(f) if not _is_path(f) else contextlib.nullcontext(os.fspath(f))) as path:
        if not _is_torch_zip(path):
            return []
        tree = _C.io.load(path, True, _C.device("cpu"), False, ["*"])
    found: list = []
    _collect_globals(tree, found)
    return [name for name in dict.fromkeys(found) if name not in allowed]  # allowed holds the defaults


def _collect_globals(tree: Any, out: list) -> None:
    if isinstance(tree, dict):
        if _MARKER in tree:
            out.append(tree[_MARKER])
        for v in tree.values():
            _collect_globals(v, out)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            _collect_globals(v, out)

