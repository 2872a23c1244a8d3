#pragma once
// Activation functions: tanh, sigmoid, relu, gelu, leaky_relu, hardtanh (declared from the op
// table, ember/ops/functions.h). tanh and sigmoid of integer tensors compute in float32, relu and
// hardtanh keep integer dtypes, gelu and leaky_relu take floating tensors only (as in PyTorch).
// Backward runs one fused kernel when no graph of the gradient is being built, and differentiable
// ops under create_graph.
#include "ember/ops/unary.h"
