#include "ember/optim/adagrad.h"

#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/unary.h"
#include "ember/optim/fused.h"

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

namespace {

template <typename T>
void adagrad_fused(const Tensor& param, const Tensor& grad, const Tensor& sum, double clr,
                   double weight_decay, double eps_, bool maximize) {
  const T sign = maximize ? T(-1) : T(1), wd = T(weight_decay), eps = T(eps_), neg_clr = T(-clr);
  detail::for_lanes<T>(
      param.numel(),
      [&](auto P, auto G, auto S) {
        auto run = [&](const auto& d) {
          S = S + d * T(1) * d;
          P = P + d * neg_clr / (S.sqrt() + eps);
        };
        if (weight_decay != 0)
          run(G * sign + P * wd);
        else
          run(G * sign);
      },
      param.data_ptr<T>(), static_cast<const T*>(grad.data_ptr<T>()), sum.data_ptr<T>());
}

}  // namespace

void Adagrad::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  const Tensor& p = u.param;
  const double eps = o.at("eps");
  const bool maximize = o.at("maximize") != 0;
  const Tensor& step = detail::state_entry(u.state, "step", detail::new_step);
  const Tensor& sum = detail::state_entry(u.state, "sum", [&] {
    return full(p.sizes(), o.at("initial_accumulator_value"), p.options());
  });
  const double t = detail::increment_step(step);
  const double clr = u.lr / (1 + (t - 1) * o.at("lr_decay"));

  if (detail::fusable(p, {&u.grad, &sum})) {
    if (p.dtype() == kFloat32)
      adagrad_fused<float>(p, u.grad, sum, clr, u.weight_decay, eps, maximize);
    else
      adagrad_fused<double>(p, u.grad, sum, clr, u.weight_decay, eps, maximize);
    p.bump_version();
    sum.bump_version();
    return;
  }
  Tensor d = maximize ? neg(u.grad) : u.grad;
  if (u.weight_decay != 0) d = add(d, p, u.weight_decay);
  sum.add_(d * d);
  p.add_(d / sqrt(sum).add_(eps), -clr);
}

}  // namespace ember::optim
