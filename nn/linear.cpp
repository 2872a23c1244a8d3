#include "ember/nn/linear.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"

namespace ember::nn {

Linear::Linear(LinearOptions options) : Module("Linear"), options_(options) {
  EMBER_CHECK_VALUE(options.in_features > 0 && options.out_features > 0,
                    "Linear: in_features and out_features must be positive, got ",
                    options.in_features, " and ", options.out_features);
  register_parameter("weight", empty({options.out_features, options.in_features}));
  if (options.bias) register_parameter("bias", empty({options.out_features}));
  reset_parameters();
}

void Linear::reset_parameters() {
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (options_.bias) {
    double bound = 1.0 / std::sqrt(static_cast<double>(options_.in_features));
    init::uniform_(bias(), -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& input) { return functional::linear(input, weight(), bias()); }

std::string Linear::extra_repr() const {
  return detail::str("in_features=", options_.in_features, ", out_features=", options_.out_features,
                     ", bias=", options_.bias ? "True" : "False");
}

}  // namespace ember::nn
