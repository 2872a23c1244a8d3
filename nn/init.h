#pragma once
// Parameter initialisation, as torch.nn.init: each fills a tensor in place (without recording a
// graph) from the given Generator (default_generator() when null) and returns it.
#include <string>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::init {

enum class FanMode { FanIn, FanOut };

/// Recommended gain for a nonlinearity: "linear", "conv2d", "sigmoid", "tanh", "relu",
/// "leaky_relu" (with `param` as the negative slope), "selu".
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
/// (fan_in, fan_out) of a weight of at least 2 dims: [out, in, *receptive field]; `op` names the
/// caller in the error for fewer dims.
std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t, const char* op = "fan_in_and_fan_out");

Tensor uniform_(Tensor t, double a = 0.0, double b = 1.0, Generator* gen = nullptr);
Tensor normal_(Tensor t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
Tensor constant_(Tensor t, double value);
Tensor zeros_(Tensor t);
Tensor ones_(Tensor t);
Tensor xavier_uniform_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
Tensor xavier_normal_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
/// `a` is the negative slope of the rectifier after this layer (0 for ReLU).
Tensor kaiming_uniform_(Tensor t, double a = 0.0, FanMode mode = FanMode::FanIn,
                        const std::string& nonlinearity = "leaky_relu", Generator* gen = nullptr);
Tensor kaiming_normal_(Tensor t, double a = 0.0, FanMode mode = FanMode::FanIn,
                       const std::string& nonlinearity = "leaky_relu", Generator* gen = nullptr);
/// Normal(mean, std) redrawn until inside [a, b] (inverse-CDF method, as PyTorch).
Tensor trunc_normal_(Tensor t, double mean = 0.0, double std = 1.0, double a = -2.0, double b = 2.0,
                     Generator* gen = nullptr);

/// A (semi-)orthogonal matrix times gain (dims after the first flattened): rows orthonormal when
/// rows <= cols, columns otherwise. The QR of a float64 normal matrix with R's diagonal signs folded
/// into Q, as PyTorch; at least 2 dims.
Tensor orthogonal_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
/// Normal(0, std) with ceil(sparsity * rows) entries of each column zeroed, at rows drawn by randperm (2-D).
Tensor sparse_(Tensor t, double sparsity, double std = 0.01, Generator* gen = nullptr);
/// The Dirac delta of a 3-, 4- or 5-D convolution weight: a convolution that keeps its input
/// channels, per group.
Tensor dirac_(Tensor t, int64_t groups = 1);
/// The identity of a 2-D tensor (ones on the diagonal of a rectangle too).
Tensor eye_(Tensor t);

}  // namespace ember::nn::init
