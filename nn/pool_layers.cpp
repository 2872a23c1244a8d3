#include "ember/nn/pool_layers.h"

namespace ember::nn {
namespace F = functional;

namespace {
// PyTorch's repr of a max or average pool: the window, without return_indices.
template <typename O>
std::string window_repr(const O& o) {
  std::string s = "kernel_size=" + compact_repr(o.kernel_size) + ", stride=" + compact_repr(o.stride) +
                  ", padding=" + compact_repr(o.padding);
  if constexpr (requires { o.dilation; })
    s += ", dilation=" + compact_repr(o.dilation) + ", ceil_mode=" + python_repr(o.ceil_mode);
  return s;
}
}  // namespace

MaxPool1d::MaxPool1d(MaxPool1dOptions options) : LayerWith("MaxPool1d", options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
}
Tensor MaxPool1d::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }
std::tuple<Tensor, Tensor> MaxPool1d::forward_with_indices(const Tensor& input) {
  const auto& o = options_;
  return F::max_pool1d_with_indices(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
}
std::string MaxPool1d::extra_repr() const { return window_repr(options_); }

AvgPool1d::AvgPool1d(AvgPool1dOptions options) : LayerWith("AvgPool1d", options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
}
Tensor AvgPool1d::forward(const Tensor& input) {
  const auto& o = options_;
  return F::avg_pool1d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad);
}
std::string AvgPool1d::extra_repr() const {
  // NB: PyTorch's AvgPool1d keeps its sizes as 1-tuples.
  const auto& o = options_;
  return "kernel_size=(" + std::to_string(o.kernel_size) + ",), stride=(" + std::to_string(*o.stride) +
         ",), padding=(" + std::to_string(o.padding) + ",)";
}

Tensor AdaptiveAvgPool1d::forward(const Tensor& input) { return F::adaptive_avg_pool1d(input, options_.output_size); }
Tensor AdaptiveMaxPool1d::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }
std::string AdaptiveMaxPool1d::extra_repr() const { return "output_size=" + compact_repr(options_.output_size); }
std::tuple<Tensor, Tensor> AdaptiveMaxPool1d::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool1d_with_indices(input, options_.output_size);
}

MaxPool3d::MaxPool3d(MaxPool3dOptions options) : LayerWith("MaxPool3d", options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
}
Tensor MaxPool3d::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }
std::tuple<Tensor, Tensor> MaxPool3d::forward_with_indices(const Tensor& input) {
  const auto& o = options_;
  return F::max_pool3d_with_indices(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
}
std::string MaxPool3d::extra_repr() const { return window_repr(options_); }

AvgPool3d::AvgPool3d(AvgPool3dOptions options) : LayerWith("AvgPool3d", options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
}
Tensor AvgPool3d::forward(const Tensor& input) {
  const auto& o = options_;
  return F::avg_pool3d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad, o.divisor_override);
}
std::string AvgPool3d::extra_repr() const { return window_repr(options_); }

Tensor AdaptiveAvgPool3d::forward(const Tensor& input) { return F::adaptive_avg_pool3d(input, options_.output_size); }
std::string AdaptiveAvgPool3d::extra_repr() const { return "output_size=" + compact_repr(options_.output_size); }
std::string AdaptiveMaxPool3d::extra_repr() const { return "output_size=" + compact_repr(options_.output_size); }
Tensor AdaptiveMaxPool3d::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }
std::tuple<Tensor, Tensor> AdaptiveMaxPool3d::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool3d_with_indices(input, options_.output_size);
}

template <typename S>
std::string lp_repr(const LPPoolOptions<S>& o) {
  return "norm_type=" + python_repr(o.norm_type) + ", kernel_size=" + compact_repr(o.kernel_size) +
         ", stride=" + compact_repr(o.stride) + ", ceil_mode=" + python_repr(o.ceil_mode);
}
std::string LPPool1d::extra_repr() const { return lp_repr(options_); }
std::string LPPool2d::extra_repr() const { return lp_repr(options_); }
std::string LPPool3d::extra_repr() const { return lp_repr(options_); }

Tensor LPPool1d::forward(const Tensor& input) {
  const auto& o = options_;
  return F::lp_pool1d(input, o.norm_type, o.kernel_size, o.stride, o.ceil_mode);
}
Tensor LPPool2d::forward(const Tensor& input) {
  const auto& o = options_;
  return F::lp_pool2d(input, o.norm_type, o.kernel_size, o.stride, o.ceil_mode);
}
Tensor LPPool3d::forward(const Tensor& input) {
  const auto& o = options_;
  return F::lp_pool3d(input, o.norm_type, o.kernel_size, o.stride, o.ceil_mode);
}

}  // namespace ember::nn
