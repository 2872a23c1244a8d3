// CPU kernels for elementwise binary arithmetic (ops/binary.h): Eigen array expressions for the
// arithmetic that vectorises, the per-element math the CUDA kernels share (core/math/elementwise.h)
// for every other op code, so a new op needs no case here.
// NB: GCC 12 flags Eigen's AVX-512 min/max/pow/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <cmath>

#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/math.h"
#include "ember/core/cpu/visit_op.h"
#include "ember/core/kernels/binary.h"
#include "ember/core/kernels/widen.h"
#include "ember/core/math/elementwise.h"

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

// maximum/minimum propagate NaN (PyTorch); Eigen's vectorised max/min do when asked to.
template <typename T>
constexpr int kNaN = std::is_floating_point_v<T> ? Eigen::PropagateNaN : Eigen::PropagateFast;

// a op b for one op code, known at compile time (visit_op): an Eigen expression for the arithmetic
// that vectorises, elementwise::binary_op one pair at a time for every other op code. An integer
// division by zero is an error, as in PyTorch.
template <typename T, BinaryOp c>
void binary_for(const Tensor& out, const Tensor& a, const Tensor& b) {
  constexpr bool floating = std::is_floating_point_v<T>;
  const auto run = [&](const auto& f) { binary_kernel<T, T>(out, a, b, f); };
  if constexpr (std::is_same_v<T, bool>) {
    // bool arithmetic: + is or, * is and (PyTorch semantics); the rest are not defined.
    if constexpr (c == BinaryOp::Add || c == BinaryOp::Maximum || c == BinaryOp::BitwiseOr)
      run([](const auto& x, const auto& y) { return x || y; });
    else if constexpr (c == BinaryOp::Mul || c == BinaryOp::Minimum || c == BinaryOp::BitwiseAnd)
      run([](const auto& x, const auto& y) { return x && y; });
    else if constexpr (c == BinaryOp::BitwiseXor)
      run([](const auto& x, const auto& y) { return x != y; });
    else
      EMBER_CHECK_TYPE(false, detail::op_name(c), ": not defined for bool tensors");
  } else if constexpr (c == BinaryOp::Add) {
    run([](const auto& x, const auto& y) { return x + y; });
  } else if constexpr (c == BinaryOp::Sub) {
    run([](const auto& x, const auto& y) { return x - y; });
  } else if constexpr (c == BinaryOp::Mul) {
    run([](const auto& x, const auto& y) { return x * y; });
  } else if constexpr (floating && c == BinaryOp::Div) {
    run([](const auto& x, const auto& y) { return x / y; });
  } else if constexpr (floating && c == BinaryOp::Pow) {
    run([](const auto& x, const auto& y) { return pow_of(x, y); });
  } else if constexpr (c == BinaryOp::Maximum) {
    run([](const auto& x, const auto& y) { return x.binaryExpr(y, Eigen::internal::scalar_max_op<T, T, kNaN<T>>()); });
  } else if constexpr (c == BinaryOp::Minimum) {
    run([](const auto& x, const auto& y) { return x.binaryExpr(y, Eigen::internal::scalar_min_op<T, T, kNaN<T>>()); });
  } else if constexpr (elementwise::binary_defined(c, floating, false)) {
    run([](const auto& x, const auto& y) {
      return x.binaryExpr(y, [](T p, T q) {
        if constexpr (!floating && elementwise::binary_divides(c))
          EMBER_CHECK_VALUE(q != 0, detail::op_name(c), ": integer division by zero");
        return elementwise::binary_op<T>(c, p, q);
      });
    });
  } else {
    EMBER_CHECK_TYPE(false, detail::op_name(c), ": not defined for ", out.dtype(), " tensors");
  }
}

void cpu_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  visit_compute_dtype(out.dtype(), "binary", [&]<typename T>(type_tag<T>) {
    visit_op(op, [&](auto code) { binary_for<T, decltype(code)::value>(out, a, b); });
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
