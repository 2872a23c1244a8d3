"""
linear and the losses (torch.nn.functional's)
"""
from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['adaptive_avg_pool1d', 'adaptive_avg_pool3d', 'adaptive_max_pool1d', 'adaptive_max_pool3d', 'alpha_dropout', 'avg_pool1d', 'avg_pool3d', 'bilinear', 'binary_cross_entropy', 'binary_cross_entropy_with_logits', 'celu', 'channel_shuffle', 'cosine_embedding_loss', 'cosine_similarity', 'cross_entropy', 'ctc_loss', 'dropout1d', 'dropout2d', 'dropout3d', 'elu', 'embedding_bag', 'feature_alpha_dropout', 'fold', 'gaussian_nll_loss', 'glu', 'gumbel_softmax', 'hardshrink', 'hardsigmoid', 'hardswish', 'hinge_embedding_loss', 'huber_loss', 'interpolate', 'kl_div', 'l1_loss', 'linear', 'local_response_norm', 'logsigmoid', 'lp_pool1d', 'lp_pool2d', 'lp_pool3d', 'margin_ranking_loss', 'max_pool1d', 'max_pool3d', 'mish', 'mse_loss', 'multi_head_attention_forward', 'multi_margin_loss', 'multilabel_margin_loss', 'multilabel_soft_margin_loss', 'nll_loss', 'normalize', 'pairwise_distance', 'pdist', 'pixel_shuffle', 'pixel_unshuffle', 'poisson_nll_loss', 'relu6', 'rrelu', 'selu', 'silu', 'smooth_l1_loss', 'soft_margin_loss', 'softmin', 'softplus', 'softshrink', 'softsign', 'tanhshrink', 'threshold', 'triplet_margin_loss', 'triplet_margin_with_distance_loss', 'unfold']
def adaptive_avg_pool1d(input: ember._C.Tensor, output_size: typing.Any) -> ember._C.Tensor:
    """
    Means over output_size windows tiling the last dim.
    """
def adaptive_avg_pool3d(input: ember._C.Tensor, output_size: typing.Any) -> ember._C.Tensor:
    """
    Means over output_size windows tiling D x H x W (None keeps a dim).
    """
def adaptive_max_pool1d(input: ember._C.Tensor, output_size: typing.Any, return_indices: bool = False) -> typing.Any:
    """
    Maxima over output_size windows tiling the last dim.
    """
def adaptive_max_pool3d(input: ember._C.Tensor, output_size: typing.Any, return_indices: bool = False) -> typing.Any:
    """
    Maxima over output_size windows tiling D x H x W (and their flat positions).
    """
def alpha_dropout(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = False, inplace: bool = False) -> ember._C.Tensor:
    ...
def avg_pool1d(input: ember._C.Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> ember._C.Tensor:
    """
    Window means along the last dim.
    """
def avg_pool3d(input: ember._C.Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: typing.SupportsInt | typing.SupportsIndex | None = None) -> ember._C.Tensor:
    """
    Window means over the last three dims.
    """
def bilinear(input1: ember._C.Tensor, input2: ember._C.Tensor, weight: ember._C.Tensor, bias: ember._C.Tensor | None = None) -> ember._C.Tensor:
    """
    x1^T weight[o] x2 + bias[o] for every output o.
    """
def binary_cross_entropy(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    """
    -(target log(input) + (1 - target) log(1 - input)) on probabilities, PyTorch's clamps and gradient.
    """
def binary_cross_entropy_with_logits(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, reduction: str = 'mean', pos_weight: ember._C.Tensor | None = None) -> ember._C.Tensor:
    ...
def celu(input: ember._C.Tensor, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, inplace: bool = False) -> ember._C.Tensor:
    ...
def channel_shuffle(input: ember._C.Tensor, groups: typing.SupportsInt | typing.SupportsIndex) -> ember._C.Tensor:
    ...
def cosine_embedding_loss(input1: ember._C.Tensor, input2: ember._C.Tensor, target: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 0.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def cosine_similarity(x1: ember._C.Tensor, x2: ember._C.Tensor, dim: typing.SupportsInt | typing.SupportsIndex = 1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-08) -> ember._C.Tensor:
    """
    The cosine between x1 and x2 along dim, each norm clamped at eps.
    """
def cross_entropy(input: ember._C.Tensor, target: ember._C.Tensor, weight: ember._C.Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean', label_smoothing: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> ember._C.Tensor:
    """
    -log_softmax(input)[target] for class indices target (int64), or against class probabilities (a floating target of input's shape); weight gives each class's weight (then "mean" divides by the weights of the counted targets), label_smoothing mixes in the uniform distribution, as PyTorch.
    """
def ctc_loss(log_probs: ember._C.Tensor, targets: ember._C.Tensor, input_lengths: typing.Any, target_lengths: typing.Any, blank: typing.SupportsInt | typing.SupportsIndex = 0, reduction: str = 'mean', zero_infinity: bool = False) -> ember._C.Tensor:
    ...
def dropout1d(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = True, inplace: bool = False) -> ember._C.Tensor:
    ...
def dropout2d(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = True, inplace: bool = False) -> ember._C.Tensor:
    ...
def dropout3d(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = True, inplace: bool = False) -> ember._C.Tensor:
    ...
def elu(input: ember._C.Tensor, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, inplace: bool = False) -> ember._C.Tensor:
    ...
def embedding_bag(input: ember._C.Tensor, weight: ember._C.Tensor, offsets: ember._C.Tensor | None = None, max_norm: typing.Any = None, norm_type: typing.SupportsFloat | typing.SupportsIndex = 2.0, scale_grad_by_freq: bool = False, mode: str = 'mean', sparse: bool = False, per_sample_weights: ember._C.Tensor | None = None, include_last_offset: bool = False, padding_idx: typing.SupportsInt | typing.SupportsIndex | None = None) -> ember._C.Tensor:
    """
    The sum, mean or max of weight's rows at each bag's indices (torch.nn.functional.embedding_bag).
    """
def feature_alpha_dropout(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = False, inplace: bool = False) -> ember._C.Tensor:
    ...
def fold(input: ember._C.Tensor, output_size: int | tuple[int, int], kernel_size: int | tuple[int, int], dilation: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0, stride: int | tuple[int, int] = 1) -> ember._C.Tensor:
    """
    [N, C kH kW, L] columns summed back into [N, C, output_size].
    """
def gaussian_nll_loss(input: ember._C.Tensor, target: ember._C.Tensor, var: ember._C.Tensor, full: bool = False, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def glu(input: ember._C.Tensor, dim: typing.SupportsInt | typing.SupportsIndex = -1) -> ember._C.Tensor:
    ...
def gumbel_softmax(logits: ember._C.Tensor, tau: typing.SupportsFloat | typing.SupportsIndex = 1.0, hard: bool = False, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-10, dim: typing.SupportsInt | typing.SupportsIndex = -1) -> ember._C.Tensor:
    """
    softmax((logits + g) / tau) with Gumbel noise g; hard=True: the one-hot of its argmax (straight-through).
    """
def hardshrink(input: ember._C.Tensor, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> ember._C.Tensor:
    ...
def hardsigmoid(input: ember._C.Tensor, inplace: bool = False) -> ember._C.Tensor:
    ...
def hardswish(input: ember._C.Tensor, inplace: bool = False) -> ember._C.Tensor:
    ...
def hinge_embedding_loss(input: ember._C.Tensor, target: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def huber_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean', delta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> ember._C.Tensor:
    ...
def interpolate(input: ember._C.Tensor, size: typing.Any = None, scale_factor: typing.Any = None, mode: str = 'nearest', align_corners: bool | None = None, recompute_scale_factor: bool | None = None, antialias: bool = False) -> ember._C.Tensor:
    """
    Resamples [N, C, L] or [N, C, H, W] to size or by scale_factor (torch.nn.functional.interpolate).
    """
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
def local_response_norm(input: ember._C.Tensor, size: typing.SupportsInt | typing.SupportsIndex, alpha: typing.SupportsFloat | typing.SupportsIndex = 0.0001, beta: typing.SupportsFloat | typing.SupportsIndex = 0.75, k: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> ember._C.Tensor:
    """
    input / (k + alpha * mean of input^2 over size neighbouring channels)^beta.
    """
def logsigmoid(input: ember._C.Tensor) -> ember._C.Tensor:
    """
    log(sigmoid(input)), without overflow or underflow.
    """
def lp_pool1d(input: ember._C.Tensor, norm_type: typing.SupportsFloat | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = None, ceil_mode: bool = False) -> ember._C.Tensor:
    """
    (sum over each window of x^p)^(1/p) along the last dim.
    """
def lp_pool2d(input: ember._C.Tensor, norm_type: typing.SupportsFloat | typing.SupportsIndex, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None, ceil_mode: bool = False) -> ember._C.Tensor:
    """
    (sum over each window of x^p)^(1/p) over the last two dims.
    """
def lp_pool3d(input: ember._C.Tensor, norm_type: typing.SupportsFloat | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = None, ceil_mode: bool = False) -> ember._C.Tensor:
    """
    (sum over each window of x^p)^(1/p) over the last three dims.
    """
def margin_ranking_loss(input1: ember._C.Tensor, input2: ember._C.Tensor, target: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 0.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def max_pool1d(input: ember._C.Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> typing.Any:
    """
    Window maxima along the last dim (and their positions, return_indices=True).
    """
def max_pool3d(input: ember._C.Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> typing.Any:
    """
    Window maxima over the last three dims (and their flat D*H*W positions).
    """
def mish(input: ember._C.Tensor, inplace: bool = False) -> ember._C.Tensor:
    ...
def mse_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def multi_head_attention_forward(query: ember._C.Tensor, key: ember._C.Tensor, value: ember._C.Tensor, embed_dim_to_check: typing.SupportsInt | typing.SupportsIndex, num_heads: typing.SupportsInt | typing.SupportsIndex, in_proj_weight: ember._C.Tensor | None, in_proj_bias: ember._C.Tensor | None, bias_k: ember._C.Tensor | None, bias_v: ember._C.Tensor | None, add_zero_attn: bool, dropout_p: typing.SupportsFloat | typing.SupportsIndex, out_proj_weight: ember._C.Tensor, out_proj_bias: ember._C.Tensor | None, training: bool = True, key_padding_mask: ember._C.Tensor | None = None, need_weights: bool = True, attn_mask: ember._C.Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: ember._C.Tensor | None = None, k_proj_weight: ember._C.Tensor | None = None, v_proj_weight: ember._C.Tensor | None = None, static_k: ember._C.Tensor | None = None, static_v: ember._C.Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False) -> tuple[ember._C.Tensor, ember._C.Tensor | None]:
    """
    (attn_output, attn_weights) of multi-head attention, sequence-first (torch.nn.functional's): the weights averaged over heads unless average_attn_weights=False, None unless need_weights.
    """
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
def normalize(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, dim: typing.SupportsInt | typing.SupportsIndex = 1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-12) -> ember._C.Tensor:
    """
    input / max(||input||_p along dim, eps).
    """
def pairwise_distance(x1: ember._C.Tensor, x2: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, keepdim: bool = False) -> ember._C.Tensor:
    """
    ||x1 - x2 + eps||_p along the last dim.
    """
def pdist(input: ember._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2.0) -> ember._C.Tensor:
    """
    The p-norm distances between the rows i < j of input [N, M].
    """
def pixel_shuffle(input: ember._C.Tensor, upscale_factor: typing.SupportsInt | typing.SupportsIndex) -> ember._C.Tensor:
    ...
def pixel_unshuffle(input: ember._C.Tensor, downscale_factor: typing.SupportsInt | typing.SupportsIndex) -> ember._C.Tensor:
    ...
def poisson_nll_loss(input: ember._C.Tensor, target: ember._C.Tensor, log_input: bool = True, full: bool = False, size_average: typing.Any = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-08, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def relu6(input: ember._C.Tensor, inplace: bool = False) -> ember._C.Tensor:
    ...
def rrelu(input: ember._C.Tensor, lower: typing.SupportsFloat | typing.SupportsIndex = 0.125, upper: typing.SupportsFloat | typing.SupportsIndex = 0.3333333333333333, training: bool = False, inplace: bool = False) -> ember._C.Tensor:
    ...
def selu(input: ember._C.Tensor, inplace: bool = False) -> ember._C.Tensor:
    ...
def silu(input: ember._C.Tensor, inplace: bool = False) -> ember._C.Tensor:
    ...
def smooth_l1_loss(input: ember._C.Tensor, target: ember._C.Tensor, reduction: str = 'mean', beta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> ember._C.Tensor:
    ...
def soft_margin_loss(input: ember._C.Tensor, target: ember._C.Tensor, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def softmin(input: ember._C.Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, _stacklevel: typing.SupportsInt | typing.SupportsIndex = 3, dtype: ember._C.dtype | None = None) -> ember._C.Tensor:
    ...
def softplus(input: ember._C.Tensor, beta: typing.SupportsFloat | typing.SupportsIndex = 1.0, threshold: typing.SupportsFloat | typing.SupportsIndex = 20.0) -> ember._C.Tensor:
    ...
def softshrink(input: ember._C.Tensor, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> ember._C.Tensor:
    ...
def softsign(input: ember._C.Tensor) -> ember._C.Tensor:
    ...
def tanhshrink(input: ember._C.Tensor) -> ember._C.Tensor:
    ...
def threshold(input: ember._C.Tensor, threshold: typing.SupportsFloat | typing.SupportsIndex, value: typing.SupportsFloat | typing.SupportsIndex, inplace: bool = False) -> ember._C.Tensor:
    ...
def triplet_margin_loss(anchor: ember._C.Tensor, positive: ember._C.Tensor, negative: ember._C.Tensor, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, swap: bool = False, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def triplet_margin_with_distance_loss(anchor: ember._C.Tensor, positive: ember._C.Tensor, negative: ember._C.Tensor, *, distance_function: ... | None = None, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, swap: bool = False, reduction: str = 'mean') -> ember._C.Tensor:
    ...
def unfold(input: ember._C.Tensor, kernel_size: int | tuple[int, int], dilation: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0, stride: int | tuple[int, int] = 1) -> ember._C.Tensor:
    """
    [N, C, H, W] -> [N, C kH kW, L]: every sliding window as a column.
    """
