#include "ember/ops/unary.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace detail {
Tensor unary_forward(UnaryOp op, const Tensor& t, DType dtype, const UnaryParams& p) {
  Tensor in = t.dtype() == dtype ? t : copy_as(t, dtype, t.device());
  Tensor out = empty(t.sizes(), TensorOptions(dtype).device(t.device()));
  if (t.numel() > 0) unary_stub(t.device().type, op, out, in, p);
  return out;
}

DType float_result_type(DType t) { return is_floating(t) ? t : kFloat32; }

}  // namespace detail

namespace {

// A node whose backward reads one saved tensor: the input (x) or the output (y).
struct SavedOneBackward : autograd::Node {
  SavedTensor saved;
  void release_saved() override { saved.reset(); }
};

// d(-x)/dx = -grad
struct NegBackward : autograd::Node {
  const char* name() const override { return "NegBackward"; }
  TensorList apply(TensorList&& g) override { return {neg(g[0])}; }
};

// d(e^x)/dx = grad * y
struct ExpBackward : SavedOneBackward {
  const char* name() const override { return "ExpBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * saved.unpack(this)}; }
};

// d(log x)/dx = grad / x
struct LogBackward : SavedOneBackward {
  const char* name() const override { return "LogBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] / saved.unpack(this)}; }
};

// d(sqrt x)/dx = grad / (2 y)
struct SqrtBackward : SavedOneBackward {
  const char* name() const override { return "SqrtBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] / (saved.unpack(this) * 2.0)}; }
};

// d(x^-1/2)/dx = -grad * y^3 / 2
struct RsqrtBackward : SavedOneBackward {
  const char* name() const override { return "RsqrtBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * pow(saved.unpack(this), 3) * -0.5}; }
};

// d|x|/dx = grad * sign(x)
struct AbsBackward : SavedOneBackward {
  const char* name() const override { return "AbsBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * sign(saved.unpack(this))}; }
};

// d sign(x)/dx = 0
struct SignBackward : autograd::Node {
  const char* name() const override { return "SignBackward"; }
  TensorList apply(TensorList&& g) override { return {zeros_like(g[0])}; }
};

// d erf(x)/dx = grad * 2/sqrt(pi) * e^(-x^2)
struct ErfBackward : SavedOneBackward {
  const char* name() const override { return "ErfBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * exp(-(x * x)) * std::numbers::inv_sqrtpi * 2.0};
  }
};

// d clamp(x)/dx = grad where min <= x <= max, else 0
struct ClampBackward : SavedOneBackward {
  std::optional<Scalar> min, max;
  const char* name() const override { return "ClampBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    Tensor inside;
    if (min) inside = ge(x, *min);
    if (max) inside = inside.defined() ? logical_and(inside, le(x, *max)) : le(x, *max);
    return {where(inside, g[0], 0)};
  }
};

// d(x^p)/dx = grad * p * x^(p-1)  (0 when p == 0)
struct PowScalarBackward : SavedOneBackward {
  Scalar exponent;
  const char* name() const override { return "PowScalarBackward"; }
  TensorList apply(TensorList&& g) override {
    double p = exponent.to<double>();
    if (p == 0) return {zeros_like(g[0])};
    Scalar pm1 = exponent.is_floating() ? Scalar(p - 1) : Scalar(exponent.to<int64_t>() - 1);
    return {g[0] * pow(saved.unpack(this), pm1) * exponent};
  }
};

// Whether the integer v is representable in the integer dtype d.
bool fits_integer(int64_t v, DType d) {
  switch (d) {
    case kUInt8: return v >= 0 && v <= std::numeric_limits<uint8_t>::max();
    case kInt32: return v >= std::numeric_limits<int32_t>::lowest() && v <= std::numeric_limits<int32_t>::max();
    default: return true;
  }
}

// Records node N for out = f(t), saving t (or out when `save_output`).
template <typename N>
void record(const Tensor& out, const Tensor& t, bool save_output) {
  auto node = autograd::make_node<N>(t);
  autograd::set_history(out, node);  // NB: before saving out, so the saved output requires grad
  node->saved = save_output ? SavedTensor(out, true) : SavedTensor(t);
}

// A floating function of t (integer inputs compute in float32) whose node N saves x or y.
template <typename N>
Tensor floating_unary(UnaryOp op, const Tensor& t, const char* name, bool save_output) {
  DType dtype = detail::float_result_type(t.dtype());
  check_compute_dtype(dtype, name);
  Tensor out = detail::unary_forward(op, t, dtype);
  if (autograd::any_requires_grad(t)) record<N>(out, t, save_output);
  return out;
}

}  // namespace

Tensor neg(const Tensor& t) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, "neg: negation of a bool tensor is not supported; use logical_not");
  check_compute_dtype(t.dtype(), "neg");
  Tensor out = detail::unary_forward(UnaryOp::Neg, t, t.dtype());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<NegBackward>(t));
  return out;
}

Tensor exp(const Tensor& t) { return floating_unary<ExpBackward>(UnaryOp::Exp, t, "exp", true); }
Tensor log(const Tensor& t) { return floating_unary<LogBackward>(UnaryOp::Log, t, "log", false); }
Tensor sqrt(const Tensor& t) { return floating_unary<SqrtBackward>(UnaryOp::Sqrt, t, "sqrt", true); }
Tensor rsqrt(const Tensor& t) { return floating_unary<RsqrtBackward>(UnaryOp::Rsqrt, t, "rsqrt", true); }
Tensor erf(const Tensor& t) { return floating_unary<ErfBackward>(UnaryOp::Erf, t, "erf", false); }

Tensor abs(const Tensor& t) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, "abs: not supported for bool tensors");
  check_compute_dtype(t.dtype(), "abs");
  Tensor out = detail::unary_forward(UnaryOp::Abs, t, t.dtype());
  if (autograd::any_requires_grad(t)) record<AbsBackward>(out, t, false);
  return out;
}

Tensor sign(const Tensor& t) {
  check_compute_dtype(t.dtype(), "sign");
  Tensor out = detail::unary_forward(UnaryOp::Sign, t, t.dtype());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<SignBackward>(t));
  return out;
}

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK_VALUE(min || max, "clamp: at least one of 'min' and 'max' must be given");
  // The result type of t with its bounds, as in t + bound: bool -> int64, integer -> float32 for
  // a floating bound.
  DType dtype = min ? result_type(t, *min) : result_type(t, *max);
  if (min && max) dtype = promote_types(dtype, result_type(t, *max));
  EMBER_CHECK_TYPE(dtype != kBool, "clamp: not supported for bool tensors with bool bounds");
  check_compute_dtype(dtype, "clamp");
  auto check_fits = [&](const std::optional<Scalar>& bound, const char* label) {
    EMBER_CHECK_VALUE(!bound || is_floating(dtype) || fits_integer(bound->to<int64_t>(), dtype), "clamp: ",
                      label, " = ", *bound, " cannot be converted to ", dtype, " without overflow");
  };
  check_fits(min, "min");
  check_fits(max, "max");
  UnaryParams p{min ? min->to<double>() : 0, max ? max->to<double>() : 0, min.has_value(), max.has_value()};
  Tensor out = detail::unary_forward(UnaryOp::Clamp, t, dtype, p);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<ClampBackward>(t);
    node->saved = SavedTensor(t);
    node->min = min;
    node->max = max;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor pow(const Tensor& t, Scalar exponent) {
  DType dtype = result_type(t, exponent);
  EMBER_CHECK_TYPE(dtype != kBool, "pow: not supported for bool tensors with a bool exponent");
  EMBER_CHECK_VALUE(!is_integral(dtype) || exponent.to<int64_t>() >= 0, "pow: integers to negative "
                    "integer powers are not allowed (", t.dtype(), " tensor, exponent ", exponent, ")");
  check_compute_dtype(dtype, "pow");
  Tensor out = detail::unary_forward(UnaryOp::PowScalar, t, dtype, UnaryParams{exponent.to<double>()});
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<PowScalarBackward>(t);
    node->exponent = exponent;
    if (exponent.to<double>() != 0) node->saved = SavedTensor(t);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
