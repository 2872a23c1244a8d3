// affine_grid and grid_sample (torch.nn.functional's: the spatial transformer's sampling) for 4-D
// inputs, composed of table ops: the grid is a product with theta, and a sample gathers the four
// (bilinear) or one (nearest) input pixels around each grid point with index_select, so input and grid
// both get their gradients. Grid coordinates are x then y in [-1, 1], as PyTorch's.
#include <string>

#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

// The normalised centres of n pixels along one axis.
Tensor base_coords(int64_t n, bool align_corners, const TensorOptions& options) {
  if (n == 1) return zeros({1}, options);
  const Tensor coords = linspace(-1.0, 1.0, n, options);
  return align_corners ? coords : coords * (n - 1) / n;  // NB: two roundings, as PyTorch's linspace_from_neg_one
}

Tensor unnormalise(const Tensor& coord, int64_t size, bool align_corners) {
  const auto n = static_cast<double>(size);
  return align_corners ? (coord + 1) / 2 * (n - 1) : ((coord + 1) * n - 1) / 2;
}

// coord reflected into [low, high] about its ends, rounded as PyTorch's reflect_coordinates.
Tensor reflect(const Tensor& coord, double low, double high) {
  const double span = high - low;
  if (span <= 0) return zeros_like(coord);
  const Tensor x = abs(coord - low);
  const Tensor extra = fmod(x, Scalar(span));
  const Tensor flips = floor(x / span);
  return where(eq(remainder(flips, Scalar(2)), Scalar(0)), extra + low, (low + span) - extra);
}

// Where in the input (in pixels) a grid coordinate samples, by the padding mode.
Tensor source(const Tensor& coord, int64_t size, std::string_view padding_mode, bool align_corners) {
  Tensor x = unnormalise(coord, size, align_corners);
  const auto last = static_cast<double>(size - 1);
  if (padding_mode == "border") return clamp(x, Scalar(0.0), Scalar(last));
  if (padding_mode == "reflection") {
    x = align_corners ? reflect(x, 0.0, last) : reflect(x, -0.5, static_cast<double>(size) - 0.5);
    return clamp(x, Scalar(0.0), Scalar(last));
  }
  return x;
}

}  // namespace

Tensor impl_affine_grid(const Tensor& theta, IntArrayRef size, std::optional<bool> align_corners) {
  EMBER_CHECK_AS(NotImplementedError, size.size() == 4, "affine_grid: only 4-D sizes (2-D images) are supported, got ",
                 size);
  const int64_t n = size[0], h = size[2], w = size[3];
  EMBER_CHECK_VALUE(theta.dim() == 3 && theta.size(0) == n && theta.size(1) == 2 && theta.size(2) == 3,
                    "Expected a batch of 2D affine matrices of shape Nx2x3 for size ", size, ". Got ", theta.sizes(),
                    ".");
  const TensorOptions options = TensorOptions(theta.dtype()).device(theta.device());
  const bool corners = align_corners.value_or(false);
  const Tensor xs = base_coords(w, corners, options), ys = base_coords(h, corners, options);
  const Tensor base =
      stack({xs.reshape({1, w}).expand({h, w}), ys.reshape({h, 1}).expand({h, w}), ones({h, w}, options)},
            -1);  // [H, W, 3]
  return matmul(base.reshape({1, h * w, 3}), theta.transpose(1, 2)).reshape({n, h, w, 2});
}

Tensor impl_grid_sample(const Tensor& input, const Tensor& grid, std::string_view mode, std::string_view padding_mode,
                        std::optional<bool> align_corners) {
  if (autocast::applies("grid_sample", {input, grid}))
    return autocast::run("grid_sample", {input, grid}, [&](const autocast::Cast& cast) {
      return grid_sample(cast(input), cast(grid), mode, padding_mode, align_corners);
    });
  EMBER_CHECK_AS(NotImplementedError, mode == "bilinear" || mode == "nearest", "grid_sample: mode '", mode,
                 "' is not supported (bilinear or nearest)");
  EMBER_CHECK_VALUE(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection",
                    "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but "
                    "got: '",
                    padding_mode, "'");
  EMBER_CHECK_AS(NotImplementedError, input.dim() == 4 && grid.dim() == 4 && grid.size(-1) == 2,
                 "grid_sample: only 4-D inputs with [N, H, W, 2] grids are supported");
  const bool corners = align_corners.value_or(false);
  const int64_t n = input.size(0), c = input.size(1), h_in = input.size(2), w_in = input.size(3);
  const int64_t h = grid.size(1), w = grid.size(2);
  const Tensor x = source(grid.select(-1, 0), w_in, padding_mode, corners);  // [N, H, W]
  const Tensor y = source(grid.select(-1, 1), h_in, padding_mode, corners);
  const Tensor planes = input.transpose(0, 1).reshape({c, n * h_in * w_in});  // every image's pixels, per channel
  const Tensor batch = arange(0, n, 1, TensorOptions(kInt64).device(input.device())).reshape({n, 1, 1}) * (h_in * w_in);
  // input at integer (ix, iy) [N, H, W], 0 where outside: [N, C, H, W]
  auto gather = [&](const Tensor& ix, const Tensor& iy) {
    const Tensor inside = logical_and(logical_and(ge(ix, Scalar(0)), le(ix, Scalar(w_in - 1))),
                                      logical_and(ge(iy, Scalar(0)), le(iy, Scalar(h_in - 1))));
    // NB: a point outside (or NaN) reads pixel 0 and is zeroed below: NaN made an int64 index past the input
    const Tensor flat = (where(inside, iy, Scalar(0)) * w_in + where(inside, ix, Scalar(0))).to(kInt64) + batch;
    const Tensor values = index_select(planes, 1, flat.reshape({-1})).reshape({c, n, h, w}).transpose(0, 1);
    return values * inside.to(input.dtype()).unsqueeze(1);
  };
  if (mode == "nearest") return gather(round(x.detach()), round(y.detach()));  // NB: half to even, as nearbyint
  // The four corners' weights, each the area of the opposite rectangle, as PyTorch's CPU kernel rounds them
  const Tensor x0 = floor(x.detach()), y0 = floor(y.detach()), x1 = x0 + 1, y1 = y0 + 1;
  const Tensor west = (x - x0).unsqueeze(1), east = (x1 - x).unsqueeze(1);
  const Tensor north = (y - y0).unsqueeze(1), south = (y1 - y).unsqueeze(1);
  return gather(x0, y0) * (south * east) + gather(x1, y0) * (south * west) + gather(x0, y1) * (north * east) +
         gather(x1, y1) * (north * west);
}

}  // namespace ember
