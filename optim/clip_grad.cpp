#include "ember/optim/clip_grad.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/convert.h"
#include "ember/ops/join.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember::optim {

namespace {

std::vector<Tensor> tensors_of(const NamedParameters& params) {
  std::vector<Tensor> out;
  out.reserve(params.size());
  for (const auto& [n, p] : params) out.push_back(p);
  return out;
}

// Max or min of every element (the kernel directly: no autograd is needed here).
Tensor reduce_all(ReduceOp op, const Tensor& t) {
  Tensor flat = reshape(t, {t.numel()});
  Tensor out = empty({1}, t.options());
  reduce_stub(t.device().type, op, out, flat, IntArrayRef{0});
  return reshape(out, {});
}

// torch.linalg.vector_norm(t, p) over all elements, in t's dtype.
Tensor vector_norm(const Tensor& t, double p) {
  if (t.numel() == 0) return zeros({}, t.options());
  if (p == 2) return sqrt(sum(t * t));
  if (p == 1) return sum(abs(t));
  if (std::isinf(p)) return reduce_all(p > 0 ? ReduceOp::Max : ReduceOp::Min, abs(t));
  if (p == 0) return sum(ne(t, 0)).to(t.dtype());
  return pow(sum(pow(abs(t), p)), 1.0 / p);
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return zeros({});
  DType dtype = grads[0].dtype();
  for (const Tensor& g : grads) dtype = promote_types(dtype, g.dtype());
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads)
    norms.push_back(vector_norm(g, norm_type).to(dtype).to(grads[0].device()));
  Tensor total = vector_norm(stack(norms), norm_type);
  if (error_if_nonfinite) {
    double v = total.item<double>();
    EMBER_CHECK(std::isfinite(v), "clip_grad_norm_: the total norm of order ", norm_type,
                " of the gradients is non-finite (", v,
                "), so it cannot be clipped; pass error_if_nonfinite = false to scale the "
                "gradients by it anyway");
  }
  Tensor coef = clamp(max_norm / (total + 1e-6), std::nullopt, 1.0);
  for (const Tensor& g : grads) g.mul_(coef.device() == g.device() ? coef : coef.to(g.device()));
  return total;
}

Tensor clip_grad_norm_(const NamedParameters& params, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(tensors_of(params), max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : params)
    if (p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
}

void clip_grad_value_(const NamedParameters& params, double clip_value) {
  clip_grad_value_(tensors_of(params), clip_value);
}

}  // namespace ember::optim
