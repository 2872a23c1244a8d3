#include "ember/nn/module.h"

#include <cstring>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "ember/core/copy.h"
#include "ember/ops/convert.h"

namespace ember::nn {
namespace {

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

bool same_values(const Tensor& a, const Tensor& b) {
  if (a.is_same(b) || (a.storage() == b.storage() && a.storage_offset() == b.storage_offset() &&
                       a.strides() == b.strides() && a.sizes() == b.sizes()))
    return true;
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor ca = copy_as(a, a.dtype(), Device()), cb = copy_as(b, b.dtype(), Device());
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

}  // namespace

std::string LoadResult::str() const {
  std::ostringstream os;
  for (const auto& k : missing_keys) os << "missing key '" << k << "'\n";
  for (const auto& k : unexpected_keys) os << "unexpected key '" << k << "'\n";
  for (const auto& m : shape_mismatches)
    os << "shape mismatch for '" << m.key << "': checkpoint " << m.checkpoint_shape << ", model "
       << m.model_shape << "\n";
  std::string s = os.str();
  if (!s.empty()) s.pop_back();
  return s;
}

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}

void Module::check_new_name(const std::string& name, const char* what) const {
  EMBER_CHECK_VALUE(!name.empty(), type_name_, ": ", what, " name can't be empty");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos, type_name_, ": ", what, " name '", name,
                    "' can't contain \".\"");
  EMBER_CHECK_KEY(!parameters_.contains(name) && !buffers_.contains(name) && !children_.contains(name),
                  type_name_, ": ", what, " '", name, "' already defined");
}

Tensor Module::register_parameter(const std::string& name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "parameter");
  EMBER_CHECK_VALUE(tensor.defined(), type_name_, ": parameter '", name, "' is an undefined tensor");
  if (tensor.requires_grad() != requires_grad) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(name, std::move(tensor));
}

Tensor Module::register_buffer(const std::string& name, Tensor tensor, bool persistent) {
  check_new_name(name, "buffer");
  return buffers_.insert(name, Buffer{std::move(tensor), persistent}).tensor;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  check_new_name(name, "module");
  EMBER_CHECK_VALUE(module != nullptr, type_name_, ": module '", name, "' is null");
  EMBER_CHECK_VALUE(module.get() != this, type_name_, ": module '", name, "' can't be itself");
  children_.insert(name, std::move(module));
}

Tensor Module::replace_parameter(const std::string& name, Tensor tensor) {
  Tensor* slot = parameters_.find(name);
  EMBER_CHECK_KEY(slot != nullptr, type_name_, ": no parameter named '", name, "' to replace");
  EMBER_CHECK_VALUE(tensor.defined(), type_name_, ": parameter '", name, "' is an undefined tensor");
  return *slot = std::move(tensor);
}

Tensor Module::replace_buffer(const std::string& name, Tensor tensor) {
  Buffer* slot = buffers_.find(name);
  EMBER_CHECK_KEY(slot != nullptr, type_name_, ": no buffer named '", name, "' to replace");
  return slot->tensor = std::move(tensor);
}

void Module::replace_module(const std::string& name, std::shared_ptr<Module> module) {
  auto* slot = children_.find(name);
  EMBER_CHECK_KEY(slot != nullptr, type_name_, ": no module named '", name, "' to replace");
  EMBER_CHECK_VALUE(module != nullptr, type_name_, ": module '", name, "' is null");
  *slot = std::move(module);
}

const Tensor& Module::parameter(const std::string& name) const {
  const Tensor* t = parameters_.find(name);
  EMBER_CHECK_KEY(t != nullptr, type_name_, ": no parameter named '", name, "'");
  return *t;
}

const Tensor& Module::buffer(const std::string& name) const {
  const Buffer* b = buffers_.find(name);
  EMBER_CHECK_KEY(b != nullptr, type_name_, ": no buffer named '", name, "'");
  return b->tensor;
}

std::shared_ptr<Module> Module::child(const std::string& name) const {
  const auto* m = children_.find(name);
  EMBER_CHECK_KEY(m != nullptr, type_name_, ": no module named '", name, "'");
  return *m;
}

Module& Module::child_ref(const std::string& name) const {
  const auto* m = children_.find(name);
  EMBER_CHECK_KEY(m != nullptr, type_name_, ": no module named '", name, "'");
  return **m;
}

bool Module::is_persistent_buffer(const std::string& name) const {
  const Buffer* b = buffers_.find(name);
  return b && b->persistent;
}

std::vector<std::pair<std::string, Module*>> Module::named_modules(const std::string& prefix) {
  std::vector<std::pair<std::string, Module*>> out;
  std::unordered_set<const Module*> seen;
  // Iterative pre-order walk, children in registration order.
  std::vector<std::pair<std::string, Module*>> stack{{prefix, this}};
  while (!stack.empty()) {
    auto [name, m] = stack.back();
    stack.pop_back();
    if (!seen.insert(m).second) continue;
    out.emplace_back(name, m);
    const auto& kids = m->children_.items();
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      stack.emplace_back(join(name, it->first), it->second.get());
  }
  return out;
}

std::vector<Module*> Module::modules() {
  std::vector<Module*> out;
  for (auto& [name, m] : named_modules()) out.push_back(m);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& [name, m] : children_) out.push_back(m);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const {
  return children_.items();
}

void Module::collect_entries(const std::string& prefix, bool include_non_persistent,
                             std::vector<StateEntry>& out) const {
  for (const auto& [name, t] : parameters_)
    out.push_back({join(prefix, name), t, StateKind::Parameter, true});
  for (const auto& [name, b] : buffers_)
    if (b.persistent || include_non_persistent)
      out.push_back({join(prefix, name), b.tensor, StateKind::Buffer, b.persistent});
  for (const auto& [name, m] : children_) m->collect_entries(join(prefix, name), include_non_persistent, out);
}

std::vector<StateEntry> Module::state_entries(bool include_non_persistent) const {
  std::vector<StateEntry> out;
  collect_entries("", include_non_persistent, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(const std::string& prefix,
                                                                     bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const TensorImpl*> seen;
  if (!recurse) {
    for (const auto& [name, t] : parameters_)
      if (seen.insert(t.impl_ptr().get()).second) out.emplace_back(join(prefix, name), t);
    return out;
  }
  for (const StateEntry& e : state_entries(true))
    if (e.kind == StateKind::Parameter && seen.insert(e.tensor.impl_ptr().get()).second)
      out.emplace_back(join(prefix, e.name), e.tensor);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters("", recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(const std::string& prefix,
                                                                  bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const TensorImpl*> seen;
  if (!recurse) {
    for (const auto& [name, b] : buffers_)
      if (seen.insert(b.tensor.impl_ptr().get()).second) out.emplace_back(join(prefix, name), b.tensor);
    return out;
  }
  for (const StateEntry& e : state_entries(true))
    if (e.kind == StateKind::Buffer && seen.insert(e.tensor.impl_ptr().get()).second)
      out.emplace_back(join(prefix, e.name), e.tensor);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_buffers("", recurse)) out.push_back(t);
  return out;
}

StateDict Module::state_dict() const {
  StateDict out;
  for (StateEntry& e : state_entries(false)) out.insert(e.name, e.tensor);
  return out;
}

LoadResult Module::load_state_dict(const StateDict& state, bool strict) {
  LoadResult result;
  std::vector<StateEntry> entries = state_entries(false);
  // For each model tensor (by identity): the state's value for it and the key it came from.
  std::unordered_map<const TensorImpl*, std::pair<Tensor, std::string>> chosen;
  std::unordered_set<std::string> used_keys;
  std::unordered_set<const TensorImpl*> mismatched;
  for (const StateEntry& e : entries) {
    const Tensor* src = state.find(e.name);
    if (!src) continue;
    used_keys.insert(e.name);
    const TensorImpl* impl = e.tensor.impl_ptr().get();
    if (src->sizes() != e.tensor.sizes()) {
      result.shape_mismatches.push_back({e.name, src->sizes().vec(), e.tensor.sizes().vec()});
      mismatched.insert(impl);
      continue;
    }
    auto it = chosen.find(impl);
    if (it == chosen.end()) {
      chosen.emplace(impl, std::make_pair(*src, e.name));
    } else {
      EMBER_CHECK_VALUE(same_values(it->second.first, *src), "load_state_dict: '", it->second.second,
                        "' and '", e.name, "' are tied in the model but the state gives them "
                        "different values");
    }
  }
  for (const StateEntry& e : entries) {
    const TensorImpl* impl = e.tensor.impl_ptr().get();
    if (!chosen.count(impl) && !mismatched.count(impl) && !state.contains(e.name))
      result.missing_keys.push_back(e.name);
  }
  // A state key nobody asked for is unexpected unless it aliases a tensor that was loaded.
  std::unordered_set<const TensorImpl*> loaded_sources;
  for (const auto& [impl, value] : chosen) loaded_sources.insert(value.first.impl_ptr().get());
  for (const auto& [key, t] : state)
    if (!used_keys.count(key) && !loaded_sources.count(t.impl_ptr().get()))
      result.unexpected_keys.push_back(key);

  EMBER_CHECK_AS(KeyError, !strict || result.ok(), "load_state_dict: error(s) loading state into ",
                 type_name_, ":\n", result.str());
  autograd::NoGradGuard no_grad;
  for (const StateEntry& e : entries) {
    auto it = chosen.find(e.tensor.impl_ptr().get());
    if (it == chosen.end() || it->second.second != e.name) continue;  // once per tensor
    Tensor target = e.tensor;
    if (!target.is_same(it->second.first)) target.copy_(it->second.first);
  }
  return result;
}

void Module::train(bool on) {
  for (Module* m : modules()) m->training_ = on;
}

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      Tensor g = p.grad().detach();
      g.zero_();
    }
  }
}

// NB: every tensor is converted before any is replaced, so a conversion that fails (no such
// device, out of memory on it) leaves the module as it was, not half moved.
void Module::convert(const std::function<Tensor(const Tensor&)>& fn, bool floating_only) {
  std::unordered_set<const TensorImpl*> done;
  autograd::NoGradGuard no_grad;
  struct Converted {
    Tensor tensor, data, grad;
  };
  std::vector<Converted> converted;
  for (const StateEntry& e : state_entries(true)) {
    if (!done.insert(&e.tensor.impl()).second) continue;
    if (floating_only && !is_floating(e.tensor.dtype())) continue;
    converted.push_back({e.tensor, fn(e.tensor.detach()),
                         e.tensor.grad().defined() ? fn(e.tensor.grad()) : Tensor()});
  }
  for (const Converted& c : converted) {
    c.tensor.impl().set_data(c.data.impl());
    if (c.grad.defined()) c.tensor.set_grad(c.grad);
  }
}

void Module::to(DType dtype) {
  EMBER_CHECK_TYPE(is_floating(dtype), "Module::to: only floating dtypes, got ", dtype);
  convert([&](const Tensor& t) { return ember::to(t, dtype); }, /*floating_only=*/true);
}

void Module::to(Device device) {
  convert([&](const Tensor& t) { return ember::to(t, device); }, /*floating_only=*/false);
}

void Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& [name, m] : children_) m->apply(fn);
  fn(*this);
}

int64_t Module::num_parameters(bool trainable_only) const {
  int64_t n = 0;
  for (const Tensor& p : parameters())
    if (!trainable_only || p.requires_grad()) n += p.numel();
  return n;
}

void Module::print(std::ostream& os, int indent) const {
  os << type_name_ << '(' << extra_repr();
  if (!children_.empty()) {
    os << '\n';
    for (const auto& [name, m] : children_) {
      os << std::string(static_cast<size_t>(indent + 2), ' ') << '(' << name << "): ";
      m->print(os, indent + 2);
      int64_t count = m->num_parameters();
      if (count > 0 && m->children_.empty()) os << "  # " << count << " params";
      os << '\n';
    }
    os << std::string(static_cast<size_t>(indent), ' ');
  }
  os << ')';
}

std::string Module::str() const {
  std::ostringstream os;
  print(os, 0);
  os << "\nparameters: " << num_parameters() << " (trainable " << num_parameters(true) << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.str(); }

Tensor Module::forward(const Tensor&) {
  EMBER_CHECK_AS(NotImplementedError, false, type_name_,
                 " has no single-tensor forward(); call its own forward with its arguments");
  return Tensor();
}

Tensor Module::operator()(const Tensor& input) {
  std::shared_ptr<const HookLists> hooks = hooks_;  // NB: a hook may change hooks_ while it runs
  if (!hooks || hooks->empty()) return forward(input);
  return run_with_hooks(*this, *hooks, input, [this](const Tensor& x) { return forward(x); });
}

namespace {

template <typename Fn>
void insert_hook(std::vector<HookEntry<Fn>>& list, HookEntry<Fn> entry, bool prepend) {
  list.insert(prepend ? list.begin() : list.end(), std::move(entry));
}

}  // namespace

int Module::register_forward_pre_hook(ForwardPreHook hook, bool prepend) {
  auto lists = hooks_ ? std::make_shared<HookLists>(*hooks_) : std::make_shared<HookLists>();
  insert_hook(lists->pre, {next_hook_id_, std::move(hook)}, prepend);
  hooks_ = std::move(lists);
  return next_hook_id_++;
}

int Module::register_forward_hook(ForwardHook hook, bool prepend, bool always_call) {
  auto lists = hooks_ ? std::make_shared<HookLists>(*hooks_) : std::make_shared<HookLists>();
  insert_hook(lists->forward, {next_hook_id_, std::move(hook), always_call}, prepend);
  hooks_ = std::move(lists);
  return next_hook_id_++;
}

int Module::register_full_backward_hook(BackwardHook hook, bool prepend) {
  auto lists = hooks_ ? std::make_shared<HookLists>(*hooks_) : std::make_shared<HookLists>();
  insert_hook(lists->backward, {next_hook_id_, std::move(hook)}, prepend);
  hooks_ = std::move(lists);
  return next_hook_id_++;
}

bool Module::remove_hook(int id) {
  if (!hooks_) return false;
  auto lists = std::make_shared<HookLists>(*hooks_);
  auto erase = [id](auto& list) {
    return std::erase_if(list, [id](const auto& e) { return e.id == id; }) > 0;
  };
  bool found = erase(lists->pre) || erase(lists->forward) || erase(lists->backward);
  if (found) hooks_ = lists->empty() ? nullptr : std::move(lists);
  return found;
}

}  // namespace ember::nn
