#include "ember/optim/radam.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/optim/composite_step.h"

namespace ember::optim {

const std::vector<Field<RAdamOptions>>& RAdamOptions::fields() {
  static const std::vector<Field<RAdamOptions>> f{{"lr", &RAdamOptions::lr},
                                                   {"betas", &RAdamOptions::betas},
                                                   {"eps", &RAdamOptions::eps},
                                                   {"weight_decay", &RAdamOptions::weight_decay},
                                                   {"decoupled_weight_decay", &RAdamOptions::decoupled_weight_decay},
                                                   {"maximize", &RAdamOptions::maximize}, {"master_weights", &RAdamOptions::master_weights}};
  return f;
}

RAdam::RAdam(NamedParameters params, RAdamOptions options)
    : RAdam(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

RAdam::RAdam(std::vector<ParamGroup> groups, RAdamOptions options)
    : Optimizer("RAdam", to_hyperparams(options, RAdamOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void RAdam::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, RAdamOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.betas.first >= 0 && o.betas.first < 1 && o.betas.second >= 0 && o.betas.second < 1,
                       name(), "betas", o.betas);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
}

void RAdam::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, RAdamOptions::fields());
  const auto [beta1, beta2] = o.betas;
  const Tensor& p = u.param;
  auto zeros_like_p = [&] { return zeros(p.sizes(), p.options()); };
  const double t = detail::increment_step(detail::state_entry(u.state, "step", detail::new_step));
  const Tensor& m = detail::state_entry(u.state, "exp_avg", zeros_like_p);
  const Tensor& v = detail::state_entry(u.state, "exp_avg_sq", zeros_like_p);

  const Tensor g = detail::decayed_grad(u.grad, p, o.maximize, u.weight_decay, o.decoupled_weight_decay, u.lr);
  detail::assign(m, detail::lerp_scalar(m, g, 1 - beta1));
  detail::assign(v, detail::addcmul_scalar(mul(v, beta2), g, g, 1 - beta2));
  const double bias_correction1 = 1 - std::pow(beta1, t), bias_correction2 = 1 - std::pow(beta2, t);
  const Tensor corrected = div(m, bias_correction1);
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * t * std::pow(beta2, t) / bias_correction2;
  if (rho_t > 5.0) {
    const double rect =
        std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    const Tensor adaptive = div(full({}, std::sqrt(bias_correction2), p.options()), add(sqrt(v), o.eps));
    p.sub_(mul(mul(mul(corrected, u.lr), adaptive), rect));
  } else {
    p.sub_(mul(corrected, u.lr));
  }
}

}  // namespace ember::optim
