"""
parameter initialisation, in place (torch.nn.init)
"""
from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['calculate_gain', 'constant', 'constant_', 'dirac', 'dirac_', 'eye', 'eye_', 'kaiming_normal', 'kaiming_normal_', 'kaiming_uniform', 'kaiming_uniform_', 'normal', 'normal_', 'ones_', 'orthogonal', 'orthogonal_', 'sparse', 'sparse_', 'trunc_normal_', 'uniform', 'uniform_', 'xavier_normal', 'xavier_normal_', 'xavier_uniform', 'xavier_uniform_', 'zeros_']
def _calculate_fan_in_and_fan_out(tensor: ember._C.Tensor) -> tuple[int, int]:
    ...
def calculate_gain(nonlinearity: str, param: typing.SupportsFloat | typing.SupportsIndex | None = None) -> float:
    ...
def constant(*args, **kwargs) -> typing.Any:
    """
    Deprecated: constant_, which it calls.
    """
def constant_(tensor: ember._C.Tensor, val: typing.SupportsFloat | typing.SupportsIndex) -> ember._C.Tensor:
    ...
def dirac(*args, **kwargs) -> typing.Any:
    """
    Deprecated: dirac_, which it calls.
    """
def dirac_(tensor: ember._C.Tensor, groups: typing.SupportsInt | typing.SupportsIndex = 1) -> ember._C.Tensor:
    ...
def eye(*args, **kwargs) -> typing.Any:
    """
    Deprecated: eye_, which it calls.
    """
def eye_(tensor: ember._C.Tensor) -> ember._C.Tensor:
    ...
def kaiming_normal(*args, **kwargs) -> typing.Any:
    """
    Deprecated: kaiming_normal_, which it calls.
    """
def kaiming_normal_(tensor: ember._C.Tensor, a: typing.SupportsFloat | typing.SupportsIndex = 0.0, mode: str = 'fan_in', nonlinearity: str = 'leaky_relu', generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def kaiming_uniform(*args, **kwargs) -> typing.Any:
    """
    Deprecated: kaiming_uniform_, which it calls.
    """
def kaiming_uniform_(tensor: ember._C.Tensor, a: typing.SupportsFloat | typing.SupportsIndex = 0.0, mode: str = 'fan_in', nonlinearity: str = 'leaky_relu', generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def normal(*args, **kwargs) -> typing.Any:
    """
    Deprecated: normal_, which it calls.
    """
def normal_(tensor: ember._C.Tensor, mean: typing.SupportsFloat | typing.SupportsIndex = 0.0, std: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def ones_(tensor: ember._C.Tensor) -> ember._C.Tensor:
    ...
def orthogonal(*args, **kwargs) -> typing.Any:
    """
    Deprecated: orthogonal_, which it calls.
    """
def orthogonal_(tensor: ember._C.Tensor, gain: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def sparse(*args, **kwargs) -> typing.Any:
    """
    Deprecated: sparse_, which it calls.
    """
def sparse_(tensor: ember._C.Tensor, sparsity: typing.SupportsFloat | typing.SupportsIndex, std: typing.SupportsFloat | typing.SupportsIndex = 0.01, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def trunc_normal_(tensor: ember._C.Tensor, mean: typing.SupportsFloat | typing.SupportsIndex = 0.0, std: typing.SupportsFloat | typing.SupportsIndex = 1.0, a: typing.SupportsFloat | typing.SupportsIndex = -2.0, b: typing.SupportsFloat | typing.SupportsIndex = 2.0, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def uniform(*args, **kwargs) -> typing.Any:
    """
    Deprecated: uniform_, which it calls.
    """
def uniform_(tensor: ember._C.Tensor, a: typing.SupportsFloat | typing.SupportsIndex = 0.0, b: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def xavier_normal(*args, **kwargs) -> typing.Any:
    """
    Deprecated: xavier_normal_, which it calls.
    """
def xavier_normal_(tensor: ember._C.Tensor, gain: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def xavier_uniform(*args, **kwargs) -> typing.Any:
    """
    Deprecated: xavier_uniform_, which it calls.
    """
def xavier_uniform_(tensor: ember._C.Tensor, gain: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: ember._C.Generator = None) -> ember._C.Tensor:
    ...
def zeros_(tensor: ember._C.Tensor) -> ember._C.Tensor:
    ...
