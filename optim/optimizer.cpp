#include "ember/optim/optimizer.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ember/autograd/grad_mode.h"
#include "ember/core/attributes.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/tracing.h"
#include "ember/ops/binary.h"

namespace ember::optim {

namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::ostringstream os;
  for (size_t i = 0; i < names.size(); ++i) os << (i ? ", '" : "'") << names[i] << "'";
  return os.str();
}

// The attribute `key` of a parameter as a number, if set.
std::optional<double> numeric_attribute(const Tensor& p, const char* key, const std::string& opt,
                                        const std::string& name) {
  const Attributes& attrs = p.attributes();
  auto it = attrs.find(key);
  if (it == attrs.end()) return std::nullopt;
  std::optional<double> v = attr_as_double(it->second);
  if (!v) {
    std::ostringstream value;
    ember::operator<<(value, it->second);
    EMBER_CHECK_TYPE(false, opt, ": attribute '", key, "' of parameter '", name,
                     "' must be a number, got ", value.str());
  }
  return v;
}

std::string describe_hyperparam(const Hyperparam& h) {
  std::ostringstream os;
  os << h;
  return os.str();
}

// Checkpoints written before hyperparameters were typed stored flags as 0/1 and Adam's betas as
// "beta1" and "beta2": read them as what they were.
Hyperparams upgrade_legacy(const Hyperparams& saved, const Hyperparams& defaults) {
  Hyperparams out = saved;
  if (defaults.contains("betas") && !saved.contains("betas") && saved.contains("beta1") &&
      saved.contains("beta2") && saved.at("beta1").is_number() && saved.at("beta2").is_number()) {
    out.set("betas", Betas{saved.number("beta1"), saved.number("beta2")});
    out.erase("beta1");
    out.erase("beta2");
  }
  for (const auto& [key, value] : saved)
    if (defaults.contains(key) && defaults.at(key).is_flag() && value.is_number() &&
        (value.number() == 0 || value.number() == 1))
      out.set(key, value.number() != 0);
  return out;
}

bool uses_master(const Hyperparams& options, const Tensor& param) {
  const Hyperparam* m = options.find("master_weights");
  return m && m->is_flag() && m->flag() && is_16bit_float(param.dtype());
}

// A copy of a checkpoint's state tensor for `param`: floating values in the dtype the optimizer
// steps in (the parameter's, or float32 through a master copy), on its device; the step counter
// as saved.
Tensor load_copy(const Tensor& t, const Tensor& param, bool master) {
  DType dtype = !t.is_floating_point() ? t.dtype() : master ? kFloat32 : param.dtype();
  return copy_as(t, dtype, param.device());
}

// Whether `master` rounded to the parameter's dtype is the parameter, bit for bit.
bool rounds_to(const Tensor& master, const Tensor& param) {
  Tensor a = copy_as(master, param.dtype(), Device::cpu());
  Tensor b = copy_as(param, param.dtype(), Device::cpu());
  return std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

}  // namespace

OptimizerStateDict OptimizerStateDict::clone() const {
  OptimizerStateDict out;
  out.param_groups = param_groups;
  for (const auto& [name, s] : state) {
    ParamState& copy = out.state[name];
    for (const auto& [key, t] : s) copy[key] = t.defined() ? copy_as(t, t.dtype(), t.device()) : t;
  }
  return out;
}

std::string OptimizerLoadReport::str() const {
  std::ostringstream os;
  if (!unexpected.empty()) os << "unexpected (state dropped): " << quoted_list(unexpected) << "\n";
  if (!missing.empty()) os << "missing (start fresh): " << quoted_list(missing) << "\n";
  if (!moved.empty()) os << "moved to another group: " << quoted_list(moved) << "\n";
  if (!overridden.empty())
    os << (hyperparameters_kept ? "hyperparameters kept (the checkpoint's differ): "
                                : "hyperparameters taken from the checkpoint: ")
       << quoted_list(overridden) << "\n";
  return os.str();
}

Optimizer::Optimizer(std::string name, Hyperparams defaults)
    : name_(std::move(name)), defaults_(std::move(defaults)) {}

void Optimizer::check_keys(const Hyperparams& options, const std::string& where) const {
  for (const auto& [key, value] : options) {
    if (defaults_.contains(key)) {
      const Hyperparam& expected = defaults_.at(key);
      EMBER_CHECK_TYPE(value.same_kind(expected), name_, ": hyperparameter '", key, "'", where, " must be ",
                       expected.kind(), ", got ", value.kind(), " (", describe_hyperparam(value), ")");
    } else {
      std::string known;
      for (const auto& [k, v] : defaults_) known += (known.empty() ? "" : ", ") + k;
      EMBER_CHECK_VALUE(is_scheduler_key(key), name_, ": unknown hyperparameter '", key, "'", where,
                        "; ", name_, " takes ", known);
      EMBER_CHECK_TYPE(value.is_number(), name_, ": '", key, "'", where, " must be a number, got ",
                       value.kind());
    }
  }
}

void Optimizer::add_param_group(ParamGroup group) {
  check_keys(group.options, " in parameter group " + std::to_string(groups_.size()));
  for (const auto& [key, value] : defaults_) group.options.set_default(key, value);
  validate(group.options);
  std::set<std::string> names;
  for (const auto& g : groups_)
    for (const auto& [n, t] : g.params) names.insert(n);
  for (size_t i = 0; i < group.params.size(); ++i) {
    const auto& [n, p] = group.params[i];
    EMBER_CHECK_VALUE(!n.empty(), name_, ": parameter names can't be empty");
    EMBER_CHECK_VALUE(p.defined(), name_, ": parameter '", n, "' is undefined");
    EMBER_CHECK_TYPE(p.is_floating_point() || p.is_complex(), name_,
                     ": can only optimize floating-point and complex tensors, '", n, "' is ", p.dtype());
    EMBER_CHECK_VALUE(p.is_leaf(), name_, ": can't optimize '", n, "': not a leaf tensor");
    EMBER_CHECK_VALUE(names.insert(n).second, name_, ": parameter '", n,
                      "' appears more than once in the optimizer");
    auto same = [&](const Tensor& t) { return t.is_same(p); };
    for (const auto& g : groups_)
      for (const auto& [other, t] : g.params)
        EMBER_CHECK_VALUE(!same(t), name_, ": parameter '", n, "' is the tensor already added as '",
                          other, "'");
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK_VALUE(!same(group.params[j].second), name_, ": parameter '", n,
                        "' is the tensor already added as '", group.params[j].first, "'");
  }
  groups_.push_back(std::move(group));
}

void Optimizer::step() {
  NoGradGuard no_grad;
  std::optional<tracing::Range> profiled;  // PyTorch's range name, for a profile's table
  if (tracing::recording()) [[unlikely]]
    profiled.emplace("Optimizer.step#" + name_ + ".step");
  for (auto& group : groups_) {
    const double lr = group.options.number("lr");
    const Hyperparam* wd = group.options.find("weight_decay");
    const double group_wd = wd && wd->is_number() ? wd->number() : 0.0;
    for (const auto& [n, p] : group.params) {
      const Tensor& g = p.grad();
      if (!g.defined()) continue;
      EMBER_CHECK_TYPE(g.dtype() == p.dtype() && g.device() == p.device(), name_,
                       ".step: gradient of '", n, "' is ", describe(g), ", the parameter ",
                       describe(p));
      double plr = lr, pwd = group_wd;
      if (!p.attributes().empty()) {
        if (auto s = numeric_attribute(p, "lr_scale", name_, n)) plr = lr * *s;
        if (auto w = numeric_attribute(p, "weight_decay", name_, n)) pwd = *w;
      }
      ParamUpdate u{group.options, p, g, state_[n], plr, pwd};
      if (p.is_complex()) {
        update_as_real(u);
      } else if (uses_master(group.options, p)) {
        update_through_master(u, n);
      } else {
        u.state.erase("master");  // master weights switched off: the parameter holds the values
        update(u);
      }
    }
  }
}

void Optimizer::update_through_master(const ParamUpdate& u, const std::string& name) {
  auto it = u.state.find("master");
  auto written = master_written_.find(name);
  const bool stale = it != u.state.end() &&
                     (written == master_written_.end() || written->second != u.param.version()) &&
                     !rounds_to(it->second, u.param);
  if (it == u.state.end() || stale) {
    Tensor fresh = copy_as(u.param, kFloat32, u.param.device());
    if (it == u.state.end())
      it = u.state.emplace("master", fresh).first;
    else
      it->second = fresh;
  }
  const Tensor master = it->second;
  // State made before master weights were switched on is in the parameter's dtype: widen it once.
  for (auto& [key, t] : u.state)
    if (key != "step" && t.defined() && t.is_floating_point() && t.dtype() != kFloat32)
      t = copy_as(t, kFloat32, t.device());
  update(ParamUpdate{u.options, master, copy_as(u.grad, kFloat32, u.grad.device()), u.state, u.lr,
                     u.weight_decay});
  copy_data(u.param, master);
  u.param.bump_version();
  master_written_[name] = u.param.version();
}

void Optimizer::update_as_real(const ParamUpdate& u) {
  ParamState pairs_state;
  for (const auto& [key, t] : u.state) pairs_state[key] = t.defined() && t.is_complex() ? view_as_real(t) : t;
  const Tensor param = view_as_real(u.param), grad = view_as_real(u.grad);
  update(ParamUpdate{u.options, param, grad, pairs_state, u.lr, u.weight_decay});
  for (auto& [key, t] : pairs_state) {
    const bool pairs =
        state_kind(key) == StateKind::Param && t.defined() && t.is_floating_point() && t.sizes() == param.sizes();
    u.state[key] = pairs ? view_as_complex(t.is_contiguous() ? t : contiguous(t)) : t;
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  std::optional<tracing::Range> profiled;
  if (tracing::recording()) [[unlikely]]
    profiled.emplace("Optimizer.zero_grad#" + name_ + ".zero_grad");
  for (auto& group : groups_) {
    for (const auto& [n, p] : group.params) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
        continue;
      }
      Tensor& g = p.mutable_grad();
      if (g.grad_fn()) g = g.detach();
      g.zero_();
    }
  }
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict out;
  for (const auto& g : groups_) {
    OptimizerStateDict::Group sg{g.options, {}};
    for (const auto& [n, p] : g.params) sg.params.push_back(n);
    out.param_groups.push_back(std::move(sg));
  }
  out.state = state_;
  return out;
}

OptimizerLoadReport Optimizer::load_state_dict(const OptimizerStateDict& ckpt, bool strict, bool keep_hyperparameters) {
  const std::string where = name_ + ".load_state_dict";
  EMBER_CHECK_VALUE(ckpt.param_groups.size() == groups_.size(), where, ": the checkpoint has ",
                    ckpt.param_groups.size(), " parameter groups, the optimizer has ",
                    groups_.size());
  std::vector<Hyperparams> options;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    options.push_back(upgrade_legacy(ckpt.param_groups[gi].options, defaults_));
    check_keys(options.back(), " in the checkpoint's parameter group " + std::to_string(gi));
  }
  struct Place {
    size_t group;
    const Tensor* param;
  };
  std::unordered_map<std::string, Place> here;
  for (size_t gi = 0; gi < groups_.size(); ++gi)
    for (const auto& [n, p] : groups_[gi].params) here.emplace(n, Place{gi, &p});

  OptimizerLoadReport report;
  std::set<std::string> named;  // every name the checkpoint mentions
  for (size_t gi = 0; gi < ckpt.param_groups.size(); ++gi) {
    for (const auto& n : ckpt.param_groups[gi].params) {
      if (!named.insert(n).second) continue;
      auto it = here.find(n);
      if (it == here.end())
        report.unexpected.push_back(n);
      else if (it->second.group != gi)
        report.moved.push_back(n);
    }
  }
  for (const auto& [n, s] : ckpt.state)
    if (named.insert(n).second && !here.contains(n)) report.unexpected.push_back(n);
  for (const auto& g : groups_)
    for (const auto& [n, p] : g.params)
      if (!named.contains(n)) report.missing.push_back(n);

  EMBER_CHECK_VALUE(!strict || report.unexpected.empty(), where,
                    ": the checkpoint has state for parameters this optimizer does not have: ",
                    quoted_list(report.unexpected));
  for (const auto& [n, s] : ckpt.state) {
    auto it = here.find(n);
    if (it == here.end()) continue;
    const Tensor& p = *it->second.param;
    for (const auto& [key, t] : s) {
      EMBER_CHECK_VALUE(t.defined(), where, ": state '", key, "' of '", n, "' is undefined");
      if (state_kind(key) != StateKind::Param) continue;
      EMBER_CHECK_VALUE(t.sizes() == p.sizes(), where, ": shape mismatch for '", n,
                        "': checkpoint '", key, "' ", t.sizes(), ", parameter ", p.sizes());
    }
  }

  // Checked: now apply. Groups take the checkpoint's hyperparameters (or keep their own, when
  // asked), and each difference is reported; state is copied by name.
  report.hyperparameters_kept = keep_hyperparameters;
  for (size_t gi = 0; gi < groups_.size(); ++gi)
    for (const auto& [key, value] : options[gi]) {
      const Hyperparam* mine = groups_[gi].options.find(key);
      if (mine != nullptr && *mine == value) continue;
      std::ostringstream change;
      change << "group " << gi << " " << key << ": ";
      if (mine != nullptr)
        change << *mine;
      else
        change << "(none)";
      change << " -> " << value;
      report.overridden.push_back(change.str());
      if (!keep_hyperparameters || mine == nullptr) groups_[gi].options.set(key, value);
    }
  std::map<std::string, ParamState> fresh;
  for (const auto& [n, s] : ckpt.state) {
    auto it = here.find(n);
    if (it == here.end()) continue;
    ParamState& dst = fresh[n];
    const Tensor& p = *it->second.param;
    const bool master = uses_master(groups_[it->second.group].options, p);
    for (const auto& [key, t] : s) {
      switch (state_kind(key)) {
        case StateKind::Param:
          dst[key] = load_copy(t, p, master);
          break;
        case StateKind::Scalar:
          dst[key] = copy_as(t, t.dtype(), t.device());
          break;
        case StateKind::Free:
          dst[key] = copy_as(t, t.dtype(), p.device());
          break;
      }
    }
  }
  state_ = std::move(fresh);
  master_written_.clear();
  return report;
}

namespace detail {

Tensor new_step() { return zeros({}, kFloat32); }

double increment_step(const Tensor& step) {
  if (step.device().is_cpu() && step.dtype() == kFloat32 && step.numel() == 1) {
    float* v = step.data_ptr<float>();
    *v += 1.0f;
    step.bump_version();
    return *v;
  }
  step.add_(1);
  return step.item<double>();
}

Tensor dense_like(const Tensor& t, const Tensor& param) {
  if (t.is_contiguous() && t.dtype() == param.dtype() && t.device() == param.device()) return t;
  return copy_as(t, param.dtype(), param.device());
}

void write_back(const Tensor& t, const Tensor& dense) {
  if (!t.defined()) return;
  if (!dense.is_same(t)) copy_data(t, dense);
  t.bump_version();
}

void check_option(bool cond, const std::string& opt, const char* key, const Hyperparam& value) {
  EMBER_CHECK_VALUE(cond, opt, ": invalid ", key, " ", describe_hyperparam(value));
}

}  // namespace detail

}  // namespace ember::optim
