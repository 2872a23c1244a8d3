"""pixel_shuffle and pixel_unshuffle (torch.nn.functional's, the sub-pixel upsampling of ESPCN and its
inverse): views and one permutation of the input, so their gradients are the permutation's."""
from __future__ import annotations


def pixel_shuffle(input, upscale_factor: int):  # noqa: A002  (PyTorch's names)
    """[*, C * r^2, H, W] -> [*, C, H * r, W * r], r = upscale_factor."""
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    *batch, c, h, w = input.shape
    if r <= 0 or c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # [*, C, H, r, W, r]
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor: int):  # noqa: A002
    """[*, C, H * r, W * r] -> [*, C * r^2, H, W], r = downscale_factor."""
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    *batch, c, h, w = input.shape
    if r <= 0 or h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, "
                           f"got {h} and {w} for {r}")
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # [*, C, r, r, H, W]
    return x.reshape(*batch, c * r * r, h // r, w // r)


__all__ = ["pixel_shuffle", "pixel_unshuffle"]
