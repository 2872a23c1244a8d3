#include "ember/optim/adamax.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/optim/composite_step.h"

namespace ember::optim {

const std::vector<Field<AdamaxOptions>>& AdamaxOptions::fields() {
  static const std::vector<Field<AdamaxOptions>> f{{"lr", &AdamaxOptions::lr},
                                                    {"betas", &AdamaxOptions::betas},
                                                    {"eps", &AdamaxOptions::eps},
                                                    {"weight_decay", &AdamaxOptions::weight_decay},
                                                    {"maximize", &AdamaxOptions::maximize}, {"master_weights", &AdamaxOptions::master_weights}};
  return f;
}

Adamax::Adamax(NamedParameters params, AdamaxOptions options)
    : Adamax(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Adamax::Adamax(std::vector<ParamGroup> groups, AdamaxOptions options)
    : Optimizer("Adamax", to_hyperparams(options, AdamaxOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adamax::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, AdamaxOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.betas.first >= 0 && o.betas.first < 1 && o.betas.second >= 0 && o.betas.second < 1,
                       name(), "betas", o.betas);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
}

void Adamax::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, AdamaxOptions::fields());
  const auto [beta1, beta2] = o.betas;
  const Tensor& p = u.param;
  auto zeros_like_p = [&] { return zeros(p.sizes(), p.options()); };
  const double t = detail::increment_step(detail::state_entry(u.state, "step", detail::new_step));
  const Tensor& m = detail::state_entry(u.state, "exp_avg", zeros_like_p);
  const Tensor& inf = detail::state_entry(u.state, "exp_inf", zeros_like_p);
  const Tensor g = detail::decayed_grad(u.grad, p, o.maximize, u.weight_decay);
  detail::assign(m, detail::lerp_scalar(m, g, 1 - beta1));
  detail::assign(inf, maximum(mul(inf, beta2), add(abs(g), o.eps)));
  const double clr = u.lr / (1 - std::pow(beta1, t));
  p.add_(div(mul(m, -clr), inf));
}

}  // namespace ember::optim
