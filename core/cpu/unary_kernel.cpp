// CPU kernels for elementwise unary ops (ops/unary.h) and the fused activation gradients
// (ops/activation.h). The common floating ops are Eigen array expressions, vectorised on contiguous
// runs; every other op code runs the per-element math the CUDA kernels share (core/math/elementwise.h),
// so a new op needs no case here.
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
#include "ember/core/cpu/visit_op.h"
#include "ember/core/kernels/unary.h"
#include "ember/core/kernels/widen.h"
#include "ember/core/math/elementwise.h"

namespace ember::cpu {
namespace {

using elementwise::math::int_pow;
using elementwise::math::saturate;

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

// op(x) for one op code, known at compile time (visit_op): an Eigen expression for the ops that
// vectorise or need more than one value's math, elementwise::unary_op one value at a time for every
// other op code (the special functions in double, rounded once; the trigonometric, hyperbolic and
// rounding ops through the C library, correctly rounded or within an ulp, where Eigen's packets of
// some are missing or looser). Integer inputs of floating-only ops were converted to float32 by the op.
template <typename T, UnaryOp c>
void unary_for(const Tensor& out, const Tensor& in, const UnaryParams& p) {
  constexpr bool floating = std::is_floating_point_v<T>;
  const auto run = [&](const auto& f) { unary_kernel<T, T>(out, in, f); };
  if constexpr (std::is_same_v<T, bool>) {
    // Only sign (sign(b) = b) and bitwise_not are defined for bool; the ops refuse the rest first.
    if constexpr (c == UnaryOp::BitwiseNot)
      run([](const auto& x) { return !x; });
    else if constexpr (c == UnaryOp::Sign)
      run([](const auto& x) { return x; });
    else
      EMBER_CHECK_TYPE(false, detail::op_name(c), ": not supported for bool tensors");
  } else if constexpr (c == UnaryOp::BitwiseNot && floating) {
    EMBER_CHECK_TYPE(false, "bitwise_not: only integer and bool tensors, got ", out.dtype());
  } else if constexpr (c == UnaryOp::Neg) {
    // NB: -0 decides atan2, division by it, signbit (math.h, neg_of).
    if constexpr (floating)
      run([](const auto& x) { return neg_of(x); });
    else
      run([](const auto& x) { return -x; });
  } else if constexpr (c == UnaryOp::Abs) {
    if constexpr (std::is_unsigned_v<T>)
      run([](const auto& x) { return x; });
    else
      run([](const auto& x) { return x.abs(); });
  } else if constexpr (c == UnaryOp::Sign) {
    // (x > 0) - (x < 0): 0 for NaN, as in PyTorch.
    run([](const auto& x) { return (x > T(0)).template cast<T>() - (x < T(0)).template cast<T>(); });
  } else if constexpr (c == UnaryOp::Relu) {
    if constexpr (floating)
      run([](const auto& x) { return clamp_below(x, T(0)); });
    else
      run([](const auto& x) { return x.max(T(0)); });
  } else if constexpr (c == UnaryOp::Clamp || c == UnaryOp::Hardtanh) {
    clamp<T>(out, in, p);
  } else if constexpr (c == UnaryOp::PowScalar) {
    pow_scalar<T>(out, in, p.a);
  } else if constexpr (floating && c == UnaryOp::Exp) {
    run([](const auto& x) { return exp_of(x); });
  } else if constexpr (floating && c == UnaryOp::Log) {
    run([](const auto& x) { return log_of(x); });
  } else if constexpr (floating && c == UnaryOp::Sqrt) {
    run([](const auto& x) { return sqrt_of(x); });
  } else if constexpr (floating && c == UnaryOp::Rsqrt) {
    run([](const auto& x) { return T(1) / sqrt_of(x); });
  } else if constexpr (floating && c == UnaryOp::Tanh) {
    run([](const auto& x) { return tanh_of(x); });
  } else if constexpr (floating && c == UnaryOp::Sigmoid) {
    run([](const auto& x) { return sigmoid_of(x); });
  } else if constexpr (floating && c == UnaryOp::Erf) {
    run([](const auto& x) { return erf_of(x); });
  } else if constexpr (floating &&
                       (c == UnaryOp::Log1p || c == UnaryOp::Expm1 || c == UnaryOp::Log2 || c == UnaryOp::Log10)) {
    // NB: float through double, rounded once: glibc's log10f is up to 2 ulp off (PyTorch's 0.52), its
    // log2f, log1pf and expm1f 0.75
    run([](const auto& x) {
      return x.unaryExpr([](T v) { return T(elementwise::unary_op<double>(c, double(v), {})); });
    });
  } else if constexpr (floating && c == UnaryOp::Reciprocal) {
    run([](const auto& x) { return T(1) / x; });
  } else if constexpr (floating && c == UnaryOp::Floor) {
    run([](const auto& x) { return x.floor(); });
  } else if constexpr (floating && c == UnaryOp::Ceil) {
    run([](const auto& x) { return x.ceil(); });
  } else if constexpr (floating && (c == UnaryOp::Round || c == UnaryOp::Trunc || c == UnaryOp::Frac)) {
    // NB: the per-value math, as a lambda of its own: GCC vectorises these (vroundps) where it does
    // not see through elementwise::unary_op's switch
    const auto f = [](T v) {
      if constexpr (c == UnaryOp::Round)
        return std::nearbyint(v);  // halves to even
      else if constexpr (c == UnaryOp::Trunc)
        return std::trunc(v);
      else
        return v - std::trunc(v);
    };
    run([f](const auto& x) { return x.unaryExpr(f); });
  } else if constexpr (floating && c == UnaryOp::Gelu) {
    run([](const auto& x) { return gelu_of(x); });
  } else if constexpr (floating && c == UnaryOp::GeluTanh) {
    run([](const auto& x) {
      constexpr T k = T(std::numbers::sqrt2 * std::numbers::inv_sqrtpi), s = T(0.044715);
      return T(0.5) * x * (T(1) + tanh_of(k * (x + s * x.cube())));
    });
  } else if constexpr (floating && c == UnaryOp::LeakyRelu) {
    const T slope = static_cast<T>(p.a);
    run([slope](const auto& x) { return (x > T(0)).select(x, x * slope); });
  } else if constexpr (elementwise::unary_defined(c, floating, false)) {
    const elementwise::UnaryArgs args{p.a, p.b, p.has_a, p.has_b};
    run([args](const auto& x) { return x.unaryExpr([args](T v) { return elementwise::unary_op<T>(c, v, args); }); });
  } else {
    EMBER_CHECK_AS(NotImplementedError, false, detail::op_name(c), ": no CPU kernel for ", out.dtype());
  }
}

void cpu_unary(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  visit_compute_dtype(out.dtype(), "unary", [&]<typename T>(type_tag<T>) {
    visit_op(op, [&](auto code) { unary_for<T, decltype(code)::value>(out, in, p); });
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
