"""ember.io: checkpoints of nested Python containers (Ember's format: io/FORMAT.md; a valid
safetensors file).

    ember.io.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3,
                   "note": ("best", 0.91)}, "ckpt.ember")
    ckpt = ember.io.load("ckpt.ember")
    model.load_state_dict(ckpt["model"]); opt.load_state_dict(ckpt["optimizer"])

What can be saved: None, bool, int (64-bit), float, str, Tensor, NumPy arrays and scalars (they
load as NumPy values), list, tuple and dict with str keys, to any depth; every node comes back with its type (tuples stay tuples, ints stay ints; dicts come
back as dicts in their order). Modules, optimizers, LR schedulers and Generators may be put in
directly: they are saved as their state (what load_state_dict takes back), so
ember.io.save({"model": model}, path) and ember.io.save({"model": model.state_dict()}, path) load
the same way. A tensor that appears several times (a tied weight) is stored once and loads as one
tensor. Saves are atomic and refuse any target but a regular file (a symlink is followed); loads
verify the header's and every tensor's checksum, and loaded tensors own their memory.

load(..., mmap=True) maps the file instead: pages are read when first touched, and the tensors
borrow them (an in-place edit copies the page it touches, never the file). A mapping sees its
file: Ember holds a read lease on it, and when another process opens the file to write or
truncate it, the mapped pages are copied into memory of the process's own before the other
process may go on; where no lease can be taken (another user's file, a network file system), the
file is read as without mmap, with a warning.
"""
from __future__ import annotations

import collections
import contextlib
import os
import shutil
import tempfile
from typing import Any, BinaryIO, Iterator, Union

from . import _C
from ._C.io import load_module, save_module  # noqa: F401  (re-exported)
from ._module_types import register_module_type  # noqa: F401  (modules written in Python)

_Restored = collections.namedtuple("Restored", ["step", "path", "state"])
_Entry = collections.namedtuple("Checkpoint", ["step", "path"])


def save(obj: Any, f: str | os.PathLike, *, durable: bool = True) -> None:
    """Writes obj to the file f atomically (a crash leaves any earlier file whole). durable=False
    skips the fsync (for scratch files)."""
    _C.io.save(obj, os.fspath(f), durable)


def load(f: str | os.PathLike, *, verify: bool = True, map_location: Any = "cpu", mmap: bool = False) -> Any:
    """Reads what save wrote. verify=False skips the tensors' checksums (the header's is always
    checked); map_location ("cpu", "cuda:0" or an ember.device) is where the tensors go.

    The tensors own their memory: truncating, rewriting or replacing the file afterwards changes
    nothing already loaded. mmap=True (as torch.load's) maps the file instead, so pages are read
    when first touched; see ember.io's module docstring for what that mode guarantees."""
    return _C.io.load(os.fspath(f), verify, _C.device(str(map_location)), mmap)


@contextlib.contextmanager
def _as_path(f: Union[str, os.PathLike, BinaryIO]) -> Iterator[str]:
    """f's path, or the path of a temporary copy of a binary file object's remaining bytes."""
    if isinstance(f, (str, os.PathLike)):
        yield os.fspath(f)
        return
    if not hasattr(f, "read"):
        raise TypeError(f"expected a path or a binary file object, got {type(f).__name__}")
    with tempfile.TemporaryDirectory(prefix="ember-load-") as scratch:
        path = os.path.join(scratch, "checkpoint")
        with open(path, "wb") as dst:
            shutil.copyfileobj(f, dst)
        yield path


def load_into(module: Any, f: Union[str, os.PathLike, BinaryIO], strict: bool = True, *, key: str = ""):
    """Loads module's state from f (a path or a binary file object) in place, with what a state
    dict loses: each tensor's requires_grad and attributes. key selects a subtree of the saved
    object, "/"-separated ("model" for ember.save({"model": model, ...}, f)); with "" the file
    holds the module itself (ember.save(model, f)) or a state dict. Returns (missing_keys,
    unexpected_keys) as load_state_dict does; with strict, any such key is a RuntimeError and
    nothing changes; a shape mismatch always is one.

        ember.save({"model": model, "optimizer": opt}, "ckpt.ember")
        ember.io.load_into(model, "ckpt.ember", key="model")   # frozen layers stay frozen
    """
    with _as_path(f) as path:
        try:
            missing, unexpected, mismatches = _C.io.load_into(module, path, strict, key)
        except KeyError as e:
            raise RuntimeError(f"Error(s) in loading state for {type(module).__name__}:\n"
                               f"{e.args[0] if e.args else e}") from None
    if mismatches:
        raise RuntimeError(f"Error(s) in loading state for {type(module).__name__}:\n{mismatches}")
    return _C.nn._IncompatibleKeys(missing, unexpected)


def load_tensor(f: str | os.PathLike, name: str, *, mmap: bool = False) -> _C.Tensor:
    """One tensor by its path in the saved tree, "/"-separated ("model/fc.weight", "note/1"),
    reading no other tensor; it owns its memory (mmap=True: it borrows a mapping, as load's)."""
    return _C.io.load_tensor(os.fspath(f), name, mmap)


def load_latest(dir: str | os.PathLike, *, allow_fresh_start: bool = False):  # noqa: A002
    """(step, path, state) of the newest checkpoint of a CheckpointManager's directory that loads,
    read without creating or changing anything there (for an evaluation job or a tool); None when
    the directory is absent or holds no checkpoint. When it holds checkpoints but none loads, a
    RuntimeError naming each and why, unless allow_fresh_start (then a warning and None)."""
    r = _C.io.load_latest(os.fspath(dir), allow_fresh_start)
    return None if r is None else _Restored(*r)


class CheckpointManager:
    """Numbered checkpoints in a directory, keeping the newest keep_last that load (the one just
    written is never deleted; damaged ones do not count):

        manager = ember.io.CheckpointManager("runs/exp1", keep_last=3)
        restored = manager.restore()          # None, or (step, path, state)
        ...
        manager.save({"model": model, "optimizer": opt, "step": step}, step)
    """

    def __init__(self, dir: str | os.PathLike, keep_last: int = 1):  # noqa: A002 (the C++ name)
        self._impl = _C.io.CheckpointManager(os.fspath(dir), keep_last)

    @property
    def dir(self) -> str:
        return self._impl.dir

    @property
    def keep_last(self) -> int:
        return self._impl.keep_last

    def save(self, obj: Any, step: int) -> str:
        """Writes obj as the checkpoint of step, prunes old ones; returns the new file's path."""
        return self._impl.save(obj, step)

    def save_async(self, obj: Any, step: int) -> str:
        """save() in a background thread: returns once obj's tensors are copied (training may change
        them at once). Saves are written in call order; the next save, save_async or wait() waits
        for this one and raises its error. Returns the path the file will have."""
        return self._impl.save_async(obj, step)

    def wait(self) -> None:
        """Blocks until the background save is written; raises its error."""
        self._impl.wait()

    def latest(self, *, allow_fresh_start: bool = False):
        """(step, path) of the newest checkpoint that loads (damaged newer ones are skipped with a
        warning); None when there is no checkpoint yet. When checkpoints exist but none loads, a
        RuntimeError naming each and why, unless allow_fresh_start (then a warning and None)."""
        e = self._impl.latest(allow_fresh_start)
        return None if e is None else _Entry(*e)

    def restore(self, *, allow_fresh_start: bool = False):
        """(step, path, state) of the newest checkpoint that loads; None when there is no checkpoint
        yet. When checkpoints exist but none loads, a RuntimeError naming each and why, unless
        allow_fresh_start (then a warning and None: the job starts over)."""
        r = self._impl.restore(allow_fresh_start)
        return None if r is None else _Restored(*r)

    def checkpoints(self) -> list:
        """(step, path) of every checkpoint file present, oldest first (not verified)."""
        return [_Entry(*e) for e in self._impl.checkpoints()]

    def path_for(self, step: int) -> str:
        return self._impl.path_for(step)

    def __repr__(self) -> str:
        return f"CheckpointManager({self.dir!r}, keep_last={self.keep_last})"


__all__ = ["save", "load", "load_tensor", "load_latest", "CheckpointManager", "save_module", "load_module", "register_module_type"]
