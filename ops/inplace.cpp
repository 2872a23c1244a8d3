// In-place ops (add_, mul_, ..., copy_, fill_, zero_, clamp_), and inplace_of, the in-place form of
// the table's other ops (ops/inplace_of.h). Each bumps the version counter.
// Outside grad recording they write straight into self; when recording, the out-of-place op runs
// on a clone of self and self takes over the result's history, so saved tensors stay valid.
#include <functional>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/overlap.h"
#include "ember/core/promotion.h"
#include "ember/ops/advanced_index.h"
#include "ember/ops/binary.h"
#include "ember/ops/composite_grad.h"
#include "ember/ops/convert.h"
#include "ember/ops/index.h"
#include "ember/ops/inplace_of.h"
#include "ember/ops/recorded_method.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

// A tensor some of whose elements share memory (an expanded view): an in-place write would race
// with itself, so it is refused as in PyTorch (an empty one is written nowhere, so it is not).
void check_no_internal_overlap(const Tensor& self, const char* op) {
  if (self.numel() == 0) return;
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK_VALUE(!(self.stride(d) == 0 && self.size(d) > 1), op,
                      ": more than one element of the written-to tensor refers to a single memory "
                      "location (an expanded view of shape ", self.sizes(), "); clone() it first");
}

template <typename OutOfPlace, typename Direct>
const Tensor& inplace(const Tensor& self, const Tensor* other, const char* op, const OutOfPlace& out_of_place,
                      const Direct& direct) {
  check_no_internal_overlap(self, op);
  if (other) check_no_partial_overlap(self, *other, op);
  autograd::check_inplace(self, op);
  bool record = autograd::any_requires_grad(self) || (other && autograd::any_requires_grad(*other));
  if (!record) {
    direct();
    self.bump_version();
    return self;
  }
  Tensor result = out_of_place(clone(self));
  EMBER_CHECK_VALUE(result.sizes() == self.sizes(), op, ": result of shape ", result.sizes(),
                    " does not fit the tensor of shape ", self.sizes(), " written in place");
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), op, ": result type ", torch_type_name(result.dtype()),
              " can't be cast to the desired output type ", torch_type_name(self.dtype()));
  {
    autograd::NoGradGuard no_grad;
    copy_data(self, result);
  }
  autograd::rebase_history(self, autograd::gradient_edge(result));
  return self;
}

// `read` itself, or a copy where it shares memory with `written` in a layout whose overlap is
// costly to work out (a strided view with gaps): the write must not change what is still to be read.
Tensor without_overlap(const Tensor& written, const Tensor& read) {
  return memory_overlap(written, read) == MemOverlap::TooHard ? copy_as(read, read.dtype(), read.device()) : read;
}

// other as an operand of an in-place op on self: it must broadcast to self's shape, and the
// promoted result must be castable to self's dtype.
void check_operand(const Tensor& self, const Tensor& other, const char* name) {
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), name);
  EMBER_CHECK_VALUE(IntArrayRef(shape) == self.sizes(), name, ": output of shape ", self.sizes(),
                    " does not match the broadcast shape ", IntArrayRef(shape));
  // PyTorch's rule and words: the promoted result must be castable to self's dtype (no float into an
  // integer tensor, no integer into a bool one)
  const DType result = result_type(self, other);
  EMBER_CHECK(can_cast(result, self.dtype()), name, ": result type ", torch_type_name(result),
              " can't be cast to the desired output type ", torch_type_name(self.dtype()));
}

// self = self op other: other checked, converted to self's dtype, copied where it overlaps self,
// and broadcast to self's shape.
Tensor operand_into(const Tensor& self, const Tensor& other, const char* name) {
  check_operand(self, other, name);
  Tensor b = other.dtype() == self.dtype() ? other : copy_as(other, self.dtype(), other.device());
  return expand_data(without_overlap(self, b), self.sizes());
}

// A complex self: the binary kernels write real dtypes only, so the op's result is computed out of
// place (by the complex kernels) and copied in.
void complex_into(const Tensor& self, const Tensor& other, const char* name, const std::function<Tensor()>& op) {
  check_operand(self, other, name);
  autograd::NoGradGuard no_grad;
  copy_data(self, op());
}

void binary_into(BinaryOp op, const Tensor& self, const Tensor& other, const char* name) {
  if (is_complex(self.dtype()))
    return complex_into(self, other, name, [&] { return op == BinaryOp::Mul ? mul(self, other) : div(self, other); });
  binary_stub(self.device().type, op, self, self, operand_into(self, other, name));
}

// alpha * other in the dtype self and other compute in (as add's): an int64 other of a float32 self is
// converted first, so that 2 * 2^62 is 9.2e18 and not a wrapped int64.
Tensor scaled(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (alpha.to<double>() == 1.0) return other;
  autograd::NoGradGuard no_grad;
  const DType dtype = result_type(self, other);
  return mul(other.dtype() == dtype ? other : other.to(dtype), alpha);
}

// self += alpha * other (sub_: alpha negated): one pass, rounded once, where the backend fuses it
// and self's dtype is the one add computes in; else other scaled first, as add's fallback.
void add_scaled_into(const Tensor& self, const Tensor& other, const Scalar& alpha, bool subtract, const char* name) {
  if (is_complex(self.dtype()))
    return complex_into(self, other, name,
                        [&] { return subtract ? sub(self, other, alpha) : add(self, other, alpha); });
  const DType dtype = result_type(self, other);
  if (alpha.to<double>() == 1.0 || dtype != self.dtype() || !detail::fuses_scaled_add(dtype, self.device()))
    return binary_into(subtract ? BinaryOp::Sub : BinaryOp::Add, self, scaled(self, other, alpha), name);
  const double a = alpha.to<double>();
  detail::add_scaled(self, self, operand_into(self, other, name), subtract ? -a : a);
}

}  // namespace

const Tensor& Tensor::add_(const Tensor& other, Scalar alpha) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.add_", [&] { return add_(other, alpha); },
                                   {tracing::arg(*this), tracing::arg(other), tracing::arg(alpha)});
  return inplace(
      *this, &other, "add_", [&](const Tensor& s) { return ember::add(s, other, alpha); },
      [&] { add_scaled_into(*this, other, alpha, false, "add_"); });
}
const Tensor& Tensor::add_(Scalar other) const { return add_(wrap_scalar(other, *this)); }
const Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.sub_", [&] { return sub_(other, alpha); },
                                   {tracing::arg(*this), tracing::arg(other), tracing::arg(alpha)});
  // sub refuses a bool operand before it computes anything: sub_ raises that same error, first
  if (dtype() == kBool || other.dtype() == kBool) (void)ember::sub(*this, other, alpha);
  return inplace(
      *this, &other, "sub_", [&](const Tensor& s) { return ember::sub(s, other, alpha); },
      [&] { add_scaled_into(*this, other, alpha, true, "sub_"); });
}
const Tensor& Tensor::sub_(Scalar other) const { return sub_(wrap_scalar(other, *this)); }
const Tensor& Tensor::mul_(const Tensor& other) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.mul_", [&] { return mul_(other); },
                                   {tracing::arg(*this), tracing::arg(other)});
  return inplace(*this, &other, "mul_", [&](const Tensor& s) { return ember::mul(s, other); },
                 [&] { binary_into(BinaryOp::Mul, *this, other, "mul_"); });
}
const Tensor& Tensor::mul_(Scalar other) const { return mul_(wrap_scalar(other, *this)); }
const Tensor& Tensor::div_(const Tensor& other) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.div_", [&] { return div_(other); },
                                   {tracing::arg(*this), tracing::arg(other)});
  // PyTorch's words: true division of an integer tensor gives the default float dtype, which self cannot hold
  EMBER_CHECK(is_floating_point() || is_complex(), "div_: result type ", torch_type_name(default_dtype()),
              " can't be cast to the desired output type ", torch_type_name(dtype()));
  return inplace(*this, &other, "div_", [&](const Tensor& s) { return ember::div(s, other); },
                 [&] { binary_into(BinaryOp::Div, *this, other, "div_"); });
}
const Tensor& Tensor::div_(Scalar other) const { return div_(wrap_scalar(other, *this)); }

const Tensor& Tensor::fill_(Scalar value) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.fill_", [&] { return fill_(value); },
                                   {tracing::arg(*this), tracing::arg(value)});
  // NB: recorded as a masked_fill of everything, so the gradient reaching the old values is zero
  // and self still requires grad afterwards, as in PyTorch.
  return inplace(*this, nullptr, "fill_",
                 [&](const Tensor& s) { return ember::masked_fill(s, scalar_tensor(true, TensorOptions(kBool).device(s.device())), value); },
                 [&] { fill_data(*this, value); });
}
const Tensor& Tensor::zero_() const { return fill_(0); }

const Tensor& Tensor::copy_(const Tensor& src) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.copy_", [&] { return copy_(src); },
                                   {tracing::arg(*this), tracing::arg(src)});
  return inplace(*this, &src, "copy_",
                 [&](const Tensor& s) {
                   Tensor v = ember::expand(ember::to(ember::to(src, dtype()), device()), sizes());
                   // NB: the old values get a zero gradient (not none), as PyTorch's CopyBackwards
                   // gives them; and a source without gradient (a bool or int tensor, a constant)
                   // still leaves self requiring grad.
                   return ember::where(scalar_tensor(true, TensorOptions(kBool).device(s.device())), v, s);
                 },
                 [&] {
                   Tensor s = without_overlap(*this, src);
                   if (s.sizes() != sizes()) s = expand_data(s, sizes());
                   copy_data(*this, s);
                 });
}

const Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.clamp_", [&] { return clamp_(min, max); },
                                   {tracing::arg(*this), tracing::arg(min), tracing::arg(max)});
  // a float bound makes an integer tensor's result float32, which self cannot hold (PyTorch's words)
  EMBER_CHECK(!(is_integral(dtype()) && ((min && min->is_floating()) || (max && max->is_floating()))),
              "clamp_: result type Float can't be cast to the desired output type ", torch_type_name(dtype()));
  return inplace(*this, nullptr, "clamp_", [&](const Tensor& s) { return s.clamp(min, max); },
                 [&] {
                   Tensor r = detail::unary_forward(UnaryOp::Clamp, *this, dtype(),
                                                    UnaryParams{min ? min->to<double>() : 0,
                                                                max ? max->to<double>() : 0,
                                                                min.has_value(), max.has_value()});
                   copy_data(*this, r);
                 });
}

const Tensor& Tensor::index_put_(const std::vector<Tensor>& indices, const Tensor& values,
                                 bool accumulate) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(
        *this, "Tensor.index_put_", [&] { return index_put_(indices, values, accumulate); },
        {tracing::arg(*this), tracing::arg(indices), tracing::arg(values), tracing::arg(accumulate)});
  return inplace(*this, &values, "index_put_",
                 [&](const Tensor& s) { return ember::index_put(s, indices, values, accumulate); },
                 [&] {
                   Tensor r;
                   {
                     autograd::NoGradGuard no_grad;
                     r = ember::index_put(*this, indices, values, accumulate);
                   }
                   copy_data(*this, r);
                 });
}

namespace detail {

const Tensor& inplace_of(const Tensor& self, const char* name,
                         std::initializer_list<std::reference_wrapper<const Tensor>> read,
                         const std::function<Tensor(const Tensor&)>& op, InplaceGrad grad) {
  bool record = false;
  if (autograd::GradMode::is_enabled() && grad != InplaceGrad::kUntracked) {
    record = self.requires_grad();
    for (const Tensor& t : read) record = record || (t.defined() && t.requires_grad());
  }
  const Tensor source = record ? clone(self) : self;
  Tensor result = op(source);
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), name, ": result type ", torch_type_name(result.dtype()),
              " can't be cast to the desired output type ", torch_type_name(self.dtype()));
  if (grad == InplaceGrad::kUntracked) {
    autograd::NoGradGuard no_grad;
    return self.copy_(result);
  }
  if (grad == InplaceGrad::kZero && record) {
    result = result.to(self.dtype());
    result = with_zero_grad(result, {source});
    for (const Tensor& t : read) result = with_zero_grad(result, {t});
  }
  return self.copy_(result);
}

}  // namespace detail

}  // namespace ember
