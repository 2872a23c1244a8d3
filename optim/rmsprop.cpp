#include "ember/optim/rmsprop.h"

#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/unary.h"
#include "ember/optim/fused.h"

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

namespace {

struct RMSpropArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};

template <typename T, bool kCentered, bool kMomentum>
void rmsprop_fused(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& grad_avg, const Tensor& buf, const RMSpropArgs& a) {
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), alpha = T(a.alpha),
          c = T(1 - a.alpha), eps = T(a.eps), mom = T(a.momentum), neg_lr = T(-a.lr);
  const bool decay = a.weight_decay != 0;
  // extra: grad_avg when centered, then the momentum buffer when momentum > 0.
  auto body = [&](auto P, auto G, auto SQ, auto... extra) {
    auto ex = std::tie(extra...);
    auto run = [&](const auto& d) {
      SQ = SQ * alpha + d * c * d;
      auto descend = [&](const auto& avg) {
        if constexpr (kMomentum) {
          auto& B = std::get < kCentered ? 1 : 0 > (ex);
          B = B * mom + d / avg;
          P = P + B * neg_lr;
        } else {
          P = P + d * neg_lr / avg;
        }
      };
      if constexpr (kCentered) {
        auto& GA = std::get<0>(ex);
        detail::lerp_into(GA, d, c);
        descend((SQ + GA * T(-1) * GA).sqrt() + eps);
      } else {
        descend(SQ.sqrt() + eps);
      }
    };
    if (decay)
      run(G * sign + P * wd);
    else
      run(G * sign);
  };
  const int64_t n = param.numel();
  T* p = param.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* sq = square_avg.data_ptr<T>();
  if constexpr (kCentered && kMomentum)
    detail::for_lanes<T>(n, body, p, g, sq, grad_avg.data_ptr<T>(), buf.data_ptr<T>());
  else if constexpr (kCentered)
    detail::for_lanes<T>(n, body, p, g, sq, grad_avg.data_ptr<T>());
  else if constexpr (kMomentum)
    detail::for_lanes<T>(n, body, p, g, sq, buf.data_ptr<T>());
  else
    detail::for_lanes<T>(n, body, p, g, sq);
}

template <typename T>
void rmsprop_dispatch(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                      const Tensor& grad_avg, const Tensor& buf, const RMSpropArgs& a) {
  const bool mom = a.momentum > 0;
  if (a.centered && mom)
    rmsprop_fused<T, true, true>(param, grad, square_avg, grad_avg, buf, a);
  else if (a.centered)
    rmsprop_fused<T, true, false>(param, grad, square_avg, grad_avg, buf, a);
  else if (mom)
    rmsprop_fused<T, false, true>(param, grad, square_avg, grad_avg, buf, a);
  else
    rmsprop_fused<T, false, false>(param, grad, square_avg, grad_avg, buf, a);
}

}  // namespace

void RMSprop::update(const ParamUpdate& u) {
  const Hyperparams& o = u.options;
  const Tensor& p = u.param;
  RMSpropArgs a{u.lr,
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

  if (detail::fusable(p, {&u.grad, &sq}) && (!a.centered || detail::fusable(p, {&ga})) &&
      (a.momentum <= 0 || detail::fusable(p, {&buf}))) {
    if (p.dtype() == kFloat32)
      rmsprop_dispatch<float>(p, u.grad, sq, ga, buf, a);
    else
      rmsprop_dispatch<double>(p, u.grad, sq, ga, buf, a);
    for (const Tensor* w : std::initializer_list<const Tensor*>{&p, &sq, &ga, &buf})
      if (w->defined()) w->bump_version();
    return;
  }
  Tensor d = a.maximize ? neg(u.grad) : u.grad;
  if (a.weight_decay != 0) d = add(d, p, a.weight_decay);
  sq.mul_(a.alpha).add_(d * d, 1 - a.alpha);
  Tensor avg;
  if (a.centered) {
    detail::lerp_(ga, d, 1 - a.alpha);
    avg = sqrt(sub(sq, ga * ga));
  } else {
    avg = sqrt(sq);
  }
  avg.add_(a.eps);
  if (a.momentum > 0) {
    buf.mul_(a.momentum).add_(d / avg);
    p.add_(buf, -a.lr);
  } else {
    p.add_(d / avg, -a.lr);
  }
}

}  // namespace ember::optim
