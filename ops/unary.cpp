#include "ember/ops/unary.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"

namespace ember {

EMBER_DEFINE_STUB(unary_stub, UnaryFn);

using autograd::SavedTensor;
using autograd::TensorList;

namespace detail {
Tensor unary_forward(UnaryOp op, const Tensor& t, DType dtype, const UnaryParams& p) {
  Tensor in = t.dtype() == dtype ? t : copy_as(t, dtype, t.device());
  Tensor out = empty(t.sizes(), TensorOptions(dtype).device(t.device()));
  if (t.numel() > 0) unary_stub(t.device().type, op, out, in, p);
  return out;
}
}  // namespace detail

namespace {

// d(-x)/dx = -grad
struct NegBackward : autograd::Node {
  const char* name() const override { return "NegBackward"; }
  TensorList apply(TensorList&& g) override { return {neg(g[0])}; }
};

}  // namespace

Tensor neg(const Tensor& t) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, "neg: negation of a bool tensor is not supported");
  Tensor out = detail::unary_forward(UnaryOp::Neg, t, t.dtype());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<NegBackward>(t));
  return out;
}

Tensor Tensor::neg() const { return ember::neg(*this); }

}  // namespace ember

namespace ember {
// TEMPORARY until the unary ops land: replaced by the real clamp.
Tensor Tensor::clamp(std::optional<Scalar>, std::optional<Scalar>) const {
  EMBER_CHECK_AS(NotImplementedError, false, "clamp: not implemented yet");
  return *this;
}
}  // namespace ember
