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

}  // namespace ember::nn
