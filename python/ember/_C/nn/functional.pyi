"""
linear and the losses (torch.nn.functional's)
"""
from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['binary_cross_entropy_with_logits', 'cross_entropy', 'l1_loss', 'linear', 'mse_loss', 'nll_loss', 'smooth_l1_loss']
def binary_cross_entropy_with_logits(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, reduction: str = 'mean', pos_weight: ember._C.Tensor | None = None) -> ember._C.Tensor:
    ...
def cross_entropy(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean', label_smoothing: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> ember._C.Tensor:
    """
    -log_softmax(input)[target] for class indices target (int64), or against class probabilities (a floating target of input's shape); weight gives each class's weight (then "mean" divides by the weights of the counted targets), label_smoothing mixes in the uniform distribution, as PyTorch.
    """
def l1_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def linear(input: ember._C.Tensor, weight: ember._C.Tensor, bias: ember._C.Tensor | None = None) -> ember._C.Tensor:
    """
    input @ weight^T + bias.
    """
def mse_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def nll_loss(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean') -> ember._C.Tensor:
    """
    -weight[target] * input[target] for log-probabilities input; weight as in cross_entropy.
    """
def smooth_l1_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean', beta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> ember._C.Tensor:
    ...
