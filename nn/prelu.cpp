#include "ember/nn/prelu.h"

#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/ops/prelu.h"

namespace ember::nn {

PReLU::PReLU(int64_t num_parameters, double init) : Module("PReLU"), num_parameters_(num_parameters), init_(init) {
  EMBER_CHECK_VALUE(num_parameters > 0, "PReLU: num_parameters must be positive, got ", num_parameters);
  register_parameter("weight", full({num_parameters}, init));
}

void PReLU::reset_parameters() { init::constant_(parameter("weight"), init_); }

Tensor PReLU::forward(const Tensor& input) { return prelu(input, parameter("weight")); }

std::string PReLU::extra_repr() const { return detail::str("num_parameters=", num_parameters_); }

}  // namespace ember::nn
