"""nn.SyncBatchNorm: batch normalisation whose training statistics span every rank of a process
group (torch.nn.SyncBatchNorm), for input [N, C, *] of any rank >= 2.

Without an initialised ember.distributed group, in eval mode, or on a group of one rank, it is
plain batch_norm (what torch does then too). With a group of several ranks, training forward
all-reduces each channel's count, sum and sum of squared deviations, so every rank normalises with
the statistics of the concatenated batch, and backward all-reduces the two per-channel gradient sums
the input gradient needs; the weight and bias gradients stay per rank (DDP sums them), as torch's.
Unlike torch, which raises for CPU tensors there, this runs on CPU over the Gloo-backed group.
"""
from __future__ import annotations

import math
from typing import Optional

from .. import _C
from ..autograd.function import Function
from .modules.module import Module
from .parameter import Parameter


def _channel_dims(x):
    return [d for d in range(x.dim()) if d != 1]


def _per_channel(t, x):
    # [C] -> [1, C, 1, ...], broadcasting against x.
    return t.reshape([1, -1] + [1] * (x.dim() - 2))


class _SyncBatchNormFunction(Function):
    """Training-mode batch_norm over the ranks of `group`; see the module docstring."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):  # noqa: A002
        from .. import distributed as dist
        dims = _channel_dims(input)
        count = input.numel() // input.shape[1] if input.shape[1] else 0
        # Two rounds, sums then squared deviations from the global mean: exact, where one round of
        # sums of squares would cancel catastrophically for large means.
        sums = _C.cat([input.sum(dims) if count else _C.zeros(input.shape[1], dtype=input.dtype),
                       _C.full((1,), float(count), dtype=input.dtype)])
        dist.all_reduce(sums, group=group)
        total = int(round(sums[-1].item()))
        if total <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got {total} over the group")
        mean = sums[:-1] / total
        centered = input - _per_channel(mean, input)
        m2 = (centered * centered).sum(dims) if count else _C.zeros(input.shape[1], dtype=input.dtype)
        dist.all_reduce(m2, group=group)
        invstd = (m2 / total + eps).rsqrt()
        if running_mean is not None:
            # In place: the module's buffers are these tensors (unbiased variance, as batch_norm).
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
            running_var.mul_(1 - momentum).add_((m2 / (total - 1)).to(running_var.dtype) * momentum)
        ctx.save_for_backward(input, weight, mean, invstd)
        ctx.total, ctx.group = total, group
        out = centered * _per_channel(invstd, input)
        if weight is not None:
            out = out * _per_channel(weight, input)
        if bias is not None:
            out = out + _per_channel(bias, input)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        from .. import distributed as dist
        input, weight, mean, invstd = ctx.saved_tensors  # noqa: A001
        dims = _channel_dims(input)
        xhat = (input - _per_channel(mean, input)) * _per_channel(invstd, input)
        sum_dy = grad_output.sum(dims)
        sum_dy_xhat = (grad_output * xhat).sum(dims)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            # Every rank's input gradient depends on the sums over the whole group.
            sums = _C.cat([sum_dy, sum_dy_xhat])
            dist.all_reduce(sums, group=ctx.group)
            c = sum_dy.shape[0]
            g_dy, g_dy_xhat = sums[:c] / ctx.total, sums[c:] / ctx.total
            scale = invstd if weight is None else invstd * weight
            grad_input = _per_channel(scale, input) * (
                grad_output - _per_channel(g_dy, input) - xhat * _per_channel(g_dy_xhat, input))
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = sum_dy_xhat
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            grad_bias = sum_dy
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


class SyncBatchNorm(Module):
    """SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
    process_group=None, *, bias=True): weight, bias, running_mean, running_var, num_batches_tracked
    as torch's; momentum=None keeps a cumulative average. See the module docstring for when the
    statistics are synchronised."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats, self.process_group = affine, track_running_stats, process_group
        kw = {"dtype": dtype} if device is None else {"dtype": dtype, "device": device}
        if affine:
            self.weight = Parameter(_C.ones(num_features, **kw))
            self.register_parameter("bias", Parameter(_C.zeros(num_features, **kw)) if bias else None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros(num_features, **kw))
            self.register_buffer("running_var", _C.ones(num_features, **kw))
            nb = {"dtype": _C.int64} if device is None else {"dtype": _C.int64, "device": device}
            self.register_buffer("num_batches_tracked", _C.zeros((), **nb))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1.0)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            self.weight.data.fill_(1.0)
            if self.bias is not None:
                self.bias.data.zero_()

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def forward(self, input):  # noqa: A002
        from .. import distributed as dist
        from .functional import batch_norm
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        running_mean = self.running_mean if not self.training or self.track_running_stats else None
        running_var = self.running_var if not self.training or self.track_running_stats else None
        world = 1
        if use_batch_stats and self.training and dist.is_available() and dist.is_initialized():
            world = dist.get_world_size(self.process_group)
        if world <= 1:
            if use_batch_stats and input.numel() // input.shape[1] <= 1:
                raise ValueError("Expected more than 1 value per channel when training, got input size "
                                 f"{tuple(input.shape)}")
            return batch_norm(input, running_mean, running_var, self.weight, self.bias, use_batch_stats, factor,
                              self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean, running_var, self.eps,
                                            factor, self.process_group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm1d/2d/3d in it (itself included) replaced by a
        SyncBatchNorm sharing its parameters and running buffers (torch's classmethod)."""
        result = module
        if isinstance(module, (_C.nn._BatchNorm, SyncBatchNorm)):
            params = dict(module.named_parameters(recurse=False))
            buffers = dict(module.named_buffers(recurse=False))
            affine = "weight" in params
            result = cls(module.num_features, module.eps, module.momentum, affine, "running_mean" in buffers,
                         process_group, bias=not affine or "bias" in params)
            if affine:
                result.weight = params["weight"]
                if "bias" in params:
                    result.bias = params["bias"]
            for name, buf in buffers.items():
                setattr(result, name, buf)
            result.train(module.training)
            if hasattr(module, "qconfig"):
                result.qconfig = module.qconfig
        for name, child in module.named_children():
            setattr(result, name, cls.convert_sync_batchnorm(child, process_group))  # replaces the child
        return result


__all__ = ["SyncBatchNorm"]
