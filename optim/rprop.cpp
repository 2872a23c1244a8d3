#include "ember/optim/rprop.h"

#include "ember/core/factory.h"
#include "ember/optim/composite_step.h"

namespace ember::optim {

const std::vector<Field<RpropOptions>>& RpropOptions::fields() {
  static const std::vector<Field<RpropOptions>> f{{"lr", &RpropOptions::lr},
                                                  {"etas", &RpropOptions::etas},
                                                  {"step_sizes", &RpropOptions::step_sizes},
                                                  {"maximize", &RpropOptions::maximize},
                                                  {"master_weights", &RpropOptions::master_weights}};
  return f;
}

Rprop::Rprop(NamedParameters params, RpropOptions options)
    : Rprop(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

Rprop::Rprop(std::vector<ParamGroup> groups, RpropOptions options)
    : Optimizer("Rprop", to_hyperparams(options, RpropOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void Rprop::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, RpropOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(0 < o.etas.first && o.etas.first < 1 && 1 < o.etas.second, name(), "etas", o.etas);
  detail::check_option(0 <= o.step_sizes.first && o.step_sizes.first <= o.step_sizes.second, name(), "step_sizes",
                       o.step_sizes);
}

void Rprop::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, RpropOptions::fields());
  const auto [eta_minus, eta_plus] = o.etas;
  const Tensor& p = u.param;
  detail::increment_step(detail::state_entry(u.state, "step", detail::new_step));
  const Tensor& prev = detail::state_entry(u.state, "prev", [&] { return zeros(p.sizes(), p.options()); });
  const Tensor& step_size =
      detail::state_entry(u.state, "step_size", [&] { return full(p.sizes(), u.lr, p.options()); });
  const Tensor g = o.maximize ? neg(u.grad) : u.grad;
  const Tensor agreement = sign(mul(g, prev));
  const Tensor factor = where(gt(agreement, 0.0), Scalar(eta_plus),
                              where(lt(agreement, 0.0), Scalar(eta_minus), ones(p.sizes(), p.options())));
  detail::assign(step_size, clamp(mul(step_size, factor), Scalar(o.step_sizes.first), Scalar(o.step_sizes.second)));
  // where the sign flipped, no step, and the next comparison starts afresh
  const Tensor used = where(lt(agreement, 0.0), Scalar(0.0), g);
  p.add_(neg(mul(sign(used), step_size)));
  detail::assign(prev, used);
}

}  // namespace ember::optim
