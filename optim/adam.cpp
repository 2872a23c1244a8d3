#include "ember/optim/adam.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

const std::vector<Field<AdamOptions>>& AdamOptions::fields() {
  static const std::vector<Field<AdamOptions>> f{
      {"lr", &AdamOptions::lr},
      {"betas", &AdamOptions::betas},
      {"eps", &AdamOptions::eps},
      {"weight_decay", &AdamOptions::weight_decay},
      {"amsgrad", &AdamOptions::amsgrad},
      {"maximize", &AdamOptions::maximize},
      {"decoupled_weight_decay", &AdamOptions::decoupled_weight_decay},
      {"master_weights", &AdamOptions::master_weights}};
  return f;
}

Adam::Adam(NamedParameters params, AdamOptions options)
    : Adam(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options)
    : Adam("Adam", to_hyperparams(options, AdamOptions::fields()), std::move(groups)) {}

Adam::Adam(std::string name, Hyperparams defaults, std::vector<ParamGroup> groups)
    : Optimizer(std::move(name), std::move(defaults)) {
  for (auto& g : groups) add_param_group(std::move(g));
}

AdamW::AdamW(NamedParameters params, AdamWOptions options)
    : AdamW(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

AdamW::AdamW(std::vector<ParamGroup> groups, AdamWOptions options)
    : Adam("AdamW", to_hyperparams(options.adam(), AdamOptions::fields()), std::move(groups)) {}

void Adam::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, AdamOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
  detail::check_option(o.betas.first >= 0 && o.betas.first < 1 && o.betas.second >= 0 && o.betas.second < 1,
                       name(), "betas", o.betas);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
}

void Adam::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, AdamOptions::fields());
  const Tensor& p = u.param;
  AdamStep a{o.betas.first, o.betas.second, o.eps, u.weight_decay, o.amsgrad, o.maximize,
             o.decoupled_weight_decay, 0, 0, 0};
  auto zeros_like_p = [&] { return zeros(p.sizes(), p.options()); };
  const Tensor& step = detail::state_entry(u.state, "step", detail::new_step);
  const Tensor& m = detail::state_entry(u.state, "exp_avg", zeros_like_p);
  const Tensor& v = detail::state_entry(u.state, "exp_avg_sq", zeros_like_p);
  Tensor vmax = a.amsgrad ? detail::state_entry(u.state, "max_exp_avg_sq", zeros_like_p) : Tensor();

  // Python floats in torch: t is the count as a double, the corrections use pow as written there.
  const double t = detail::increment_step(step);
  a.step_size = u.lr / (1 - std::pow(a.beta1, t));
  a.bc2_sqrt = std::pow(1 - std::pow(a.beta2, t), 0.5);
  a.decay = 1 - u.lr * a.weight_decay;

  detail::run_update(p, u.grad, [&](const Tensor& P, const Tensor& G, const Tensor& M, const Tensor& V,
                                    const Tensor& VM) { adam_step_stub(P.device().type, P, G, M, V, VM, a); },
                     m, v, vmax);
}

}  // namespace ember::optim
