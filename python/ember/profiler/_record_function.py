"""record_function: a named range around a block or a function, seen by a running profile.

    with ember.profiler.record_function("data_loading"):
        batch = next(it)

    @ember.profiler.record_function("train_step")
    def step(batch): ...

Outside a profile it costs a check. The ops run inside it show as its children in the table and in
the trace.
"""
from __future__ import annotations

import contextlib
from typing import Any, Optional

from .. import _C

__all__ = ["record_function"]


class record_function(contextlib.ContextDecorator):
    def __init__(self, name: str, args: Optional[str] = None) -> None:
        self.name = name
        self.args = args
        self._range: Optional[Any] = None

    def __enter__(self) -> "record_function":
        # A fresh range per entry: a decorated function may run inside itself.
        self._range = _C.profiler.Range(self.name)
        self._range.enter()
        return self

    def __exit__(self, *exc: Any) -> bool:
        if self._range is not None:
            self._range.exit()
            self._range = None
        return False

    def _recreate_cm(self) -> "record_function":
        return record_function(self.name, self.args)
