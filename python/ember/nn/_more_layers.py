"""Modules over functional ops: ChannelShuffle, the channel-wise dropouts (Dropout1d,
Dropout3d, FeatureAlphaDropout) and BatchNorm3d (the C++ BatchNorm2d on [N, C, D * H, W], which
pools the same N * D * H * W values per channel, so the statistics, running buffers and parameter
names are BatchNorm2d's, as torch's BatchNorm3d)."""
from __future__ import annotations

from .. import _C
from .._C.nn import BatchNorm2d
from ._channel_ops import channel_shuffle, dropout1d, dropout3d, feature_alpha_dropout
from .modules import Module


class ChannelShuffle(Module):
    """ChannelShuffle(groups): channel_shuffle(input, groups)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):  # noqa: A002
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class _ChannelDropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_ChannelDropout):
    """Zeroes whole channels of [N, C, L] (or [C, L]) input with probability p in training."""

    def forward(self, input):  # noqa: A002
        return dropout1d(input, self.p, self.training)


class Dropout3d(_ChannelDropout):
    """Zeroes whole channels of [N, C, D, H, W] (or [C, D, H, W]) input with probability p in training."""

    def forward(self, input):  # noqa: A002
        return dropout3d(input, self.p, self.training)


class FeatureAlphaDropout(_ChannelDropout):
    """alpha dropout of whole channels in training (feature_alpha_dropout), for SELU networks."""

    def forward(self, input):  # noqa: A002
        return feature_alpha_dropout(input, self.p, self.training)


class BatchNorm3d(BatchNorm2d):
    """BatchNorm3d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True) over
    [N, C, D, H, W] input: weight, bias, running_mean, running_var, num_batches_tracked as torch's."""

    def forward(self, input):  # noqa: A002
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
        n, c, d, h, w = input.shape
        return super().forward(input.reshape(n, c, d * h, w)).reshape(n, c, d, h, w)

    def __repr__(self) -> str:
        # NB: the C++ layer prints its own name, BatchNorm2d.
        return "BatchNorm3d" + BatchNorm2d.__repr__(self)[len("BatchNorm2d"):]


__all__ = ["ChannelShuffle", "Dropout1d", "Dropout3d", "FeatureAlphaDropout", "BatchNorm3d"]
