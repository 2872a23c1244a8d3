#include "ember/optim/sgd.h"

#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/convert.h"
#include "ember/ops/unary.h"
#include "ember/optim/fused.h"

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

namespace {

struct SGDArgs {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize, first;  // first: the momentum buffer is new and takes g
};

template <typename T>
void sgd_fused(const Tensor& param, const Tensor& grad, const Tensor& buf, const SGDArgs& a) {
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), mom = T(a.momentum),
          damp = T(1 - a.dampening), neg_lr = T(-a.lr);
  const bool decay = a.weight_decay != 0;
  const int64_t n = param.numel();
  if (!buf.defined()) {
    detail::for_lanes<T>(
        n,
        [&](auto P, auto G) {
          auto descend = [&](const auto& d) { P = P + d * neg_lr; };
          if (decay)
            descend(G * sign + P * wd);
          else
            descend(G * sign);
        },
        param.data_ptr<T>(), static_cast<const T*>(grad.data_ptr<T>()));
    return;
  }
  detail::for_lanes<T>(
      n,
      [&](auto P, auto G, auto B) {
        auto descend = [&](const auto& d) {  // d: the (decayed, signed) gradient, evaluated lazily
          if (a.first)
            B = d;
          else
            B = B * mom + d * damp;
          if (a.nesterov)
            P = P + (d + B * mom) * neg_lr;
          else
            P = P + B * neg_lr;
        };
        if (decay)
          descend(G * sign + P * wd);
        else
          descend(G * sign);
      },
      param.data_ptr<T>(), static_cast<const T*>(grad.data_ptr<T>()), buf.data_ptr<T>());
}

}  // namespace

void SGD::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  SGDArgs a{u.lr,
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
  if (detail::fusable(p, {&u.grad}) && (a.momentum == 0 || a.first || detail::fusable(p, {&buf}))) {
    if (a.first) buf = u.state["momentum_buffer"] = empty(p.sizes(), p.options());
    if (p.dtype() == kFloat32)
      sgd_fused<float>(p, u.grad, buf, a);
    else
      sgd_fused<double>(p, u.grad, buf, a);
    p.bump_version();
    if (buf.defined()) buf.bump_version();
    return;
  }
  Tensor d = a.maximize ? neg(u.grad) : u.grad;
  if (a.weight_decay != 0) d = add(d, p, a.weight_decay);
  if (a.momentum != 0) {
    if (a.first) {
      buf = u.state["momentum_buffer"] = clone(d);
    } else {
      buf.mul_(a.momentum).add_(d, 1 - a.dampening);
    }
    d = a.nesterov ? add(d, buf, a.momentum) : buf;
  }
  p.add_(d, -a.lr);
}

}  // namespace ember::optim
