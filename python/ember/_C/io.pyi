"""
ember.io's C++ half: checkpoints of Python containers
"""
from __future__ import annotations
import collections.abc
import ember._C
import ember._C.nn
import typing
__all__: list[str] = ['CheckpointManager', 'load', 'load_into', 'load_latest', 'load_module', 'load_tensor', 'save', 'save_module']
class CheckpointManager:
    """
    Numbered checkpoints in a directory ("ckpt-<step>.ember"), keeping the newest keep_last; restore()
    reads the newest one that loads, skipping damaged newer ones with a warning.
    """
    def __init__(self, dir: str, keep_last: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def checkpoints(self) -> list[tuple[int, str]]:
        """
        (step, path) of every checkpoint file present, oldest first.
        """
    def latest(self, allow_fresh_start: bool = False) -> typing.Any:
        """
        (step, path) of the newest checkpoint that loads; None when there is none yet. Raises when checkpoints exist but none loads, unless allow_fresh_start.
        """
    def path_for(self, step: typing.SupportsInt | typing.SupportsIndex) -> str:
        ...
    def restore(self, allow_fresh_start: bool = False) -> typing.Any:
        """
        (step, path, obj) of the newest checkpoint that loads; None when there is none yet. Raises when checkpoints exist but none loads, unless allow_fresh_start.
        """
    def save(self, obj: typing.Any, step: typing.SupportsInt | typing.SupportsIndex) -> str:
        """
        Writes obj as the checkpoint of step; returns its path.
        """
    def save_async(self, obj: typing.Any, step: typing.SupportsInt | typing.SupportsIndex) -> str:
        """
        save() in a background thread, on a copy taken before returning; returns the path.
        """
    def wait(self) -> None:
        """
        Blocks until the background save is written; raises its error.
        """
    @property
    def dir(self) -> str:
        ...
    @property
    def keep_last(self) -> int:
        ...
def _clear_fault_plan() -> None:
    ...
def _fault_points() -> int:
    ...
def _has_module_type(name: str) -> bool:
    ...
def _register_module_type(name: str, to_options: collections.abc.Callable, from_options: collections.abc.Callable) -> None:
    """
    Registers a module type written in Python (ember.io.register_module_type wraps it).
    """
def _set_fault_plan(at: typing.SupportsInt | typing.SupportsIndex, fault: str = 'error', errno: typing.SupportsInt | typing.SupportsIndex = 5, only: str = '') -> None:
    ...
def _tensor_names(path: str) -> list[list[str]]:
    ...
def load(path: str, verify: bool = True, map_location: ember._C.device = ..., mmap: bool = False, pickle_globals: collections.abc.Sequence[str] = []) -> typing.Any:
    """
    Reads what save wrote, every container type kept; the tensors on map_location, in memory of their own (mmap=True: borrowing a mapping of the file). pickle_globals: a torch.save file's globals to describe instead of refusing (ember.serialization builds them).
    """
def load_into(module: ember._C.nn.Module, path: str, strict: bool = True, key: str = '') -> tuple[list[str], list[str], str]:
    """
    Loads the module state saved at key ('/'-separated; '' for the root) of the file at path in place, with requires_grad and attributes; returns (missing_keys, unexpected_keys, size mismatches).
    """
def load_latest(dir: str, allow_fresh_start: bool = False) -> typing.Any:
    """
    (step, path, obj) of the newest checkpoint of a run directory that loads, read without creating or changing anything; None when there is none.
    """
def load_module(path: str) -> ember._C.nn.Module:
    """
    Rebuilds a module written by save_module.
    """
def load_tensor(path: str, name: str, mmap: bool = False) -> ember._C.Tensor:
    """
    One tensor by its path in the saved tree ('model/fc.weight'), without reading the others.
    """
def save(obj: typing.Any, path: str, durable: bool = True) -> None:
    """
    Writes obj (nested containers of tensors and plain values) to path atomically.
    """
def save_module(module: ember._C.nn.Module, path: str) -> None:
    """
    Writes the module's architecture and state (built-in layers, containers and the types registered with ember.io.register_module_type).
    """
