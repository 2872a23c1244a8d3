#pragma once
// The 1-D, 3-D and power-average pooling layers of torch.nn over nn/pool_functional.h: MaxPool1d,
// AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d, LPPool1d, LPPool2d, LPPool3d, MaxPool3d,
// AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d. An unset stride is kernel_size (set so at
// construction, as PyTorch's max and average pools store it; the LP pools keep None). The max
// pools' forward returns the maxima; forward_with_indices the maxima and their positions, which
// Python's forward returns with return_indices=True.
#include <optional>
#include <tuple>

#include "ember/nn/layer_with.h"
#include "ember/nn/pool_functional.h"

namespace ember::nn {

struct MaxPool1dOptions {
  int64_t kernel_size;
  std::optional<int64_t> stride = std::nullopt;
  int64_t padding = 0;
  int64_t dilation = 1;
  bool return_indices = false;
  bool ceil_mode = false;
  static constexpr auto fields() {
    using O = MaxPool1dOptions;
    return std::make_tuple(field("kernel_size", &O::kernel_size), field("stride", &O::stride),
                           field("padding", &O::padding), field("dilation", &O::dilation),
                           field("return_indices", &O::return_indices), field("ceil_mode", &O::ceil_mode));
  }
};
struct AvgPool1dOptions {
  int64_t kernel_size;
  std::optional<int64_t> stride = std::nullopt;
  int64_t padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  static constexpr auto fields() {
    using O = AvgPool1dOptions;
    return std::make_tuple(field("kernel_size", &O::kernel_size), field("stride", &O::stride),
                           field("padding", &O::padding), field("ceil_mode", &O::ceil_mode),
                           field("count_include_pad", &O::count_include_pad));
  }
};
template <typename Size>
struct AdaptiveAvgPoolOptions {
  Size output_size;  // 3-D: -1 keeps that dim's input size (Python's None)
  static constexpr auto fields() { return std::make_tuple(field("output_size", &AdaptiveAvgPoolOptions::output_size)); }
};
template <typename Size>
struct AdaptiveMaxPoolOptions {
  Size output_size;  // 3-D: -1 keeps that dim's input size (Python's None)
  bool return_indices = false;
  static constexpr auto fields() {
    return std::make_tuple(field("output_size", &AdaptiveMaxPoolOptions::output_size),
                           field("return_indices", &AdaptiveMaxPoolOptions::return_indices));
  }
};
struct MaxPool3dOptions {
  Size3 kernel_size;
  std::optional<Size3> stride = std::nullopt;
  Size3 padding = 0;
  Size3 dilation = 1;
  bool return_indices = false;
  bool ceil_mode = false;
  static constexpr auto fields() {
    using O = MaxPool3dOptions;
    return std::make_tuple(field("kernel_size", &O::kernel_size), field("stride", &O::stride),
                           field("padding", &O::padding), field("dilation", &O::dilation),
                           field("return_indices", &O::return_indices), field("ceil_mode", &O::ceil_mode));
  }
};
struct AvgPool3dOptions {
  Size3 kernel_size;
  std::optional<Size3> stride = std::nullopt;
  Size3 padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = std::nullopt;
  static constexpr auto fields() {
    using O = AvgPool3dOptions;
    return std::make_tuple(field("kernel_size", &O::kernel_size), field("stride", &O::stride),
                           field("padding", &O::padding), field("ceil_mode", &O::ceil_mode),
                           field("count_include_pad", &O::count_include_pad),
                           field("divisor_override", &O::divisor_override));
  }
};
template <typename Size>
struct LPPoolOptions {
  double norm_type;
  Size kernel_size;
  std::optional<Size> stride = std::nullopt;
  bool ceil_mode = false;
  static constexpr auto fields() {
    using O = LPPoolOptions;
    return std::make_tuple(field("norm_type", &O::norm_type), field("kernel_size", &O::kernel_size),
                           field("stride", &O::stride), field("ceil_mode", &O::ceil_mode));
  }
};

class MaxPool1d : public LayerWith<MaxPool1dOptions> {
 public:
  explicit MaxPool1d(MaxPool1dOptions options);
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
};
class AvgPool1d : public LayerWith<AvgPool1dOptions> {
 public:
  explicit AvgPool1d(AvgPool1dOptions options);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};
class AdaptiveAvgPool1d : public LayerWith<AdaptiveAvgPoolOptions<int64_t>> {
 public:
  explicit AdaptiveAvgPool1d(AdaptiveAvgPoolOptions<int64_t> options) : LayerWith("AdaptiveAvgPool1d", options) {}
  Tensor forward(const Tensor& input) override;
};
class AdaptiveMaxPool1d : public LayerWith<AdaptiveMaxPoolOptions<int64_t>> {
 public:
  explicit AdaptiveMaxPool1d(AdaptiveMaxPoolOptions<int64_t> options) : LayerWith("AdaptiveMaxPool1d", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
class MaxPool3d : public LayerWith<MaxPool3dOptions> {
 public:
  explicit MaxPool3d(MaxPool3dOptions options);
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
};
class AvgPool3d : public LayerWith<AvgPool3dOptions> {
 public:
  explicit AvgPool3d(AvgPool3dOptions options);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};
class AdaptiveAvgPool3d : public LayerWith<AdaptiveAvgPoolOptions<Size3>> {
 public:
  explicit AdaptiveAvgPool3d(AdaptiveAvgPoolOptions<Size3> options) : LayerWith("AdaptiveAvgPool3d", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};
class AdaptiveMaxPool3d : public LayerWith<AdaptiveMaxPoolOptions<Size3>> {
 public:
  explicit AdaptiveMaxPool3d(AdaptiveMaxPoolOptions<Size3> options) : LayerWith("AdaptiveMaxPool3d", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
class LPPool1d : public LayerWith<LPPoolOptions<int64_t>> {
 public:
  explicit LPPool1d(LPPoolOptions<int64_t> options) : LayerWith("LPPool1d", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};
class LPPool2d : public LayerWith<LPPoolOptions<Size2>> {
 public:
  explicit LPPool2d(LPPoolOptions<Size2> options) : LayerWith("LPPool2d", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};
class LPPool3d : public LayerWith<LPPoolOptions<Size3>> {
 public:
  explicit LPPool3d(LPPoolOptions<Size3> options) : LayerWith("LPPool3d", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};

}  // namespace ember::nn
