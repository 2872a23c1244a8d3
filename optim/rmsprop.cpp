#include "ember/optim/rmsprop.h"

#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

Hyperparams RMSpropOptions::to_map() const {
  return {{"lr", lr},
          {"alpha", alpha},
          {"eps", eps},
          {"weight_decay", weight_decay},
          {"momentum", momentum},
          {"centered", centered ? 1.0 : 0.0},
          {"maximize", maximize ? 1.0 : 0.0}};
}

RMSprop::RMSprop(NamedParameters params, RMSpropOptions options)
    : RMSprop(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, RMSpropOptions options)
    : Optimizer("RMSprop", options.to_map()) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void RMSprop::validate(const Hyperparams& o) const {
  detail::check_option(o.at("lr") >= 0, name(), "lr", o.at("lr"));
  detail::check_option(o.at("eps") >= 0, name(), "eps", o.at("eps"));
  detail::check_option(o.at("alpha") >= 0, name(), "alpha", o.at("alpha"));
  detail::check_option(o.at("momentum") >= 0, name(), "momentum", o.at("momentum"));
  detail::check_option(o.at("weight_decay") >= 0, name(), "weight_decay", o.at("weight_decay"));
}

void RMSprop::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  const Tensor& p = u.param;
  RmspropStep a{u.lr,
                o.at("alpha"),
                o.at("eps"),
                u.weight_decay,
                o.at("momentum"),
                o.at("centered") != 0,
                o.at("maximize") != 0};
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
