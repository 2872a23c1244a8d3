"""affine_grid and grid_sample (torch.nn.functional's, the spatial transformer's sampling) for 4-D
inputs, composed of Ember's ops: the grid is a product with theta, and a sample gathers the four
(bilinear) or one (nearest) input pixels around each grid point with index_select, so both input and
grid get their gradients. Grid coordinates are x then y in [-1, 1], as PyTorch's."""
from __future__ import annotations

from .. import _C
from .._autocast_op import autocast_op


def _base_coords(n: int, align_corners: bool, dtype, device):
    """The normalised centres of n pixels along one axis."""
    if n == 1:
        return _C.zeros(1, dtype=dtype, device=device)
    coords = _C.linspace(-1.0, 1.0, n, dtype=dtype, device=device)
    return coords if align_corners else coords * ((n - 1) / n)


def affine_grid(theta, size, align_corners: bool | None = None):
    """The sampling grid [N, H, W, 2] of the affine maps theta [N, 2, 3] for an output of size
    [N, C, H, W]: grid[n, h, w] = theta[n] @ (x_w, y_h, 1)."""
    if align_corners is None:
        align_corners = False
    if len(size) != 4:
        raise NotImplementedError(f"affine_grid: only 4-D sizes (2-D images) are supported, got {list(size)}")
    n, _, h, w = (int(s) for s in size)
    if tuple(theta.shape) != (n, 2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {list(size)}. "
                         f"Got {list(theta.shape)}.")
    xs = _base_coords(w, align_corners, theta.dtype, theta.device)
    ys = _base_coords(h, align_corners, theta.dtype, theta.device)
    base = _C.stack([xs.reshape(1, w).expand(h, w), ys.reshape(h, 1).expand(h, w),
                     _C.ones(h, w, dtype=theta.dtype, device=theta.device)], -1)  # [H, W, 3]
    return (base.reshape(1, h * w, 3) @ theta.transpose(1, 2)).reshape(n, h, w, 2)


def _unnormalise(coord, size: int, align_corners: bool):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low: float, high: float):
    # Reflects coord into [low, high] about its ends (PyTorch's reflect_coordinates).
    span = high - low
    if span <= 0:
        return _C.zeros_like(coord)
    x = _C.abs(coord - low)
    flips = _C.floor(x / span)
    extra = x - flips * span
    return _C.where(_C.remainder(flips, 2) == 0, extra + low, span - extra + low)


def _source(coord, size: int, padding_mode: str, align_corners: bool):
    x = _unnormalise(coord, size, align_corners)
    if padding_mode == "border":
        return _C.clamp(x, 0.0, size - 1.0)
    if padding_mode == "reflection":
        x = _reflect(x, 0.0, 2.0 * (size - 1) / 2) if align_corners else _reflect(x, -0.5, size - 0.5)
        return _C.clamp(x, 0.0, size - 1.0)
    return x


@autocast_op("grid_sample")
def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",  # noqa: A002
                align_corners: bool | None = None):
    """output[n, c, h, w] = input[n, c] sampled at grid[n, h, w] = (x, y) in [-1, 1]: bilinear or
    nearest, outside the input zeros, the border's value or the reflection's."""
    if align_corners is None:
        align_corners = False
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"grid_sample: mode {mode!r} is not supported (bilinear or nearest)")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.dim() != 4 or grid.dim() != 4 or grid.shape[-1] != 2:
        raise NotImplementedError("grid_sample: only 4-D inputs with [N, H, W, 2] grids are supported")
    n, c, h_in, w_in = input.shape
    _, h, w, _ = grid.shape
    x = _source(grid[..., 0], w_in, padding_mode, align_corners)  # [N, H, W]
    y = _source(grid[..., 1], h_in, padding_mode, align_corners)
    planes = input.transpose(0, 1).reshape(c, n * h_in * w_in)  # every image's pixels, per channel
    batch = _C.arange(n, device=input.device).reshape(n, 1, 1) * (h_in * w_in)

    def gather(ix, iy):
        # input at integer (ix, iy) [N, H, W], 0 where outside; [N, C, H, W]
        inside = (ix >= 0) & (ix <= w_in - 1) & (iy >= 0) & (iy <= h_in - 1)
        flat = (_C.clamp(iy, 0, h_in - 1) * w_in + _C.clamp(ix, 0, w_in - 1)).to(_C.int64) + batch
        values = planes.index_select(1, flat.reshape(-1))
        values = values.reshape(c, n, h, w).transpose(0, 1)
        return values * inside.to(input.dtype).unsqueeze(1)

    if mode == "nearest":
        # NB: half to even, as PyTorch's nearbyint
        return gather(_C.round(x.detach()), _C.round(y.detach()))
    x0, y0 = _C.floor(x.detach()), _C.floor(y.detach())
    wx, wy = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    return (gather(x0, y0) * (1 - wx) * (1 - wy) + gather(x0 + 1, y0) * wx * (1 - wy)
            + gather(x0, y0 + 1) * (1 - wx) * wy + gather(x0 + 1, y0 + 1) * wx * wy)


__all__ = ["affine_grid", "grid_sample"]
