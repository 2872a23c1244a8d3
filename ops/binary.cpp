#include "ember/ops/binary.h"

#include <cctype>
#include <string>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/compare.h"
#include "ember/ops/complex.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

Tensor wrap_scalar(const Scalar& s, const Tensor& t) {
  return scalar_tensor(s, TensorOptions(result_type(t, s)).device(t.device()));
}

namespace detail {
Device common_device(const Tensor& a, const Tensor& b, const char* name) {
  if (a.device() == b.device()) return a.device();
  // NB: the autograd engine brings a 0-d gradient back to its input's device, as PyTorch's does.
  if (a.dim() == 0 && a.device().is_cpu()) return b.device();
  if (b.dim() == 0 && b.device().is_cpu()) return a.device();
  throw ValueError(detail::str(name, ": tensors on different devices, ", a.device(), " and ", b.device()));
}

namespace {
// out of `dtype` and a and b's broadcast shape, with kernel(out, a', b') given the operands converted
// and broadcast.
template <typename Kernel>
Tensor elementwise_forward(const Tensor& a, const Tensor& b, DType dtype, const char* name, const Kernel& kernel) {
  const Device device = common_device(a, b, name);
  DimVector shape = a.sizes() == b.sizes() ? a.sizes().vec() : broadcast_shapes(a.sizes(), b.sizes(), name);
  auto prepare = [&](const Tensor& t) {
    Tensor c = t.dtype() == dtype && t.device() == device ? t : copy_as(t, dtype, device);
    return c.sizes() == IntArrayRef(shape) ? c : expand_data(c, shape);
  };
  Tensor out = empty(shape, TensorOptions(dtype).device(device));
  kernel(out, prepare(a), prepare(b));
  return out;
}
}  // namespace

Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name) {
  return elementwise_forward(a, b, dtype, name, [&](const Tensor& out, const Tensor& x, const Tensor& y) {
    binary_stub(out.device().type, op, out, x, y);
  });
}

bool fuses_scaled_add(DType dtype, Device device) { return is_floating(dtype) && add_scaled_stub.has(device.type); }

void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha) {
  // NB: a 16-bit float's alpha is rounded to its dtype first, as PyTorch's kernel takes it
  if (out.dtype() == DType::Float16) alpha = static_cast<float>(Half(static_cast<float>(alpha)));
  if (out.dtype() == DType::BFloat16) alpha = static_cast<float>(BFloat16(static_cast<float>(alpha)));
  add_scaled_stub(out.device().type, out, a, b, alpha);
}

Tensor add_scaled_forward(const Tensor& a, const Tensor& b, double alpha, DType dtype, const char* name) {
  return elementwise_forward(
      a, b, dtype, name, [&](const Tensor& out, const Tensor& x, const Tensor& y) { add_scaled(out, x, y, alpha); });
}
}  // namespace detail

namespace {

// d(a + alpha*b)/da = grad ; d/db = alpha * grad (each summed back to its input's shape)
struct AddBackward : autograd::Node {
  DimVector a_shape, b_shape;
  Scalar alpha = 1;
  const char* name() const override { return "AddBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb;
    if (needs_input_grad(0)) ga = sum_to(g[0], a_shape);
    if (needs_input_grad(1)) {
      gb = alpha.to<double>() == 1.0 ? g[0] : g[0] * alpha;
      gb = sum_to(gb, b_shape);
    }
    return {ga, gb};
  }
};

// d(a*b)/da = grad * conj(b) ; d(a*b)/db = grad * conj(a) (conj: PyTorch's complex gradients)
struct MulBackward : autograd::Node {
  SavedTensor a, b;
  DimVector a_shape, b_shape;
  const char* name() const override { return "MulBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb;
    if (needs_input_grad(0)) ga = sum_to(g[0] * detail::conj_if_complex(b.unpack(this)), a_shape);
    if (needs_input_grad(1)) gb = sum_to(g[0] * detail::conj_if_complex(a.unpack(this)), b_shape);
    return {ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
  }
};

// d(a/b)/da = grad / conj(b) ; d(a/b)/db = -grad * conj((a / b) / b), in PyTorch's order: b * b underflows to 0
// (and grad * a overflows) where this does not.
struct DivBackward : autograd::Node {
  SavedTensor a, b;
  DimVector a_shape, b_shape;
  const char* name() const override { return "DivBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb;
    Tensor bv = b.unpack(this);
    if (needs_input_grad(0)) ga = sum_to(g[0] / detail::conj_if_complex(bv), a_shape);
    if (needs_input_grad(1)) gb = sum_to(-g[0] * detail::conj_if_complex(a.unpack(this) / bv / bv), b_shape);
    return {ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
  }
};

// A step function of a and b (floor_divide): the gradient to both is zero, in their shapes.
struct ZeroBinaryBackward : autograd::Node {
  DimVector a_shape, b_shape;
  DType a_dtype = kFloat32, b_dtype = kFloat32;
  const char* name() const override { return "ZeroBinaryBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb;
    if (needs_input_grad(0)) ga = zeros(a_shape, TensorOptions(a_dtype).device(g[0].device()));
    if (needs_input_grad(1)) gb = zeros(b_shape, TensorOptions(b_dtype).device(g[0].device()));
    return {ga, gb};
  }
};

// d(a^b)/da = grad * (b * a^(b-1)) (0 where b == 0; PyTorch's order of products, so that a 0 * inf
// gives NaN where PyTorch's does);
// d(a^b)/db = grad * y * log(a) (0 where a == 0 and b >= 0, the limit of the product)
struct PowBackward : autograd::Node {
  SavedTensor a, b, result;
  DimVector a_shape, b_shape;
  const char* name() const override { return "PowBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb, av = a.unpack(this), bv = b.unpack(this);
    if (needs_input_grad(0)) ga = sum_to(where(eq(bv, 0), 0, g[0] * (bv * pow(av, bv - 1))), a_shape);
    if (needs_input_grad(1)) {
      Tensor zero_base = logical_and(eq(av, 0), ge(bv, 0));
      Tensor y = result.unpack(this);  // NB: log of the base in the result's dtype (a float32 base to a float64 power)
      gb = sum_to(g[0] * where(zero_base, 0, y * log(av.to(y.dtype()))), b_shape);
    }
    return {ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
    result.reset();
  }
};

// d max(a, b)/da = grad where a > b, grad / 2 where a == b, 0 where a < b (min: mirrored);
// like PyTorch, a NaN on either side sends the whole gradient to both.
struct MaxMinBackward : autograd::Node {
  SavedTensor a, b;
  DimVector a_shape, b_shape;
  bool is_max = true;
  const char* name() const override { return is_max ? "MaximumBackward" : "MinimumBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb, av = a.unpack(this), bv = b.unpack(this);
    Tensor shared = where(eq(av, bv), g[0] * 0.5, g[0]);
    if (needs_input_grad(0)) ga = sum_to(where(is_max ? lt(av, bv) : gt(av, bv), 0, shared), a_shape);
    if (needs_input_grad(1)) gb = sum_to(where(is_max ? gt(av, bv) : lt(av, bv), 0, shared), b_shape);
    return {ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
  }
};

Tensor max_min(const Tensor& a, const Tensor& b, bool is_max) {
  const char* name = is_max ? "maximum" : "minimum";
  DType dtype = result_type(a, b);
  check_compute_dtype(dtype, name);
  Tensor out = detail::binary_forward(is_max ? BinaryOp::Maximum : BinaryOp::Minimum, a, b, dtype, name);
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<MaxMinBackward>(a, b);
    node->is_max = is_max;
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->a = SavedTensor(a);
    node->b = SavedTensor(b);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor add_impl(const Tensor& a, const Tensor& b, Scalar alpha, bool subtract, const char* name) {
  double alpha_value = subtract ? -alpha.to<double>() : alpha.to<double>();
  Scalar eff = subtract ? (alpha.is_floating() ? Scalar(-alpha.to<double>()) : Scalar(-alpha.to<int64_t>()))
                        : alpha;
  DType dtype = result_type(a, b);
  Tensor out;
  if (is_complex(dtype)) {
    out = detail::complex_add(a, b, alpha_value, dtype, name);
  } else if (dtype == kBool) {
    // NB: as PyTorch, alpha is cast to bool: a + b (or) for any nonzero alpha, a for zero.
    out = detail::binary_forward(BinaryOp::Add, a, alpha_value != 0.0 ? b : zeros_like(b), dtype, name);
  } else if (alpha_value == 1.0) {
    out = detail::binary_forward(BinaryOp::Add, a, b, dtype, name);
  } else if (alpha_value == -1.0) {
    out = detail::binary_forward(BinaryOp::Sub, a, b, dtype, name);
  } else {
    EMBER_CHECK_TYPE(!(is_integral(dtype) && alpha.is_floating()), name,
                     ": for integer tensors alpha must be an integer, got ", alpha);
    // NB: alpha * b in the result dtype (b converted first), not in b's own dtype; one rounding
    // where the backend fuses it, as PyTorch's kernel.
    autograd::NoGradGuard no_grad;
    if (detail::fuses_scaled_add(dtype, detail::common_device(a, b, name)))
      out = detail::add_scaled_forward(a, b, alpha_value, dtype, name);
    else
      out = detail::binary_forward(BinaryOp::Add, a, mul(b.dtype() == dtype ? b : b.to(dtype), eff), dtype, name);
  }
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<AddBackward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->alpha = eff;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor impl_add(const Tensor& a, const Tensor& b, Scalar alpha) { return add_impl(a, b, alpha, false, "add"); }
namespace {
// NB: as PyTorch, a bool operand (a tensor or a Python bool) is refused whatever the other is.
void check_no_bool_sub(bool a_bool, bool b_bool) {
  EMBER_CHECK_TYPE(!a_bool && !b_bool, "sub: subtraction with a bool ", a_bool && b_bool ? "tensor on both sides" : "operand",
                   " is not supported; to invert a mask use ~ or logical_not(), to compare two use logical_xor()");
}
}  // namespace

Tensor impl_sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  check_no_bool_sub(a.dtype() == kBool, b.dtype() == kBool);
  return add_impl(a, b, alpha, true, "sub");
}
Tensor impl_add(const Tensor& a, Scalar b, Scalar alpha) { return add(a, wrap_scalar(b, a), alpha); }
Tensor impl_sub(const Tensor& a, Scalar b, Scalar alpha) {
  check_no_bool_sub(a.dtype() == kBool, b.is_bool());
  return sub(a, wrap_scalar(b, a), alpha);
}

Tensor impl_mul(const Tensor& a, const Tensor& b) {
  const DType dtype = result_type(a, b);
  Tensor out = is_complex(dtype) ? detail::complex_binary(ComplexBinaryOp::Mul, a, b, dtype, "mul")
                                 : detail::binary_forward(BinaryOp::Mul, a, b, dtype, "mul");
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<MulBackward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    if (node->needs_input_grad(0)) node->b = SavedTensor(b);
    if (node->needs_input_grad(1)) node->a = SavedTensor(a);
    autograd::set_history(out, node);
  }
  return out;
}
Tensor impl_mul(const Tensor& a, Scalar b) { return mul(a, wrap_scalar(b, a)); }

Tensor impl_div(const Tensor& a, const Tensor& b) {
  DType dtype = result_type(a, b);
  if (is_integral(dtype)) dtype = kFloat32;
  Tensor out = is_complex(dtype) ? detail::complex_binary(ComplexBinaryOp::Div, a, b, dtype, "div")
                                 : detail::binary_forward(BinaryOp::Div, a, b, dtype, "div");
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<DivBackward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->b = SavedTensor(b);
    if (node->needs_input_grad(1)) node->a = SavedTensor(a);
    autograd::set_history(out, node);
  }
  return out;
}
namespace {
// NB: true division wraps a Python number straight into the float dtype it computes in; wrapping
// it into an integer tensor's dtype first would change it (uint8 t / -1 divided by 255).
Tensor true_division_scalar(const Scalar& s, const Tensor& t) {
  DType dtype = result_type(t, s);
  return scalar_tensor(s, TensorOptions(is_integral(dtype) ? kFloat32 : dtype).device(t.device()));
}
}  // namespace

Tensor impl_div(const Tensor& a, Scalar b) { return div(a, true_division_scalar(b, a)); }

Tensor impl_pow(const Tensor& a, const Tensor& b) {
  if (autocast::applies("pow", a))
    return autocast::run("pow", {a, b}, [&](const autocast::Cast& cast) { return pow(cast(a), cast(b)); });
  DType dtype = result_type(a, b);
  EMBER_CHECK_TYPE(dtype != kBool, "pow: not supported for bool tensors");
  check_compute_dtype(dtype, "pow");
  Tensor out = detail::binary_forward(BinaryOp::Pow, a, b, dtype, "pow");
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<PowBackward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->a = SavedTensor(a);
    node->b = SavedTensor(b);
    autograd::set_history(out, node);  // NB: before saving out, so the saved output requires grad
    if (node->needs_input_grad(1)) node->result = SavedTensor(out, true);
  }
  return out;
}
Tensor impl_pow(Scalar a, const Tensor& b) { return pow(wrap_scalar(a, b), b); }

namespace {
// d(a mod b)/da = grad ; d/db = -grad * q(a / b), q = floor for remainder, trunc for fmod. The floor
// quotient is floor_divide's, exact as PyTorch's (floor(1.5 / 0.1f) rounds to 15, the exact one is 14).
struct ModBackward : autograd::Node {
  SavedTensor a, b;
  DimVector a_shape, b_shape;
  bool floor_quotient = true;
  const char* name() const override { return floor_quotient ? "RemainderBackward" : "FmodBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor ga, gb;
    if (needs_input_grad(0)) ga = sum_to(g[0], a_shape);
    if (needs_input_grad(1)) {
      Tensor av = a.unpack(this), bv = b.unpack(this);
      gb = sum_to(-g[0] * (floor_quotient ? floor_divide(av, bv) : trunc(av / bv)), b_shape);
    }
    return {ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
  }
};

// d atan2(a, b)/da = grad * b / (a^2 + b^2) ; d/db = -grad * a / (a^2 + b^2); both 0 at a = b = 0,
// as PyTorch's (0 / 0 there otherwise)
struct Atan2Backward : autograd::Node {
  SavedTensor a, b;
  DimVector a_shape, b_shape;
  const char* name() const override { return "Atan2Backward"; }
  TensorList apply(TensorList&& g) override {
    Tensor av = a.unpack(this), bv = b.unpack(this);
    // NB: PyTorch's atan2_backward, in its order: 1 / r^2 taken as 0 at the origin, so a NaN gradient
    // still gives NaN there.
    Tensor r2 = av * av + bv * bv;
    Tensor recip = where(eq(r2, 0), 0, reciprocal(r2));
    Tensor ga, gb;
    if (needs_input_grad(0)) ga = sum_to(g[0] * bv * recip, a_shape);
    if (needs_input_grad(1)) gb = sum_to(g[0] * neg(av) * recip, b_shape);
    return {ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
  }
};

Tensor modulo(BinaryOp op, const Tensor& a, const Tensor& b, const char* name) {
  DType dtype = result_type(a, b);
  EMBER_CHECK_TYPE(dtype != kBool, name, ": not supported for bool tensors");
  check_compute_dtype(dtype, name);
  Tensor out = detail::binary_forward(op, a, b, dtype, name);
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<ModBackward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->floor_quotient = op == BinaryOp::Remainder;
    if (node->needs_input_grad(1)) {
      node->a = SavedTensor(a);
      node->b = SavedTensor(b);
    }
    autograd::set_history(out, node);
  }
  return out;
}
}  // namespace

Tensor impl_remainder(const Tensor& a, const Tensor& b) { return modulo(BinaryOp::Remainder, a, b, "remainder"); }
Tensor impl_remainder(const Tensor& a, Scalar b) { return remainder(a, wrap_scalar(b, a)); }
Tensor impl_remainder(Scalar a, const Tensor& b) { return remainder(wrap_scalar(a, b), b); }
Tensor impl_fmod(const Tensor& a, const Tensor& b) { return modulo(BinaryOp::Fmod, a, b, "fmod"); }
Tensor impl_fmod(const Tensor& a, Scalar b) { return fmod(a, wrap_scalar(b, a)); }

// NB: piecewise constant, so no node: its gradient would be zero everywhere it exists.
Tensor impl_floor_divide(const Tensor& a, const Tensor& b) {
  DType dtype = result_type(a, b);
  EMBER_CHECK_TYPE(dtype != kBool, "floor_divide: not supported for bool tensors");
  check_compute_dtype(dtype, "floor_divide");
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = detail::binary_forward(BinaryOp::FloorDivide, a, b, dtype, "floor_divide");
  }
  // A step function: its gradient is zero wherever it is defined. Recorded, so that
  // div(..., rounding_mode="floor") requires grad as PyTorch's does (PyTorch's floor_divide itself
  // refuses backward; a zero gradient is the right one).
  if (is_floating(dtype) && autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<ZeroBinaryBackward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->a_dtype = a.dtype();
    node->b_dtype = b.dtype();
    autograd::set_history(out, node);
  }
  return out;
}
Tensor impl_floor_divide(const Tensor& a, Scalar b) { return floor_divide(a, wrap_scalar(b, a)); }
Tensor impl_floor_divide(Scalar a, const Tensor& b) { return floor_divide(wrap_scalar(a, b), b); }

namespace {
// NB: integer and bool results only, so no node (there is no gradient to record).
Tensor bitwise(BinaryOp op, const Tensor& a, const Tensor& b, const char* name, bool shift) {
  const DType dtype = result_type(a, b);
  EMBER_CHECK_TYPE(is_integral(dtype) && (!shift || dtype != kBool), name, ": only ",
                   shift ? "integer" : "integer and bool", " tensors, got ", a.dtype(), " and ", b.dtype());
  check_compute_dtype(dtype, name);
  return detail::binary_forward(op, a, b, dtype, name);
}
}  // namespace

Tensor impl_bitwise_and(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::BitwiseAnd, a, b, "bitwise_and", false);
}
Tensor impl_bitwise_and(const Tensor& a, Scalar b) { return bitwise_and(a, wrap_scalar(b, a)); }
Tensor impl_bitwise_or(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::BitwiseOr, a, b, "bitwise_or", false);
}
Tensor impl_bitwise_or(const Tensor& a, Scalar b) { return bitwise_or(a, wrap_scalar(b, a)); }
Tensor impl_bitwise_xor(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::BitwiseXor, a, b, "bitwise_xor", false);
}
Tensor impl_bitwise_xor(const Tensor& a, Scalar b) { return bitwise_xor(a, wrap_scalar(b, a)); }
Tensor impl_bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::LeftShift, a, b, "bitwise_left_shift", true);
}
Tensor impl_bitwise_left_shift(const Tensor& a, Scalar b) { return bitwise_left_shift(a, wrap_scalar(b, a)); }
Tensor impl_bitwise_right_shift(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::RightShift, a, b, "bitwise_right_shift", true);
}
Tensor impl_bitwise_right_shift(const Tensor& a, Scalar b) { return bitwise_right_shift(a, wrap_scalar(b, a)); }

namespace {

// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) (PyTorch's formula, as it writes it: x = 0 with a = 1 is
// NaN there too), negated for Q; no gradient for a, as PyTorch has none.
struct IgammaBackward : autograd::Node {
  SavedTensor a, x;
  DimVector x_shape;
  bool upper = false;
  const char* name() const override { return upper ? "IgammacBackward" : "IgammaBackward"; }
  TensorList apply(TensorList&& g) override {
    EMBER_CHECK_AS(NotImplementedError, !needs_input_grad(0), "the derivative for '", upper ? "igammac" : "igamma",
                   ": input' is not implemented.");
    Tensor av = a.unpack(this), xv = x.unpack(this);
    Tensor d = exp((av - 1) * log(xv) - xv - lgamma(av));
    return {Tensor(), sum_to(upper ? -g[0] * d : g[0] * d, x_shape)};
  }
  void release_saved() override {
    a.reset();
    x.reset();
  }
};

Tensor incomplete_gamma(const Tensor& a, const Tensor& x, bool upper) {
  const char* name = upper ? "igammac" : "igamma";
  const DType dtype = result_type(a, x);
  if (!is_floating(dtype)) {
    std::string type(dtype_name(dtype));
    type[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(type[0])));
    EMBER_CHECK_AS(NotImplementedError, false, "\"", name, "_cpu\" not implemented for '", type, "'");
  }
  check_compute_dtype(dtype, name);
  // NB: the gradient formula takes the promoted a (PyTorch's takes a before promotion)
  const Tensor av = a.dtype() == dtype ? a : a.to(dtype), xv = x.dtype() == dtype ? x : x.to(dtype);
  Tensor out = detail::binary_forward(upper ? BinaryOp::Igammac : BinaryOp::Igamma, av, xv, dtype, name);
  if (autograd::any_requires_grad(av, xv)) {
    auto node = autograd::make_node<IgammaBackward>(av, xv);
    node->upper = upper;
    node->x_shape = xv.sizes().vec();
    node->a = SavedTensor(av);
    node->x = SavedTensor(xv);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor impl_igamma(const Tensor& a, const Tensor& x) {
  if (autocast::applies("igamma", a))
    return autocast::run("igamma", {a, x}, [&](const autocast::Cast& cast) { return igamma(cast(a), cast(x)); });
  return incomplete_gamma(a, x, false);
}

Tensor impl_igammac(const Tensor& a, const Tensor& x) {
  if (autocast::applies("igammac", a))
    return autocast::run("igammac", {a, x}, [&](const autocast::Cast& cast) { return igammac(cast(a), cast(x)); });
  return incomplete_gamma(a, x, true);
}

Tensor impl_atan2(const Tensor& a, const Tensor& b) {
  if (autocast::applies("atan2", a))
    return autocast::run("atan2", {a, b}, [&](const autocast::Cast& cast) { return atan2(cast(a), cast(b)); });
  DType dtype = result_type(a, b);
  if (!is_floating(dtype)) dtype = kFloat32;
  check_compute_dtype(dtype, "atan2");
  Tensor out = detail::binary_forward(BinaryOp::Atan2, a, b, dtype, "atan2");
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<Atan2Backward>(a, b);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    node->a = SavedTensor(a);
    node->b = SavedTensor(b);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_maximum(const Tensor& a, const Tensor& b) { return max_min(a, b, true); }
Tensor impl_minimum(const Tensor& a, const Tensor& b) { return max_min(a, b, false); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator-(Scalar a, const Tensor& b) {
  check_no_bool_sub(a.is_bool(), b.dtype() == kBool);
  return sub(wrap_scalar(a, b), b);
}
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator/(Scalar a, const Tensor& b) { return div(true_division_scalar(a, b), b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, Scalar b) { return remainder(a, b); }
Tensor operator%(Scalar a, const Tensor& b) { return remainder(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, Scalar b) { return bitwise_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, Scalar b) { return bitwise_or(a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, Scalar b) { return bitwise_xor(a, b); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor operator<<(const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }
Tensor operator<<(const Tensor& a, Scalar b) { return bitwise_left_shift(a, b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }
Tensor operator>>(const Tensor& a, Scalar b) { return bitwise_right_shift(a, b); }

}  // namespace ember
