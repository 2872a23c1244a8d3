// CPU kernels for complex math (core/kernels/complex.h): Eigen array expressions over
// std::complex, vectorised products, and the standard library's per-element division (C99 Annex G:
// no overflow for large divisors, infinities and NaNs as PyTorch's), exp, log, sqrt and |z|.
#include <complex>

#include "ember/core/cpu/loops.h"
#include "ember/core/kernels/complex.h"

namespace ember::cpu {
namespace {

template <typename R>
void complex_binary_for(ComplexBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  using C = std::complex<R>;
  switch (op) {
    case ComplexBinaryOp::Mul:
      return binary_kernel<C, C>(out, a, b, [](const auto& x, const auto& y) { return x * y; });
    case ComplexBinaryOp::Div:
      return binary_kernel<C, C>(out, a, b, [](const auto& x, const auto& y) {
        return x.binaryExpr(y, [](const C& p, const C& q) { return p / q; });
      });
    case ComplexBinaryOp::Make:
      return binary_kernel<R, C>(out, a, b, [](const auto& x, const auto& y) {
        return x.binaryExpr(y, [](R re, R im) { return C(re, im); });
      });
    case ComplexBinaryOp::Polar:
      return binary_kernel<R, C>(out, a, b, [](const auto& x, const auto& y) {
        return x.binaryExpr(y, [](R r, R theta) { return C(r * std::cos(theta), r * std::sin(theta)); });
      });
  }
}

void cpu_complex_binary(ComplexBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.dtype() == kComplex64)
    complex_binary_for<float>(op, out, a, b);
  else if (out.dtype() == kComplex128)
    complex_binary_for<double>(op, out, a, b);
  else
    EMBER_INTERNAL_ASSERT(false, "complex kernel with a ", out.dtype(), " result");
}

template <typename R>
void complex_unary_for(ComplexUnaryOp op, const Tensor& out, const Tensor& in) {
  using C = std::complex<R>;
  const auto each = [&](auto f) { unary_kernel<C, C>(out, in, [f](const auto& x) { return x.unaryExpr(f); }); };
  switch (op) {
    case ComplexUnaryOp::Exp:
      return each([](const C& z) { return std::exp(z); });
    case ComplexUnaryOp::Log:
      return each([](const C& z) { return std::log(z); });
    case ComplexUnaryOp::Sqrt:
      return each([](const C& z) { return std::sqrt(z); });
    case ComplexUnaryOp::Reciprocal:
      return each([](const C& z) { return C(1) / z; });
    case ComplexUnaryOp::Abs:
      return unary_kernel<C, R>(out, in,
                                [](const auto& x) { return x.unaryExpr([](const C& z) { return std::abs(z); }); });
    case ComplexUnaryOp::Angle:
      return unary_kernel<C, R>(out, in,
                                [](const auto& x) { return x.unaryExpr([](const C& z) { return std::arg(z); }); });
  }
}

void cpu_complex_unary(ComplexUnaryOp op, const Tensor& out, const Tensor& in) {
  if (in.dtype() == kComplex64)
    complex_unary_for<float>(op, out, in);
  else if (in.dtype() == kComplex128)
    complex_unary_for<double>(op, out, in);
  else
    EMBER_INTERNAL_ASSERT(false, "complex kernel with a ", in.dtype(), " input");
}

}  // namespace

EMBER_REGISTER_KERNEL(complex_binary_stub, DeviceType::CPU, &cpu_complex_binary);
EMBER_REGISTER_KERNEL(complex_unary_stub, DeviceType::CPU, &cpu_complex_unary);

}  // namespace ember::cpu
