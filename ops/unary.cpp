#include "ember/ops/unary.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/complex.h"

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

// NB: a complex dtype stays complex, so that the op's dtype check refuses it (a float32 copy would
// silently drop the imaginary parts).
DType float_result_type(DType t) { return is_floating(t) || is_complex(t) ? t : kFloat32; }

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

// The backwards of exp, log, sqrt, reciprocal and abs also serve complex inputs: PyTorch's
// gradient of a holomorphic f is grad * conj(f'(z)), and d|z| is grad * z / |z|.

// d(e^x)/dx = grad * conj(y)
struct ExpBackward : SavedOneBackward {
  const char* name() const override { return "ExpBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * detail::conj_if_complex(saved.unpack(this))}; }
};

// d(log x)/dx = grad / conj(x)
struct LogBackward : SavedOneBackward {
  const char* name() const override { return "LogBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] / detail::conj_if_complex(saved.unpack(this))}; }
};

// d(sqrt x)/dx = grad / (2 conj(y))
struct SqrtBackward : SavedOneBackward {
  const char* name() const override { return "SqrtBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] / (detail::conj_if_complex(saved.unpack(this)) * 2.0)}; }
};

// d(x^-1/2)/dx = -grad * y^3 / 2
struct RsqrtBackward : SavedOneBackward {
  const char* name() const override { return "RsqrtBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * pow(saved.unpack(this), 3) * -0.5}; }
};

// d|x|/dx = grad * sign(x); for a complex z, grad * z / |z| (0 at 0)
struct AbsBackward : SavedOneBackward {
  const char* name() const override { return "AbsBackward"; }
  TensorList apply(TensorList&& g) override {
    const Tensor x = saved.unpack(this);
    return {g[0] * (is_complex(x.dtype()) ? detail::complex_sgn(x) : sign(x))};
  }
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

// d erfc(x)/dx = -grad * 2/sqrt(pi) * e^(-x^2)
struct ErfcBackward : SavedOneBackward {
  const char* name() const override { return "ErfcBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * exp(-(x * x)) * (-2.0 * std::numbers::inv_sqrtpi)};
  }
};
// d erfinv(x)/dx = grad * sqrt(pi)/2 * e^(y^2), y = erfinv(x)
// NB: saves x and recomputes y, as PyTorch: an in-place op on the output may follow.
struct ErfinvBackward : SavedOneBackward {
  const char* name() const override { return "ErfinvBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor y = erfinv(saved.unpack(this));
    return {g[0] * exp(y * y) * (0.5 / std::numbers::inv_sqrtpi)};
  }
};
// d lgamma x = digamma x
struct LgammaBackward : SavedOneBackward {
  const char* name() const override { return "LgammaBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * digamma(saved.unpack(this))}; }
};
// d polygamma(n, x) = polygamma(n + 1, x) (digamma is n = 0)
struct PolygammaBackward : SavedOneBackward {
  int64_t n = 0;
  const char* name() const override { return n == 0 ? "DigammaBackward" : "PolygammaBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * polygamma(n + 1, saved.unpack(this))}; }
};

// The modified Bessel functions' gradients, PyTorch's formulas (each in differentiable ops, so
// double backward works). Where |x| is below the dtype's epsilon, the gradients of i1 and i1e are
// their limit at 0, 1/2, to rounding: i1(x) / x is 0 / 0 at 0 and rounds to 0 or 1 at a subnormal.
// d i0 = i1
struct I0Backward : SavedOneBackward {
  const char* name() const override { return "I0Backward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * special_i1(saved.unpack(this))}; }
};
// d i0e = i1e - sign(x) i0e
struct I0eBackward : SavedOneBackward {
  const char* name() const override { return "SpecialI0eBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * (special_i1e(x) - sign(x) * special_i0e(x))};
  }
};
Tensor below_epsilon(const Tensor& x) {
  return lt(abs(x), x.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                          : static_cast<double>(std::numeric_limits<float>::epsilon()));
}
// d i1 = i0 - i1 / x
struct I1Backward : SavedOneBackward {
  const char* name() const override { return "SpecialI1Backward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this), tiny = below_epsilon(x);
    return {g[0] * where(tiny, 0.5, i0(x) - special_i1(x) / where(tiny, 1.0, x))};
  }
};
// d i1e = i0e - i1e (sign(x) + 1 / x)
struct I1eBackward : SavedOneBackward {
  const char* name() const override { return "SpecialI1eBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this), tiny = below_epsilon(x);
    return {g[0] * where(tiny, 0.5, special_i0e(x) - special_i1e(x) * (sign(x) + reciprocal(where(tiny, 1.0, x))))};
  }
};

// The trigonometric, hyperbolic and logarithmic family: each backward reads x (or y) once.
// d sin x = cos x
struct SinBackward : SavedOneBackward {
  const char* name() const override { return "SinBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * cos(saved.unpack(this))}; }
};
// d cos x = -sin x
struct CosBackward : SavedOneBackward {
  const char* name() const override { return "CosBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * -sin(saved.unpack(this))}; }
};
// d tan x = 1 + y^2
struct TanBackward : SavedOneBackward {
  const char* name() const override { return "TanBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor y = saved.unpack(this);
    return {g[0] * (y * y + 1.0)};
  }
};
// d asin x = 1 / sqrt(1 - x^2)
struct AsinBackward : SavedOneBackward {
  const char* name() const override { return "AsinBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * rsqrt(1.0 - x * x)};
  }
};
// d acos x = -1 / sqrt(1 - x^2)
struct AcosBackward : SavedOneBackward {
  const char* name() const override { return "AcosBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * -rsqrt(1.0 - x * x)};
  }
};
// d atan x = 1 / (1 + x^2)
struct AtanBackward : SavedOneBackward {
  const char* name() const override { return "AtanBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] / (x * x + 1.0)};
  }
};
// d sinh x = cosh x
struct SinhBackward : SavedOneBackward {
  const char* name() const override { return "SinhBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * cosh(saved.unpack(this))}; }
};
// d cosh x = sinh x
struct CoshBackward : SavedOneBackward {
  const char* name() const override { return "CoshBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * sinh(saved.unpack(this))}; }
};
// d asinh x = 1 / sqrt(x^2 + 1)
struct AsinhBackward : SavedOneBackward {
  const char* name() const override { return "AsinhBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * rsqrt(x * x + 1.0)};
  }
};
// d acosh x = 1 / sqrt(x^2 - 1)
struct AcoshBackward : SavedOneBackward {
  const char* name() const override { return "AcoshBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * rsqrt(x * x - 1.0)};
  }
};
// d atanh x = 1 / (1 - x^2)
struct AtanhBackward : SavedOneBackward {
  const char* name() const override { return "AtanhBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] / (1.0 - x * x)};
  }
};
// d log1p x = 1 / (1 + x)
struct Log1pBackward : SavedOneBackward {
  const char* name() const override { return "Log1pBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] / (saved.unpack(this) + 1.0)}; }
};
// d expm1 x = y + 1
struct Expm1Backward : SavedOneBackward {
  const char* name() const override { return "Expm1Backward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * (saved.unpack(this) + 1.0)}; }
};
// d log_b x = 1 / (x ln b)
struct LogBaseBackward : SavedOneBackward {
  double ln_base = 1;
  const char* name() const override { return "LogBaseBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] / (saved.unpack(this) * ln_base)}; }
};
// d (1/x) = -y^2
struct ReciprocalBackward : SavedOneBackward {
  const char* name() const override { return "ReciprocalBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor y = saved.unpack(this);
    return {g[0] * -detail::conj_if_complex(y * y)};
  }
};
// d floor x = d ceil x = d round x = d trunc x = 0
struct ZeroBackward : autograd::Node {
  const char* name() const override { return "ZeroBackward"; }
  TensorList apply(TensorList&& g) override { return {zeros_like(g[0])}; }
};
// d frac x = 1
struct FracBackward : autograd::Node {
  const char* name() const override { return "FracBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0]}; }
};

// d clamp(x)/dx = grad where min < x < max, else 0 (PyTorch's: none at a bound, nor at NaN)
struct ClampBackward : SavedOneBackward {
  std::optional<Scalar> min, max;
  const char* name() const override { return "ClampBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    Tensor inside;
    if (min) inside = gt(x, *min);
    if (max) inside = inside.defined() ? logical_and(inside, lt(x, *max)) : lt(x, *max);
    return {where(inside, g[0], 0)};
  }
};

// d(x^p)/dx = grad * p * x^(p-1)  (0 when p == 0)
struct PowScalarBackward : SavedOneBackward {
  Scalar exponent;
  const char* name() const override { return "PowScalarBackward"; }
  TensorList apply(TensorList&& g) override {
    double p = exponent.to<double>();
    // NB: as PyTorch, a bool exponent takes the general form: x ** False's gradient is 0 * x^-1, NaN at 0
    if (p == 0 && !exponent.is_bool()) return {zeros_like(g[0])};
    const Scalar e = exponent.is_bool() ? Scalar(exponent.to<int64_t>()) : exponent;
    Scalar pm1 = e.is_floating() ? Scalar(p - 1) : Scalar(e.to<int64_t>() - 1);
    return {g[0] * (pow(saved.unpack(this), pm1) * e)};  // NB: PyTorch's order (overflow, 0 * inf)
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

// The complex case of a function whose node N serves complex inputs (computed by the complex kernels).
template <typename N>
Tensor complex_unary(ComplexUnaryOp op, const Tensor& t, const char* name, bool save_output) {
  Tensor out = detail::complex_unary(op, t, name);
  if (autograd::any_requires_grad(t)) record<N>(out, t, save_output);
  return out;
}

// A floating function of t (integer inputs compute in float32) whose node N saves x or y.
template <typename N>
Tensor floating_unary(UnaryOp op, const Tensor& t, const char* name, bool save_output) {
  if (autocast::applies(name, t))
    return autocast::run(name, {t}, [&](const autocast::Cast& cast) { return floating_unary<N>(op, cast(t), name, save_output); });
  DType dtype = detail::float_result_type(t.dtype());
  check_compute_dtype(dtype, name);
  Tensor out = detail::unary_forward(op, t, dtype);
  if (autograd::any_requires_grad(t)) record<N>(out, t, save_output);
  return out;
}

}  // namespace

Tensor impl_neg(const Tensor& t) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, "neg: negation of a bool tensor is not supported; use logical_not");
  if (!is_complex(t.dtype())) check_compute_dtype(t.dtype(), "neg");
  Tensor out = is_complex(t.dtype()) ? detail::complex_neg(t) : detail::unary_forward(UnaryOp::Neg, t, t.dtype());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<NegBackward>(t));
  return out;
}

Tensor impl_exp(const Tensor& t) {
  if (is_complex(t.dtype())) return complex_unary<ExpBackward>(ComplexUnaryOp::Exp, t, "exp", true);
  return floating_unary<ExpBackward>(UnaryOp::Exp, t, "exp", true);
}
Tensor impl_log(const Tensor& t) {
  if (is_complex(t.dtype())) return complex_unary<LogBackward>(ComplexUnaryOp::Log, t, "log", false);
  return floating_unary<LogBackward>(UnaryOp::Log, t, "log", false);
}
Tensor impl_sqrt(const Tensor& t) {
  if (is_complex(t.dtype())) return complex_unary<SqrtBackward>(ComplexUnaryOp::Sqrt, t, "sqrt", true);
  return floating_unary<SqrtBackward>(UnaryOp::Sqrt, t, "sqrt", true);
}
Tensor impl_rsqrt(const Tensor& t) { return floating_unary<RsqrtBackward>(UnaryOp::Rsqrt, t, "rsqrt", true); }
Tensor impl_erf(const Tensor& t) { return floating_unary<ErfBackward>(UnaryOp::Erf, t, "erf", false); }
Tensor impl_erfc(const Tensor& t) { return floating_unary<ErfcBackward>(UnaryOp::Erfc, t, "erfc", false); }
Tensor impl_erfinv(const Tensor& t) { return floating_unary<ErfinvBackward>(UnaryOp::Erfinv, t, "erfinv", false); }
Tensor impl_lgamma(const Tensor& t) { return floating_unary<LgammaBackward>(UnaryOp::Lgamma, t, "lgamma", false); }
Tensor impl_digamma(const Tensor& t) { return polygamma(0, t); }
Tensor impl_polygamma(int64_t n, const Tensor& t) {
  EMBER_CHECK_VALUE(n >= 0, "polygamma: n must be >= 0, got ", n);
  // NB: n! overflows double from n = 171 on.
  EMBER_CHECK_VALUE(n <= 170, "polygamma: n = ", n, " is too large (n! overflows double past 170)");
  const DType dtype = detail::float_result_type(t.dtype());
  const char* name = n == 0 ? "digamma" : "polygamma";
  check_compute_dtype(dtype, name);
  UnaryParams p;
  p.a = static_cast<double>(n);
  Tensor out = detail::unary_forward(n == 0 ? UnaryOp::Digamma : UnaryOp::Polygamma, t, dtype, p);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<PolygammaBackward>(t);
    autograd::set_history(out, node);
    node->saved = SavedTensor(t);
    node->n = n;
  }
  return out;
}

Tensor impl_i0(const Tensor& t) { return floating_unary<I0Backward>(UnaryOp::I0, t, "i0", false); }
Tensor impl_special_i0e(const Tensor& t) { return floating_unary<I0eBackward>(UnaryOp::I0e, t, "special_i0e", false); }
Tensor impl_special_i1(const Tensor& t) { return floating_unary<I1Backward>(UnaryOp::I1, t, "special_i1", false); }
Tensor impl_special_i1e(const Tensor& t) { return floating_unary<I1eBackward>(UnaryOp::I1e, t, "special_i1e", false); }

Tensor impl_bitwise_not(const Tensor& t) {
  EMBER_CHECK_TYPE(is_integral(t.dtype()), "bitwise_not: only integer and bool tensors, got ", t.dtype());
  check_compute_dtype(t.dtype(), "bitwise_not");
  return detail::unary_forward(UnaryOp::BitwiseNot, t, t.dtype());
}

Tensor impl_sin(const Tensor& t) { return floating_unary<SinBackward>(UnaryOp::Sin, t, "sin", false); }
Tensor impl_cos(const Tensor& t) { return floating_unary<CosBackward>(UnaryOp::Cos, t, "cos", false); }
Tensor impl_tan(const Tensor& t) { return floating_unary<TanBackward>(UnaryOp::Tan, t, "tan", true); }
Tensor impl_asin(const Tensor& t) { return floating_unary<AsinBackward>(UnaryOp::Asin, t, "asin", false); }
Tensor impl_acos(const Tensor& t) { return floating_unary<AcosBackward>(UnaryOp::Acos, t, "acos", false); }
Tensor impl_atan(const Tensor& t) { return floating_unary<AtanBackward>(UnaryOp::Atan, t, "atan", false); }
Tensor impl_sinh(const Tensor& t) { return floating_unary<SinhBackward>(UnaryOp::Sinh, t, "sinh", false); }
Tensor impl_cosh(const Tensor& t) { return floating_unary<CoshBackward>(UnaryOp::Cosh, t, "cosh", false); }
Tensor impl_asinh(const Tensor& t) { return floating_unary<AsinhBackward>(UnaryOp::Asinh, t, "asinh", false); }
Tensor impl_acosh(const Tensor& t) { return floating_unary<AcoshBackward>(UnaryOp::Acosh, t, "acosh", false); }
Tensor impl_atanh(const Tensor& t) { return floating_unary<AtanhBackward>(UnaryOp::Atanh, t, "atanh", false); }
Tensor impl_log1p(const Tensor& t) { return floating_unary<Log1pBackward>(UnaryOp::Log1p, t, "log1p", false); }
Tensor impl_expm1(const Tensor& t) { return floating_unary<Expm1Backward>(UnaryOp::Expm1, t, "expm1", true); }
Tensor impl_reciprocal(const Tensor& t) {
  if (is_complex(t.dtype()))
    return complex_unary<ReciprocalBackward>(ComplexUnaryOp::Reciprocal, t, "reciprocal", true);
  return floating_unary<ReciprocalBackward>(UnaryOp::Reciprocal, t, "reciprocal", true);
}

namespace {
Tensor log_base(UnaryOp op, const Tensor& t, const char* name, double ln_base) {
  DType dtype = detail::float_result_type(t.dtype());
  check_compute_dtype(dtype, name);
  Tensor out = detail::unary_forward(op, t, dtype);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<LogBaseBackward>(t);
    autograd::set_history(out, node);
    node->saved = SavedTensor(t);
    node->ln_base = ln_base;
  }
  return out;
}

// floor, ceil, round, trunc: integer tensors come back as a copy, floating ones rounded; the
// gradient is zero.
Tensor rounding(UnaryOp op, const Tensor& t, const char* name) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, name, ": not supported for bool tensors");
  check_compute_dtype(t.dtype(), name);
  Tensor out = is_floating(t.dtype()) ? detail::unary_forward(op, t, t.dtype()) : clone(t).detach();
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<ZeroBackward>(t));
  return out;
}
}  // namespace

Tensor impl_log2(const Tensor& t) { return log_base(UnaryOp::Log2, t, "log2", std::numbers::ln2); }
Tensor impl_log10(const Tensor& t) { return log_base(UnaryOp::Log10, t, "log10", std::numbers::ln10); }
Tensor impl_floor(const Tensor& t) { return rounding(UnaryOp::Floor, t, "floor"); }
Tensor impl_ceil(const Tensor& t) { return rounding(UnaryOp::Ceil, t, "ceil"); }
Tensor impl_round(const Tensor& t) { return rounding(UnaryOp::Round, t, "round"); }
Tensor impl_trunc(const Tensor& t) { return rounding(UnaryOp::Trunc, t, "trunc"); }

Tensor impl_frac(const Tensor& t) {
  EMBER_CHECK_TYPE(is_floating(t.dtype()), "frac: expected a floating tensor, got ", t.dtype());
  check_compute_dtype(t.dtype(), "frac");
  Tensor out = detail::unary_forward(UnaryOp::Frac, t, t.dtype());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<FracBackward>(t));
  return out;
}

Tensor impl_square(const Tensor& t) { return t.dtype() == kBool ? mul(t.to(kInt64), t.to(kInt64)) : mul(t, t); }

Tensor impl_isnan(const Tensor& t) {
  if (!is_floating(t.dtype())) return zeros(t.sizes(), TensorOptions(kBool).device(t.device()));
  NoGradGuard no_grad;
  return ne(t, t);
}

Tensor impl_isinf(const Tensor& t) {
  if (!is_floating(t.dtype())) return zeros(t.sizes(), TensorOptions(kBool).device(t.device()));
  NoGradGuard no_grad;
  return eq(abs(t), std::numeric_limits<double>::infinity());
}

Tensor impl_isfinite(const Tensor& t) {
  if (!is_floating(t.dtype())) return ones(t.sizes(), TensorOptions(kBool).device(t.device()));
  NoGradGuard no_grad;
  return logical_and(eq(t, t), ne(abs(t), std::numeric_limits<double>::infinity()));
}

Tensor impl_abs(const Tensor& t) {
  if (is_complex(t.dtype())) return complex_unary<AbsBackward>(ComplexUnaryOp::Abs, t, "abs", false);
  EMBER_CHECK_TYPE(t.dtype() != kBool, "abs: not supported for bool tensors");
  check_compute_dtype(t.dtype(), "abs");
  Tensor out = detail::unary_forward(UnaryOp::Abs, t, t.dtype());
  if (autograd::any_requires_grad(t)) record<AbsBackward>(out, t, false);
  return out;
}

Tensor impl_sign(const Tensor& t) {
  check_compute_dtype(t.dtype(), "sign");
  Tensor out = detail::unary_forward(UnaryOp::Sign, t, t.dtype());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<SignBackward>(t));
  return out;
}

Tensor impl_clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
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

Tensor impl_pow(const Tensor& t, Scalar exponent) {
  if (autocast::applies("pow", t)) return autocast::run("pow", {t}, [&](const autocast::Cast& cast) { return pow(cast(t), exponent); });
  DType dtype = result_type(t, exponent);
  // NB: as PyTorch, a bool tensor to a bool power stays bool: x ** True is x, x ** False is True.
  if (dtype == kBool) return exponent.to<int64_t>() != 0 ? t.clone() : ones_like(t);
  EMBER_CHECK_VALUE(!is_integral(dtype) || exponent.to<int64_t>() >= 0, "pow: integers to negative "
                    "integer powers are not allowed (", t.dtype(), " tensor, exponent ", exponent, ")");
  check_compute_dtype(dtype, "pow");
  Tensor out = detail::unary_forward(UnaryOp::PowScalar, t, dtype, UnaryParams{exponent.to<double>()});
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<PowScalarBackward>(t);
    node->exponent = exponent;
    if (exponent.to<double>() != 0 || exponent.is_bool()) node->saved = SavedTensor(t);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
