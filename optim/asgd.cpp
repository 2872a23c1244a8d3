#include "ember/optim/asgd.h"

#include <algorithm>
#include <cmath>

#include "ember/core/factory.h"
#include "ember/optim/composite_step.h"

namespace ember::optim {
namespace {
// A number as torch's float32 scalar tensor holds it.
double float32(double v) { return static_cast<double>(static_cast<float>(v)); }
Tensor scalar_state(double v) { return full({}, float32(v), TensorOptions(kFloat32)); }
}  // namespace

const std::vector<Field<ASGDOptions>>& ASGDOptions::fields() {
  static const std::vector<Field<ASGDOptions>> f{{"lr", &ASGDOptions::lr},
                                                 {"lambd", &ASGDOptions::lambd},
                                                 {"alpha", &ASGDOptions::alpha},
                                                 {"t0", &ASGDOptions::t0},
                                                 {"weight_decay", &ASGDOptions::weight_decay},
                                                 {"maximize", &ASGDOptions::maximize},
                                                 {"master_weights", &ASGDOptions::master_weights}};
  return f;
}

ASGD::ASGD(NamedParameters params, ASGDOptions options)
    : ASGD(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

ASGD::ASGD(std::vector<ParamGroup> groups, ASGDOptions options)
    : Optimizer("ASGD", to_hyperparams(options, ASGDOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void ASGD::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, ASGDOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
}

void ASGD::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, ASGDOptions::fields());
  const Tensor& p = u.param;
  const double t = detail::increment_step(detail::state_entry(u.state, "step", detail::new_step));
  const Tensor& eta = detail::state_entry(u.state, "eta", [&] { return scalar_state(u.lr); });
  const Tensor& mu = detail::state_entry(u.state, "mu", [] { return scalar_state(1.0); });
  const Tensor& ax = detail::state_entry(u.state, "ax", [&] { return zeros(p.sizes(), p.options()); });
  const Tensor g = detail::decayed_grad(u.grad, p, o.maximize, u.weight_decay);
  const double eta_value = eta.item<double>(), mu_value = mu.item<double>();
  p.mul_(1 - o.lambd * eta_value);
  p.add_(g, -eta_value);
  if (mu_value != 1)
    detail::assign(ax, add(ax, mul(sub(p, ax), mu_value)));
  else
    detail::assign(ax, p);
  eta.fill_(float32(u.lr / std::pow(1 + o.lambd * u.lr * t, o.alpha)));
  mu.fill_(float32(1 / std::max(1.0, t - o.t0)));
}

}  // namespace ember::optim
