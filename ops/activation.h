#pragma once
// Activation functions. tanh and sigmoid of integer tensors compute in float32, relu keeps integer
// dtypes, gelu and leaky_relu take floating tensors only (as in PyTorch). Backward runs one fused
// kernel when no graph of the gradient is being built, and differentiable ops under create_graph.
#include <string_view>

#include "ember/ops/unary.h"

namespace ember {

Tensor tanh(const Tensor& t);
/// 1 / (1 + e^-t).
Tensor sigmoid(const Tensor& t);
/// max(t, 0); NaN stays NaN; bool tensors are refused.
Tensor relu(const Tensor& t);
/// t * Phi(t) with Phi the standard normal CDF (approximate = "none"), or PyTorch's tanh
/// approximation 0.5 t (1 + tanh(sqrt(2/pi) (t + 0.044715 t^3))) (approximate = "tanh").
Tensor gelu(const Tensor& t, std::string_view approximate = "none");
/// t where t > 0, else negative_slope * t.
Tensor leaky_relu(const Tensor& t, double negative_slope = 0.01);

}  // namespace ember
