#include "ember/nn/activation_layers.h"

#include "ember/ops/ops.h"

namespace ember::nn {

namespace F = functional;

Tensor SiLU::forward(const Tensor& input) { return F::silu(input); }
Tensor Mish::forward(const Tensor& input) { return F::mish(input); }
Tensor SELU::forward(const Tensor& input) { return F::selu(input); }
Tensor ReLU6::forward(const Tensor& input) { return F::relu6(input); }
Tensor Hardsigmoid::forward(const Tensor& input) { return F::hardsigmoid(input); }
Tensor Hardswish::forward(const Tensor& input) { return F::hardswish(input); }
Tensor Softsign::forward(const Tensor& input) { return F::softsign(input); }
Tensor Tanhshrink::forward(const Tensor& input) { return F::tanhshrink(input); }
Tensor LogSigmoid::forward(const Tensor& input) { return F::logsigmoid(input); }
Tensor Softmax2d::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ", input.dim(),
                    "D instead");
  return softmax(input, -3);
}
Tensor ELU::forward(const Tensor& input) { return F::elu(input, options_.alpha); }
Tensor CELU::forward(const Tensor& input) { return F::celu(input, options_.alpha); }
Tensor Softplus::forward(const Tensor& input) { return F::softplus(input, options_.beta, options_.threshold); }
Tensor Hardtanh::forward(const Tensor& input) { return hardtanh(input, options_.min_val, options_.max_val); }
Tensor Threshold::forward(const Tensor& input) { return F::threshold(input, options_.threshold, options_.value); }
Tensor GLU::forward(const Tensor& input) { return F::glu(input, options_.dim); }
Tensor LogSoftmax::forward(const Tensor& input) { return log_softmax(input, options_.dim); }
Tensor Softmin::forward(const Tensor& input) { return F::softmin(input, options_.dim); }
Tensor RReLU::forward(const Tensor& input) { return F::rrelu(input, options_.lower, options_.upper, is_training()); }

Softshrink::Softshrink(ShrinkOptions options) : LayerWith("Softshrink", options) {
  EMBER_CHECK_VALUE(options.lambd >= 0, "Softshrink: lambda must be greater or equal to 0, but found to be ",
                    options.lambd, ".");
}
Tensor Softshrink::forward(const Tensor& input) { return F::softshrink(input, options_.lambd); }
Tensor Hardshrink::forward(const Tensor& input) { return F::hardshrink(input, options_.lambd); }

}  // namespace ember::nn
