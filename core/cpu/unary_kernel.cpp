// CPU kernels for elementwise unary ops (ops/unary.h) and the fused activation gradients
// (ops/activation.h). Floating ops are Eigen array expressions, vectorised on contiguous runs.
// NB: GCC 12 flags Eigen's AVX-512 min/max/pow/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <cmath>
#include <limits>
#include <numbers>
#include <unsupported/Eigen/SpecialFunctions>

#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/math.h"
#include "ember/core/kernels/unary.h"
#include "ember/core/special_math.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// The value v saturated into T's range (clamp bounds outside an integer type's range).
template <typename T>
T saturate(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

template <typename T>
T int_pow(T x, int64_t e) {
  T result = 1;
  while (e) {
    if (e & 1) result = wrapping_mul(result, x);
    x = wrapping_mul(x, x);
    e >>= 1;
  }
  return result;
}

template <typename T>
void pow_scalar(const Tensor& out, const Tensor& in, double e) {
  if constexpr (std::is_floating_point_v<T>) {
    const T p = static_cast<T>(e);
    // Common exponents as cheap exact expressions; the rest through Eigen's vectorised pow.
    if (e == 2) return unary_kernel<T, T>(out, in, [](const auto& x) { return x.square(); });
    if (e == 3) return unary_kernel<T, T>(out, in, [](const auto& x) { return x.cube(); });
    if (e == 1) return unary_kernel<T, T>(out, in, [](const auto& x) { return x; });
    if (e == 0.5) return unary_kernel<T, T>(out, in, [](const auto& x) { return sqrt_of(x); });
    // NB: 1 / sqrt, as PyTorch's rsqrt shortcut: NaN for -inf and -inf for -0, where C's pow gives 0, inf.
    if (e == -0.5) return unary_kernel<T, T>(out, in, [](const auto& x) { return sqrt_of(x).inverse(); });
    if (e == -1) return unary_kernel<T, T>(out, in, [](const auto& x) { return x.inverse(); });
    if (e == -2) return unary_kernel<T, T>(out, in, [](const auto& x) { return x.square().inverse(); });
    return unary_kernel<T, T>(out, in, [p](const auto& x) { return pow_of(x, p); });
  } else {
    const auto n = static_cast<int64_t>(e);  // >= 0, checked by the op
    return unary_kernel<T, T>(out, in, [n](const auto& x) {
      return x.unaryExpr([n](T v) { return int_pow<T>(v, n); });
    });
  }
}

template <typename T>
void clamp(const Tensor& out, const Tensor& in, const UnaryParams& p) {
  const T lo = saturate<T>(p.a), hi = saturate<T>(p.b);
  if constexpr (std::is_floating_point_v<T>) {
    if ((p.has_a && std::isnan(lo)) || (p.has_b && std::isnan(hi)))  // NB: a NaN bound gives NaN, as PyTorch's
      return unary_kernel<T, T>(out, in, [](const auto& x) {
        return x.unaryExpr([](T) { return std::numeric_limits<T>::quiet_NaN(); });
      });
    if (p.has_a && p.has_b)
      return unary_kernel<T, T>(out, in, [lo, hi](const auto& x) { return clamp_above(clamp_below(x, lo), hi); });
    if (p.has_a) return unary_kernel<T, T>(out, in, [lo](const auto& x) { return clamp_below(x, lo); });
    return unary_kernel<T, T>(out, in, [hi](const auto& x) { return clamp_above(x, hi); });
  } else {
    const T l = p.has_a ? lo : std::numeric_limits<T>::lowest();
    const T h = p.has_b ? hi : std::numeric_limits<T>::max();
    return unary_kernel<T, T>(out, in, [l, h](const auto& x) { return x.max(l).min(h); });
  }
}

// Ops defined for floating types only (integer inputs were converted to float32 by the op).
template <typename T>
void floating_unary(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  // f(x) of a scalar function of double, element by element, rounded once to T
  const auto in_double = [&](double (*f)(double)) {
    return unary_kernel<T, T>(out, in, [f](const auto& x) { return x.unaryExpr([f](T v) { return T(f(v)); }); });
  };
  switch (op) {
    case UnaryOp::Exp: return unary_kernel<T, T>(out, in, [](const auto& x) { return exp_of(x); });
    case UnaryOp::Log: return unary_kernel<T, T>(out, in, [](const auto& x) { return log_of(x); });
    case UnaryOp::Sqrt: return unary_kernel<T, T>(out, in, [](const auto& x) { return sqrt_of(x); });
    case UnaryOp::Rsqrt: return unary_kernel<T, T>(out, in, [](const auto& x) { return T(1) / sqrt_of(x); });
    case UnaryOp::Tanh: return unary_kernel<T, T>(out, in, [](const auto& x) { return tanh_of(x); });
    case UnaryOp::Sigmoid: return unary_kernel<T, T>(out, in, [](const auto& x) { return sigmoid_of(x); });
    case UnaryOp::Erf: return unary_kernel<T, T>(out, in, [](const auto& x) { return erf_of(x); });
    case UnaryOp::Erfc: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::erfc(v); }); });
    // NB: the special functions compute in double (core/special_math.h, shared with CUDA).
    case UnaryOp::Erfinv:
      return in_double(special::erfinv);
    case UnaryOp::Lgamma: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::lgamma(v); }); });
    case UnaryOp::Digamma:
      return in_double(special::digamma);
    case UnaryOp::Polygamma: {
      const int n = static_cast<int>(p.a);
      return unary_kernel<T, T>(out, in, [n](const auto& x) {
        return x.unaryExpr([n](T v) { return T(special::polygamma(n, v)); });
      });
    }
    case UnaryOp::I0:
      return in_double(special::bessel_i0);
    case UnaryOp::I0e:
      return in_double(special::bessel_i0e);
    case UnaryOp::I1:
      return in_double(special::bessel_i1);
    case UnaryOp::I1e:
      return in_double(special::bessel_i1e);
    // NB: the rest of the trigonometric and hyperbolic family, and the rounding ops, through the
    // C library, elementwise: correctly rounded or within an ulp, where Eigen's packet versions
    // of some (tan, the inverses) are missing or looser.
    case UnaryOp::Sin: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::sin(v); }); });
    case UnaryOp::Cos: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::cos(v); }); });
    case UnaryOp::Tan: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::tan(v); }); });
    case UnaryOp::Asin: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::asin(v); }); });
    case UnaryOp::Acos: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::acos(v); }); });
    case UnaryOp::Atan: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::atan(v); }); });
    case UnaryOp::Sinh: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::sinh(v); }); });
    case UnaryOp::Cosh: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::cosh(v); }); });
    case UnaryOp::Asinh: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::asinh(v); }); });
    case UnaryOp::Acosh: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::acosh(v); }); });
    case UnaryOp::Atanh: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::atanh(v); }); });
    // NB: float through double, rounded once: glibc's log10f is up to 2 ulp off (PyTorch's 0.52), its
    // log2f, log1pf and expm1f 0.75
    case UnaryOp::Log1p: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return T(std::log1p(double(v))); }); });
    case UnaryOp::Expm1: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return T(std::expm1(double(v))); }); });
    case UnaryOp::Log2: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return T(std::log2(double(v))); }); });
    case UnaryOp::Log10: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return T(std::log10(double(v))); }); });
    case UnaryOp::Reciprocal: return unary_kernel<T, T>(out, in, [](const auto& x) { return T(1) / x; });
    case UnaryOp::Floor: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.floor(); });
    case UnaryOp::Ceil: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.ceil(); });
    case UnaryOp::Round: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::nearbyint(v); }); });
    case UnaryOp::Trunc: return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return std::trunc(v); }); });
    case UnaryOp::Frac: return unary_kernel<T, T>(out, in, [](const auto& x) { return x - x.unaryExpr([](T v) { return std::trunc(v); }); });
    case UnaryOp::Gelu:
      return unary_kernel<T, T>(out, in, [](const auto& x) { return gelu_of(x); });
    case UnaryOp::GeluTanh:
      return unary_kernel<T, T>(out, in, [](const auto& x) {
        constexpr T k = T(std::numbers::sqrt2 * std::numbers::inv_sqrtpi), c = T(0.044715);
        return T(0.5) * x * (T(1) + tanh_of(k * (x + c * x.cube())));
      });
    case UnaryOp::LeakyRelu: {
      const T slope = static_cast<T>(p.a);
      return unary_kernel<T, T>(out, in, [slope](const auto& x) { return (x > T(0)).select(x, x * slope); });
    }
    default:
      EMBER_CHECK_AS(NotImplementedError, false, detail::op_name(op), ": no CPU kernel for ",
                     out.dtype());
  }
}

void cpu_unary(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  visit_compute_dtype(out.dtype(), "unary", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      // Only sign (sign(b) = b) and bitwise_not are defined for bool; the ops refuse the rest first.
      EMBER_CHECK_TYPE(op == UnaryOp::Sign || op == UnaryOp::BitwiseNot, detail::op_name(op),
                       ": not supported for bool tensors");
      if (op == UnaryOp::BitwiseNot) return unary_kernel<T, T>(out, in, [](const auto& x) { return !x; });
      return unary_kernel<T, T>(out, in, [](const auto& x) { return x; });
    } else {
      switch (op) {
        case UnaryOp::BitwiseNot:
          if constexpr (std::is_integral_v<T>)
            return unary_kernel<T, T>(out, in, [](const auto& x) { return x.unaryExpr([](T v) { return static_cast<T>(~v); }); });
          EMBER_CHECK_TYPE(false, "bitwise_not: only integer and bool tensors, got ", out.dtype());
          return;
        case UnaryOp::Neg:
          // NB: -0 decides atan2, division by it, signbit (math.h, neg_of).
          if constexpr (std::is_floating_point_v<T>)
            return unary_kernel<T, T>(out, in, [](const auto& x) { return neg_of(x); });
          else
            return unary_kernel<T, T>(out, in, [](const auto& x) { return -x; });
        case UnaryOp::Abs:
          if constexpr (std::is_unsigned_v<T>) return unary_kernel<T, T>(out, in, [](const auto& x) { return x; });
          else return unary_kernel<T, T>(out, in, [](const auto& x) { return x.abs(); });
        case UnaryOp::Sign:
          // (x > 0) - (x < 0): 0 for NaN, as in PyTorch.
          return unary_kernel<T, T>(out, in, [](const auto& x) {
            return (x > T(0)).template cast<T>() - (x < T(0)).template cast<T>();
          });
        case UnaryOp::Relu:
          if constexpr (std::is_floating_point_v<T>)
            return unary_kernel<T, T>(out, in, [](const auto& x) { return clamp_below(x, T(0)); });
          else
            return unary_kernel<T, T>(out, in, [](const auto& x) { return x.max(T(0)); });
        case UnaryOp::Clamp:
        case UnaryOp::Hardtanh: return clamp<T>(out, in, p);
        case UnaryOp::PowScalar: return pow_scalar<T>(out, in, p.a);
        default:
          if constexpr (std::is_floating_point_v<T>) return floating_unary<T>(op, out, in, p);
          EMBER_CHECK_AS(NotImplementedError, false, detail::op_name(op), ": no CPU kernel for ",
                         out.dtype());
      }
    }
  });
}

// grad_in = grad * op'(saved); see ActivationBackwardFn for what `saved` holds.
void cpu_activation_backward(UnaryOp op, const Tensor& grad_in, const Tensor& grad, const Tensor& saved,
                             const UnaryParams& p) {
  visit_floating_dtype(grad_in.dtype(), "activation backward", [&]<typename T>(type_tag<T>) {
      auto run = [&](const auto& f) { binary_kernel<T, T>(grad_in, grad, saved, f); };
    switch (op) {
      case UnaryOp::Tanh: return run([](const auto& g, const auto& y) { return g * (T(1) - y.square()); });
      case UnaryOp::Sigmoid: return run([](const auto& g, const auto& y) { return g * y * (T(1) - y); });
      case UnaryOp::Relu: return run([](const auto& g, const auto& y) { return (y <= T(0)).select(T(0), g); });
      case UnaryOp::LeakyRelu: {
        const T slope = static_cast<T>(p.a);
        return run([slope](const auto& g, const auto& x) { return (x > T(0)).select(g, g * slope); });
      }
      case UnaryOp::Hardtanh: {
        const T lo = static_cast<T>(p.a), hi = static_cast<T>(p.b);
        return run([lo, hi](const auto& g, const auto& x) { return ((x <= lo) || (x >= hi)).select(T(0), g); });
      }
      case UnaryOp::Gelu:
        return run([](const auto& g, const auto& x) { return g.binaryExpr(x, GeluGradOf<T>()); });
      case UnaryOp::GeluTanh:
        return run([](const auto& g, const auto& x) {
          constexpr T k = T(std::numbers::sqrt2 * std::numbers::inv_sqrtpi), c = T(0.044715);
          // t is evaluated twice per element by the expression below; cheaper than a temporary.
          auto t = tanh_of(k * (x + c * x.cube()));
          return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t.square()) * k * (T(1) + T(3) * c * x.square()));
        });
      default:
        EMBER_CHECK_AS(NotImplementedError, false, detail::op_name(op),
                       ": no fused gradient kernel on the CPU");
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(unary_stub, DeviceType::CPU, (widened_elementwise<&cpu_unary, 1>));
EMBER_REGISTER_KERNEL(activation_backward_stub, DeviceType::CPU, (widened_elementwise<&cpu_activation_backward, 1>));

}  // namespace ember::cpu
