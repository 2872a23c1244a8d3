#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::nn::init {
namespace {

Generator& pick(Generator* gen) { return gen ? *gen : default_generator(); }

// Draws in float64 on the CPU, then writes into t with its dtype, device and layout.
template <typename Draw>
Tensor fill_with(Tensor t, Draw draw) {
  autograd::NoGradGuard no_grad;
  EMBER_CHECK_TYPE(t.is_floating_point(), "init: expected a floating point tensor, got ", t.dtype());
  Tensor values = empty(t.sizes(), kFloat64);
  double* p = values.data_ptr<double>();
  for (int64_t i = 0; i < values.numel(); ++i) p[i] = draw();
  copy_data(t, values);
  t.bump_version();
  return t;
}

}  // namespace

double calculate_gain(const std::string& nonlinearity, double param) {
  if (nonlinearity == "linear" || nonlinearity == "conv1d" || nonlinearity == "conv2d" ||
      nonlinearity == "conv3d" || nonlinearity == "sigmoid")
    return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nonlinearity == "selu") return 3.0 / 4.0;
  throw ValueError("calculate_gain: unsupported nonlinearity '" + nonlinearity + "'");
}

std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t, const char* op) {
  EMBER_CHECK_VALUE(t.dim() >= 2, op, ": fan in and fan out need a tensor with at least 2 dims, got shape ",
                    t.sizes());
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

Tensor uniform_(Tensor t, double a, double b, Generator* gen) {
  Generator& g = pick(gen);
  return fill_with(std::move(t), [&] { return a + (b - a) * g.uniform_double(); });
}

Tensor normal_(Tensor t, double mean, double std, Generator* gen) {
  Generator& g = pick(gen);
  return fill_with(std::move(t), [&] { return mean + std * g.normal(); });
}

Tensor constant_(Tensor t, double value) {
  return fill_with(std::move(t), [&] { return value; });
}
Tensor zeros_(Tensor t) { return constant_(std::move(t), 0.0); }
Tensor ones_(Tensor t) { return constant_(std::move(t), 1.0); }

Tensor xavier_uniform_(Tensor t, double gain, Generator* gen) {
  auto [fan_in, fan_out] = fan_in_and_fan_out(t, "xavier_uniform_");
  double bound = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return init::uniform_(std::move(t), -bound, bound, gen);
}

Tensor xavier_normal_(Tensor t, double gain, Generator* gen) {
  auto [fan_in, fan_out] = fan_in_and_fan_out(t, "xavier_normal_");
  return init::normal_(std::move(t), 0.0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)), gen);
}

namespace {
double kaiming_std(const Tensor& t, double a, FanMode mode, const std::string& nonlinearity,
                   const char* op) {
  auto [fan_in, fan_out] = fan_in_and_fan_out(t, op);
  int64_t fan = mode == FanMode::FanIn ? fan_in : fan_out;
  EMBER_CHECK_VALUE(fan > 0, op, ": a tensor with zero elements has no fan");
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor kaiming_uniform_(Tensor t, double a, FanMode mode, const std::string& nonlinearity,
                        Generator* gen) {
  double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nonlinearity, "kaiming_uniform_");
  return init::uniform_(std::move(t), -bound, bound, gen);
}

Tensor kaiming_normal_(Tensor t, double a, FanMode mode, const std::string& nonlinearity,
                       Generator* gen) {
  const double std = kaiming_std(t, a, mode, nonlinearity, "kaiming_normal_");  // NB: before t is moved from
  return init::normal_(std::move(t), 0.0, std, gen);
}

Tensor trunc_normal_(Tensor t, double mean, double std, double a, double b, Generator* gen) {
  EMBER_CHECK_VALUE(a < b, "trunc_normal_: a (", a, ") must be less than b (", b, ")");
  Generator& g = pick(gen);
  auto cdf = [](double x) { return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))); };
  double lo = cdf((a - mean) / std), hi = cdf((b - mean) / std);
  return fill_with(std::move(t), [&] {
    // Uniform in [2lo-1, 2hi-1], through the inverse error function, scaled and clamped.
    double u = (2 * lo - 1) + (2 * hi - 2 * lo) * g.uniform_double();
    u = std::clamp(u, -1.0 + 1e-15, 1.0 - 1e-15);
    // erfinv by Newton steps from a good start (Giles' approximation is overkill here).
    double x = 0;
    for (int i = 0; i < 60; ++i) {
      double err = std::erf(x) - u;
      if (std::fabs(err) < 1e-15) break;
      x -= err / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
    }
    return std::clamp(mean + std * std::sqrt(2.0) * x, a, b);
  });
}

Tensor orthogonal_(Tensor t, double gain, Generator* gen) {
  EMBER_CHECK_VALUE(t.dim() >= 2, "orthogonal_: Only tensors with 2 or more dimensions are supported, got shape ",
                    t.sizes());
  if (t.numel() == 0) return t;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  autograd::NoGradGuard no_grad;
  Tensor a = init::normal_(empty({rows, cols}, kFloat64), 0.0, 1.0, gen);
  if (rows < cols) a = transpose(a, 0, 1);
  auto [q, r] = linalg_qr(a, "reduced");
  q = q * unsqueeze(sign(diagonal(r)), 0);  // unique: R's diagonal made positive
  if (rows < cols) q = transpose(q, 0, 1);
  copy_data(t, reshape(q * gain, t.sizes()).contiguous());
  t.bump_version();
  return t;
}

Tensor sparse_(Tensor t, double sparsity, double std, Generator* gen) {
  EMBER_CHECK_VALUE(t.dim() == 2, "sparse_: Only tensors with 2 dimensions are supported, got shape ", t.sizes());
  const int64_t rows = t.size(0), cols = t.size(1);
  const auto zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  Generator& g = pick(gen);
  Tensor values = init::normal_(empty({rows, cols}, kFloat64), 0.0, std, &g);
  double* p = values.data_ptr<double>();
  for (int64_t col = 0; col < cols; ++col) {
    Tensor order = randperm(rows, &g);
    const int64_t* row = order.data_ptr<int64_t>();
    for (int64_t i = 0; i < std::min(zeros, rows); ++i) p[row[i] * cols + col] = 0.0;
  }
  autograd::NoGradGuard no_grad;
  copy_data(t, values);
  t.bump_version();
  return t;
}

Tensor dirac_(Tensor t, int64_t groups) {
  EMBER_CHECK_VALUE(t.dim() >= 3 && t.dim() <= 5,
                    "dirac_: Only tensors with 3, 4, or 5 dimensions are supported, got "
                    "shape ",
                    t.sizes());
  EMBER_CHECK_VALUE(groups > 0 && t.size(0) % groups == 0, "dirac_: dim 0 (", t.size(0),
                    ") must be divisible by groups (", groups, ")");
  const int64_t per_group = t.size(0) / groups, channels = std::min(per_group, t.size(1));
  Tensor values = zeros(t.sizes(), kFloat64);
  const auto strides = values.strides();
  int64_t centre = 0;  // the offset of the middle of the receptive field
  for (int64_t d = 2; d < t.dim(); ++d) centre += (t.size(d) / 2) * strides[d];
  double* p = values.data_ptr<double>();
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t c = 0; c < channels; ++c) p[(g * per_group + c) * strides[0] + c * strides[1] + centre] = 1.0;
  autograd::NoGradGuard no_grad;
  copy_data(t, values);
  t.bump_version();
  return t;
}

Tensor eye_(Tensor t) {
  EMBER_CHECK_VALUE(t.dim() == 2, "eye_: Only tensors with 2 dimensions are supported, got shape ", t.sizes());
  autograd::NoGradGuard no_grad;
  copy_data(t, eye(t.size(0), t.size(1), TensorOptions(kFloat64)));
  t.bump_version();
  return t;
}

}  // namespace ember::nn::init
