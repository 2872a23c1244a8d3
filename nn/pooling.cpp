#include "ember/nn/pooling.h"

#include "ember/ops/pool.h"

namespace ember::nn {
namespace {
std::string pool_repr(const Pool2dOptions& o) {
  Size2 stride = o.stride.value_or(o.kernel_size);
  return detail::str("kernel_size=", o.kernel_size, ", stride=", stride, ", padding=", o.padding);
}
}  // namespace

Tensor MaxPool2d::forward(const Tensor& input) {
  return max_pool2d(input, options_.kernel_size, options_.stride, options_.padding, options_.dilation,
                    options_.ceil_mode);
}
std::string MaxPool2d::extra_repr() const {
  return pool_repr(options_) + detail::str(", dilation=", options_.dilation,
                                           ", ceil_mode=", options_.ceil_mode ? "True" : "False");
}

Tensor AvgPool2d::forward(const Tensor& input) {
  return avg_pool2d(input, options_.kernel_size, options_.stride, options_.padding, options_.ceil_mode,
                    options_.count_include_pad);
}
std::string AvgPool2d::extra_repr() const { return pool_repr(options_); }

Tensor AdaptiveAvgPool2d::forward(const Tensor& input) { return adaptive_avg_pool2d(input, output_size_); }
std::string AdaptiveAvgPool2d::extra_repr() const { return detail::str("output_size=", output_size_); }

Tensor AdaptiveMaxPool2d::forward(const Tensor& input) { return adaptive_max_pool2d(input, output_size_); }
std::tuple<Tensor, Tensor> AdaptiveMaxPool2d::forward_with_indices(const Tensor& input) {
  return adaptive_max_pool2d_with_indices(input, output_size_);
}
std::string AdaptiveMaxPool2d::extra_repr() const {
  // NB: PyTorch prints output_size as given; a square one is shown as one int here.
  if (output_size_.h == output_size_.w) return detail::str("output_size=", output_size_.h);
  return detail::str("output_size=(", output_size_.h, ", ", output_size_.w, ")");
}

}  // namespace ember::nn
