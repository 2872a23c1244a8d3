#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"

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

}  // namespace ember::nn::init
