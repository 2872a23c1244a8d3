#include "ember/ops/activation.h"

#include <cmath>
#include <numbers>

#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

constexpr double kGeluTanhCoeff = 0.044715;
// sqrt(2 / pi)
constexpr double kSqrt2OverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;

// The common node: saves x or y and, unless the gradient itself needs a graph (create_graph),
// runs the fused kernel; otherwise `composite` builds grad_in from differentiable ops.
struct ActivationBackward : autograd::Node {
  SavedTensor saved;
  UnaryOp op = UnaryOp::Tanh;
  UnaryParams params;
  virtual Tensor composite(const Tensor& g, const Tensor& s) const = 0;
  TensorList apply(TensorList&& g) override {
    Tensor s = saved.unpack(this);
    if (autograd::any_requires_grad(g[0], s)) return {composite(g[0], s)};
    Tensor grad_in = empty(s.sizes(), s.options());
    if (s.numel() > 0) activation_backward_stub(s.device().type, op, grad_in, g[0], s, params);
    return {grad_in};
  }
  void release_saved() override { saved.reset(); }
};

// d tanh(x)/dx = grad * (1 - y^2)
struct TanhBackward : ActivationBackward {
  const char* name() const override { return "TanhBackward"; }
  Tensor composite(const Tensor& g, const Tensor& y) const override { return g * (1.0 - y * y); }
};

// d sigmoid(x)/dx = grad * y * (1 - y)
struct SigmoidBackward : ActivationBackward {
  const char* name() const override { return "SigmoidBackward"; }
  Tensor composite(const Tensor& g, const Tensor& y) const override { return g * y * (1.0 - y); }
};

// d relu(x)/dx = 0 where y <= 0, else grad: a NaN passes it, as PyTorch's threshold_backward
struct ReluBackward : ActivationBackward {
  const char* name() const override { return "ReluBackward"; }
  Tensor composite(const Tensor& g, const Tensor& y) const override { return where(le(y, 0), 0, g); }
};

// d leaky_relu(x)/dx = grad where x > 0, else grad * slope
struct LeakyReluBackward : ActivationBackward {
  const char* name() const override { return "LeakyReluBackward"; }
  Tensor composite(const Tensor& g, const Tensor& x) const override {
    return where(gt(x, 0), g, g * params.a);
  }
};

// d hardtanh(x)/dx = grad strictly between the bounds (p.a, p.b), 0 at and past them; a NaN passes
// it, as in PyTorch's hardtanh_backward, whose two comparisons are both false there
struct HardtanhBackward : ActivationBackward {
  const char* name() const override { return "HardtanhBackward"; }
  Tensor composite(const Tensor& g, const Tensor& x) const override {
    return where(logical_or(le(x, params.a), ge(x, params.b)), 0, g);
  }
};

// d gelu(x)/dx = grad * (Phi(x) + x * phi(x)), Phi/phi the standard normal CDF/density
struct GeluBackward : ActivationBackward {
  const char* name() const override { return "GeluBackward"; }
  Tensor composite(const Tensor& g, const Tensor& x) const override {
    Tensor cdf = (erf(x * (std::numbers::sqrt2 / 2)) + 1.0) * 0.5;
    Tensor pdf = exp(x * x * -0.5) * (std::numbers::inv_sqrtpi / std::numbers::sqrt2);
    return g * (cdf + x * pdf);
  }
};

// d gelu_tanh(x)/dx = grad * (0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)),
// t = tanh(k (x + c x^3)), k = sqrt(2/pi), c = 0.044715
struct GeluTanhBackward : ActivationBackward {
  const char* name() const override { return "GeluTanhBackward"; }
  Tensor composite(const Tensor& g, const Tensor& x) const override {
    Tensor x2 = x * x;
    Tensor t = tanh((x + x * x2 * kGeluTanhCoeff) * kSqrt2OverPi);
    Tensor inner_grad = (x2 * (3 * kGeluTanhCoeff) + 1.0) * (0.5 * kSqrt2OverPi);
    return g * ((t + 1.0) * 0.5 + x * (1.0 - t * t) * inner_grad);
  }
};

template <typename N>
Tensor activation(UnaryOp op, const Tensor& t, DType dtype, bool save_output, UnaryParams p = {}) {
  Tensor out = detail::unary_forward(op, t, dtype, p);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<N>(t);
    node->op = op;
    node->params = p;
    autograd::set_history(out, node);  // NB: before saving out, so the saved output requires grad
    node->saved = save_output ? SavedTensor(out, true) : SavedTensor(t);
  }
  return out;
}

void check_floating(const Tensor& t, const char* op) {
  check_floating_compute(t.dtype(), op);
}

}  // namespace

Tensor impl_tanh(const Tensor& t) {
  DType dtype = detail::float_result_type(t.dtype());
  check_compute_dtype(dtype, "tanh");
  return activation<TanhBackward>(UnaryOp::Tanh, t, dtype, true);
}

Tensor impl_sigmoid(const Tensor& t) {
  DType dtype = detail::float_result_type(t.dtype());
  check_compute_dtype(dtype, "sigmoid");
  return activation<SigmoidBackward>(UnaryOp::Sigmoid, t, dtype, true);
}

Tensor impl_relu(const Tensor& t) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, "relu: bool tensors are not supported");
  check_compute_dtype(t.dtype(), "relu");
  return activation<ReluBackward>(UnaryOp::Relu, t, t.dtype(), true);
}

Tensor impl_gelu(const Tensor& t, std::string_view approximate) {
  EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                    "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  check_floating(t, "gelu");
  if (approximate == "tanh") return activation<GeluTanhBackward>(UnaryOp::GeluTanh, t, t.dtype(), false);
  return activation<GeluBackward>(UnaryOp::Gelu, t, t.dtype(), false);
}

Tensor impl_leaky_relu(const Tensor& t, double negative_slope) {
  check_floating(t, "leaky_relu");
  return activation<LeakyReluBackward>(UnaryOp::LeakyRelu, t, t.dtype(), false,
                                       UnaryParams{negative_slope});
}

Tensor impl_hardtanh(const Tensor& t, double min_val, double max_val) {
  EMBER_CHECK_VALUE(!(min_val > max_val), "hardtanh: min_val (", min_val, ") must not exceed max_val (", max_val, ")");
  EMBER_CHECK_AS(NotImplementedError, t.dtype() != kBool, "Bool inputs not supported for hardtanh");
  if (is_integral(t.dtype())) {
    // PyTorch's rule: the bounds do not promote an integer tensor; they are truncated to its type.
    EMBER_CHECK(t.dtype() != kUInt8 || (min_val >= 0 && max_val >= 0),
                "cannot do hardtanh on an unsigned type with negative limits");
    return clamp(t, Scalar(static_cast<int64_t>(min_val)), Scalar(static_cast<int64_t>(max_val)));
  }
  check_floating(t, "hardtanh");
  return activation<HardtanhBackward>(UnaryOp::Hardtanh, t, t.dtype(), false,
                                      UnaryParams{min_val, max_val, true, true});
}

}  // namespace ember
