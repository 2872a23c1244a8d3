#include "ember/optim/adagrad.h"

#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

Hyperparams AdagradOptions::to_map() const {
  return {{"lr", lr},
          {"lr_decay", lr_decay},
          {"weight_decay", weight_decay},
          {"initial_accumulator_value", initial_accumulator_value},
          {"eps", eps},
          {"maximize", maximize ? 1.0 : 0.0}};
}

Adagrad::Adagrad(NamedParameters params, AdagradOptions options)
    : Adagrad(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, AdagradOptions options)
    : Optimizer("Adagrad", options.to_map()) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adagrad::validate(const Hyperparams& o) const {
  detail::check_option(o.at("lr") >= 0, name(), "lr", o.at("lr"));
  detail::check_option(o.at("lr_decay") >= 0, name(), "lr_decay", o.at("lr_decay"));
  detail::check_option(o.at("weight_decay") >= 0, name(), "weight_decay", o.at("weight_decay"));
  detail::check_option(o.at("initial_accumulator_value") >= 0, name(), "initial_accumulator_value",
                       o.at("initial_accumulator_value"));
  detail::check_option(o.at("eps") >= 0, name(), "eps", o.at("eps"));
}

void Adagrad::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  const Tensor& p = u.param;
  const Tensor& step = detail::state_entry(u.state, "step", detail::new_step);
  const Tensor& sum = detail::state_entry(u.state, "sum", [&] {
    return full(p.sizes(), o.at("initial_accumulator_value"), p.options());
  });
  const double t = detail::increment_step(step);

  AdagradStep a{u.lr / (1 + (t - 1) * o.at("lr_decay")), u.weight_decay, o.at("eps"),
                o.at("maximize") != 0};
  detail::run_update(p, u.grad, [&](const Tensor& P, const Tensor& G, const Tensor& S) {
    adagrad_step_stub(P.device().type, P, G, S, a);
  }, sum);
}

}  // namespace ember::optim
