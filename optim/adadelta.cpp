#include "ember/optim/adadelta.h"

#include "ember/core/factory.h"
#include "ember/optim/composite_step.h"

namespace ember::optim {

const std::vector<Field<AdadeltaOptions>>& AdadeltaOptions::fields() {
  static const std::vector<Field<AdadeltaOptions>> f{{"lr", &AdadeltaOptions::lr},
                                                      {"rho", &AdadeltaOptions::rho},
                                                      {"eps", &AdadeltaOptions::eps},
                                                      {"weight_decay", &AdadeltaOptions::weight_decay},
                                                      {"maximize", &AdadeltaOptions::maximize}, {"master_weights", &AdadeltaOptions::master_weights}};
  return f;
}

Adadelta::Adadelta(NamedParameters params, AdadeltaOptions options)
    : Adadelta(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Adadelta::Adadelta(std::vector<ParamGroup> groups, AdadeltaOptions options)
    : Optimizer("Adadelta", to_hyperparams(options, AdadeltaOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adadelta::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, AdadeltaOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.rho >= 0 && o.rho <= 1, name(), "rho", o.rho);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
}

void Adadelta::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, AdadeltaOptions::fields());
  const Tensor& p = u.param;
  auto zeros_like_p = [&] { return zeros(p.sizes(), p.options()); };
  detail::increment_step(detail::state_entry(u.state, "step", detail::new_step));
  const Tensor& sq = detail::state_entry(u.state, "square_avg", zeros_like_p);
  const Tensor& acc = detail::state_entry(u.state, "acc_delta", zeros_like_p);
  const Tensor g = detail::decayed_grad(u.grad, p, o.maximize, u.weight_decay);
  detail::assign(sq, detail::addcmul_scalar(mul(sq, o.rho), g, g, 1 - o.rho));
  const Tensor std_ = sqrt(add(sq, o.eps));
  const Tensor delta = mul(div(sqrt(add(acc, o.eps)), std_), g);
  detail::assign(acc, detail::addcmul_scalar(mul(acc, o.rho), delta, delta, 1 - o.rho));
  p.add_(delta, -u.lr);
}

}  // namespace ember::optim
