"""
linear and the losses (torch.nn.functional's)
"""
from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['binary_cross_entropy', 'binary_cross_entropy_with_logits', 'cosine_embedding_loss', 'cross_entropy', 'ctc_loss', 'gaussian_nll_loss', 'hinge_embedding_loss', 'huber_loss', 'kl_div', 'l1_loss', 'linear', 'logsigmoid', 'margin_ranking_loss', 'mse_loss', 'multi_margin_loss', 'multilabel_margin_loss', 'multilabel_soft_margin_loss', 'nll_loss', 'pairwise_distance', 'pdist', 'poisson_nll_loss', 'smooth_l1_loss', 'soft_margin_loss', 'triplet_margin_loss', 'triplet_margin_with_distance_loss']
def binary_cross_entropy(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    """
    -(target log(input) + (1 - target) log(1 - input)) on probabilities, PyTorch's clamps and gradient.
    """
def binary_cross_entropy_with_logits(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, reduction: str = 'mean', pos_weight: ember._C.Tensor | None = None) -> ember._C.Tensor:
    ...
def cosine_embedding_loss(input1: ember._C.Tensor, input2: ember._C.Tensor, target: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 0.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def cross_entropy(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean', label_smoothing: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> ember._C.Tensor:
    """
    -log_softmax(input)[target] for class indices target (int64), or against class probabilities (a floating target of input's shape); weight gives each class's weight (then "mean" divides by the weights of the counted targets), label_smoothing mixes in the uniform distribution, as PyTorch.
    """
def ctc_loss(log_probs: ember._C.Tensor, targets: ember._C.Tensor, input_lengths: typing.Any, target_lengths: typing.Any, blank: typing.SupportsInt | typing.SupportsIndex = 0, reduction: str = 'mean', zero_infinity: bool = False) -> ember._C.Tensor:
    ...
def gaussian_nll_loss(input: ember._C.Tensor, target: ember._C.Tensor, var: ember._C.Tensor, full: bool = False, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def hinge_embedding_loss(input: ember._C.Tensor, target: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def huber_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean', delta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> ember._C.Tensor:
    ...
def kl_div(input: ember._C.Tensor, target: ember._C.Tensor, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean', log_target: bool = False) -> ember._C.Tensor:
    """
    KL(target || exp(input)) pointwise; reduction 'batchmean' divides the sum by the batch size.
    """
def l1_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def linear(input: ember._C.Tensor, weight: ember._C.Tensor, bias: ember._C.Tensor | None = None) -> ember._C.Tensor:
    """
    input @ weight^T + bias.
    """
def logsigmoid(input: ember._C.Tensor) -> ember._C.Tensor:
    """
    log(sigmoid(input)), without overflow or underflow.
    """
def margin_ranking_loss(input1: ember._C.Tensor, input2: ember._C.Tensor, target: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 0.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def mse_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def multi_margin_loss(input: ember._C.Tensor, target: ember._C.Tensor, p: typing.SupportsInt | typing.SupportsIndex = 1, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def multilabel_margin_loss(input: ember._C.Tensor, target: ember._C.Tensor, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def multilabel_soft_margin_loss(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def nll_loss(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean') -> ember._C.Tensor:
    """
    -weight[target] * input[target] for log-probabilities input; weight as in cross_entropy.
    """
def pairwise_distance(x1: ember._C.Tensor, x2: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, keepdim: bool = False) -> ember._C.Tensor:
    """
    ||x1 - x2 + eps||_p along the last dim.
    """
def pdist(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2.0) -> ember._C.Tensor:
    """
    The p-norm distances between the rows i < j of input [N, M].
    """
def poisson_nll_loss(input: ember._C.Tensor, target: ember._C.Tensor, log_input: bool = True, full: bool = False, size_average: typing.Any = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-08, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def smooth_l1_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean', beta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> ember._C.Tensor:
    ...
def soft_margin_loss(input: ember._C.Tensor, target: ember._C.Tensor, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def triplet_margin_loss(anchor: ember._C.Tensor, positive: ember._C.Tensor, negative: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, swap: bool = False, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def triplet_margin_with_distance_loss(anchor: ember._C.Tensor, positive: ember._C.Tensor, negative: ember._C.Tensor, *, distance_function: ... | None = None, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, swap: bool = False, reduction: str = 'mean') -> ember._C.Tensor:
    ...
