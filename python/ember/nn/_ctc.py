"""ctc_loss and nn.CTCLoss, composed of Ember's ops: the forward (alpha) recursion of Graves et al.
(2006) in log space, one step per time frame, batched over the samples and over the extended label
sequence (blank, l1, blank, l2, ..., blank). Autograd differentiates the recursion."""
from __future__ import annotations

import math

import numpy as np

from .. import _C
from .modules import Module
from .._autocast_op import autocast_op

_NEG_INF = -math.inf


def _lengths(values, what: str) -> list:
    """Python ints from a tensor, a tuple or list, or one int."""
    if isinstance(values, _C.Tensor):
        if values.is_floating_point():
            raise TypeError(f"ctc_loss: {what} must hold integers, got {values.dtype}")
        return [int(v) for v in np.asarray(values.detach().numpy()).reshape(-1)]
    if isinstance(values, (tuple, list)):
        return [int(v) for v in values]
    return [int(values)]


def _logaddexp(*terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is -inf, with zero gradient there (Ember's
    logsumexp would give NaN: exp(-inf - -inf))."""
    stacked = _C.stack(list(terms), -1)
    top = stacked.detach().amax(-1, keepdim=True)  # NB: the shift cancels in the value, so no gradient
    top = _C.where(_C.isfinite(top), top, _C.zeros_like(top))
    total = _C.exp(stacked - top).sum(-1)
    some = total > 0
    return _C.where(some, _C.log(_C.where(some, total, _C.ones_like(total))) + top.squeeze(-1),
                    _C.full_like(total, _NEG_INF))


def _extended_labels(targets, target_lengths, batch: int, blank: int):
    """[N, 2 * S + 1] int64: each sample's labels between blanks, padded with blanks (S the longest
    target), and where the recursion may skip the blank before a position (a label that differs from
    the one two places back)."""
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"ctc_loss: expected targets of 1 to 2 dimensions, but got {targets.dim()}-dimensional "
                           f"tensor of size {list(targets.shape)}")
    values = np.asarray(targets.detach().numpy()).astype(np.int64)
    longest = max(target_lengths, default=0)
    if values.ndim == 2:
        if values.shape[0] != batch:
            raise RuntimeError(f"ctc_loss: targets of size {list(targets.shape)} must have batch_size {batch} rows")
        if values.shape[1] < longest:
            raise RuntimeError(f"ctc_loss: expected targets to have size at least {longest} at dimension 1 (the "
                               f"longest target length), but got targets of size {list(targets.shape)}")
        rows = [values[n, :target_lengths[n]] for n in range(batch)]
    else:
        if values.shape[0] != sum(target_lengths):
            raise RuntimeError(f"ctc_loss: concatenated targets of size {list(targets.shape)} must have sum(target_"
                               f"lengths) = {sum(target_lengths)} elements")
        ends = np.cumsum(target_lengths)
        rows = [values[end - length:end] for end, length in zip(ends, target_lengths)]
    labels = np.full((batch, 2 * longest + 1), blank, dtype=np.int64)
    for n, row in enumerate(rows):
        labels[n, 1:2 * len(row):2] = row
    skip = np.zeros(labels.shape, dtype=bool)
    skip[:, 3::2] = labels[:, 3::2] != labels[:, 1:-2:2]
    return labels, skip


@autocast_op("ctc_loss")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False):
    """The connectionist temporal classification loss of log_probs [T, N, C] (or [T, C]) against targets
    padded [N, S] or concatenated [sum(target_lengths)]: -log of the total probability of the alignments.
    'mean' divides each loss by its target length (at least 1), then averages, as PyTorch does."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs of 2 (unbatched [T, C]) or 3 ([T, N, C]) dimensions, got "
                           f"size {list(log_probs.shape)}")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if unbatched and targets.dim() == 1:
        targets = targets.unsqueeze(0)
    steps, batch, classes = lp.shape
    in_lengths = _lengths(input_lengths, "input_lengths")
    tg_lengths = _lengths(target_lengths, "target_lengths")
    if len(in_lengths) != batch:
        raise RuntimeError(f"input_lengths must be of size batch_size: got {len(in_lengths)} lengths, log_probs of "
                           f"size {list(log_probs.shape)}")
    if len(tg_lengths) != batch:
        raise RuntimeError(f"target_lengths must be of size batch_size: got {len(tg_lengths)} lengths, log_probs of "
                           f"size {list(log_probs.shape)}")
    if not 0 <= blank < classes:
        raise RuntimeError(f"blank must be in label range: blank={blank}, {classes} classes")
    for what, lengths, most in (("input_lengths", in_lengths, steps), ("target_lengths", tg_lengths, None)):
        for v in lengths:
            if v < 0 or (most is not None and v > most):
                raise RuntimeError(f"Expected {what} to have values in [0, {most if most is not None else 'inf'}], "
                                   f"but got value {v}")
    labels_np, skip_np = _extended_labels(targets, tg_lengths, batch, blank)
    device = lp.device
    labels = _C.from_numpy(labels_np).to(device)
    skip = _C.from_numpy(skip_np).to(device)
    width = labels_np.shape[1]
    # emissions[t, n, s] = log_probs[t, n, label s of sample n]
    emissions = _C.gather(lp, 2, labels.unsqueeze(0).expand(steps, batch, width))
    neg = _C.full((batch, 2), _NEG_INF, dtype=lp.dtype, device=device)
    # NB: alpha starts one frame before the first, all its mass on the leading blank (log 1 = 0), so a
    # sample with input length 0 keeps it and costs 0 when its target is empty, as in PyTorch.
    start = np.full((batch, width), _NEG_INF)
    start[:, 0] = 0.0
    alpha = _C.from_numpy(start).to(device=device, dtype=lp.dtype)
    active = _C.from_numpy(np.arange(steps)[:, None] < np.asarray(in_lengths)[None, :]).to(device)  # [T, N]
    for t in range(max(in_lengths, default=0)):
        stay = alpha
        step = _C.cat([neg[:, :1], alpha[:, :-1]], 1)
        jump = _C.where(skip, _C.cat([neg, alpha[:, :-2]], 1), _C.full_like(alpha, _NEG_INF)) if width > 2 else None
        terms = (stay, step) if jump is None else (stay, step, jump)
        alpha = _C.where(active[t].unsqueeze(1), _logaddexp(*terms) + emissions[t], alpha)
    ends = np.asarray([2 * length for length in tg_lengths], dtype=np.int64)
    last = _C.gather(alpha, 1, _C.from_numpy(ends[:, None]).to(device)).squeeze(1)
    before = _C.gather(alpha, 1, _C.from_numpy(np.maximum(ends - 1, 0)[:, None]).to(device)).squeeze(1)
    has_label = _C.from_numpy(ends > 0).to(device)
    loss = -_logaddexp(last, _C.where(has_label, before, _C.full_like(before, _NEG_INF)))
    # NB: PyTorch's backward gives d loss / d log_probs[t, n, c] = exp(log_probs) - (the alignments'
    # occupancy of c at t) for t < input length: the gradient with respect to the logits when log_probs
    # is their log_softmax, not the derivative of the loss in log_probs (which lacks exp(log_probs)).
    # A term worth exactly 0 whose gradient is exp(log_probs) on those frames gives PyTorch's gradients
    # for any log_probs, so models that feed raw log_probs train the same.
    probs = _C.exp(lp)
    frames = active.unsqueeze(2).to(lp.dtype)
    loss = loss + ((probs - probs.detach()) * frames).sum((0, 2))
    if zero_infinity:
        loss = _C.where(_C.isinf(loss), _C.zeros_like(loss), loss)
    if reduction == "mean":
        divisors = _C.from_numpy(np.maximum(np.asarray(tg_lengths, dtype=np.float64), 1.0)).to(device=device,
                                                                                                   dtype=lp.dtype)
        return (loss / divisors).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss


class CTCLoss(Module):
    """CTCLoss(blank=0, reduction='mean', zero_infinity=False): ctc_loss as a module, called as
    loss(log_probs, targets, input_lengths, target_lengths)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)


__all__ = ["ctc_loss", "CTCLoss"]
