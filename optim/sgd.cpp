#include "ember/optim/sgd.h"

#include "ember/core/factory.h"
#include "ember/ops/convert.h"
#include "ember/core/kernels/optim.h"

namespace ember::optim {

const std::vector<Field<SGDOptions>>& SGDOptions::fields() {
  static const std::vector<Field<SGDOptions>> f{
      {"lr", &SGDOptions::lr},           {"momentum", &SGDOptions::momentum},
      {"dampening", &SGDOptions::dampening}, {"weight_decay", &SGDOptions::weight_decay},
      {"nesterov", &SGDOptions::nesterov},   {"maximize", &SGDOptions::maximize}, {"master_weights", &SGDOptions::master_weights}};
  return f;
}

SGD::SGD(NamedParameters params, SGDOptions options)
    : SGD(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

SGD::SGD(std::vector<ParamGroup> groups, SGDOptions options)
    : Optimizer("SGD", to_hyperparams(options, SGDOptions::fields())) {
  for (auto& g : groups) add_param_group(std::move(g));
}

void SGD::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, SGDOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.momentum >= 0, name(), "momentum", o.momentum);
  detail::check_option(o.weight_decay >= 0, name(), "weight_decay", o.weight_decay);
  EMBER_CHECK_VALUE(!o.nesterov || (o.momentum > 0 && o.dampening == 0), name(),
                    ": Nesterov momentum requires a momentum and zero dampening");
}

void SGD::update(const ParamUpdate& u) {
  const auto o = from_hyperparams(u.options, SGDOptions::fields());
  SgdStep a{u.lr, u.weight_decay, o.momentum, o.dampening, o.nesterov, o.maximize, false};
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
