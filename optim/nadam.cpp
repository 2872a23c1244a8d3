#include "ember/optim/nadam.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/optim/composite_step.h"

namespace ember::optim {

const std::vector<Field<NAdamOptions>>& NAdamOptions::fields() {
  static const std::vector<Field<NAdamOptions>> f{{"lr", &NAdamOptions::lr},
                                                   {"betas", &NAdamOptions::betas},
                                                   {"eps", &NAdamOptions::eps},
                                                   {"weight_decay", &NAdamOptions::weight_decay},
                                                   {"momentum_decay", &NAdamOptions::momentum_decay},
                                                   {"decoupled_weight_decay", &NAdamOptions::decoupled_weight_decay},
                                                   {"maximize", &NAdamOptions::maximize}, {"master_weights", &NAdamOptions::master_weights}};
  return f;
}

NAdam::NAdam(NamedParameters params, NAdamOptions options)
    : NAdam(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

NAdam::NAdam(std::vector<ParamGroup> groups, NAdamOptions options)
    : Optimizer("NAdam", to_hyperparams(options, NAdamOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void NAdam::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, NAdamOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.betas.first >= 0 && o.betas.first < 1 && o.betas.second >= 0 && o.betas.second < 1,
                       name(), "betas", o.betas);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
  detail::check_option(o.momentum_decay >= 0, name(), "momentum_decay", o.momentum_decay);
}

void NAdam::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, NAdamOptions::fields());
  const auto [beta1, beta2] = o.betas;
  const Tensor& p = u.param;
  auto zeros_like_p = [&] { return zeros(p.sizes(), p.options()); };
  const double t = detail::increment_step(detail::state_entry(u.state, "step", detail::new_step));
  const Tensor& mu_product = detail::state_entry(u.state, "mu_product", [] { return ones({}, kFloat32); });
  const Tensor& m = detail::state_entry(u.state, "exp_avg", zeros_like_p);
  const Tensor& v = detail::state_entry(u.state, "exp_avg_sq", zeros_like_p);

  const double bias_correction2 = 1 - std::pow(beta2, t);
  const Tensor g = detail::decayed_grad(u.grad, p, o.maximize, u.weight_decay, o.decoupled_weight_decay, u.lr);
  const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, t * o.momentum_decay));
  const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (t + 1) * o.momentum_decay));
  // NB: the product lives in a float32 tensor, as torch's; its rounding is part of the update.
  mu_product.mul_(mu);
  const double product = mu_product.item<double>();
  detail::assign(m, detail::lerp_scalar(m, g, 1 - beta1));
  detail::assign(v, detail::addcmul_scalar(mul(v, beta2), g, g, 1 - beta2));
  const Tensor denom = add(sqrt(div(v, bias_correction2)), o.eps);
  const double product_next = product * mu_next;
  p.add_(div(mul(g, -u.lr * (1.0 - mu) / (1.0 - product)), denom));
  p.add_(div(mul(m, (-u.lr * mu_next) / (1.0 - product_next)), denom));
}

}  // namespace ember::optim
