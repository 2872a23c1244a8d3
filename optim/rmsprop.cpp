#include "ember/optim/rmsprop.h"

#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

const std::vector<Field<RMSpropOptions>>& RMSpropOptions::fields() {
  static const std::vector<Field<RMSpropOptions>> f{
      {"lr", &RMSpropOptions::lr},           {"alpha", &RMSpropOptions::alpha},
      {"eps", &RMSpropOptions::eps},         {"weight_decay", &RMSpropOptions::weight_decay},
      {"momentum", &RMSpropOptions::momentum}, {"centered", &RMSpropOptions::centered},
      {"maximize", &RMSpropOptions::maximize}, {"master_weights", &RMSpropOptions::master_weights}};
  return f;
}

RMSprop::RMSprop(NamedParameters params, RMSpropOptions options)
    : RMSprop(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, RMSpropOptions options)
    : Optimizer("RMSprop", to_hyperparams(options, RMSpropOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void RMSprop::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, RMSpropOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.eps >= 0, name(), "eps", o.eps);
  detail::check_option(o.alpha >= 0, name(), "alpha", o.alpha);
  detail::check_option(o.momentum >= 0, name(), "momentum", o.momentum);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
}

void RMSprop::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, RMSpropOptions::fields());
  const Tensor& p = u.param;
  RmspropStep a{u.lr, o.alpha, o.eps, u.weight_decay, o.momentum, o.centered, o.maximize};
  auto zeros_like_p = [&] { return zeros(p.sizes(), p.options()); };
  const Tensor& step = detail::state_entry(u.state, "step", detail::new_step);
  const Tensor& sq = detail::state_entry(u.state, "square_avg", zeros_like_p);
  Tensor ga = a.centered ? detail::state_entry(u.state, "grad_avg", zeros_like_p) : Tensor();
  Tensor buf =
      a.momentum > 0 ? detail::state_entry(u.state, "momentum_buffer", zeros_like_p) : Tensor();
  detail::increment_step(step);

  detail::run_update(p, u.grad, [&](const Tensor& P, const Tensor& G, const Tensor& SQ, const Tensor& GA,
                                    const Tensor& B) { rmsprop_step_stub(P.device().type, P, G, SQ, GA, B, a); },
                     sq, ga, buf);
}

}  // namespace ember::optim
