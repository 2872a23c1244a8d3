#include "ember/ops/composite_grad.h"

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::detail {

Tensor with_zero_grad(Tensor result, std::initializer_list<std::reference_wrapper<const Tensor>> tensors) {
  if (!autograd::GradMode::is_enabled() || !(is_floating(result.dtype()) || is_complex(result.dtype()))) return result;
  for (const Tensor& t : tensors) {
    if (!t.defined() || !t.requires_grad()) continue;
    // where() picks all of result; the other branch is a 0 summed from t's empty slice, so t's
    // gradient is zeros of its shape and none of t's values (inf, NaN) reaches the result.
    const Tensor nothing = t.reshape({-1}).narrow(0, 0, 0).sum().to(result.dtype());
    result = where(ones({}, TensorOptions(kBool).device(result.device())), result, nothing);
  }
  return result;
}

Tensor keep_where(const Tensor& x, const Tensor& keep, Scalar other) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = where(keep, x, other);
  }
  autograd::record_function("KeepWhereBackward", out, {x}, {keep},
                            [](const autograd::TensorList& saved, const autograd::TensorList& grads,
                               const autograd::Node&) { return autograd::TensorList{grads[0] * saved[0]}; });
  return out;
}

}  // namespace ember::detail
