#pragma once
// The activations of torch.nn.functional beyond the op table's relu, gelu, sigmoid, tanh, hardtanh
// and leaky_relu, each PyTorch's definition value for value (NaN in, NaN out), composed of ops;
// where autograd's way through the composition would give NaN or lose precision (silu, mish,
// hardswish, tanhshrink, the elu family) the gradient is PyTorch's formula as a node of its own.
// Float16 and bfloat16 inputs compute in float32 and round once, as PyTorch's CPU kernels do.
#include <optional>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// SELU's constants (Klambauer et al., as PyTorch's); alpha_dropout keeps SELU's moments with them.
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;

/// log(sigmoid(x)) = min(x, 0) - log1p(e^-|x|), which neither overflows nor underflows; gradient
/// sigmoid(-x) as one product (PyTorch's 1/2 at 0; inf, not inf - inf, for an infinite cotangent).
/// Half-precision inputs compute in float32.
Tensor logsigmoid(const Tensor& input);
/// input * sigmoid(input).
Tensor silu(const Tensor& input);
/// input * tanh(softplus(input)).
Tensor mish(const Tensor& input);
/// input where > 0, else alpha (e^input - 1). Floating inputs only.
Tensor elu(const Tensor& input, double alpha = 1.0);
/// input where > 0, else alpha (e^(input / alpha) - 1); alpha != 0.
Tensor celu(const Tensor& input, double alpha = 1.0);
/// scale * elu(input, alpha) with SELU's constants (Klambauer et al.).
Tensor selu(const Tensor& input);
/// log(1 + e^(beta input)) / beta, and input itself where beta input > threshold.
Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
/// min(max(input, 0), 6) (hardtanh: an integer input stays integer).
Tensor relu6(const Tensor& input);
/// 0 below -3, 1 above 3, input / 6 + 1/2 between.
Tensor hardsigmoid(const Tensor& input);
/// input * hardsigmoid(input); gradient 0 up to -3, input / 3 + 1/2 below 3, 1 from 3 up.
Tensor hardswish(const Tensor& input);
/// input / (1 + |input|).
Tensor softsign(const Tensor& input);
/// softmax(-input) along dim (in dtype when given).
Tensor softmin(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
/// a * sigmoid(b), a and b the halves of input along dim (its size even).
Tensor glu(const Tensor& input, int64_t dim = -1);
/// value where input <= threshold, else input (NaN stays NaN), in input's dtype.
Tensor threshold(const Tensor& input, double threshold, double value);
/// input - tanh(input); gradient tanh(input)^2.
Tensor tanhshrink(const Tensor& input);
/// input - lambd above lambd, input + lambd below -lambd, 0 between (lambd >= 0).
Tensor softshrink(const Tensor& input, double lambd = 0.5);
/// 0 where -lambd <= input <= lambd, else input.
Tensor hardshrink(const Tensor& input, double lambd = 0.5);
/// Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training, and is
/// (lower + upper) / 2 otherwise.
Tensor rrelu(const Tensor& input, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
             Generator* generator = nullptr);

}  // namespace ember::nn::functional
