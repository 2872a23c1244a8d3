#include "ember/ops/complex.h"

#include <numbers>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/core/strided.h"
#include "ember/ops/binary.h"
#include "ember/ops/functions.h"
#include "ember/ops/reduce.h"

namespace ember {
namespace detail {

void check_no_complex_grad(const char* op, std::initializer_list<Tensor> ts) {
  for (const Tensor& t : ts)
    EMBER_CHECK_AS(NotImplementedError, !(t.defined() && t.requires_grad()), op,
                   ": gradients of complex tensors are not implemented yet; call it on detach()ed inputs "
                   "(a ",
                   t.dtype(), " input of shape ", t.sizes(), " requires grad)");
}

namespace {

// t in `dtype` (complex) on `device`: a real tensor gets imaginary part 0.
Tensor as_complex(const Tensor& t, DType dtype, Device device) {
  return t.dtype() == dtype && t.device() == device ? t : copy_as(t, dtype, device);
}

}  // namespace

Tensor complex_add(const Tensor& a, const Tensor& b, double alpha, DType dtype, const char* name) {
  check_no_complex_grad(name, {a, b});
  const Device device = common_device(a, b, name);
  autograd::NoGradGuard no_grad;
  const Tensor pa = view_as_real(as_complex(a, dtype, device)), pb = view_as_real(as_complex(b, dtype, device));
  const Tensor sum = alpha == 1 ? add(pa, pb) : alpha == -1 ? sub(pa, pb) : add(pa, pb, Scalar(alpha));
  return view_as_complex(contiguous(sum));
}

Tensor complex_neg(const Tensor& t) {
  check_no_complex_grad("neg", {t});
  autograd::NoGradGuard no_grad;
  return view_as_complex(neg(view_as_real(t)));
}

Tensor complex_binary(ComplexBinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name) {
  check_no_complex_grad(name, {a, b});
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
  check_no_complex_grad(name, {t});
  const bool to_real = op == ComplexUnaryOp::Abs || op == ComplexUnaryOp::Angle;
  Tensor out = empty(t.sizes(), TensorOptions(to_real ? real_dtype(t.dtype()) : t.dtype()).device(t.device()));
  if (out.numel() > 0) complex_unary_stub(t.device().type, op, out, t);
  return out;
}

Tensor complex_sum(const Tensor& t, IntArrayRef dims, bool keepdim, bool mean) {
  check_no_complex_grad(mean ? "mean" : "sum", {t});
  autograd::NoGradGuard no_grad;
  // NB: the dims are t's; the real view's trailing (real, imaginary) dim is never reduced.
  const DimVector rd = reduction_dims(dims, t.dim(), mean ? "mean" : "sum");
  const Tensor parts = view_as_real(t);
  Tensor s = mean ? ember::mean(parts, rd, keepdim) : sum(parts, rd, keepdim);
  return view_as_complex(contiguous(s));
}

Tensor complex_compare(const Tensor& a, const Tensor& b, DType dtype, bool equal) {
  const Device device = common_device(a, b, equal ? "eq" : "ne");
  const Tensor ca = as_complex(a, dtype, device), cb = as_complex(b, dtype, device);
  if (equal) return logical_and(eq(real(ca), real(cb)), eq(imag(ca), imag(cb)));
  return logical_or(ne(real(ca), real(cb)), ne(imag(ca), imag(cb)));
}

}  // namespace detail

Tensor impl_conj(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  detail::check_no_complex_grad("conj", {t});
  autograd::NoGradGuard no_grad;
  const Tensor flip =
      tensor(std::vector<double>{1.0, -1.0}, {2}, TensorOptions(kFloat64)).to(real_dtype(t.dtype())).to(t.device());
  return view_as_complex(mul(view_as_real(t), flip));
}

Tensor impl_angle(const Tensor& t) {
  if (is_complex(t.dtype())) return detail::complex_unary(ComplexUnaryOp::Angle, t, "angle");
  EMBER_CHECK_TYPE(t.dtype() != kBool, "angle: not supported for bool tensors");
  // A real number's argument: 0 for x >= 0, pi for x < 0, NaN for NaN (PyTorch's).
  const Tensor x = is_floating(t.dtype()) ? t : t.to(kFloat32);
  const Tensor pi = full({}, std::numbers::pi, TensorOptions(x.dtype()).device(x.device()));
  return where(isnan(x), x, where(lt(x, 0), pi, zeros_like(pi)));
}

Tensor impl_complex(const Tensor& real, const Tensor& imag) {
  return detail::complex_binary(ComplexBinaryOp::Make, real, imag, kComplex64, "complex");
}

Tensor impl_polar(const Tensor& abs, const Tensor& angle) {
  return detail::complex_binary(ComplexBinaryOp::Polar, abs, angle, kComplex64, "polar");
}

}  // namespace ember
