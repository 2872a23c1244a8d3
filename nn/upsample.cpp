#include "ember/nn/upsample.h"

#include <cmath>

#include "ember/ops/ops.h"

namespace ember::nn {
namespace functional {
namespace {

bool is_interpolating(const std::string& mode) {
  return mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
}

// A per-dim list from one value for all dims, or checked to have one per dim.
template <typename T>
std::vector<T> per_dim(const std::vector<T>& v, int64_t dim, const char* what, const Tensor& input) {
  if (v.size() == 1) return std::vector<T>(static_cast<size_t>(dim), v[0]);
  EMBER_CHECK_VALUE(static_cast<int64_t>(v.size()) == dim, "Input and ", what,
                    " must have the same number of spatial dimensions, but got input with spatial dimensions of ",
                    IntArrayRef(input.sizes().data() + 2, input.dim() - 2), " and ", what, " of ", v.size(),
                    " values. Please provide input tensor in (N, C, d1, d2, ...,dK) format and ", what,
                    " in (o1, o2, ...,oK) format.");
  return v;
}

}  // namespace

Tensor interpolate(const Tensor& input, const UpsampleOptions& o, bool antialias) {
  const std::string& mode = o.mode;
  bool align_corners = false;
  if (mode == "nearest" || mode == "nearest-exact" || mode == "area") {
    EMBER_CHECK_VALUE(!o.align_corners.has_value(),
                      "align_corners option can only be set with the interpolating modes: linear | bilinear | "
                      "bicubic | trilinear");
  } else {
    EMBER_CHECK_AS(NotImplementedError, is_interpolating(mode), "interpolate: mode '", mode,
                   "' is not implemented; expected 'nearest', 'nearest-exact', 'linear', 'bilinear', 'bicubic' or "
                   "'area'");
    align_corners = o.align_corners.value_or(false);
  }
  const int64_t dim = input.dim() - 2;
  EMBER_CHECK_AS(NotImplementedError, dim == 1 || dim == 2, "interpolate: a ", input.dim(),
                 "-D input is not implemented (only 3-D [N, C, L] and 4-D [N, C, H, W]), got shape ", input.sizes());
  EMBER_CHECK_VALUE(!(o.size && o.scale_factor), "only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(o.size || o.scale_factor, "either size or scale_factor should be defined");
  std::vector<int64_t> output_size;
  std::vector<std::optional<double>> scales(static_cast<size_t>(dim));
  bool recompute = o.recompute_scale_factor.value_or(false);
  if (o.size) {
    output_size = per_dim(*o.size, dim, "output size", input);
    EMBER_CHECK_VALUE(!recompute, "recompute_scale_factor is not meaningful with an explicit size.");
  } else {
    std::vector<double> factors = per_dim(*o.scale_factor, dim, "scale_factor", input);
    if (mode == "area") recompute = true;
    for (int64_t i = 0; i < dim; ++i) {  // floor(in * scale), as PyTorch (in double)
      output_size.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * factors[i])));
      if (!recompute) scales[i] = factors[i];
    }
  }
  EMBER_CHECK_AS(NotImplementedError, !antialias, "interpolate: antialias=True is not implemented");
  const int64_t expected = mode == "linear"                            ? 1
                           : (mode == "bilinear" || mode == "bicubic") ? 2
                           : mode == "trilinear"                       ? 3
                                                                       : dim;
  EMBER_CHECK_AS(NotImplementedError, expected == dim, "interpolate: mode '", mode, "' needs a ", expected + 2,
                 "-D input, got ", input.dim(), "-D");
  if (mode == "area") {
    if (dim == 1) return adaptive_avg_pool2d(input.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
    return adaptive_avg_pool2d(input, {output_size[0], output_size[1]});
  }
  if (dim == 1) {
    if (mode == "nearest") return upsample_nearest1d(input, output_size[0], scales[0]);
    if (mode == "nearest-exact") return upsample_nearest_exact1d(input, output_size[0], scales[0]);
    return upsample_linear1d(input, output_size[0], align_corners, scales[0]);
  }
  const Size2 size(output_size[0], output_size[1]);
  if (mode == "nearest") return upsample_nearest2d(input, size, scales[0], scales[1]);
  if (mode == "nearest-exact") return upsample_nearest_exact2d(input, size, scales[0], scales[1]);
  if (mode == "bilinear") return upsample_bilinear2d(input, size, align_corners, scales[0], scales[1]);
  return upsample_bicubic2d(input, size, align_corners, scales[0], scales[1]);
}

}  // namespace functional

Upsample::Upsample(std::string type_name, UpsampleOptions options) : LayerWith(std::move(type_name), options) {}

Tensor Upsample::forward(const Tensor& input) { return functional::interpolate(input, options_); }

std::string Upsample::extra_repr() const {
  // PyTorch's: the scale factor if set (one number when one was given), else the size; then the mode.
  const UpsampleOptions& o = options_;
  std::string info;
  if (o.scale_factor) {
    const auto& f = *o.scale_factor;
    info = "scale_factor=";
    if (f.size() == 1) {
      info += python_repr(f[0]);
    } else {
      info += "(";
      for (size_t i = 0; i < f.size(); ++i) info += (i ? ", " : "") + python_repr(f[i]);
      info += ")";
    }
  } else {
    info = "size=" + (o.size ? (o.size->size() == 1 ? std::to_string((*o.size)[0]) : python_repr(*o.size)) : "None");
  }
  return info + ", mode=" + python_repr(o.mode);
}

UpsamplingNearest2d::UpsamplingNearest2d(UpsampleOptions options)
    : Upsample("UpsamplingNearest2d", [&] {
        options.mode = "nearest";
        return options;
      }()) {}

UpsamplingBilinear2d::UpsamplingBilinear2d(UpsampleOptions options)
    : Upsample("UpsamplingBilinear2d", [&] {
        options.mode = "bilinear";
        options.align_corners = true;
        return options;
      }()) {}

}  // namespace ember::nn
