#include "update_oracle.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/ops.h"

namespace ember::testing {
namespace {

// m = lerp(m, x, w) in PyTorch's two forms (picked by |w| < 0.5).
void lerp_(const Tensor& m, const Tensor& x, double w) {
  if (std::abs(w) < 0.5)
    m.add_(x - m, w);
  else
    m.sub_(x).mul_(1 - w).add_(x);  // x - (x - m) (1 - w)
}

}  // namespace

void sgd_oracle(const Tensor& p, const Tensor& grad, const Tensor& buf, const SgdStep& a) {
  NoGradGuard no_grad;
  Tensor d = a.maximize ? neg(grad) : grad;
  if (a.weight_decay != 0) d = add(d, p, a.weight_decay);
  if (a.momentum != 0) {
    if (a.first)
      buf.copy_(d);
    else
      buf.mul_(a.momentum).add_(d, 1 - a.dampening);
    d = a.nesterov ? add(d, buf, a.momentum) : buf;
  }
  p.add_(d, -a.lr);
}

void adam_oracle(const Tensor& p, const Tensor& grad, const Tensor& m, const Tensor& v, const Tensor& vmax,
                 const AdamStep& a) {
  NoGradGuard no_grad;
  Tensor d = a.maximize ? neg(grad) : grad;
  if (a.weight_decay != 0) {
    if (a.decoupled)
      p.mul_(a.decay);
    else
      d = add(d, p, a.weight_decay);
  }
  lerp_(m, d, 1 - a.beta1);
  v.mul_(a.beta2).add_(d * d, 1 - a.beta2);
  Tensor denom;
  if (a.amsgrad) {
    vmax.copy_(maximum(vmax, v));
    denom = sqrt(vmax);
  } else {
    denom = sqrt(v);
  }
  denom.div_(a.bc2_sqrt).add_(a.eps);
  p.add_(m / denom, -a.step_size);
}

void rmsprop_oracle(const Tensor& p, const Tensor& grad, const Tensor& sq, const Tensor& ga,
                    const Tensor& buf, const RmspropStep& a) {
  NoGradGuard no_grad;
  Tensor d = a.maximize ? neg(grad) : grad;
  if (a.weight_decay != 0) d = add(d, p, a.weight_decay);
  sq.mul_(a.alpha).add_(d * d, 1 - a.alpha);
  Tensor avg;
  if (a.centered) {
    lerp_(ga, d, 1 - a.alpha);
    avg = sqrt(sub(sq, ga * ga));
  } else {
    avg = sqrt(sq);
  }
  avg.add_(a.eps);
  if (a.momentum > 0) {
    buf.mul_(a.momentum).add_(d / avg);
    p.add_(buf, -a.lr);
  } else {
    p.add_(d / avg, -a.lr);
  }
}

void adagrad_oracle(const Tensor& p, const Tensor& grad, const Tensor& sum, const AdagradStep& a) {
  NoGradGuard no_grad;
  Tensor d = a.maximize ? neg(grad) : grad;
  if (a.weight_decay != 0) d = add(d, p, a.weight_decay);
  sum.add_(d * d);
  p.add_(d / sqrt(sum).add_(a.eps), -a.clr);
}

}  // namespace ember::testing
