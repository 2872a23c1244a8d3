#pragma once
// The math of every elementwise op code on one value, shared by the CPU and CUDA kernels: unary ops
// (UnaryOp), binary arithmetic (BinaryOp), comparisons (CompareOp) and the fused activation
// gradients: NaN-propagating maximum, minimum, relu and clamp, sign(NaN) = 0, Python's remainder,
// C's fmod, integer powers by squaring, exp flushed to 0 below the smallest normal number. The CUDA
// kernels apply these per element; the CPU kernels (core/cpu/unary_kernel.cpp, binary_kernel.cpp)
// apply them to every op code they have no vectorised Eigen expression for, and tests/cuda checks
// every op code here against the CPU kernels on the host.
//
// NB: a new op code needs its case here, in both the math and the *_defined table; that is its
// kernel on every device (tutorials/adding_an_op.md).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/core/host_device.h"
#include "ember/core/kernels/op_codes.h"
#include "ember/core/math/integer.h"
#include "ember/core/math/special.h"

namespace ember::elementwise {

/// UnaryParams (core/kernels/unary.h) as a plain struct: LeakyRelu slope (a), Clamp and Hardtanh
/// bounds, PowScalar exponent (a).
struct UnaryArgs {
  double a = 0, b = 0;
  bool has_a = false, has_b = false;
};

namespace math {

template <typename T>
inline constexpr bool kFloating = std::is_floating_point_v<T>;

template <typename T>
EMBER_HOST_DEVICE inline bool is_nan(T x) {
  if constexpr (kFloating<T>)
    return x != x;
  else
    return false;
}

/// max / min where a NaN on either side wins (torch.maximum, relu, clamp).
template <typename T>
EMBER_HOST_DEVICE inline T max_nan(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a > b ? a : b;
}
template <typename T>
EMBER_HOST_DEVICE inline T min_nan(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a < b ? a : b;
}

/// exp, as exp(x/2)^2 where the result is not a normal number (core/cpu/math.h's FullRangeExp): the
/// same subnormals, and 0 for -inf.
template <typename T>
EMBER_HOST_DEVICE inline T full_range_exp(T x) {
  const T cutoff = std::is_same_v<T, float> ? T(-87.33654475f) : T(-708.3964185322641);
  if (x < cutoff) {
    const T half = std::exp(x * T(0.5));
    return half * half;
  }
  return std::exp(x);
}

/// v saturated into T's range (a clamp bound outside an integer type's range).
template <typename T>
EMBER_HOST_DEVICE inline T saturate(double v) {
  if constexpr (kFloating<T>) {
    return static_cast<T>(v);
  } else {
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

using integer::wrapping_mul;

/// x^e by squaring, wrapping like the CPU's integer arithmetic.
template <typename T>
EMBER_HOST_DEVICE inline T int_pow(T x, int64_t e) {
  T result = 1;
  while (e) {
    if (e & 1) result = wrapping_mul(result, x);
    x = wrapping_mul(x, x);
    e >>= 1;
  }
  return result;
}

// The constants of gelu: 1/sqrt(2), sqrt(2/pi), 1/sqrt(2 pi).
inline constexpr double kInvSqrt2 = 0.70710678118654752440;
inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;
inline constexpr double kGeluTanhC = 0.044715;

}  // namespace math

/// Whether unary_op defines `op` for a dtype: floating ones take every op code, integers the
/// arithmetic ones, bool only sign. The kernels check this on the host before launching.
constexpr bool unary_defined(UnaryOp op, bool floating, bool is_bool) {
  if (is_bool) return op == UnaryOp::Sign || op == UnaryOp::BitwiseNot;
  switch (op) {
    case UnaryOp::BitwiseNot: return !floating;
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Sign:
    case UnaryOp::Relu:
    case UnaryOp::Clamp:
    case UnaryOp::PowScalar: return true;
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Erf:
    case UnaryOp::Erfc:
    case UnaryOp::Erfinv:
    case UnaryOp::Lgamma:
    case UnaryOp::Digamma:
    case UnaryOp::Polygamma:
    case UnaryOp::I0:
    case UnaryOp::I0e:
    case UnaryOp::I1:
    case UnaryOp::I1e:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tan:
    case UnaryOp::Asin:
    case UnaryOp::Acos:
    case UnaryOp::Atan:
    case UnaryOp::Sinh:
    case UnaryOp::Cosh:
    case UnaryOp::Asinh:
    case UnaryOp::Acosh:
    case UnaryOp::Atanh:
    case UnaryOp::Log1p:
    case UnaryOp::Expm1:
    case UnaryOp::Log2:
    case UnaryOp::Log10:
    case UnaryOp::Reciprocal:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
    case UnaryOp::Frac:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh:
    case UnaryOp::LeakyRelu:
    case UnaryOp::Hardtanh: return floating;
    default: return false;  // an op code without a case here: no CUDA kernel (a test says so)
  }
}

/// Whether `op` is sin, cos or tan: in double, CUDA's accurate argument reduction keeps a table in
/// local memory, so the kernels compile those three apart (cuda/kernels/elementwise_trig.cu).
constexpr bool is_trig(UnaryOp op) { return op == UnaryOp::Sin || op == UnaryOp::Cos || op == UnaryOp::Tan; }

/// Whether `op` is one of the special functions (core/math/special.h): loops and series in double
/// that would raise the register count of the one kernel every unary op shares, so the kernels
/// compile them apart too (cuda/kernels/elementwise_special.cu).
constexpr bool is_special(UnaryOp op) {
  return op == UnaryOp::Erfinv || op == UnaryOp::Lgamma || op == UnaryOp::Digamma || op == UnaryOp::Polygamma ||
         op == UnaryOp::I0 || op == UnaryOp::I0e || op == UnaryOp::I1 || op == UnaryOp::I1e;
}

/// A special function (is_special) of x; p.a is polygamma's order.
template <typename T>
EMBER_HOST_DEVICE inline T special_op(UnaryOp op, T x, const UnaryArgs& p) {
  switch (op) {
    case UnaryOp::Erfinv: return static_cast<T>(special::erfinv(x));
    case UnaryOp::Lgamma: return std::lgamma(x);
    case UnaryOp::Digamma: return static_cast<T>(special::digamma(x));
    case UnaryOp::I0:
      return static_cast<T>(special::bessel_i0(x));
    case UnaryOp::I0e:
      return static_cast<T>(special::bessel_i0e(x));
    case UnaryOp::I1:
      return static_cast<T>(special::bessel_i1(x));
    case UnaryOp::I1e:
      return static_cast<T>(special::bessel_i1e(x));
    default: return static_cast<T>(special::polygamma(static_cast<int>(p.a), x));
  }
}

/// op(x) for an op unary_defined allows for T. With Apart false, the ops the kernels compile apart
/// (is_trig, is_special) are left out (the caller handles them) and return x.
template <typename T, bool Apart = true>
EMBER_HOST_DEVICE inline T unary_op(UnaryOp op, T x, const UnaryArgs& p) {
  using namespace math;
  if constexpr (std::is_same_v<T, bool>) {
    return op == UnaryOp::BitwiseNot ? !x : x;  // sign(b) = b
  } else {
    if constexpr (kFloating<T> && Apart)
      if (is_special(op)) return special_op(op, x, p);
    switch (op) {
      case UnaryOp::BitwiseNot:
        if constexpr (kFloating<T>) return x;  // unreachable: unary_defined refuses floats
        else return static_cast<T>(~x);
      case UnaryOp::Neg: return static_cast<T>(-x);
      case UnaryOp::Abs:
        if constexpr (std::is_unsigned_v<T>) return x;
        else return x < T(0) ? static_cast<T>(-x) : x;
      case UnaryOp::Sign:
        if constexpr (std::is_unsigned_v<T>) return T(x > T(0));
        else return static_cast<T>(T(x > T(0)) - T(x < T(0)));
      case UnaryOp::Relu:
        if constexpr (kFloating<T>) return max_nan(x, T(0));
        else return x > T(0) ? x : T(0);
      case UnaryOp::Clamp:
      case UnaryOp::Hardtanh: {
        if constexpr (kFloating<T>) {
          if (p.has_a) x = max_nan(x, saturate<T>(p.a));
          if (p.has_b) x = min_nan(x, saturate<T>(p.b));
          return x;
        } else {
          const T lo = p.has_a ? saturate<T>(p.a) : std::numeric_limits<T>::lowest();
          const T hi = p.has_b ? saturate<T>(p.b) : std::numeric_limits<T>::max();
          x = x > lo ? x : lo;
          return x < hi ? x : hi;
        }
      }
      case UnaryOp::PowScalar: {
        if constexpr (kFloating<T>) {
          // The CPU's exact shortcuts for the common exponents, pow for the rest.
          const double e = p.a;
          if (e == 2) return x * x;
          if (e == 3) return x * x * x;
          if (e == 1) return x;
          if (e == 0.5) return std::sqrt(x);
          if (e == -0.5) return T(1) / std::sqrt(x);
          if (e == -1) return T(1) / x;
          if (e == -2) return T(1) / (x * x);
          return std::pow(x, static_cast<T>(e));
        } else {
          return int_pow<T>(x, static_cast<int64_t>(p.a));
        }
      }
      default: break;
    }
    if constexpr (kFloating<T>) {
      switch (op) {
        case UnaryOp::Exp: return full_range_exp(x);
        case UnaryOp::Log: return std::log(x);
        case UnaryOp::Sqrt: return std::sqrt(x);
        case UnaryOp::Rsqrt: return T(1) / std::sqrt(x);
        case UnaryOp::Erf: return std::erf(x);
        case UnaryOp::Erfc: return std::erfc(x);
        case UnaryOp::Sin:
          if constexpr (Apart) return std::sin(x);
          else return x;
        case UnaryOp::Cos:
          if constexpr (Apart) return std::cos(x);
          else return x;
        case UnaryOp::Tan:
          if constexpr (Apart) return std::tan(x);
          else return x;
        case UnaryOp::Asin: return std::asin(x);
        case UnaryOp::Acos: return std::acos(x);
        case UnaryOp::Atan: return std::atan(x);
        case UnaryOp::Sinh: return std::sinh(x);
        case UnaryOp::Cosh: return std::cosh(x);
        case UnaryOp::Asinh: return std::asinh(x);
        case UnaryOp::Acosh: return std::acosh(x);
        case UnaryOp::Atanh: return std::atanh(x);
        case UnaryOp::Log1p: return std::log1p(x);
        case UnaryOp::Expm1: return std::expm1(x);
        case UnaryOp::Log2: return std::log2(x);
        case UnaryOp::Log10: return std::log10(x);
        case UnaryOp::Reciprocal: return T(1) / x;
        case UnaryOp::Floor: return std::floor(x);
        case UnaryOp::Ceil: return std::ceil(x);
        case UnaryOp::Round: return std::nearbyint(x);  // halves to even
        case UnaryOp::Trunc: return std::trunc(x);
        case UnaryOp::Frac: return x - std::trunc(x);
        case UnaryOp::Tanh: return std::tanh(x);
        case UnaryOp::Sigmoid: return T(1) / (T(1) + std::exp(-x));
        case UnaryOp::Gelu: return T(0.5) * x * (T(1) + std::erf(x * T(kInvSqrt2)));
        case UnaryOp::GeluTanh:
          return T(0.5) * x * (T(1) + std::tanh(T(kSqrt2OverPi) * (x + T(kGeluTanhC) * x * x * x)));
        case UnaryOp::LeakyRelu: return x > T(0) ? x : x * static_cast<T>(p.a);
        default: break;
      }
    }
    return x;  // unreachable for ops unary_defined allows
  }
}

/// Whether activation_backward_op has a fused gradient for `op` (floating dtypes only).
constexpr bool activation_backward_defined(UnaryOp op) {
  switch (op) {
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Relu:
    case UnaryOp::LeakyRelu:
    case UnaryOp::Hardtanh:
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh: return true;
    default: return false;
  }
}

/// grad * op'(saved): `saved` is the op's output for Tanh, Sigmoid and Relu, its input for the
/// rest (ActivationBackwardFn); `a` is LeakyRelu's slope or Hardtanh's lower bound, `b` its upper.
template <typename T>
EMBER_HOST_DEVICE inline T activation_backward_op(UnaryOp op, T g, T s, T a, T b) {
  using namespace math;
  switch (op) {
    case UnaryOp::Tanh: return g * (T(1) - s * s);
    case UnaryOp::Sigmoid: return g * s * (T(1) - s);
    case UnaryOp::Relu: return s <= T(0) ? T(0) : g;  // a NaN passes it, as on the CPU
    case UnaryOp::LeakyRelu: return s > T(0) ? g : g * a;
    case UnaryOp::Hardtanh: return s <= a || s >= b ? T(0) : g;
    case UnaryOp::Gelu:
      return g * (T(0.5) * (T(1) + std::erf(s * T(kInvSqrt2))) +
                  s * T(kInvSqrt2Pi) * full_range_exp(T(-0.5) * s * s));
    case UnaryOp::GeluTanh: {
      const T k = T(kSqrt2OverPi), c = T(kGeluTanhC);
      const T t = std::tanh(k * (s + c * s * s * s));
      return g * (T(0.5) * (T(1) + t) + T(0.5) * s * (T(1) - t * t) * k * (T(1) + T(3) * c * s * s));
    }
    default: return g;  // unreachable for ops activation_backward_defined allows
  }
}

/// Whether binary_op defines `op` for a dtype: bool has add/maximum (or), mul/minimum (and) and
/// the bitwise and/or/xor; atan2 wants a floating dtype, the bitwise ops an integer one.
constexpr bool binary_defined(BinaryOp op, bool floating, bool is_bool) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Mul:
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: return true;
    case BinaryOp::Sub:
    case BinaryOp::Div:
    case BinaryOp::Pow:
    case BinaryOp::Remainder:
    case BinaryOp::Fmod:
    case BinaryOp::FloorDivide: return !is_bool;
    case BinaryOp::Atan2:
    case BinaryOp::Igamma:
    case BinaryOp::Igammac: return floating;
    case BinaryOp::BitwiseAnd:
    case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor: return !floating;
    case BinaryOp::LeftShift:
    case BinaryOp::RightShift: return !floating && !is_bool;
    default: return false;
  }
}

/// Whether `op` on an integer dtype divides (and so must refuse a zero divisor).
constexpr bool binary_divides(BinaryOp op) {
  return op == BinaryOp::Div || op == BinaryOp::Remainder || op == BinaryOp::Fmod || op == BinaryOp::FloorDivide;
}

namespace math {

// C's fmod for integers: the sign of the dividend (q != 0).
template <typename T>
EMBER_HOST_DEVICE inline T int_fmod(T p, T q) {
  if constexpr (std::is_signed_v<T>)
    if (q == T(-1)) return 0;  // NB: lowest() % -1 overflows
  return static_cast<T>(p % q);
}

// Integer power with PyTorch's rule for negative exponents (0 except for bases 1 and -1).
template <typename T>
EMBER_HOST_DEVICE inline T int_pow_signed(T x, T y) {
  if constexpr (std::is_signed_v<T>)
    if (y < 0) return x == 1 ? T(1) : (x == static_cast<T>(-1) ? (y % 2 ? x : T(1)) : T(0));
  return int_pow<T>(x, static_cast<int64_t>(y));
}

// Python's // for integers (q != 0): C's quotient, one less where it was rounded up.
template <typename T>
EMBER_HOST_DEVICE inline T int_floor_divide(T p, T q) {
  if constexpr (std::is_signed_v<T>) {
    if (q == T(-1)) return wrapping_mul(p, q);  // NB: lowest() / -1 overflows
    const T d = static_cast<T>(p / q);
    return (p % q != 0 && ((p < 0) != (q < 0))) ? static_cast<T>(d - 1) : d;
  } else {
    return static_cast<T>(p / q);
  }
}

// Python's // for floats, as PyTorch's div_floor (core/cpu/binary_kernel.cpp's floor_divide_of).
template <typename T>
EMBER_HOST_DEVICE inline T float_floor_divide(T p, T q) {
  if (q == 0) return p / q;
  const T mod = std::fmod(p, q);
  T div = (p - mod) / q;
  if (mod != 0 && ((q < 0) != (mod < 0))) div -= 1;
  if (div == 0) return std::copysign(T(0), p / q);
  T floor_div = std::floor(div);
  if (div - floor_div > T(0.5)) floor_div += 1;
  return floor_div;
}

}  // namespace math

/// Whether `op` is a special function of two arguments (core/math/special.h): compiled apart from
/// the other binary ops, as the unary ones are (cuda/kernels/elementwise_special.cu).
constexpr bool is_special(BinaryOp op) { return op == BinaryOp::Igamma || op == BinaryOp::Igammac; }

/// A special function (is_special) of x and y, in double and rounded once.
template <typename T>
EMBER_HOST_DEVICE inline T special_op(BinaryOp op, T x, T y) {
  return static_cast<T>(special::gammainc(x, y, op == BinaryOp::Igammac));
}

/// x op y for an op binary_defined allows; for integer division ops, y != 0 (the kernel reports a
/// zero divisor instead of calling this). With Apart false, the special functions are left out
/// (the caller launches them apart) and return x.
template <typename T, bool Apart = true>
EMBER_HOST_DEVICE inline T binary_op(BinaryOp op, T x, T y) {
  using namespace math;
  if constexpr (std::is_same_v<T, bool>) {
    if (op == BinaryOp::BitwiseXor) return x != y;
    return (op == BinaryOp::Add || op == BinaryOp::Maximum || op == BinaryOp::BitwiseOr) ? (x || y) : (x && y);
  } else {
    if constexpr (kFloating<T> && Apart)
      if (is_special(op)) return special_op(op, x, y);
    switch (op) {
      case BinaryOp::Add: return static_cast<T>(x + y);
      case BinaryOp::Sub: return static_cast<T>(x - y);
      case BinaryOp::Mul: return static_cast<T>(x * y);
      case BinaryOp::Div: return static_cast<T>(x / y);
      case BinaryOp::Maximum: return max_nan(x, y);
      case BinaryOp::Minimum: return min_nan(x, y);
      case BinaryOp::Pow:
        if constexpr (kFloating<T>) return std::pow(x, y);
        else return int_pow_signed(x, y);
      case BinaryOp::Fmod:
        if constexpr (kFloating<T>) return std::fmod(x, y);
        else return int_fmod(x, y);
      case BinaryOp::Remainder: {
        // Python's %: fmod, shifted by y where the signs differ.
        T r;
        if constexpr (kFloating<T>) r = std::fmod(x, y);
        else r = int_fmod(x, y);
        if constexpr (std::is_signed_v<T> || kFloating<T>)
          if (r != 0 && ((y < 0) != (r < 0))) r = static_cast<T>(r + y);
        return r;
      }
      case BinaryOp::FloorDivide:
        if constexpr (kFloating<T>) return float_floor_divide(x, y);
        else return int_floor_divide(x, y);
      case BinaryOp::Atan2:
        if constexpr (kFloating<T>) return std::atan2(x, y);
        else return x;  // unreachable: binary_defined refuses integers
      default: break;
    }
    if constexpr (!kFloating<T>) {
      switch (op) {
        case BinaryOp::BitwiseAnd: return static_cast<T>(x & y);
        case BinaryOp::BitwiseOr: return static_cast<T>(x | y);
        case BinaryOp::BitwiseXor: return static_cast<T>(x ^ y);
        case BinaryOp::LeftShift: return integer::shift_left(x, y);
        case BinaryOp::RightShift: return integer::shift_right(x, y);
        default: break;
      }
    }
    return x;  // unreachable for ops binary_defined allows
  }
}

/// Whether compare_op has `op` (every dtype).
constexpr bool compare_defined(CompareOp op) {
  switch (op) {
    case CompareOp::Eq:
    case CompareOp::Ne:
    case CompareOp::Lt:
    case CompareOp::Le:
    case CompareOp::Gt:
    case CompareOp::Ge:
    case CompareOp::LogicalAnd:
    case CompareOp::LogicalOr: return true;
    default: return false;
  }
}

/// x op y as a bool; the logical ops treat nonzero (and NaN) as true.
template <typename T>
EMBER_HOST_DEVICE inline bool compare_op(CompareOp op, T x, T y) {
  switch (op) {
    case CompareOp::Eq: return x == y;
    case CompareOp::Ne: return x != y;
    case CompareOp::Lt: return x < y;
    case CompareOp::Le: return x <= y;
    case CompareOp::Gt: return x > y;
    case CompareOp::Ge: return x >= y;
    case CompareOp::LogicalAnd: return (x != T(0)) && (y != T(0));
    case CompareOp::LogicalOr: return (x != T(0)) || (y != T(0));
    default: return false;
  }
}

}  // namespace ember::elementwise
