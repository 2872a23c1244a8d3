// Module checkpoints. Values go through Module::load_state_dict, which owns the rules for ties,
// missing and unexpected keys and shape mismatches; this file adds what a state dict of plain
// tensors cannot say: the key mapping, each tensor's requires_grad and attributes, and for whole
// module files the architecture and the ties to re-make.
#include "ember/io/module_io.h"

#include <unordered_map>
#include <unordered_set>

#include "ember/io/architecture.h"

namespace ember::io {
namespace {

// The root io::save(module, path) writes; a dict of tensors never has a non-tensor "architecture".
bool is_module_file(const Value& v) {
  if (!v.is_dict()) return false;
  const Value* state = v.find("state");
  return v.contains("architecture") && state && state->is_dict();
}

// Gives the attributes and (for parameters) requires_grad of each saved leaf to the model tensor
// it was loaded into. Leaves of kind Tensor carry no such information: a plain safetensors file
// says requires_grad=false of everything, and that must not freeze the model.
void restore_attributes(nn::Module& module, const std::unordered_map<std::string, const Value*>& leaves,
                        const nn::LoadResult& result) {
  std::unordered_set<std::string> mismatched;
  for (const auto& m : result.shape_mismatches) mismatched.insert(m.key);
  for (const nn::StateEntry& e : module.state_entries(false)) {
    auto it = leaves.find(e.name);
    if (it == leaves.end() || mismatched.count(e.name)) continue;
    const Value& leaf = *it->second;
    if (leaf.tensor_kind() == TensorKind::Tensor) continue;
    const Tensor& src = leaf.as_tensor();
    const Tensor& target = e.tensor;
    if (target.is_same(src)) continue;
    if (e.kind == nn::StateKind::Parameter && leaf.tensor_kind() == TensorKind::Parameter &&
        target.requires_grad() != src.requires_grad() && (!src.requires_grad() || target.is_floating_point()))
      target.set_requires_grad(src.requires_grad());
    const Attributes* attrs = src.impl().attributes_if_any();
    if (attrs && !attrs->empty())
      target.attributes() = *attrs;
    else if (const Attributes* old = target.impl().attributes_if_any(); old && !old->empty())
      target.attributes().clear();
  }
}

// The module that owns structured name `name` ("encoder.0.weight" -> encoder.0) and the local name.
std::pair<nn::Module*, std::string> owner_of(const std::unordered_map<std::string, nn::Module*>& modules,
                                            const std::string& name) {
  size_t dot = name.rfind('.');
  std::string prefix = dot == std::string::npos ? "" : name.substr(0, dot);
  auto it = modules.find(prefix);
  return {it == modules.end() ? nullptr : it->second, name.substr(dot == std::string::npos ? 0 : dot + 1)};
}

// Re-makes in a freshly built module the ties the saved state records (one tensor under several
// names): an architecture holds constructor settings, and a tie is made after construction.
void retie(nn::Module& module, const Value& state) {
  std::unordered_map<const TensorImpl*, std::vector<std::string>> groups;
  std::vector<const TensorImpl*> order;
  for (size_t i = 0; i < state.size(); ++i) {
    const Value& leaf = state.items()[i];
    if (!leaf.is_tensor()) continue;
    const TensorImpl* impl = leaf.as_tensor().impl_ptr().get();
    auto [it, fresh] = groups.try_emplace(impl);
    if (fresh) order.push_back(impl);
    it->second.push_back(state.keys()[i].str());
  }
  std::unordered_map<std::string, nn::StateEntry> entries;
  for (nn::StateEntry& e : module.state_entries(false)) entries.emplace(e.name, e);
  std::unordered_map<std::string, nn::Module*> modules;
  for (auto& [name, m] : module.named_modules()) modules.emplace(name, m);
  for (const TensorImpl* impl : order) {
    const std::vector<std::string>& names = groups[impl];
    const nn::StateEntry* anchor = nullptr;
    for (const std::string& name : names) {
      auto it = entries.find(name);
      if (it == entries.end()) continue;
      const nn::StateEntry& e = it->second;
      if (!anchor) {
        anchor = &e;
        continue;
      }
      if (e.kind != anchor->kind || e.tensor.is_same(anchor->tensor) || e.tensor.sizes() != anchor->tensor.sizes() ||
          e.tensor.dtype() != anchor->tensor.dtype())
        continue;
      auto [owner, local] = owner_of(modules, name);
      if (!owner) continue;
      if (e.kind == nn::StateKind::Parameter)
        owner->replace_parameter(local, anchor->tensor);
      else
        owner->replace_buffer(local, anchor->tensor);
    }
  }
}

// Runs `f`, prefixing the message of an Ember error with `context` and keeping its type.
template <typename F>
auto with_context(const std::string& context, F&& f) {
  try {
    return f();
  } catch (const KeyError& e) {
    throw KeyError(context + e.what());
  } catch (const TypeError& e) {
    throw TypeError(context + e.what());
  } catch (const ValueError& e) {
    throw ValueError(context + e.what());
  }
}

}  // namespace

Value to_value(const nn::Module& module, bool include_non_persistent) {
  Value out = Value::dict();
  for (nn::StateEntry& e : module.state_entries(include_non_persistent)) {
    TensorKind kind = e.kind == nn::StateKind::Parameter ? TensorKind::Parameter : TensorKind::Buffer;
    out.set(e.name, Value(std::move(e.tensor), kind, e.persistent));
  }
  return out;
}

KeyMap strip_prefix(std::string prefix) {
  return [prefix = std::move(prefix)](const std::string& key) -> std::optional<std::string> {
    if (key.size() >= prefix.size() && key.compare(0, prefix.size(), prefix) == 0) return key.substr(prefix.size());
    return key;
  };
}

KeyMap add_prefix(std::string prefix) {
  return [prefix = std::move(prefix)](const std::string& key) -> std::optional<std::string> { return prefix + key; };
}

KeyMap rename(std::map<std::string, std::string> renames) {
  return [renames = std::move(renames)](const std::string& key) -> std::optional<std::string> {
    auto it = renames.find(key);
    return it == renames.end() ? key : it->second;
  };
}

KeyMap chain(std::vector<KeyMap> maps) {
  return [maps = std::move(maps)](const std::string& key) -> std::optional<std::string> {
    std::optional<std::string> out = key;
    for (const KeyMap& map : maps) {
      if (!map) continue;
      out = map(*out);
      if (!out) break;
    }
    return out;
  };
}

nn::LoadResult load_into(nn::Module& module, const Value& state, bool strict, const KeyMap& key_map) {
  const Value& dict = is_module_file(state) ? state.at("state") : state;
  EMBER_CHECK_TYPE(dict.is_dict(), "io::load_into: the state is a ", dict.type_name(),
                   ", expected a dict of name -> tensor");
  nn::StateDict tensors;
  std::unordered_map<std::string, const Value*> leaves;
  std::unordered_map<std::string, std::string> source_key;  // mapped key -> the state's key
  for (size_t i = 0; i < dict.size(); ++i) {
    EMBER_CHECK_TYPE(dict.keys()[i].is_string(), "io::load_into: the state's key ", dict.keys()[i],
                     " is an int, expected a parameter or buffer name");
    const std::string& key = dict.keys()[i].as_string();
    const Value& leaf = dict.items()[i];
    std::string target = key;
    if (key_map) {
      std::optional<std::string> mapped = key_map(key);
      if (!mapped) continue;
      target = std::move(*mapped);
    }
    EMBER_CHECK_TYPE(leaf.is_tensor(), "io::load_into: state entry '", key, "' is of type ", leaf.type_name(),
                     ", not a tensor",
                     leaf.is_dict() ? "; to load a module stored inside a larger checkpoint, pass that sub-tree "
                                      "(e.g. ckpt.at(\"model\"))"
                                    : "; drop it with a key_map that returns nullopt for it");
    if (const Tensor* prev = tensors.find(target)) {
      EMBER_CHECK_VALUE(prev->is_same(leaf.as_tensor()), "io::load_into: the key_map maps both '", source_key[target],
                        "' and '", key, "' to '", target, "'");
      continue;
    }
    tensors.insert(target, leaf.as_tensor());
    leaves.emplace(target, &leaf);
    source_key.emplace(target, key);
  }
  nn::LoadResult result = module.load_state_dict(tensors, strict);
  restore_attributes(module, leaves, result);
  return result;
}

nn::LoadResult load_into(nn::Module& module, const std::string& path, bool strict, const KeyMap& key_map) {
  Value root = load(path);
  return with_context("io::load_into: '" + path + "': ", [&] { return load_into(module, root, strict, key_map); });
}

nn::LoadResult load_into(nn::Module& module, const char* path, bool strict, const KeyMap& key_map) {
  return load_into(module, std::string(path), strict, key_map);
}

Value module_value(const nn::Module& module) {
  return Value::dict({{"architecture", architecture(module)}, {"state", to_value(module)}});
}

bool is_module_value(const Value& v) {
  if (!is_module_file(v)) return false;
  const Value& arch = v.at("architecture");
  return arch.is_dict() && arch.contains("type");
}

std::shared_ptr<nn::Module> module_from_value(const Value& v, const std::string& where) {
  EMBER_CHECK_VALUE(is_module_file(v), where,
                    " holds no module architecture (it was not written by io::save(module, path)); build "
                    "the module in code and load its state with io::load_into");
  return with_context(where + ": ", [&] {
    std::shared_ptr<nn::Module> module = from_architecture(v.at("architecture"));
    const Value& state = v.at("state");
    retie(*module, state);
    load_into(*module, state, /*strict=*/true);
    return module;
  });
}

void save(const nn::Module& module, const std::string& path, const SaveOptions& options) {
  save(module_value(module), path, options);
}

std::shared_ptr<nn::Module> load_module(const std::string& path) {
  return module_from_value(load(path), "io::load_module: '" + path + "'");
}

}  // namespace ember::io
