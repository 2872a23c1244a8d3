#include "ember/nn/conv.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/nn/init.h"

namespace ember::nn {

Conv2d::Conv2d(Conv2dOptions options) : Module("Conv2d"), options_(options) {
  EMBER_CHECK_VALUE(options.in_channels > 0 && options.out_channels > 0 && options.groups > 0,
                    "Conv2d: channels and groups must be positive");
  EMBER_CHECK_VALUE(options.in_channels % options.groups == 0 && options.out_channels % options.groups == 0,
                    "Conv2d: in_channels (", options.in_channels, ") and out_channels (",
                    options.out_channels, ") must be divisible by groups (", options.groups, ")");
  register_parameter("weight", empty({options.out_channels, options.in_channels / options.groups,
                                      options.kernel_size.h, options.kernel_size.w}));
  if (options.bias) register_parameter("bias", empty({options.out_channels}));
  reset_parameters();
}

void Conv2d::reset_parameters() {
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (options_.bias) {
    auto [fan_in, fan_out] = init::fan_in_and_fan_out(weight());
    double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias(), -bound, bound);
  }
}

Tensor Conv2d::forward(const Tensor& input) {
  return conv2d(input, weight(), bias(), options_.stride, options_.padding, options_.dilation,
                options_.groups);
}

std::string Conv2d::extra_repr() const {
  std::string s = detail::str(options_.in_channels, ", ", options_.out_channels, ", kernel_size=(",
                              options_.kernel_size.h, ", ", options_.kernel_size.w, "), stride=(",
                              options_.stride.h, ", ", options_.stride.w, ")");
  if (!(options_.padding == Size2(0))) s += detail::str(", padding=(", options_.padding.h, ", ", options_.padding.w, ")");
  if (!(options_.dilation == Size2(1))) s += detail::str(", dilation=(", options_.dilation.h, ", ", options_.dilation.w, ")");
  if (options_.groups != 1) s += detail::str(", groups=", options_.groups);
  if (!options_.bias) s += ", bias=False";
  return s;
}

}  // namespace ember::nn
