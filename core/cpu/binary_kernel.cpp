// CPU kernels for elementwise binary arithmetic (ops/binary.h).
// NB: GCC 12 flags Eigen's AVX-512 min/max/pow/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <cmath>

#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/math.h"
#include "ember/core/integer_math.h"
#include "ember/core/kernels/binary.h"
#include "ember/core/kernels/widen.h"
#include "ember/core/special_math.h"

namespace ember::cpu {

// a + alpha * b in one rounding where packets have a fused multiply-add; the scalar tail rounds as
// the packets do, so that a value's result never depends on where it sits.
template <typename T>
struct AddScaledOf {
  T alpha;
  T operator()(const T& a, const T& b) const {
#ifdef EIGEN_VECTORIZE_FMA
    return std::fma(alpha, b, a);
#else
    return a + alpha * b;
#endif
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return Eigen::internal::pmadd(Eigen::internal::pset1<Packet>(alpha), b, a);
  }
};

}  // namespace ember::cpu

template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::AddScaledOf<T>> {
  enum { Cost = NumTraits<T>::MulCost + NumTraits<T>::AddCost, PacketAccess = true };
};

namespace ember::cpu {
namespace {

template <typename T>
T pow_scalar(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(x, y);
  } else {
    // Integer power by squaring; negative exponents give 0 except for bases 1 and -1 (PyTorch).
    if (y < 0) return x == 1 ? T(1) : (x == static_cast<T>(-1) ? (y % 2 ? x : T(1)) : T(0));
    T result = 1;
    while (y) {
      if (y & 1) result = wrapping_mul(result, x);
      x = wrapping_mul(x, x);
      y = static_cast<T>(y >> 1);
    }
    return result;
  }
}

// C's fmod: the sign of the dividend. Integer division by zero is an error, as in PyTorch.
template <typename T>
T fmod_of(T p, T q) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(p, q);
  } else {
    EMBER_CHECK_VALUE(q != 0, "fmod: integer division by zero");
    if constexpr (std::is_signed_v<T>)
      if (q == -1) return 0;  // NB: lowest() % -1 overflows in C++
    return static_cast<T>(p % q);
  }
}

// Python's %: the sign of the divisor (fmod, then shifted by q where the signs differ).
template <typename T>
T remainder_of(T p, T q) {
  if constexpr (std::is_integral_v<T>) {
    EMBER_CHECK_VALUE(q != 0, "remainder: integer division by zero");
  }
  T r = fmod_of<T>(p, q);
  if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
    if (r != 0 && ((q < 0) != (r < 0))) r = static_cast<T>(r + q);
  return r;
}

// Python's //: floor(p / q). Integers: C's quotient, one less where it was rounded up (signs
// differ, not exact). Floats as PyTorch's div_floor: (p - fmod(p, q)) / q is exact, then the same
// correction, and a quotient that rounding left just below an integer is rounded to it.
template <typename T>
T floor_divide_of(T p, T q) {
  if constexpr (std::is_integral_v<T>) {
    EMBER_CHECK_VALUE(q != 0, "floor_divide: integer division by zero");
    if constexpr (std::is_signed_v<T>) {
      if (q == -1) return wrapping_mul(p, q);  // NB: lowest() / -1 overflows in C++
      const T d = static_cast<T>(p / q);
      return (p % q != 0 && ((p < 0) != (q < 0))) ? static_cast<T>(d - 1) : d;
    } else {
      return static_cast<T>(p / q);
    }
  } else {
    if (q == 0) return p / q;
    const T mod = std::fmod(p, q);
    T div = (p - mod) / q;
    if (mod != 0 && ((q < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), p / q);
    T floor_div = std::floor(div);
    if (div - floor_div > T(0.5)) floor_div += 1;
    return floor_div;
  }
}

// maximum/minimum propagate NaN (PyTorch); Eigen's vectorised max/min do when asked to.
template <typename T>
constexpr int kNaN = std::is_floating_point_v<T> ? Eigen::PropagateNaN : Eigen::PropagateFast;

void cpu_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  visit_compute_dtype(out.dtype(), "binary", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      // bool arithmetic: + is or, * is and (PyTorch semantics); the rest are not defined.
      switch (op) {
        case BinaryOp::Add:
        case BinaryOp::Maximum:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x || y; });
        case BinaryOp::Mul:
        case BinaryOp::Minimum:
        case BinaryOp::BitwiseAnd:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x && y; });
        case BinaryOp::BitwiseOr:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x || y; });
        case BinaryOp::BitwiseXor:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x != y; });
        default:
          EMBER_CHECK_TYPE(false, detail::op_name(op), ": not defined for bool tensors");
      }
    } else {
      switch (op) {
        case BinaryOp::Add:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x + y; });
        case BinaryOp::Sub:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x - y; });
        case BinaryOp::Mul:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x * y; });
        case BinaryOp::Div:
          if constexpr (std::is_integral_v<T>) {
            return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
              return x.binaryExpr(y, [](T p, T q) {
                EMBER_CHECK_VALUE(q != 0, "div: integer division by zero");
                return static_cast<T>(p / q);
              });
            });
          } else {
            return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return x / y; });
          }
        case BinaryOp::Pow:
          if constexpr (std::is_floating_point_v<T>)
            return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) { return pow_of(x, y); });
          else
            return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
              return x.binaryExpr(y, [](T p, T q) { return pow_scalar<T>(p, q); });
            });
        case BinaryOp::Maximum:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
            return x.binaryExpr(y, Eigen::internal::scalar_max_op<T, T, kNaN<T>>());
          });
        case BinaryOp::Minimum:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
            return x.binaryExpr(y, Eigen::internal::scalar_min_op<T, T, kNaN<T>>());
          });
        case BinaryOp::Remainder:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
            return x.binaryExpr(y, [](T p, T q) { return remainder_of<T>(p, q); });
          });
        case BinaryOp::Fmod:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
            return x.binaryExpr(y, [](T p, T q) { return fmod_of<T>(p, q); });
          });
        case BinaryOp::FloorDivide:
          return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
            return x.binaryExpr(y, [](T p, T q) { return floor_divide_of<T>(p, q); });
          });
        case BinaryOp::BitwiseAnd:
        case BinaryOp::BitwiseOr:
        case BinaryOp::BitwiseXor:
        case BinaryOp::LeftShift:
        case BinaryOp::RightShift:
          if constexpr (std::is_integral_v<T>) {
            return binary_kernel<T, T>(out, a, b, [op](const auto& x, const auto& y) {
              return x.binaryExpr(y, [op](T p, T q) {
                switch (op) {
                  case BinaryOp::BitwiseAnd: return static_cast<T>(p & q);
                  case BinaryOp::BitwiseOr: return static_cast<T>(p | q);
                  case BinaryOp::BitwiseXor: return static_cast<T>(p ^ q);
                  case BinaryOp::LeftShift: return integer::shift_left<T>(p, q);
                  default: return integer::shift_right<T>(p, q);
                }
              });
            });
          } else {
            EMBER_CHECK_TYPE(false, detail::op_name(op), ": only integer and bool tensors, got ", out.dtype());
            return;
          }
        case BinaryOp::Igamma:
        case BinaryOp::Igammac:
          if constexpr (std::is_floating_point_v<T>) {
            // NB: in double (core/special_math.h, shared with CUDA), rounded once
            const bool upper = op == BinaryOp::Igammac;
            return binary_kernel<T, T>(out, a, b, [upper](const auto& x, const auto& y) {
              return x.binaryExpr(y, [upper](T p, T q) { return static_cast<T>(special::gammainc(p, q, upper)); });
            });
          } else {
            EMBER_CHECK_TYPE(false, detail::op_name(op), ": integer inputs are refused; got ", out.dtype());
            return;
          }
        case BinaryOp::Atan2:
          if constexpr (std::is_floating_point_v<T>)
            return binary_kernel<T, T>(out, a, b, [](const auto& x, const auto& y) {
              return x.binaryExpr(y, [](T p, T q) { return std::atan2(p, q); });
            });
          else
            EMBER_CHECK_TYPE(false, "atan2: integer inputs compute in float32; got ", out.dtype());
      }
    }
  });
}

void cpu_add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha) {
  visit_compute_dtype(out.dtype(), "add", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_floating_point_v<T>)
      binary_kernel<T, T>(out, a, b, [f = AddScaledOf<T>{static_cast<T>(alpha)}](const auto& x, const auto& y) {
        return x.binaryExpr(y, f);
      });
    else
      EMBER_INTERNAL_ASSERT(false, "add: a scaled sum of ", out.dtype(), " tensors");
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(binary_stub, DeviceType::CPU, (widened_elementwise<&cpu_binary, 1>));
EMBER_REGISTER_KERNEL(add_scaled_stub, DeviceType::CPU, (widened_elementwise<&cpu_add_scaled, 0>));

}  // namespace ember::cpu

bool ember::cpu_add_scaled_rounds_once() {
#ifdef EIGEN_VECTORIZE_FMA
  return true;
#else
  return false;
#endif
}
