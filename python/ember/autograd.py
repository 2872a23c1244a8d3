"""ember.autograd: gradients of tensors (torch.autograd's names).

    y = (x ** 2).sum()
    (gx,) = ember.autograd.grad(y, x, create_graph=True)   # d y / d x, kept differentiable
    with ember.no_grad():                                  # nothing here is recorded
        x -= 0.1 * gx

no_grad, enable_grad and set_grad_enabled work as context managers and as decorators; grad mode
is per thread, as in PyTorch.
"""
from __future__ import annotations

import functools
from typing import Callable, Optional, Sequence, Tuple, TypeVar, Union

from ._C import Node, RemovableHandle, Tensor  # noqa: F401
from ._C import _autograd as _impl

__all__ = ["backward", "grad", "gradcheck", "gradgradcheck", "no_grad", "inference_mode", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "Node", "RemovableHandle"]

_F = TypeVar("_F", bound=Callable)
_Tensors = Union[Tensor, Sequence[Tensor]]


def is_grad_enabled() -> bool:
    """Whether ops record the graph on this thread."""
    return _impl.is_grad_enabled()


def backward(tensors: _Tensors, grad_tensors: Optional[_Tensors] = None,
             retain_graph: Optional[bool] = None, create_graph: bool = False) -> None:
    """Accumulates d(tensors)/d(leaf) into every leaf's .grad (torch.autograd.backward).
    grad_tensors: one gradient per tensor (None for a one-element tensor: ones)."""
    _impl.backward(tensors, grad_tensors, retain_graph, create_graph)


def grad(outputs: _Tensors, inputs: _Tensors, grad_outputs: Optional[_Tensors] = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         allow_unused: bool = False) -> Tuple[Optional[Tensor], ...]:
    """d(outputs)/d(inputs) as a tuple, one entry per input, without touching any .grad.
    retain_graph defaults to create_graph; with allow_unused an input the outputs do not depend on
    gets None instead of an error."""
    return _impl.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


def gradcheck(func: Callable[..., Tensor], inputs: _Tensors, *, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3) -> bool:
    """Compares func's gradients with central finite differences for the inputs that require
    grad (float64): True, or a RuntimeError naming the first mismatch."""
    return _impl.gradcheck(func, inputs, eps, atol, rtol)


def gradgradcheck(func: Callable[..., Tensor], inputs: _Tensors, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3) -> bool:
    """gradcheck of the first derivatives (second derivatives)."""
    return _impl.gradgradcheck(func, inputs, eps, atol, rtol)


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


# Custom ops with a hand-written backward (torch.autograd.Function); `ember.autograd.function` is the
# module torch scripts import once_differentiable and FunctionCtx from.
from ._autograd_function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from . import _autograd_function as function  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".function"] = function
__all__ += ["Function", "FunctionCtx", "once_differentiable", "function"]


# Anomaly detection's switches (the flag only: see _anomaly.py).
from ._anomaly import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly  # noqa: E402
__all__ += ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
