"""Batching rules of nn.functional's ops (linear, convolutions, pools, normalizations, losses),
in the form of _rules.py. Most fold the vmap batch into the op's own batch dim N; a batched weight
(an ensemble of models) becomes groups of a grouped convolution, or a batched matmul."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from .. import _C
from .._C import Tensor
from ._batched import BatchedTensor
from ._batching import Op, batch_size, expanded, is_batched, rebuild, unwrap, wrap
from ._rules import RULES, _Args, _Fallback, _others_batched, _pad_batch, pointwise, register


def _linear(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, w, b = a.get("input", 0), a.get("weight", 1), a.get("bias", 2, None)
    if not is_batched(w, level) and not is_batched(b, level):
        return wrap(op.call(unwrap(x, level), w, b), level)  # every sample's rows at once
    out = _C.matmul(x, w.transpose(-1, -2))
    return out if b is None else out + b


RULES["linear"] = _linear


def _fold(x_pos: int, sample_rank: int, name: str = "input") -> Any:
    """A rule for an op of one batched input whose samples are [N, C, *spatial] (sample_rank dims)
    or, unbatched, [C, *spatial]: the vmap batch is folded into N."""
    def rule(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        a = _Args(args, kwargs)
        x = a.get(name, x_pos)
        v = unwrap(x, level)
        if v is None or _others_batched(a, level):
            raise _Fallback()
        if x.dim() == sample_rank - 1:  # a sample without N: the vmap batch is N
            a.set(name, x_pos, v)
            return wrap(a.call(op), level)
        if x.dim() != sample_rank:
            raise _Fallback()  # the op's own error
        size = v.shape[0]
        a.set(name, x_pos, v.reshape(size * v.shape[1], *v.shape[2:]))
        out = a.call(op)
        if isinstance(out, tuple):  # max_pool's (values, indices)
            return rebuild(out, [wrap(o.reshape(size, -1, *o.shape[1:]), level) for o in out])
        return wrap(out.reshape(size, -1, *out.shape[1:]), level)
    return rule


for _name, _rank in [("max_pool1d", 3), ("avg_pool1d", 3), ("adaptive_avg_pool1d", 3), ("adaptive_max_pool1d", 3),
                     ("lp_pool1d", 3), ("max_pool2d", 4), ("avg_pool2d", 4), ("adaptive_avg_pool2d", 4),
                     ("adaptive_max_pool2d", 4), ("lp_pool2d", 4), ("max_pool3d", 5), ("avg_pool3d", 5),
                     ("adaptive_avg_pool3d", 5), ("adaptive_max_pool3d", 5), ("pixel_shuffle", 4),
                     ("pixel_unshuffle", 4), ("local_response_norm", 4), ("channel_shuffle", 4)]:
    RULES[_name] = _fold(0, _rank)


def _interpolate(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x = args[0] if args else kwargs["input"]
    if x.dim() < 3:
        raise _Fallback()
    return _fold(0, x.dim())(op, level, args, kwargs)


RULES["interpolate"] = _interpolate


def _conv(spatial: int):
    def rule(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        a = _Args(args, kwargs)
        x, w, b = a.get("input", 0), a.get("weight", 1), a.get("bias", 2, None)
        groups = a.get("groups", 6, 1)
        if not is_batched(w, level) and not is_batched(b, level):
            return _fold(0, spatial + 2)(op, level, args, kwargs)
        # An ensemble: sample k's weight is group k of one grouped convolution over the samples' channels.
        size = batch_size(level)
        batched_input = x.dim() == spatial + 2
        X = expanded(x, level)  # noqa: N806
        if not batched_input:
            X = X.unsqueeze(1)  # noqa: N806  [B, 1, C, *]
        n = X.shape[1]
        X = X.transpose(0, 1).reshape(n, size * X.shape[2], *X.shape[3:])  # noqa: N806  [N, B*C, *]
        W = expanded(w, level)  # noqa: N806
        a.set("input", 0, X)
        a.set("weight", 1, W.reshape(size * W.shape[1], *W.shape[2:]))
        a.set("bias", 2, None if b is None else expanded(b, level).reshape(-1))
        a.set("groups", 6, groups * size)
        out = a.call(op)  # [N, B*O, *]
        out = out.reshape(n, size, -1, *out.shape[2:]).transpose(0, 1)
        return wrap(out if batched_input else out.squeeze(1), level)
    return rule


# conv_transposeNd(input, weight [C_in, C_out / groups, *k], bias, stride, padding, output_padding,
# groups, dilation): groups sits where convNd's does, and a batched weight folds the same way.
for _spatial in (1, 2, 3):
    RULES[f"conv{_spatial}d"] = _conv(_spatial)
    RULES[f"conv_transpose{_spatial}d"] = _conv(_spatial)


def _layer_norm(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, shape = a.get("input", 0), a.get("normalized_shape", 1)
    w, b, eps = a.get("weight", 2, None), a.get("bias", 3, None), a.get("eps", 4, 1e-5)
    if not is_batched(w, level) and not is_batched(b, level):
        return wrap(op.call(unwrap(x, level), shape, w, b, eps), level)  # normalizes trailing dims
    out = op.call(x, shape, None, None, eps)
    out = out * w if w is not None else out
    return out + b if b is not None else out


RULES["layer_norm"] = _layer_norm


def _per_channel(t: Any, rank: int) -> Any:
    """A [C] tensor shaped to broadcast over a sample [N, C, *] of `rank` dims."""
    return t.reshape(t.shape[0], *([1] * (rank - 2)))


def _group_norm(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, groups = a.get("input", 0), a.get("num_groups", 1)
    w, b, eps = a.get("weight", 2, None), a.get("bias", 3, None), a.get("eps", 4, 1e-5)
    v = unwrap(x, level)
    if v is None or is_batched(groups, level):
        raise _Fallback()
    size, rank = v.shape[0], x.dim()
    out = wrap(op.call(v.reshape(size * v.shape[1], *v.shape[2:]), groups, None, None, eps).reshape(v.shape), level)
    out = out * _per_channel(w, rank) if w is not None else out
    return out + _per_channel(b, rank) if b is not None else out


RULES["group_norm"] = _group_norm


def _batch_norm(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, mean, var = a.get("input", 0), a.get("running_mean", 1), a.get("running_var", 2)
    w, b = a.get("weight", 3, None), a.get("bias", 4, None)
    training, eps = a.get("training", 5, False), a.get("eps", 7, 1e-5)
    rank = x.dim()
    if training or mean is None:
        if mean is not None or var is not None:
            raise RuntimeError("vmap: batch_norm in training mode would update its running statistics once for "
                               "every sample: call the model's eval(), or build its BatchNorm layers with "
                               "track_running_stats=False")
        v = unwrap(x, level)
        if v is None or _others_batched(a, level):
            raise _Fallback()
        # each sample's batch statistics: the vmap batch becomes channels of one call
        size, n, c = v.shape[0], v.shape[1], v.shape[2]
        folded = v.transpose(0, 1).reshape(n, size * c, *v.shape[3:])
        out = op.call(folded, None, None, None, None, True, 0.0, eps)
        out = wrap(out.reshape(n, size, c, *v.shape[3:]).transpose(0, 1), level)
    else:
        out = (x - _per_channel(mean, rank)) * (_per_channel(var, rank) + eps).rsqrt()
    out = out * _per_channel(w, rank) if w is not None else out
    return out + _per_channel(b, rank) if b is not None else out


RULES["batch_norm"] = _batch_norm


def _embedding(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """ember._C.embedding(weight, indices, padding_idx): the rows of each sample's indices. A batched
    weight (per-sample gradients, ensembles) is one table of every sample's rows, the indices offset
    into their sample's; padding_idx's rows are read as they are but pass no gradient (PyTorch's)."""
    weight, indices = args[0], args[1]
    padding = args[2] if len(args) > 2 else kwargs.get("padding_idx")
    if not is_batched(weight, level):
        return wrap(op.call(weight, unwrap(indices, level), *args[2:], **kwargs), level)
    W = unwrap(weight, level)  # noqa: N806  [B, V, D]
    size, rows = W.shape[0], W.shape[1]
    index = expanded(indices, level)
    offsets = _C.arange(size, dtype=index.dtype, device=index.device).reshape(size, *([1] * (index.dim() - 1)))
    out = op.call(W.reshape(size * rows, *W.shape[2:]), index + offsets * rows)
    if padding is not None:
        keep = (index != (padding % rows)).unsqueeze(-1)
        out = _C.where(keep, out, out.detach())
    return wrap(out, level)


RULES["embedding"] = _embedding


def _pad(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, widths, mode = a.get("input", 0), a.get("pad", 1), a.get("mode", 2, "constant")
    if mode == "constant":  # pads the last dims, whatever leads
        v = unwrap(x, level)
        if v is None or _others_batched(a, level):
            raise _Fallback()
        a.set("input", 0, v)
        return wrap(a.call(op), level)
    spatial = len(widths) // 2
    return _fold(0, spatial + 2)(op, level, args, kwargs)


RULES["pad"] = _pad


# ---- losses: the per-element losses of the whole batch, reduced per sample

def _reduced(loss: Any, reduction: str, level: int, denominator: Any = None) -> Any:
    if reduction == "none":
        return loss
    total = _total(loss)
    if reduction == "sum":
        return total
    if reduction == "mean":
        return total / (denominator if denominator is not None else max(loss.numel(), 1))
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _total(x: Any) -> Any:
    return x.sum() if x.dim() else x


def _elementwise_loss(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if len(args) > 3:  # the legacy size_average / reduce, given by position
        raise _Fallback()
    kwargs = dict(kwargs)
    reduction = kwargs.get("reduction", "mean")
    kwargs["reduction"] = "none"
    # input and target batched alike: the losses compare their shapes (binary_cross_entropy refuses
    # a target of another size), which per sample are equal where an unbatched one broadcasts
    args = tuple(wrap(expanded(a, level), level) if isinstance(a, (Tensor, BatchedTensor)) and not is_batched(a, level)
                 else a for a in args)
    loss = pointwise(op, level, args, kwargs)
    if reduction == "batchmean":  # kl_div: the sum over the size of the sample's first dim
        x = args[0] if args else kwargs["input"]
        return _total(loss) / (x.shape[0] if x.dim() else 1)
    return _reduced(loss, reduction, level)


register(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss", "binary_cross_entropy",
          "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss"], _elementwise_loss)


def _class_loss(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """nll_loss and cross_entropy: samples of [N, C, *] (or [C]) scores and their targets."""
    a = _Args(args, kwargs)
    x, target = a.get("input", 0), a.get("target", 1)
    weight = a.get("weight", 2, None)
    if is_batched(weight, level):
        raise _Fallback()
    reduction = a.kwargs.get("reduction", "mean")
    if len(a.args) > 3 or set(a.kwargs) - {"input", "target", "weight", "ignore_index", "reduction",
                                           "label_smoothing"}:
        raise _Fallback()
    ignore = a.kwargs.get("ignore_index", -100)
    size = batch_size(level)
    probabilities = target.is_floating_point()
    X, T = expanded(x, level), expanded(target, level)  # noqa: N806
    single = x.dim() == 1  # one sample's scores [C]: the vmap batch is N
    if single:
        flat_x, flat_t = X, T
    else:
        flat_x = X.reshape(size * X.shape[1], *X.shape[2:])
        flat_t = T.reshape(size * T.shape[1], *T.shape[2:])
    a.args = [flat_x, flat_t] + a.args[2:]
    a.kwargs.pop("input", None)
    a.kwargs.pop("target", None)
    a.kwargs["reduction"] = "none"
    per_element = a.call(op)
    loss = wrap(per_element if single else per_element.reshape(size, *x.shape[:1], *per_element.shape[1:]), level)
    if reduction in ("none", "sum"):
        return _reduced(loss, reduction, level)
    if probabilities:
        return loss.sum() / max(loss.numel(), 1)
    # the mean over the targets that count, each by its class weight (PyTorch's)
    counted = (T != ignore).to(per_element.dtype)
    weights = counted if weight is None else weight[T.clamp(0, weight.shape[0] - 1)] * counted
    return _total(loss) / _total(wrap(weights, level))


register(["nll_loss", "cross_entropy"], _class_loss)


def _attention(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """scaled_dot_product_attention: its leading dims are batch dims, so the vmap batch is one more
    (every operand given it, and the same rank)."""
    a = _Args(args, kwargs)
    if a.get("dropout_p", 4, 0.0) > 0:
        raise _Fallback()  # random: per sample
    names = [("query", 0), ("key", 1), ("value", 2), ("attn_mask", 3)]
    parts = [a.get(n, p, None) for n, p in names]
    rank = max(t.dim() for t in parts if t is not None)
    for (name, pos), t in zip(names[:3], parts[:3]):
        a.set(name, pos, _pad_batch(expanded(t, level), rank + 1))
    mask = unwrap(parts[3], level)
    if mask is not None:
        a.set("attn_mask", 3, _pad_batch(mask, rank + 1))
    return wrap(a.call(op), level)


RULES["scaled_dot_product_attention"] = _attention


def _prelu(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """prelu's weight goes with a sample's channel dim 1, not its last: the vmap batch is folded into
    N (a sample of fewer dims runs per sample, with the op's own rule)."""
    x = args[0] if args else kwargs["input"]
    if x.dim() < 2:
        raise _Fallback()
    return _fold(0, x.dim())(op, level, args, kwargs)


RULES["prelu"] = _prelu
