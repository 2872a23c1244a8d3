#include "ember/ops/complex.h"

#include <limits>
#include <numbers>

#include "ember/autograd/function_node.h"
#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/core/strided.h"
#include "ember/ops/binary.h"
#include "ember/ops/functions.h"
#include "ember/ops/reduce.h"

namespace ember {

using autograd::TensorList;
namespace detail {

Tensor conj_if_complex(const Tensor& t) { return is_complex(t.dtype()) ? conj(t) : t; }

Tensor complex_sgn(const Tensor& z) {
  // NB: a division, as PyTorch's sgn: z * (1 / |z|) would overflow for a subnormal z. Where z is 0
  // it is 0 / 1; the guard keeps 1/0 out of the value and its gradient.
  const Tensor r = abs(z);
  return z / where(eq(r, 0.0), ones_like(r), r);
}

namespace {

// t in `dtype` (complex) on `device`: a real tensor gets imaginary part 0.
Tensor as_complex(const Tensor& t, DType dtype, Device device) {
  return t.dtype() == dtype && t.device() == device ? t : copy_as(t, dtype, device);
}

}  // namespace

Tensor complex_add(const Tensor& a, const Tensor& b, double alpha, DType dtype, const char* name) {
  const Device device = common_device(a, b, name);
  autograd::NoGradGuard no_grad;
  const Tensor pa = view_as_real(as_complex(a, dtype, device)), pb = view_as_real(as_complex(b, dtype, device));
  const Tensor sum = alpha == 1 ? add(pa, pb) : alpha == -1 ? sub(pa, pb) : add(pa, pb, Scalar(alpha));
  return view_as_complex(contiguous(sum));
}

Tensor complex_neg(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  return view_as_complex(neg(view_as_real(t)));
}

Tensor complex_binary(ComplexBinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name) {
  const Device device = common_device(a, b, name);
  const bool make = op == ComplexBinaryOp::Make || op == ComplexBinaryOp::Polar;
  if (make) {
    EMBER_CHECK_TYPE(a.dtype() == b.dtype() && (a.dtype() == kFloat32 || a.dtype() == kFloat64), name,
                     ": expected both inputs to be float32 or float64 tensors of one dtype, got ", a.dtype(), " and ",
                     b.dtype());
    dtype = *complex_dtype(a.dtype());
  }
  const DimVector shape = a.sizes() == b.sizes() ? a.sizes().vec() : broadcast_shapes(a.sizes(), b.sizes(), name);
  const auto prepare = [&](const Tensor& t) {
    const Tensor c = make ? (t.device() == device ? t : copy_as(t, t.dtype(), device)) : as_complex(t, dtype, device);
    return c.sizes() == IntArrayRef(shape) ? c : expand_data(c, shape);
  };
  Tensor out = empty(shape, TensorOptions(dtype).device(device));
  if (out.numel() > 0) complex_binary_stub(device.type, op, out, prepare(a), prepare(b));
  return out;
}

Tensor complex_unary(ComplexUnaryOp op, const Tensor& t, const char* name) {
  const bool to_real = op == ComplexUnaryOp::Abs || op == ComplexUnaryOp::Angle;
  Tensor out = empty(t.sizes(), TensorOptions(to_real ? real_dtype(t.dtype()) : t.dtype()).device(t.device()));
  if (out.numel() > 0) complex_unary_stub(t.device().type, op, out, t);
  return out;
}

Tensor complex_sum(const Tensor& t, IntArrayRef dims, bool keepdim) {
  autograd::NoGradGuard no_grad;
  if (dims.empty()) return contiguous(t).clone();  // a 0-d t: no dims to reduce (none would mean all of the pairs')
  // NB: the dims are t's; the real view's trailing (real, imaginary) dim is never reduced.
  return view_as_complex(contiguous(sum(view_as_real(t), dims, keepdim)));
}

Tensor complex_compare(const Tensor& a, const Tensor& b, DType dtype, bool equal) {
  const Device device = common_device(a, b, equal ? "eq" : "ne");
  const Tensor ca = as_complex(a, dtype, device), cb = as_complex(b, dtype, device);
  if (equal) return logical_and(eq(real(ca), real(cb)), eq(imag(ca), imag(cb)));
  return logical_or(ne(real(ca), real(cb)), ne(imag(ca), imag(cb)));
}

Tensor complex_matmul(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_TYPE(a.dtype() == b.dtype(), "matmul: expected both operands to have the same dtype, got ", a.dtype(),
                   " and ", b.dtype());
  // Four real products of the parts, differentiable through real, imag and complex.
  const Tensor ar = real(a), ai = imag(a), br = real(b), bi = imag(b);
  return complex(sub(matmul(ar, br), matmul(ai, bi)), add(matmul(ar, bi), matmul(ai, br)));
}

}  // namespace detail

namespace {

// The sum of a gradient over the dims an input of `shape` was broadcast along.
Tensor unbroadcast(const Tensor& g, const DimVector& shape) {
  return g.sizes() == IntArrayRef(shape) ? g : sum_to(g, shape);
}

}  // namespace

Tensor impl_conj(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    const Tensor flip =
        tensor(std::vector<double>{1.0, -1.0}, {2}, TensorOptions(kFloat64)).to(real_dtype(t.dtype())).to(t.device());
    out = view_as_complex(mul(view_as_real(t), flip));
  }
  autograd::record_function(
      "ConjBackward", out, {t}, {},
      [](const TensorList&, const TensorList& g, const autograd::Node&) { return TensorList{conj(g[0])}; });
  return out;
}

Tensor impl_angle(const Tensor& t) {
  if (is_complex(t.dtype())) {
    Tensor out = detail::complex_unary(ComplexUnaryOp::Angle, t, "angle");
    // d arg z = grad * i z / |z|^2 (0 at z = 0), PyTorch's.
    autograd::record_function(
        "AngleBackward", out, {t}, {t}, [](const TensorList& saved, const TensorList& g, const autograd::Node&) {
          const Tensor x = real(saved[0]), y = imag(saved[0]), r2 = x * x + y * y;
          const Tensor zero = logical_and(eq(x, 0.0), eq(y, 0.0));
          const Tensor scale = where(zero, zeros_like(r2), g[0] / where(zero, ones_like(r2), r2));
          // A tiny z whose |z|^2 underflows: PyTorch's i z / |z|^2 is NaN in both parts there.
          const Tensor lost = logical_and(eq(r2, 0.0), logical_not(zero));
          const Tensor nan = full_like(r2, std::numeric_limits<double>::quiet_NaN());
          return TensorList{complex(where(lost, nan, -(y * scale)), where(lost, nan, x * scale))};
        });
    return out;
  }
  EMBER_CHECK_TYPE(t.dtype() != kBool, "angle: not supported for bool tensors");
  // A real number's argument: 0 for x >= 0, pi for x < 0, NaN for NaN (PyTorch's).
  const Tensor x = is_floating(t.dtype()) ? t : t.to(kFloat32);
  const Tensor pi = full({}, std::numbers::pi, TensorOptions(x.dtype()).device(x.device()));
  return where(isnan(x), x, where(lt(x, 0), pi, zeros_like(pi)));
}

Tensor impl_complex(const Tensor& real_part, const Tensor& imag_part) {
  Tensor out = detail::complex_binary(ComplexBinaryOp::Make, real_part, imag_part, kComplex64, "complex");
  autograd::record_function("ComplexBackward", out, {real_part, imag_part}, {},
                            [re = real_part.sizes().vec(), im = imag_part.sizes().vec()](
                                const TensorList&, const TensorList& g, const autograd::Node&) {
                              return TensorList{unbroadcast(real(g[0]), re), unbroadcast(imag(g[0]), im)};
                            });
  return out;
}

Tensor impl_polar(const Tensor& abs, const Tensor& angle) {
  Tensor out = detail::complex_binary(ComplexBinaryOp::Polar, abs, angle, kComplex64, "polar");
  // z = r e^(i theta): dr = Re(conj(grad) e^(i theta)), dtheta = Re(conj(grad) i z), PyTorch's.
  autograd::record_function(
      "PolarBackward", out, {abs, angle}, {abs, angle},
      [rs = abs.sizes().vec(), ts = angle.sizes().vec()](const TensorList& saved, const TensorList& g,
                                                         const autograd::Node&) {
        const Tensor gr = real(g[0]), gi = imag(g[0]), c = cos(saved[1]), s = sin(saved[1]);
        return TensorList{unbroadcast(gr * c + gi * s, rs), unbroadcast(saved[0] * (gi * c - gr * s), ts)};
      });
  return out;
}

}  // namespace ember
