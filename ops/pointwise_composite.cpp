// Pointwise ops composed of other table ops, each with PyTorch's derivative recorded by
// autograd::record_function where the composition's own would differ at an edge: lerp at an
// infinite end, addcmul's gradients summed after, not before, the product, hypot and sinc near 0,
// logit at 0 and 1, xlogy where x is 0. The backwards are written in differentiable ops, so double
// backward works.
#include <cfloat>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/core/promotion.h"
#include "ember/core/shape.h"
#include "ember/ops/composite_grad.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

using autograd::Node;
using autograd::TensorList;

bool is_one(Scalar s) { return s.to_double() == 1.0; }

// The float types whose results round once through float64 (addcmul, hypot, sinc's gradient).
bool narrower_than_double(DType t) { return t == kFloat32 || is_16bit_float(t); }

DType floating_or_default(DType t) { return is_floating(t) || is_complex(t) ? t : default_dtype(); }

DimVector broadcast3(const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  return broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), op), c.sizes(), op);
}

// The largest finite value of a floating dtype (nan_to_num's default for +inf).
double largest(DType t) {
  switch (t) {
    case kFloat16:
      return 65504.0;
    case kBFloat16:
      return 3.3895313892515355e38;
    case kFloat32:
      return FLT_MAX;
    default:
      return DBL_MAX;
  }
}

// lerp's start and end share one dtype, as PyTorch requires (x.lerp_(int_tensor, w) is refused)
void check_end(const Tensor& self, const Tensor& end) {
  EMBER_CHECK(end.dtype() == self.dtype(), "lerp: expected dtype ", torch_type_name(self.dtype()),
              " for `end` but got dtype ", torch_type_name(end.dtype()));
}

}  // namespace

Tensor impl_lerp(const Tensor& self, const Tensor& end, Scalar weight) {
  check_end(self, end);
  const double w = weight.to_double();
  const Scalar rest = weight.is_floating() ? Scalar(1.0 - w) : Scalar(1 - weight.to<int64_t>());
  Tensor out;
  {
    NoGradGuard no_grad;
    // PyTorch's two forms, each exact at its own end (lerp(a, b, 1) is b, lerp(inf, 1, 0.75) is inf)
    out = std::abs(w) < 0.5 ? self + (end - self) * weight : end - (end - self) * rest;
  }
  // grad (1 - weight) and grad weight: through the forms, grad - grad weight gave inf - inf for an
  // infinite grad and a weight of 0
  autograd::record_function("LerpBackward0", out, {self, end}, {},
                            [rest, weight, a = self.sizes().vec(), b = end.sizes().vec()](
                                const TensorList&, const TensorList& grads, const Node&) {
                              return TensorList{sum_to(grads[0] * rest, a), sum_to(grads[0] * weight, b)};
                            });
  return out;
}

Tensor impl_lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_end(self, end);
  Tensor w = weight.dtype() == kBool ? weight.to(self.dtype()) : weight;  // PyTorch takes a bool weight as 0, 1
  if (w.dtype() != self.dtype() && is_floating(w.dtype()) && is_floating(self.dtype()))
    w = w.to(result_type(self, w));  // so that 1 - weight is in the result's dtype, as PyTorch's
  const DimVector shape = broadcast3(self, end, w, "lerp");
  const Tensor a = self.expand(shape), b = end.expand(shape), c = w.expand(shape);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = where(lt(abs(c), Scalar(0.5)), a + c * (b - a), b - (b - a) * (1 - c));
  }
  // PyTorch's gradients; through where(), the dropped form sends 0 * (end - self) = NaN to the
  // weight where an end is infinite
  autograd::record_function("LerpBackward1", out, {a, b, c}, {a, b, c},
                            [](const TensorList& saved, const TensorList& grads, const Node&) {
                              const Tensor& g = grads[0];
                              return TensorList{g * (1 - saved[2]), g * saved[2], g * (saved[1] - saved[0])};
                            });
  return out;
}

namespace {

// addcmul and addcdiv: the operands cast to the dtype the three promote to (value does not take
// part, as PyTorch's Scalar; an integer dtype truncates it), and PyTorch's gradients, each taken
// at the broadcast shape and then summed to its operand's (summed first, a sum of gradients of
// both signs times inf gave inf where PyTorch's is NaN). Only what the gradients need is saved:
// x.addcdiv_(x, y) writes the tensor1 a saved copy would check.
Tensor addc(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value, bool divides) {
  const DType dtype = result_type({self, tensor1, tensor2});
  const Tensor a = self.to(dtype), t1 = tensor1.to(dtype), t2 = tensor2.to(dtype);
  if (value.is_floating() && is_integral(dtype)) value = Scalar(value.to<int64_t>());
  Tensor out;
  {
    NoGradGuard no_grad;
    if (divides) {
      out = is_one(value) ? a + t1 / t2 : a + t1 * value / t2;
    } else {
      const Tensor scaled = is_one(value) ? t1 : t1 * value;
      // rounded once, as PyTorch's fused multiply-add: the float32 product is exact in double,
      // and the double sum's rounding is far below float32's
      out = narrower_than_double(dtype) ? (a.to(kFloat64) + scaled.to(kFloat64) * t2.to(kFloat64)).to(dtype)
                                        : a + scaled * t2;
    }
  }
  const bool need1 = autograd::any_requires_grad(t1), need2 = autograd::any_requires_grad(t2);
  autograd::record_function(divides ? "AddcdivBackward0" : "AddcmulBackward0", out, {a, t1, t2},
                            {need2 ? t1 : Tensor(), need1 || (divides && need2) ? t2 : Tensor()},
                            [value, divides, s0 = a.sizes().vec(), s1 = t1.sizes().vec(), s2 = t2.sizes().vec()](
                                const TensorList& saved, const TensorList& grads, const Node& node) {
                              const Tensor& g = grads[0];
                              TensorList out(3);
                              if (node.needs_input_grad(0)) out[0] = sum_to(g, s0);
                              if (divides) {
                                if (node.needs_input_grad(1)) out[1] = sum_to(g * (value / saved[1]), s1);
                                if (node.needs_input_grad(2))
                                  out[2] = sum_to(-g * (saved[0] * value / (saved[1] * saved[1])), s2);
                              } else {
                                if (node.needs_input_grad(1)) out[1] = sum_to(g * (saved[1] * value), s1);
                                if (node.needs_input_grad(2)) out[2] = sum_to(g * (saved[0] * value), s2);
                              }
                              return out;
                            });
  return out;
}

}  // namespace

Tensor impl_addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  if (autocast::applies("addcmul", {self, tensor1, tensor2}))
    return autocast::run("addcmul", {self, tensor1, tensor2}, [&](const autocast::Cast& cast) {
      return addcmul(cast(self), cast(tensor1), cast(tensor2), value);
    });
  return addc(self, tensor1, tensor2, value, false);
}

Tensor impl_addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  if (autocast::applies("addcdiv", {self, tensor1, tensor2}))
    return autocast::run("addcdiv", {self, tensor1, tensor2}, [&](const autocast::Cast& cast) {
      return addcdiv(cast(self), cast(tensor1), cast(tensor2), value);
    });
  EMBER_CHECK(!(is_integral(tensor1.dtype()) && is_integral(tensor2.dtype())),
              "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
              "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
              "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
              "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
              "(input + value * tensor1 / tensor2), for all dtypes.");
  return addc(self, tensor1, tensor2, value, true);
}

Tensor impl_isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  Tensor close = eq(self, other);
  if (is_floating(self.dtype()) || is_floating(other.dtype())) {
    const Tensor finite = logical_and(isfinite(self), isfinite(other));
    close = logical_or(close, logical_and(finite, le(abs(self - other), abs(other) * rtol + atol)));
    if (equal_nan) close = logical_or(close, logical_and(isnan(self), isnan(other)));
  } else if (rtol != 0 || atol != 0) {
    // as PyTorch's, integers within a tolerance compare in the default float dtype
    const Tensor a = self.to(default_dtype()), b = other.to(default_dtype());
    close = logical_or(close, le(abs(a - b), abs(b) * rtol + atol));
  }
  return close;
}

bool impl_allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return all(isclose(self, other, rtol, atol, equal_nan)).item<bool>();
}

bool impl_equal(const Tensor& self, const Tensor& other) {
  return self.sizes() == other.sizes() && all(eq(self, other)).item<bool>();
}

Tensor impl_nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  if (!is_floating(self.dtype())) return self.clone();
  const double hi = posinf.value_or(largest(self.dtype())), lo = neginf.value_or(-largest(self.dtype()));
  Tensor out;
  {
    NoGradGuard no_grad;
    out = where(isnan(self), Scalar(nan.value_or(0.0)), self);
    out = where(eq(out, Scalar(INFINITY)), Scalar(hi), out);
    out = where(eq(out, Scalar(-INFINITY)), Scalar(lo), out);
  }
  // the gradient grad where self is finite, else 0 (NaN where grad is), as PyTorch's
  const Tensor finite = isfinite(self.detach());
  autograd::record_function(
      "NanToNumBackward0", out, {self}, {finite},
      [](const TensorList& saved, const TensorList& grads, const Node&) { return TensorList{grads[0] * saved[0]}; });
  return out;
}

Tensor impl_hypot(const Tensor& self, const Tensor& other) {
  const DType dtype = result_type(self, other);
  EMBER_CHECK_AS(NotImplementedError, is_floating(dtype), "\"hypot_cpu\" not implemented for '", torch_type_name(dtype),
                 "'");
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), "hypot");
  const Tensor a = self.to(dtype).expand(shape), b = other.to(dtype).expand(shape);
  Tensor r;
  {
    NoGradGuard no_grad;
    // scaled by max(|a|, |b|) in float64 for the narrower dtypes: no overflow or underflow in between
    const DType work = narrower_than_double(dtype) ? kFloat64 : dtype;
    const Tensor x = abs(a.to(work)), y = abs(b.to(work));
    const Tensor big = maximum(x, y), small = minimum(x, y);
    const Tensor zero = eq(big, Scalar(0));
    const Tensor ratio = small / where(zero, Scalar(1.0), big);  // no 0 / 0, nor inf / inf below
    Tensor value = where(zero, Scalar(0.0), big * sqrt(ratio * ratio + 1));
    r = where(logical_or(isinf(x), isinf(y)), Scalar(INFINITY), value).to(dtype);
  }
  autograd::record_function("HypotBackward0", r, {a, b}, {a, b},
                            [](const TensorList& saved, const TensorList& grads, const Node&) {
                              const Tensor r = hypot(saved[0], saved[1]);
                              return TensorList{grads[0] * saved[0] / r, grads[0] * saved[1] / r};
                            });
  return r;
}

Tensor impl_sinc(const Tensor& self) {
  const Tensor x = is_floating(self.dtype()) || is_complex(self.dtype()) ? self : self.to(default_dtype());
  Tensor out;
  {
    NoGradGuard no_grad;
    // float16 and bfloat16 in float32, as PyTorch's kernel: pi * 65504 would overflow float16 (NaN, not 0)
    const Tensor wide = is_16bit_float(x.dtype()) ? x.to(kFloat32) : x;
    const Tensor zero = eq(wide, Scalar(0));
    const Tensor safe = where(zero, Scalar(1.0), wide) * std::numbers::pi;
    out = where(zero, Scalar(1.0), sin(safe) / safe).to(x.dtype());
  }
  // PyTorch's sinc_backward, (pi x cos(pi x) - sin(pi x)) / (pi x x), 0 where pi x x is 0 (x = 0 and
  // where x x underflows). Its numerator cancels (10% off at x = -1.4e-4 in float32), so float32 and
  // narrower compute it in float64; through autograd, the quotient rule's two terms of about 1 / x
  // cancel into noise.
  autograd::record_function(
      "SincBackward0", out, {x}, {x}, [](const TensorList& saved, const TensorList& grads, const Node&) {
        const Tensor& x = saved[0];
        const Tensor wide = narrower_than_double(x.dtype()) ? x.to(kFloat64) : x;
        const Tensor x_pi = wide * std::numbers::pi;
        const Tensor x_squared_pi = wide * wide * std::numbers::pi;
        const Tensor flat = eq(x_squared_pi, Scalar(0));
        const Tensor d = (x_pi * cos(x_pi) - sin(x_pi)) / where(flat, Scalar(1.0), x_squared_pi);
        // NaN where pi x overflows x's dtype, as the forward's value is there
        const Tensor overflow = isinf(x * std::numbers::pi);
        return TensorList{where(flat, Scalar(0.0), where(overflow, Scalar(NAN), grads[0] * d.to(x.dtype())))};
      });
  return out;
}

Tensor impl_logit(const Tensor& input, std::optional<double> eps) {
  const Tensor self = is_floating(input.dtype()) ? input : input.to(default_dtype());  // integers and bool too
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor p = eps ? clamp(self, Scalar(*eps), Scalar(1.0 - *eps)) : self;
    out = log(p / (1.0 - p));
  }
  // grad / (x (1 - x)): grad * inf at 0 and 1 (the quotient's chain rule gives 0 * inf = NaN there),
  // NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it
  autograd::record_function(
      "LogitBackward0", out, {self}, {self}, [eps](const TensorList& saved, const TensorList& grads, const Node&) {
        const Tensor& x = saved[0];
        const Tensor& g = grads[0];
        const Tensor edge = logical_or(eq(x, Scalar(0)), eq(x, Scalar(1)));
        const Tensor inside = where(edge, g * INFINITY, g / (x * (1.0 - x)));
        if (!eps) return TensorList{where(logical_or(lt(x, Scalar(0)), gt(x, Scalar(1))), Scalar(NAN), inside)};
        return TensorList{where(logical_or(lt(x, Scalar(*eps)), gt(x, Scalar(1.0 - *eps))), Scalar(0.0), inside)};
      });
  return out;
}

namespace {

// xlogy of two tensors in one dtype, broadcast: x log(y), 0 where x is 0 unless y is NaN, with
// PyTorch's gradients (derivatives.yaml): xlogy(grad, y) to x, 0 where x is 0 and y <= 0 (the
// derivative along x = 0, pytorch#80770; for a number y, also where it is NaN), grad x / y to y.
Tensor xlogy_same(const Tensor& x, const Tensor& y, bool number_other) {
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor product = x * log(y);
    out = where(logical_and(eq(x, Scalar(0)), logical_not(isnan(y))), Scalar(0.0), product);
  }
  autograd::record_function("XlogyBackward0", out, {x, y}, {x, y},
                            [number_other](const TensorList& saved, const TensorList& grads, const Node& node) {
                              const Tensor &x = saved[0], &y = saved[1], &g = grads[0];
                              TensorList out(2);
                              if (node.needs_input_grad(0)) {
                                Tensor flat = le(y, Scalar(0));
                                if (number_other) flat = logical_or(flat, isnan(y));
                                out[0] =
                                    where(logical_and(eq(x, Scalar(0)), flat), Scalar(0.0), xlogy_same(g, y, false));
                              }
                              if (node.needs_input_grad(1)) out[1] = g * x / y;
                              return out;
                            });
  return out;
}

}  // namespace

Tensor impl_xlogy(const Tensor& self, const Tensor& other) {
  const DType dtype = floating_or_default(result_type(self, other));
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), "xlogy");
  return xlogy_same(self.to(dtype).expand(shape), other.to(dtype).expand(shape), false);
}

Tensor impl_xlogy(const Tensor& self, Scalar other) {
  const DType dtype = floating_or_default(result_type(self, other));
  const Tensor y = scalar_tensor(other, TensorOptions(dtype).device(self.device()));
  return xlogy_same(self.to(dtype), y.expand(self.sizes()), true);
}

Tensor impl_xlogy(Scalar self, const Tensor& other) {
  const DType dtype = floating_or_default(result_type(other, self));
  const Tensor x = scalar_tensor(self, TensorOptions(dtype).device(other.device()));
  return xlogy_same(x.expand(other.sizes()), other.to(dtype), false);
}

Tensor impl_signbit(const Tensor& self) {
  if (!is_floating(self.dtype())) return lt(self, Scalar(0));
  // -0.0 is the one value whose sign only its reciprocal shows
  return logical_or(lt(self, Scalar(0)), logical_and(eq(self, Scalar(0)), lt(reciprocal(self), Scalar(0))));
}

Tensor impl_heaviside(const Tensor& self, const Tensor& values) {
  const DType dtype = result_type(self, values);
  Tensor step = gt(self, Scalar(0)).to(dtype);
  // self gets a zero gradient (a step function's, almost everywhere); PyTorch's raises in backward
  return detail::with_zero_grad(where(eq(self, Scalar(0)), values.to(dtype), step), {self});
}

Tensor impl_div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(self, other);
  if (*rounding_mode == "floor") return floor_divide(self, other);
  EMBER_CHECK_VALUE(*rounding_mode == "trunc", "div expected rounding_mode to be one of None, 'trunc', or 'floor' ",
                    "but found '", *rounding_mode, "'");
  if (is_floating(result_type(self, other))) {
    Tensor out;
    {
      NoGradGuard no_grad;  // the gradient is zero (with_zero_grad), whatever the quotient's would be
      out = trunc(div(self, other));
    }
    return detail::with_zero_grad(out, {self, other});
  }
  // Integers: floor rounded a negative inexact quotient down; trunc takes it one up.
  const Tensor floor = floor_divide(self, other);
  const Tensor up = logical_and(ne(remainder(self, other), 0), ne(lt(self, 0), lt(other, 0)));
  return add(floor, up.to(floor.dtype()));
}

Tensor impl_div(const Tensor& self, Scalar other, std::optional<std::string_view> rounding_mode) {
  return div(self, wrap_scalar(other, self), rounding_mode);
}

Tensor impl_round(const Tensor& self, int64_t decimals) {
  if (decimals == 0) return round(self);
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()), "\"round_cpu\" not implemented for '",
                 torch_type_name(self.dtype()), "'");
  // In self's dtype, as PyTorch's: 0.05 rounds to 0.0 in float32 (0.05f * 10 is 0.5, a half, to even).
  // float16 and bfloat16 in float32, as PyTorch's kernel: 65504 * 10 would overflow float16.
  const Tensor x = is_16bit_float(self.dtype()) ? self.to(kFloat32) : self;
  const Scalar scale = std::pow(10.0, static_cast<double>(std::abs(decimals)));
  const Tensor out = decimals > 0 ? div(round(mul(x, scale)), scale) : mul(round(div(x, scale)), scale);
  return out.to(self.dtype());
}

Tensor impl_special_ndtr(const Tensor& self) {
  const DType dtype = floating_or_default(self.dtype());
  return mul(erfc(mul(self.to(dtype), -1 / std::numbers::sqrt2)), 0.5);
}

namespace {

// log ndtr(x) and ndtr(x) / pdf(x) (Mills' ratio), in float64: from erfc down to -30, below it from
// the tail's asymptotic series, as erfc leaves the normal range of float64 near -37.5 and its last
// digits with it. The series, 1 - 1/x^2 + 3/x^4 - ..., is cut after its 1/x^12 term: below 1e-15 at -30.
std::pair<Tensor, Tensor> log_ndtr_and_ratio(const Tensor& x) {
  const Tensor cdf = mul(erfc(mul(x, -1 / std::numbers::sqrt2)), 0.5);
  const Tensor pdf = mul(exp(mul(square(x), -0.5)), 1 / std::sqrt(2 * std::numbers::pi));
  const Tensor u = reciprocal(square(x));
  Tensor series = full_like(x, 1.0), term = full_like(x, 1.0);
  for (int k = 1; k <= 6; ++k) {
    term = mul(term, mul(u, -(2.0 * k - 1)));
    series = add(series, term);
  }
  const Tensor tail = lt(x, -30.0);
  const Tensor log_tail =
      sub(sub(mul(square(x), -0.5), 0.5 * std::log(2 * std::numbers::pi)), sub(log(neg(x)), log(series)));
  return {where(tail, log_tail, log(cdf)), where(tail, div(series, neg(x)), div(cdf, pdf))};
}

// ndtri(q) for q in (0, 0.5], in float64: Newton's method on log ndtr(x) - log q, which is concave
// and increasing, so the steps converge from any start; the start is the tail's asymptote
// -sqrt(t - log t - log 2 pi), t = -2 log q (0 near the middle). Eight steps reach float64's
// precision from 0.5 down to the smallest subnormal, where 1 + erf and erfinv(2q - 1) have long lost
// every digit.
Tensor ndtri_lower(const Tensor& q) {
  const Tensor t = mul(log(q), -2.0);
  Tensor x = neg(sqrt(clamp(sub(sub(t, log(t)), std::log(2 * std::numbers::pi)), Scalar(0.0), std::nullopt)));
  const Tensor log_q = log(q);
  for (int step = 0; step < 8; ++step) {
    const auto [log_cdf, ratio] = log_ndtr_and_ratio(x);
    const Tensor next = sub(x, mul(sub(log_cdf, log_q), ratio));
    x = where(isfinite(next), next, x);
  }
  return x;
}

}  // namespace

Tensor impl_special_ndtri(const Tensor& self) {
  const DType dtype = floating_or_default(self.dtype());
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor p = self.to(kFloat64);
    const Tensor upper = gt(p, 0.5);
    const Tensor q = where(upper, add(neg(p), 1.0), p);
    const Tensor inside = logical_and(gt(q, 0.0), le(q, 0.5));  // NaN and p outside [0, 1] are not
    const Tensor x = ndtri_lower(where(inside, q, full_like(q, 0.25)));
    const Tensor edge = where(eq(q, 0.0), -std::numeric_limits<double>::infinity(),
                              full_like(q, std::numeric_limits<double>::quiet_NaN()));
    const Tensor lower = where(inside, x, edge);
    out = where(upper, neg(lower), lower).to(dtype);
  }
  autograd::record_function(
      "SpecialNdtriBackward0", out, {self}, {self}, [](const TensorList& saved, const TensorList& grads, const Node&) {
        const Tensor x = special_ndtri(saved[0]);
        return TensorList{mul(grads[0], mul(exp(mul(square(x), 0.5)), std::sqrt(2 * std::numbers::pi)))};
      });
  return out;
}

Tensor impl_mvlgamma(const Tensor& self, int64_t p) {
  EMBER_CHECK_VALUE(p >= 1, "p has to be greater than or equal to 1, got ", p);
  EMBER_CHECK_TYPE(self.dtype() != kBool, "mvlgamma: the input tensor may not be a boolean tensor");
  const Tensor x = self.to(floating_or_default(self.dtype()));
  Tensor out = full_like(x, static_cast<double>(p * (p - 1)) / 4 * std::log(std::numbers::pi));
  for (int64_t j = 0; j < p; ++j) out = add(out, lgamma(sub(x, static_cast<double>(j) / 2)));
  return out;
}

}  // namespace ember
