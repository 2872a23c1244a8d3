"""ember.autograd: gradients of tensors (torch.autograd's names).

    y = (x ** 2).sum()
    (gx,) = ember.autograd.grad(y, x, create_graph=True)   # d y / d x, kept differentiable
    with ember.no_grad():                                  # nothing here is recorded
        x -= 0.1 * gx

no_grad, enable_grad and set_grad_enabled (grad_mode.py) work as context managers and as decorators;
grad mode is per thread, as in PyTorch.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence, Tuple, Union

from .._C import Node, RemovableHandle, Tensor  # noqa: F401
from .._C import _autograd as _impl

__all__ = ["backward", "grad", "gradcheck", "gradgradcheck", "no_grad", "inference_mode", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "Node", "RemovableHandle"]

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


# Grad mode (grad_mode.py), custom ops with a hand-written backward (function.py, torch.autograd.Function)
# and anomaly detection's switches (anomaly_mode.py), at torch.autograd's module paths.
from . import function  # noqa: E402,F401
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly  # noqa: E402,F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: E402,F401
from . import functional  # noqa: E402,F401  (jacobian, hessian, vjp, jvp, hvp, vhp)
from . import profiler  # noqa: E402,F401  (the older profile API, over ember.profiler)

__all__ += ["Function", "FunctionCtx", "once_differentiable", "function", "detect_anomaly", "set_detect_anomaly",
            "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
