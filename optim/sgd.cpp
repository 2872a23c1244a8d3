#include "ember/optim/sgd.h"

#include "ember/core/factory.h"
#include "ember/ops/convert.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

Hyperparams SGDOptions::to_map() const {
  return {{"lr", lr},
          {"momentum", momentum},
          {"dampening", dampening},
          {"weight_decay", weight_decay},
          {"nesterov", nesterov ? 1.0 : 0.0},
          {"maximize", maximize ? 1.0 : 0.0}};
}

SGD::SGD(NamedParameters params, SGDOptions options)
    : SGD(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

SGD::SGD(std::vector<ParamGroup> groups, SGDOptions options) : Optimizer("SGD", options.to_map()) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void SGD::validate(const Hyperparams& o) const {
  detail::check_option(o.at("lr") >= 0, name(), "lr", o.at("lr"));
  detail::check_option(o.at("momentum") >= 0, name(), "momentum", o.at("momentum"));
  detail::check_option(o.at("weight_decay") >= 0, name(), "weight_decay", o.at("weight_decay"));
  EMBER_CHECK_VALUE(o.at("nesterov") == 0 || (o.at("momentum") > 0 && o.at("dampening") == 0),
                    name(), ": Nesterov momentum requires a momentum and zero dampening");
}

void SGD::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  SgdStep a{u.lr,
            u.weight_decay,
            o.at("momentum"),
            o.at("dampening"),
            o.at("nesterov") != 0,
            o.at("maximize") != 0,
            false};
  const Tensor& p = u.param;
  Tensor buf;
  if (a.momentum != 0) {
    auto it = u.state.find("momentum_buffer");
    a.first = it == u.state.end();
    if (!a.first) buf = it->second;
  }
  if (a.first) buf = u.state["momentum_buffer"] = empty(p.sizes(), p.options());
  detail::run_update(p, u.grad, [&](const Tensor& P, const Tensor& G, const Tensor& B) {
    sgd_step_stub(P.device().type, P, G, B, a);
  }, buf);
}

}  // namespace ember::optim
