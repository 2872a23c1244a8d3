#include "ember/optim/adam.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

Hyperparams AdamOptions::to_map() const {
  return {{"lr", lr},
          {"beta1", beta1},
          {"beta2", beta2},
          {"eps", eps},
          {"weight_decay", weight_decay},
          {"amsgrad", amsgrad ? 1.0 : 0.0},
          {"maximize", maximize ? 1.0 : 0.0},
          {"decoupled_weight_decay", decoupled_weight_decay ? 1.0 : 0.0}};
}

Hyperparams AdamWOptions::to_map() const {
  return AdamOptions{lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, true}.to_map();
}

Adam::Adam(NamedParameters params, AdamOptions options)
    : Adam(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options)
    : Adam("Adam", options.to_map(), std::move(groups)) {}

Adam::Adam(std::string name, Hyperparams defaults, std::vector<ParamGroup> groups)
    : Optimizer(std::move(name), std::move(defaults)) {
  for (auto& g : groups) add_param_group(std::move(g));
}

AdamW::AdamW(NamedParameters params, AdamWOptions options)
    : AdamW(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

AdamW::AdamW(std::vector<ParamGroup> groups, AdamWOptions options)
    : Adam("AdamW", options.to_map(), std::move(groups)) {}

void Adam::validate(const Hyperparams& o) const {
  detail::check_option(o.at("lr") >= 0, name(), "lr", o.at("lr"));
  detail::check_option(o.at("eps") >= 0, name(), "eps", o.at("eps"));
  detail::check_option(o.at("beta1") >= 0 && o.at("beta1") < 1, name(), "beta1", o.at("beta1"));
  detail::check_option(o.at("beta2") >= 0 && o.at("beta2") < 1, name(), "beta2", o.at("beta2"));
  detail::check_option(o.at("weight_decay") >= 0, name(), "weight_decay", o.at("weight_decay"));
}

void Adam::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  const Tensor& p = u.param;
  AdamStep a{o.at("beta1"),
             o.at("beta2"),
             o.at("eps"),
             u.weight_decay,
             o.at("amsgrad") != 0,
             o.at("maximize") != 0,
             o.at("decoupled_weight_decay") != 0,
             0,
             0,
             0};
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
