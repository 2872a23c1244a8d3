#include "ember/optim/adagrad.h"

#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

const std::vector<Field<AdagradOptions>>& AdagradOptions::fields() {
  static const std::vector<Field<AdagradOptions>> f{
      {"lr", &AdagradOptions::lr},
      {"lr_decay", &AdagradOptions::lr_decay},
      {"weight_decay", &AdagradOptions::weight_decay},
      {"initial_accumulator_value", &AdagradOptions::initial_accumulator_value},
      {"eps", &AdagradOptions::eps},
      {"maximize", &AdagradOptions::maximize}, {"master_weights", &AdagradOptions::master_weights}};
  return f;
}

Adagrad::Adagrad(NamedParameters params, AdagradOptions options)
    : Adagrad(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, AdagradOptions options)
    : Optimizer("Adagrad", to_hyperparams(options, AdagradOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void Adagrad::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, AdagradOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.lr_decay >= 0, name(), "lr_decay", o.lr_decay);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
  detail::check_option(o.initial_accumulator_value >= 0, name(), "initial_accumulator_value",
                       o.initial_accumulator_value);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
}

void Adagrad::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, AdagradOptions::fields());
  const Tensor& p = u.param;
  const Tensor& step = detail::state_entry(u.state, "step", detail::new_step);
  const Tensor& sum = detail::state_entry(u.state, "sum", [&] {
    return full(p.sizes(), o.initial_accumulator_value, p.options());
  });
  const double t = detail::increment_step(step);

  AdagradStep a{u.lr / (1 + (t - 1) * o.lr_decay), u.weight_decay, o.eps, o.maximize};
  detail::run_update(p, u.grad, [&](const Tensor& P, const Tensor& G, const Tensor& S) {
    adagrad_step_stub(P.device().type, P, G, S, a);
  }, sum);
}

}  // namespace ember::optim
