#include "ember/optim/adam.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/unary.h"
#include "ember/optim/fused.h"

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

namespace {

struct AdamArgs {
  double beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
  double step_size;  // lr / (1 - beta1^t)
  double bc2_sqrt;   // sqrt(1 - beta2^t)
  double decay;      // 1 - lr * weight_decay (decoupled)
};

template <typename T>
void adam_fused(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_sq, const AdamArgs& a) {
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), w1 = T(1 - a.beta1),
          b2 = T(a.beta2), c2 = T(1 - a.beta2), eps = T(a.eps), bc2s = T(a.bc2_sqrt),
          neg_ss = T(-a.step_size), decay = T(a.decay);
  const bool l2 = a.weight_decay != 0 && !a.decoupled, shrink = a.weight_decay != 0 && a.decoupled;
  auto body = [&](auto P, auto G, auto M, auto V, auto... VM) {
    auto moments = [&](const auto& d) {
      detail::lerp_into(M, d, w1);
      V = V * b2 + d * c2 * d;
    };
    if (l2)
      moments(G * sign + P * wd);
    else
      moments(G * sign);
    auto descend = [&](const auto& denom) {
      if (shrink)
        P = P * decay + M * neg_ss / denom;
      else
        P = P + M * neg_ss / denom;
    };
    if constexpr (sizeof...(VM) == 1) {
      auto& vmax = std::get<0>(std::tie(VM...));
      // NaN wins, as in torch.maximum.
      vmax = vmax.binaryExpr(V, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
      descend(vmax.sqrt() / bc2s + eps);
    } else {
      descend(V.sqrt() / bc2s + eps);
    }
  };
  T* p = param.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* m = exp_avg.data_ptr<T>();
  T* v = exp_avg_sq.data_ptr<T>();
  if (a.amsgrad)
    detail::for_lanes<T>(param.numel(), body, p, g, m, v, max_sq.data_ptr<T>());
  else
    detail::for_lanes<T>(param.numel(), body, p, g, m, v);
}

}  // namespace

void Adam::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  const Tensor& p = u.param;
  AdamArgs a{o.at("beta1"),
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

  if (detail::fusable(p, {&u.grad, &m, &v}) && (!a.amsgrad || detail::fusable(p, {&vmax}))) {
    if (p.dtype() == kFloat32)
      adam_fused<float>(p, u.grad, m, v, vmax, a);
    else
      adam_fused<double>(p, u.grad, m, v, vmax, a);
    for (const Tensor* w : {&p, &m, &v}) w->bump_version();
    if (a.amsgrad) vmax.bump_version();
    return;
  }
  Tensor d = a.maximize ? neg(u.grad) : u.grad;
  if (a.weight_decay != 0) {
    if (a.decoupled)
      p.mul_(a.decay);
    else
      d = add(d, p, a.weight_decay);
  }
  detail::lerp_(m, d, 1 - a.beta1);
  v.mul_(a.beta2).add_(d * d, 1 - a.beta2);
  Tensor denom;
  if (a.amsgrad) {
    vmax.copy_(maximum(vmax, v));
    denom = sqrt(vmax);
  } else {
    denom = sqrt(v);
  }
  denom.div_(a.bc2_sqrt).add_(a.eps);
  p.add_(m / denom, -a.step_size);
}

}  // namespace ember::optim
