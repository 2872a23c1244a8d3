#include "ember/nn/activation.h"

#include "ember/ops/activation.h"
#include "ember/ops/dropout.h"
#include "ember/ops/softmax.h"
#include "ember/ops/view.h"

namespace ember::nn {

Tensor ReLU::forward(const Tensor& input) { return relu(input); }

GELU::GELU(std::string approximate) : Module("GELU"), approximate_(std::move(approximate)) {
  EMBER_CHECK_VALUE(approximate_ == "none" || approximate_ == "tanh",
                    "GELU: approximate must be 'none' or 'tanh', got '", approximate_, "'");
}
Tensor GELU::forward(const Tensor& input) { return gelu(input, approximate_); }
std::string GELU::extra_repr() const {
  return approximate_ == "none" ? "" : "approximate='" + approximate_ + "'";
}

Tensor Tanh::forward(const Tensor& input) { return tanh(input); }
Tensor Sigmoid::forward(const Tensor& input) { return sigmoid(input); }

Tensor LeakyReLU::forward(const Tensor& input) { return leaky_relu(input, slope_); }
std::string LeakyReLU::extra_repr() const { return detail::str("negative_slope=", slope_); }

Tensor Softmax::forward(const Tensor& input) { return softmax(input, dim_); }
std::string Softmax::extra_repr() const { return detail::str("dim=", dim_); }

Tensor Flatten::forward(const Tensor& input) { return flatten(input, start_, end_); }
std::string Flatten::extra_repr() const { return detail::str("start_dim=", start_, ", end_dim=", end_); }

Dropout::Dropout(double p) : Module("Dropout"), p_(p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "Dropout: probability has to be between 0 and 1, but got ", p);
}
Tensor Dropout::forward(const Tensor& input) { return dropout(input, p_, is_training()); }
std::string Dropout::extra_repr() const { return detail::str("p=", p_); }

}  // namespace ember::nn
