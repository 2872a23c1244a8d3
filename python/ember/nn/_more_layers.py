"""BatchNorm3d (the C++ BatchNorm2d on [N, C, D * H, W], which
pools the same N * D * H * W values per channel, so the statistics, running buffers and parameter
names are BatchNorm2d's, as torch's BatchNorm3d)."""
from __future__ import annotations

from .._C.nn import BatchNorm2d


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


__all__ = ["BatchNorm3d"]
