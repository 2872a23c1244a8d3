#include "ember/distributed/fsdp.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/backward_hooks.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/distributed/coalesced.h"
#include "ember/distributed/init.h"

namespace ember::distributed {

AutoWrapPolicy wrap_module_types(std::vector<std::string> type_names) {
  return [names = std::move(type_names)](const std::string&, nn::Module& m, int64_t) {
    return std::find(names.begin(), names.end(), m.type_name()) != names.end();
  };
}

AutoWrapPolicy wrap_by_size(int64_t min_num_params) {
  return [min_num_params](const std::string&, nn::Module&, int64_t numel) { return numel >= min_num_params; };
}

namespace detail {

// The state the hooks share; they hold it weakly, so hooks outliving the FSDP do nothing.
struct FSDPCore {
  std::shared_ptr<ProcessGroup> group;
  FSDPOptions options;
  std::vector<std::unique_ptr<ShardedUnit>> units;
  std::unordered_map<std::string, std::pair<size_t, size_t>> by_name;
  std::vector<size_t> order;       // the units in the order the last forward ran them
  std::vector<size_t> recording;   // the forward running now
  std::optional<size_t> reducing;  // the unit whose reduce-scatter may still run
  bool callback_queued = false;
  bool sync = true;

  void pre_forward(size_t k) {
    if (k == 0) recording.clear();
    recording.push_back(k);
    units[k]->unshard();
    if (options.prefetch && recording.size() < order.size() && order[recording.size() - 1] == k)
      units[order[recording.size()]]->start_unshard();
  }

  void post_forward(size_t k, const std::vector<Tensor>& outputs, const std::weak_ptr<FSDPCore>& self) {
    if (k != 0 && options.reshard_after_forward) units[k]->reshard();
    bool wants_grad = false;
    for (const Tensor& out : outputs) {
      if (!out.defined() || !out.requires_grad()) continue;
      wants_grad = true;
      out.register_hook([self, k](const Tensor&) {
        if (auto core = self.lock()) core->pre_backward(k, self);
        return Tensor();
      });
    }
    if (k == 0) {
      order = recording;
      if (!wants_grad)
        for (auto& u : units) u->reshard();
    }
  }

  void queue_end(const std::weak_ptr<FSDPCore>& self) {
    if (callback_queued) return;
    callback_queued = true;
    autograd::queue_callback([self] {
      if (auto core = self.lock()) core->end_backward();
    });
  }

  void pre_backward(size_t k, const std::weak_ptr<FSDPCore>& self) {
    queue_end(self);
    units[k]->begin_backward();
    if (!options.prefetch) return;
    auto at = std::find(order.rbegin(), order.rend(), k);
    if (at != order.rend() && std::next(at) != order.rend()) units[*std::next(at)]->start_unshard();
  }

  void on_grad_ready(size_t k, size_t i, const std::weak_ptr<FSDPCore>& self) {
    queue_end(self);
    if (!units[k]->mark_ready(i)) return;
    if (!sync) {  // the gradients stay whole, for a later reduction; the parameters go
      units[k]->end_backward_unreduced();
      return;
    }
    // One reduce-scatter in flight at a time: its buffers are a unit's whole gradients.
    if (reducing && *reducing != k) units[*reducing]->finish_reduce();
    units[k]->start_reduce();
    reducing = k;
  }

  void end_backward() {
    callback_queued = false;
    reducing.reset();
    for (auto& u : units)
      if (u->awaits_reduce()) {
        if (sync)
          u->start_reduce();
        else
          u->end_backward_unreduced();
      }
    for (auto& u : units) u->finish_reduce();
    for (auto& u : units) u->reshard();
  }
};

}  // namespace detail

namespace {

bool under(const std::string& module, const std::string& unit) {
  return unit.empty() || module == unit || module.rfind(unit + ".", 0) == 0;
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// The units' module paths, the root ("") first, then in the model's module order.
std::vector<std::string> choose_units(nn::Module& root, const AutoWrapPolicy& policy) {
  auto modules = root.named_modules();
  std::vector<std::string> units{""};
  if (!policy) return units;
  std::unordered_map<std::string, int64_t> left;  // elements not yet in a unit, per module
  std::vector<bool> wrapped(modules.size(), false);
  for (size_t j = modules.size(); j-- > 1;) {
    auto& [name, m] = modules[j];
    int64_t numel = left[name];
    for (auto& [pname, p] : m->named_parameters("", /*recurse=*/false)) numel += p.numel();
    wrapped[j] = policy(name, *m, numel);
    const auto dot = name.rfind('.');
    left[dot == std::string::npos ? "" : name.substr(0, dot)] += wrapped[j] ? 0 : numel;
  }
  for (size_t j = 1; j < modules.size(); ++j)
    if (wrapped[j]) units.push_back(modules[j].first);
  return units;
}

}  // namespace

FSDP::FSDP(std::shared_ptr<nn::Module> module, FSDPOptions options, std::shared_ptr<ProcessGroup> group)
    : module_(std::move(module)), core_(std::make_shared<detail::FSDPCore>()) {
  EMBER_CHECK_VALUE(module_ != nullptr, "FSDP: the module is null");
  core_->group = group ? std::move(group) : default_group_ptr();
  core_->options = options;
  if (options.sync_module_states) {
    std::vector<Tensor> buffers;
    for (auto& [name, b] : module_->named_buffers()) buffers.push_back(b);
    broadcast_coalesced(*core_->group, buffers, 0);
  }
  const std::vector<std::string> unit_names = choose_units(*module_, options.auto_wrap_policy);

  // Every parameter with all its slots, in the model's order; it goes to the deepest unit whose
  // subtree holds all its slots (a tie across units goes to the unit above both).
  struct Found {
    std::vector<std::pair<nn::Module*, std::string>> slots;
    std::vector<std::string> names;
  };
  std::vector<Found> found;
  std::unordered_map<const TensorImpl*, size_t> index;
  std::unordered_map<std::string, nn::Module*> by_path;
  for (auto& [path, m] : module_->named_modules()) {
    by_path[path] = m;
    for (auto& [pname, p] : m->named_parameters("", /*recurse=*/false)) {
      auto [it, fresh] = index.emplace(p.impl_ptr().get(), found.size());
      if (fresh) found.emplace_back();
      found[it->second].slots.emplace_back(m, pname);
      found[it->second].names.push_back(join(path, pname));
    }
  }
  std::vector<std::vector<ShardedParam>> per_unit(unit_names.size());
  std::vector<std::vector<std::vector<std::string>>> aliases(unit_names.size());
  for (Found& f : found) {
    size_t owner = 0;
    for (size_t u = 1; u < unit_names.size(); ++u) {
      bool holds_all = std::all_of(f.names.begin(), f.names.end(), [&](const std::string& n) {
        const auto dot = n.rfind('.');
        return under(dot == std::string::npos ? "" : n.substr(0, dot), unit_names[u]);
      });
      if (holds_all && unit_names[u].size() >= unit_names[owner].size()) owner = u;
    }
    ShardedParam p;
    p.name = f.names.front();
    p.slots = std::move(f.slots);
    per_unit[owner].push_back(std::move(p));
    aliases[owner].push_back(std::move(f.names));
  }
  const ShardedUnitOptions unit_options{options.param_dtype, options.reduce_dtype};
  std::weak_ptr<detail::FSDPCore> weak = core_;
  for (size_t u = 0; u < unit_names.size(); ++u) {
    // Rank 0's values, one unit at a time: a broadcast of the whole model at once would need a
    // second copy of it.
    if (options.sync_module_states) {
      std::vector<Tensor> values;
      for (const ShardedParam& p : per_unit[u])
        values.push_back(p.slots.front().first->parameter(p.slots.front().second));
      broadcast_coalesced(*core_->group, values, 0);
    }
    core_->units.push_back(
        std::make_unique<ShardedUnit>(unit_names[u], std::move(per_unit[u]), core_->group, unit_options));
    const auto& params = core_->units.back()->params();
    for (size_t i = 0; i < params.size(); ++i) {
      for (const std::string& n : aliases[u][i]) core_->by_name[n] = {u, i};
      if (params[i].requires_grad)
        autograd::register_post_accumulate_grad_hook(params[i].full, [weak, u, i](const Tensor&) {
          if (auto core = weak.lock()) core->on_grad_ready(u, i, weak);
        });
    }
    if (!options.install_hooks) continue;
    nn::Module* m = by_path.at(unit_names[u]);
    m->register_forward_pre_hook([weak, u](nn::Module&, const Tensor& input) -> std::optional<Tensor> {
      auto core = weak.lock();
      if (!core) return std::nullopt;
      core->pre_forward(u);
      // The root's floating input in the parameters' dtype, as PyTorch's cast_root_forward_inputs.
      const auto& dtype = core->options.param_dtype;
      if (u == 0 && dtype && input.defined() && is_floating(input.dtype()) && input.dtype() != *dtype)
        return input.to(*dtype);
      return std::nullopt;
    });
    m->register_forward_hook(
        [weak, u](nn::Module&, const Tensor&, const Tensor& out) -> std::optional<Tensor> {
          if (auto core = weak.lock()) core->post_forward(u, {out}, weak);
          return std::nullopt;
        },
        /*prepend=*/false, /*always_call=*/true);
  }
}

FSDP::~FSDP() = default;

Tensor FSDP::forward(const Tensor& input) {
  if (core_->options.install_hooks) return (*module_)(input);
  pre_forward(0);
  Tensor out = module_->forward(input);
  post_forward(0, {out});
  return out;
}

ProcessGroup& FSDP::group() const { return *core_->group; }
size_t FSDP::num_units() const { return core_->units.size(); }
const ShardedUnit& FSDP::unit(size_t index) const { return *core_->units.at(index); }
ShardedUnit& FSDP::mutable_unit(size_t index) { return *core_->units.at(index); }

std::optional<std::pair<size_t, size_t>> FSDP::find_param(const std::string& name) const {
  auto it = core_->by_name.find(name);
  if (it == core_->by_name.end()) return std::nullopt;
  return it->second;
}

void FSDP::pre_forward(size_t index) { core_->pre_forward(index); }
void FSDP::post_forward(size_t index, const std::vector<Tensor>& outputs) {
  core_->post_forward(index, outputs, core_);
}
void FSDP::reshard() {
  for (auto& u : core_->units) u->reshard();
}

void FSDP::set_sync(bool enabled) { core_->sync = enabled; }
bool FSDP::sync() const { return core_->sync; }

void FSDP::summon_full_params() {
  for (auto& u : core_->units) u->unshard();
}

void FSDP::end_full_params(bool writeback) {
  for (auto& u : core_->units) {
    if (writeback) u->write_back();
    u->reshard();
  }
}

double FSDP::clip_grad_norm_(double max_norm, double norm_type) {
  const bool inf = std::isinf(norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  double local = 0;
  for (auto& u : core_->units)
    for (const ShardedParam& p : u->params()) {
      const Tensor& g = p.shard.grad();
      if (!g.defined() || g.numel() == 0) continue;
      grads.push_back(g);
      const Tensor a = g.abs().to(kFloat64);
      local = inf ? std::max(local, a.max().item<double>()) : local + a.pow(norm_type).sum().item<double>();
    }
  Tensor total = full({1}, local, TensorOptions().dtype(kFloat64).device(core_->group->device()));
  core_->group->allreduce(total, inf ? ReduceOp::Max : ReduceOp::Sum)->wait();
  const double norm = inf ? total.item<double>() : std::pow(total.item<double>(), 1.0 / norm_type);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1)
    for (const Tensor& g : grads) g.mul_(coef);
  return norm;
}

}  // namespace ember::distributed
