#pragma once
// interpolate (torch.nn.functional.interpolate over the upsample_* ops) and the Upsample layers.
// Modes: "nearest", "nearest-exact", "linear" (3-D input), "bilinear" and "bicubic" (4-D), with
// align_corners for the interpolating ones, and "area" (adaptive average pooling). A scale factor
// is passed on to the source-index computation, as PyTorch does, unless recompute_scale_factor.
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/layer_with.h"

namespace ember::nn {

/// One of size and scale_factor: per spatial dim, or one value for all of them.
struct UpsampleOptions {
  std::optional<std::vector<int64_t>> size = std::nullopt;
  std::optional<std::vector<double>> scale_factor = std::nullopt;
  std::string mode = "nearest";
  std::optional<bool> align_corners = std::nullopt;
  std::optional<bool> recompute_scale_factor = std::nullopt;
  static constexpr auto fields() {
    using O = UpsampleOptions;
    return std::make_tuple(field("size", &O::size), field("scale_factor", &O::scale_factor), field("mode", &O::mode),
                           field("align_corners", &O::align_corners),
                           field("recompute_scale_factor", &O::recompute_scale_factor));
  }
};

namespace functional {
/// [N, C, L] or [N, C, H, W] resampled as options say; antialias is refused (not implemented).
Tensor interpolate(const Tensor& input, const UpsampleOptions& options, bool antialias = false);
}  // namespace functional

class Upsample : public LayerWith<UpsampleOptions> {
 public:
  explicit Upsample(UpsampleOptions options) : Upsample("Upsample", std::move(options)) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

 protected:
  Upsample(std::string type_name, UpsampleOptions options);
};
/// Upsample with mode "nearest".
class UpsamplingNearest2d : public Upsample {
 public:
  explicit UpsamplingNearest2d(UpsampleOptions options);
};
/// Upsample with mode "bilinear" and align_corners.
class UpsamplingBilinear2d : public Upsample {
 public:
  explicit UpsamplingBilinear2d(UpsampleOptions options);
};

}  // namespace ember::nn
