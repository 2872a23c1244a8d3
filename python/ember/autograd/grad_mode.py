"""Grad mode, as torch.autograd.grad_mode's: no_grad, enable_grad, set_grad_enabled and
inference_mode, each a context manager and a decorator; the mode is per thread."""
from __future__ import annotations

import functools
from typing import Callable, TypeVar

from .._C import _autograd as _impl

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]

_F = TypeVar("_F", bound=Callable)


class _GradMode:
    """Sets grad mode inside a `with` block, or for every call of a decorated function, and
    restores the previous mode afterwards (also when an exception leaves the block)."""

    _enabled: bool

    def __enter__(self) -> None:
        self._prev = _impl.is_grad_enabled()
        _impl.set_grad_enabled(self._enabled)

    def __exit__(self, *exc) -> None:
        _impl.set_grad_enabled(self._prev)

    def __call__(self, fn: _F) -> _F:
        mode = self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _impl.is_grad_enabled()
            _impl.set_grad_enabled(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _impl.set_grad_enabled(prev)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):
    """`with ember.no_grad():` or `@ember.no_grad()`: ops inside record no graph."""

    def __init__(self) -> None:
        self._enabled = False


class inference_mode(_GradMode):
    """`with ember.inference_mode():` or `@ember.inference_mode()`: as no_grad (PyTorch's faster
    variant of it; Ember's no_grad already records nothing). inference_mode(False) changes nothing."""

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)

    @property
    def _enabled(self) -> bool:  # type: ignore[override]
        return False if self._mode else _impl.is_grad_enabled()

    def __call__(self, fn: _F) -> _F:
        if self._mode:
            return no_grad()(fn)
        return fn


class enable_grad(_GradMode):
    """`with ember.enable_grad():` or `@ember.enable_grad()`: recording on (inside no_grad)."""

    def __init__(self) -> None:
        self._enabled = True


class set_grad_enabled(_GradMode):
    """ember.set_grad_enabled(False) turns recording off at once; as a context manager or
    decorator it applies to the block or function only."""

    def __init__(self, mode: bool) -> None:
        self._prev = _impl.is_grad_enabled()
        self._enabled = bool(mode)
        _impl.set_grad_enabled(self._enabled)

    def __enter__(self) -> None:
        _impl.set_grad_enabled(self._enabled)

    def __exit__(self, *exc) -> None:
        _impl.set_grad_enabled(self._prev)
