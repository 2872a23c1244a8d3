// CPU kernels of the optimizers' update steps (core/kernels/optim.h): each step is one pass of
// fixed-size Eigen lane groups over the parameter and its state (core/cpu/lanes.h), bitwise the
// same whatever the buffers' alignment.
#include "ember/core/cpu/lanes.h"
#include "ember/core/cpu/math.h"
#include "ember/core/kernels/optim.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

template <typename T>
void sgd_fused(const Tensor& param, const Tensor& grad, const Tensor& buf, const SgdStep& a) {
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), mom = T(a.momentum),
          damp = T(1 - a.dampening), neg_lr = T(-a.lr);
  const bool decay = a.weight_decay != 0;
  const int64_t n = param.numel();
  if (!buf.defined()) {
    for_lanes<T>(
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
  for_lanes<T>(
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

template <typename T>
void adam_fused(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_sq, const AdamStep& a) {
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), w1 = T(1 - a.beta1),
          b2 = T(a.beta2), c2 = T(1 - a.beta2), eps = T(a.eps), bc2s = T(a.bc2_sqrt),
          neg_ss = T(-a.step_size), decay = T(a.decay);
  const bool l2 = a.weight_decay != 0 && !a.decoupled, shrink = a.weight_decay != 0 && a.decoupled;
  auto body = [&](auto P, auto G, auto M, auto V, auto... VM) {
    auto moments = [&](const auto& d) {
      lerp_into(M, d, w1);
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
      descend(sqrt_of(vmax) / bc2s + eps);
    } else {
      descend(sqrt_of(V) / bc2s + eps);
    }
  };
  T* p = param.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* m = exp_avg.data_ptr<T>();
  T* v = exp_avg_sq.data_ptr<T>();
  if (a.amsgrad)
    for_lanes<T>(param.numel(), body, p, g, m, v, max_sq.data_ptr<T>());
  else
    for_lanes<T>(param.numel(), body, p, g, m, v);
}

template <typename T, bool kCentered, bool kMomentum>
void rmsprop_fused(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& grad_avg, const Tensor& buf, const RmspropStep& a) {
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
        lerp_into(GA, d, c);
        descend(sqrt_of(SQ + GA * T(-1) * GA) + eps);
      } else {
        descend(sqrt_of(SQ) + eps);
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
    for_lanes<T>(n, body, p, g, sq, grad_avg.data_ptr<T>(), buf.data_ptr<T>());
  else if constexpr (kCentered)
    for_lanes<T>(n, body, p, g, sq, grad_avg.data_ptr<T>());
  else if constexpr (kMomentum)
    for_lanes<T>(n, body, p, g, sq, buf.data_ptr<T>());
  else
    for_lanes<T>(n, body, p, g, sq);
}

template <typename T>
void rmsprop_dispatch(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                      const Tensor& grad_avg, const Tensor& buf, const RmspropStep& a) {
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

template <typename T>
void adagrad_fused(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradStep& a) {
  const T sign = a.maximize ? T(-1) : T(1), wd = T(a.weight_decay), eps = T(a.eps), neg_clr = T(-a.clr);
  for_lanes<T>(
      param.numel(),
      [&](auto P, auto G, auto S) {
        auto run = [&](const auto& d) {
          S = S + d * T(1) * d;
          P = P + d * neg_clr / (sqrt_of(S) + eps);
        };
        if (a.weight_decay != 0)
          run(G * sign + P * wd);
        else
          run(G * sign);
      },
      param.data_ptr<T>(), static_cast<const T*>(grad.data_ptr<T>()), sum.data_ptr<T>());
}

// float32 or float64, the dtypes the kernels compute in.
template <typename F>
void on_floating(const Tensor& param, const char* op, const F& f) {
  visit_floating_dtype(param.dtype(), op, f);
}

void cpu_sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const SgdStep& a) {
  on_floating(param, "SGD", [&]<typename T>(type_tag<T>) { sgd_fused<T>(param, grad, buf, a); });
}

void cpu_adam_step(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v,
                   const Tensor& vmax, const AdamStep& a) {
  on_floating(param, "Adam", [&]<typename T>(type_tag<T>) { adam_fused<T>(param, grad, m, v, vmax, a); });
}

void cpu_rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& sq, const Tensor& ga,
                      const Tensor& buf, const RmspropStep& a) {
  on_floating(param, "RMSprop", [&]<typename T>(type_tag<T>) { rmsprop_dispatch<T>(param, grad, sq, ga, buf, a); });
}

void cpu_adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradStep& a) {
  on_floating(param, "Adagrad", [&]<typename T>(type_tag<T>) { adagrad_fused<T>(param, grad, sum, a); });
}

// x - x is NaN exactly where x is inf or NaN: a test the loop vectorises, unlike std::isfinite.
template <typename T>
void unscale(T* g, int64_t n, float* found_inf, T inv) {
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) {
    const T v = g[i];
    bad |= (v - v) != (v - v);
    g[i] = v * inv;
  }
  if (bad) *found_inf = 1.0f;
}

void cpu_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  on_floating(grad, "GradScaler.unscale_", [&]<typename T>(type_tag<T>) {
    unscale<T>(grad.data_ptr<T>(), grad.numel(), found_inf.data_ptr<float>(), static_cast<T>(inv_scale));
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(unscale_stub, DeviceType::CPU, (widened<&cpu_unscale, 0, 1>));
EMBER_REGISTER_KERNEL(sgd_step_stub, DeviceType::CPU, (widened<&cpu_sgd_step, 0, 2>));
EMBER_REGISTER_KERNEL(adam_step_stub, DeviceType::CPU, (widened<&cpu_adam_step, 0, 2, 3, 4>));
EMBER_REGISTER_KERNEL(rmsprop_step_stub, DeviceType::CPU, (widened<&cpu_rmsprop_step, 0, 2, 3, 4>));
EMBER_REGISTER_KERNEL(adagrad_step_stub, DeviceType::CPU, (widened<&cpu_adagrad_step, 0, 2>));

}  // namespace ember::cpu
