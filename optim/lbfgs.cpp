#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::optim {
namespace {

double inner(const Tensor& a, const Tensor& b) { return sum(mul(a, b)).item<double>(); }
double abs_max(const Tensor& t) { return amax(abs(t)).item<double>(); }

// The minimum of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to the bounds (the two
// points when none are given); their midpoint when the cubic has no minimum.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [lo, hi] = bounds ? *bounds : x1 <= x2 ? std::pair(x1, x2) : std::pair(x2, x1);
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, lo), hi);
  }
  return (lo + hi) / 2.0;
}

struct LineSearch {
  double f;
  Tensor g;
  double t;
  int64_t evals;
};

// PyTorch's _strong_wolfe: bracket a step satisfying the strong Wolfe conditions, then zoom in on
// it by cubic interpolation; evaluate(t) is the loss and flat gradient at x + t d.
template <typename Evaluate>
LineSearch strong_wolfe(const Evaluate& evaluate, double t, const Tensor& d, double f, const Tensor& g0, double gtd,
                        int64_t max_ls, double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9) {
  const double d_norm = abs_max(d);
  const Tensor g = g0.clone();
  auto [f_new, g_new] = evaluate(t);
  int64_t evals = 1, ls_iter = 0;
  double gtd_new = inner(g_new, d);
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    const bool too_high = f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev);
    if (!too_high && std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t}, bracket_f = {f_new}, bracket_g = {g_new};
      done = true;
      break;
    }
    if (too_high || gtd_new >= 0) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_gtd = {gtd_prev, gtd_new};
      bracket_g = {g_prev, g_new.clone()};
      break;
    }
    // interpolate beyond t
    const double min_step = t + 0.01 * (t - t_prev), max_step = t * 10, previous = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair(min_step, max_step));
    t_prev = previous, f_prev = f_new, g_prev = g_new.clone(), gtd_prev = gtd_new;
    std::tie(f_new, g_new) = evaluate(t);
    ++evals;
    gtd_new = inner(g_new, d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) bracket = {0, t}, bracket_f = {f, f_new}, bracket_g = {g, g_new};

  // zoom: refine the bracket until a point satisfies the conditions
  bool insufficient_progress = false;
  size_t low = bracket_f.front() <= bracket_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;  // the bracket is tiny
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // Near a boundary with stalled progress (or at one): move 0.1 of the bracket away from it.
    const double top = std::max(bracket[0], bracket[1]), bottom = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (top - bottom);
    if (std::min(top - t, t - bottom) < eps) {
      if (insufficient_progress || t >= top || t <= bottom) {
        t = std::abs(t - top) < std::abs(t - bottom) ? top - eps : bottom + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    std::tie(f_new, g_new) = evaluate(t);
    ++evals;
    gtd_new = inner(g_new, d);
    ++ls_iter;
    if (f_new > f + c1 * t * gtd || f_new >= bracket_f[low]) {
      // Armijo's condition fails, or no lower than the lowest point: the new high
      bracket[high] = t, bracket_f[high] = f_new, bracket_g[high] = g_new.clone(), bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1, high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;  // the Wolfe conditions hold
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        // the old low becomes the new high
        bracket[high] = bracket[low], bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low], bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t, bracket_f[low] = f_new, bracket_g[low] = g_new.clone(), bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], evals};
}

int64_t count_of(const ParamState& state, const char* key) {
  auto it = state.find(key);
  return it == state.end() ? 0 : it->second.item<int64_t>();
}
double number_of(const ParamState& state, const char* key, double fallback) {
  auto it = state.find(key);
  return it == state.end() ? fallback : it->second.item<double>();
}
Tensor tensor_of(const ParamState& state, const char* key) {
  auto it = state.find(key);
  return it == state.end() ? Tensor() : it->second;
}
// The rows of a saved [k, n] history.
std::vector<Tensor> rows_of(const ParamState& state, const char* key) {
  std::vector<Tensor> rows;
  auto it = state.find(key);
  if (it != state.end())
    for (int64_t i = 0; i < it->second.size(0); ++i) rows.push_back(it->second.select(0, i));
  return rows;
}
std::vector<double> numbers_of(const ParamState& state, const char* key) {
  std::vector<double> out;
  auto it = state.find(key);
  if (it != state.end())
    for (int64_t i = 0; i < it->second.numel(); ++i) out.push_back(it->second.select(0, i).item<double>());
  return out;
}
Tensor rows(const std::vector<Tensor>& v, const Tensor& like) {
  return v.empty() ? zeros({0, like.numel()}, TensorOptions(like.dtype()).device(like.device())) : stack(v, 0);
}
Tensor numbers(const std::vector<double>& v) { return tensor(v, {static_cast<int64_t>(v.size())}); }
Tensor count(int64_t v) { return full({}, v, TensorOptions(kInt64)); }
Tensor number(double v) { return full({}, v, TensorOptions(kFloat64)); }

}  // namespace

const std::vector<Field<LBFGSOptions>>& LBFGSOptions::fields() {
  static const std::vector<Field<LBFGSOptions>> f{{"lr", &LBFGSOptions::lr},
                                                  {"max_iter", &LBFGSOptions::max_iter},
                                                  {"max_eval", &LBFGSOptions::max_eval},
                                                  {"tolerance_grad", &LBFGSOptions::tolerance_grad},
                                                  {"tolerance_change", &LBFGSOptions::tolerance_change},
                                                  {"history_size", &LBFGSOptions::history_size},
                                                  {"strong_wolfe", &LBFGSOptions::strong_wolfe},
                                                  {"maximize", &LBFGSOptions::maximize}};
  return f;
}

LBFGS::LBFGS(NamedParameters params, LBFGSOptions options)
    : Optimizer("LBFGS", to_hyperparams(
                             [&] {
                               if (options.max_eval <= 0) options.max_eval = std::floor(options.max_iter * 5 / 4);
                               return options;
                             }(),
                             LBFGSOptions::fields())) {
  add_param_group(ParamGroup(std::move(params)));
}

void LBFGS::validate(const Hyperparams& h) const {
  const auto o = from_hyperparams(h, LBFGSOptions::fields());
  detail::check_option(o.lr >= 0, name(), "lr", o.lr);
  detail::check_option(o.max_iter >= 1, name(), "max_iter", o.max_iter);
  detail::check_option(o.max_eval >= 1, name(), "max_eval", o.max_eval);
  detail::check_option(o.history_size >= 1, name(), "history_size", o.history_size);
}

void LBFGS::update(const ParamUpdate&) {
  EMBER_CHECK_VALUE(false, "LBFGS: step needs a closure that reevaluates the model and returns the loss");
}

std::vector<Tensor> LBFGS::params() const {
  std::vector<Tensor> out;
  for (const auto& [name, p] : param_groups().front().params) out.push_back(p);
  return out;
}

Tensor LBFGS::gather_flat_grad(bool maximize) const {
  std::vector<Tensor> views;
  for (const Tensor& p : params())
    views.push_back(p.grad().defined() ? reshape(p.grad(), {-1}) : zeros({p.numel()}, p.options()));
  Tensor flat = cat(views, 0);
  return maximize ? neg(flat) : flat;
}

void LBFGS::add_grad(double step, const Tensor& direction) const {
  int64_t offset = 0;
  for (const Tensor& p : params()) {
    p.add_(reshape(slice(direction, 0, offset, offset + p.numel()), p.sizes()), step);
    offset += p.numel();
  }
}

LBFGS::Evaluation LBFGS::directional_evaluate(const Closure& closure, const std::vector<Tensor>& x, double t,
                                              const Tensor& d, bool maximize) const {
  add_grad(t, d);
  double loss = closure().item<double>();
  Tensor flat_grad = gather_flat_grad(maximize);
  std::vector<Tensor> ps = params();
  for (size_t i = 0; i < ps.size(); ++i) ps[i].copy_(x[i]);
  return {maximize ? -loss : loss, flat_grad};
}

Tensor LBFGS::step(const Closure& user_closure) {
  EMBER_CHECK_VALUE(param_groups().size() == 1, "LBFGS doesn't support per-parameter options (parameter groups)");
  EMBER_CHECK_VALUE(static_cast<bool>(user_closure),
                    "LBFGS: step needs a closure that reevaluates the model and returns the loss");
  const Closure closure = [&] {
    autograd::AutoGradMode on(true);
    return user_closure();
  };
  NoGradGuard no_grad;
  const ParamGroup& group = param_groups().front();
  const auto o = from_hyperparams(group.options, LBFGSOptions::fields());
  if (group.params.empty()) return closure();
  const auto max_iter = static_cast<int64_t>(o.max_iter), max_eval = static_cast<int64_t>(o.max_eval);
  const auto history_size = static_cast<size_t>(o.history_size);
  ParamState& state = mutable_state(group.params.front().first);
  int64_t func_evals = count_of(state, "func_evals"), total_iter = count_of(state, "n_iter");

  const Tensor orig_loss = closure();
  double loss = o.maximize ? -orig_loss.item<double>() : orig_loss.item<double>();
  int64_t current_evals = 1;
  ++func_evals;
  Tensor flat_grad = gather_flat_grad(o.maximize);
  if (abs_max(flat_grad) <= o.tolerance_grad) {  // already optimal
    state["func_evals"] = count(func_evals), state["n_iter"] = count(total_iter);
    return orig_loss;
  }

  Tensor d = tensor_of(state, "d"), prev_flat_grad = tensor_of(state, "prev_flat_grad");
  double t = number_of(state, "t", 0), h_diag = number_of(state, "H_diag", 1),
         prev_loss = number_of(state, "prev_loss", 0);
  std::vector<Tensor> old_dirs = rows_of(state, "old_dirs"), old_stps = rows_of(state, "old_stps");
  std::vector<double> ro = numbers_of(state, "ro"), al = numbers_of(state, "al");

  int64_t n_iter = 0;
  bool opt_cond = false;
  while (n_iter < max_iter) {
    ++n_iter, ++total_iter;
    // ---- the descent direction
    if (total_iter == 1) {
      d = neg(flat_grad);
      old_dirs.clear(), old_stps.clear(), ro.clear();
      h_diag = 1;
    } else {
      // the memory takes the last step
      const Tensor y = sub(flat_grad, prev_flat_grad), s = mul(d, t);
      const double ys = inner(y, s);
      if (ys > 1e-10) {
        if (old_dirs.size() == history_size) {  // drop the oldest (limited memory)
          old_dirs.erase(old_dirs.begin()), old_stps.erase(old_stps.begin()), ro.erase(ro.begin());
        }
        old_dirs.push_back(y), old_stps.push_back(s), ro.push_back(1.0 / ys);
        h_diag = ys / inner(y, y);  // the scale of the initial inverse-Hessian approximation
      }
      // the approximate inverse Hessian times the gradient: the two-loop recursion
      if (al.size() < history_size) al.resize(history_size, 0.0);
      const size_t k = old_dirs.size();
      Tensor q = neg(flat_grad);
      for (size_t i = k; i-- > 0;) {
        al[i] = inner(old_stps[i], q) * ro[i];
        q.add_(old_dirs[i], -al[i]);
      }
      d = mul(q, h_diag);
      for (size_t i = 0; i < k; ++i) {
        const double be_i = inner(old_dirs[i], d) * ro[i];
        d.add_(old_stps[i], al[i] - be_i);
      }
    }
    if (prev_flat_grad.defined())
      prev_flat_grad.copy_(flat_grad);
    else
      prev_flat_grad = flat_grad.clone();
    prev_loss = loss;

    // ---- the step length
    t = total_iter == 1 ? std::min(1.0, 1.0 / sum(abs(flat_grad)).item<double>()) * o.lr : o.lr;
    const double gtd = inner(flat_grad, d);  // the directional derivative
    if (gtd > -o.tolerance_change) break;

    int64_t ls_evals = 0;
    if (o.strong_wolfe) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : params()) x_init.push_back(p.clone());
      auto evaluate = [&](double step) {
        Evaluation e = directional_evaluate(closure, x_init, step, d, o.maximize);
        return std::pair(e.loss, e.flat_grad);
      };
      LineSearch ls = strong_wolfe(evaluate, t, d, loss, flat_grad, gtd, max_eval - current_evals);
      loss = ls.f, flat_grad = ls.g, t = ls.t, ls_evals = ls.evals;
      add_grad(t, d);
      opt_cond = abs_max(flat_grad) <= o.tolerance_grad;
    } else {
      // a fixed step, the loss re-evaluated except after the last iteration
      add_grad(t, d);
      if (n_iter != max_iter) {
        const double value = closure().item<double>();
        loss = o.maximize ? -value : value;
        flat_grad = gather_flat_grad(o.maximize);
        opt_cond = abs_max(flat_grad) <= o.tolerance_grad;
        ls_evals = 1;
      }
    }
    current_evals += ls_evals, func_evals += ls_evals;

    // ---- stop?
    if (n_iter == max_iter || current_evals >= max_eval || opt_cond) break;
    if (abs_max(mul(d, t)) <= o.tolerance_change) break;  // no progress
    if (std::abs(loss - prev_loss) < o.tolerance_change) break;
  }

  state["func_evals"] = count(func_evals), state["n_iter"] = count(total_iter);
  state["d"] = d, state["t"] = number(t), state["H_diag"] = number(h_diag), state["prev_loss"] = number(prev_loss);
  state["prev_flat_grad"] = prev_flat_grad;
  state["old_dirs"] = rows(old_dirs, flat_grad), state["old_stps"] = rows(old_stps, flat_grad);
  state["ro"] = numbers(ro);
  if (!al.empty()) state["al"] = numbers(al);
  return orig_loss;
}

}  // namespace ember::optim
