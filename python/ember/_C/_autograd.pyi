"""
ember.autograd's C++ half
"""
from __future__ import annotations
import collections.abc
import ember._C
import typing
__all__: list[str] = ['backward', 'grad', 'gradcheck', 'gradgradcheck', 'is_grad_enabled', 'set_grad_enabled']
def _record_function(name: str, inputs: collections.abc.Sequence[ember._C.Tensor], outputs: collections.abc.Sequence[ember._C.Tensor], dirty: collections.abc.Sequence[ember._C.Tensor], backward: collections.abc.Callable, release: collections.abc.Callable) -> None:
    """
    Records a node over `inputs` whose backward(*grads of outputs) -> one gradient per input is a Python callable; release() runs when the graph is freed.
    """
def backward(tensors: typing.Any, grad_tensors: typing.Any = None, retain_graph: bool | None = None, create_graph: bool = False) -> None:
    ...
def grad(outputs: typing.Any, inputs: typing.Any, grad_outputs: typing.Any = None, retain_graph: bool | None = None, create_graph: bool = False, allow_unused: bool = False) -> tuple:
    ...
def gradcheck(func: collections.abc.Callable, inputs: typing.Any, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001) -> bool:
    ...
def gradgradcheck(func: collections.abc.Callable, inputs: typing.Any, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001) -> bool:
    ...
def is_grad_enabled() -> bool:
    ...
def set_grad_enabled(mode: bool) -> None:
    ...
