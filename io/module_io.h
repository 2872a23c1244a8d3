#pragma once
// Module checkpoints: a module's state as an io::Value, loading a state back into a module with
// its parameter attributes, and whole-module files that rebuild the module from its architecture.
//
//   io::save(io::Value::dict({{"model", io::to_value(model)}, {"epoch", 3}}), "ckpt.ember");
//   io::load_into(model, io::load("ckpt.ember").at("model"));   // values, requires_grad, attrs
//
//   io::save(model, "model.ember");                       // {"architecture": ..., "state": ...}
//   std::shared_ptr<nn::Module> m = io::load_module("model.ember");
//
// A state is a dict of structured name -> tensor leaf. Leaves of kind Parameter or Buffer (what
// to_value makes) carry the tensor's attributes: load_into restores them (and requires_grad, for
// parameters) onto the model. Leaves of kind Tensor (a plain safetensors file, a hand-made dict)
// carry values only, so loading one never freezes a model or clears its attributes.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/io/serialize.h"
#include "ember/io/value.h"
#include "ember/nn/module.h"

namespace ember::io {

/// `module`'s persistent parameters and buffers (and non-persistent buffers if asked) as an
/// ordered dict: structured name -> tensor leaf of kind Parameter or Buffer, in state_dict order.
/// A tied tensor appears under each of its names as the same Tensor (io::save stores it once).
Value to_value(const nn::Module& module, bool include_non_persistent = false);

/// Maps a key of the state being loaded to the model's key; nullopt drops the entry.
using KeyMap = std::function<std::optional<std::string>(const std::string& key)>;

/// "model.fc.weight" -> "fc.weight" for strip_prefix("model."); other keys pass unchanged.
KeyMap strip_prefix(std::string prefix);
/// "fc.weight" -> "model.fc.weight" for add_prefix("model.").
KeyMap add_prefix(std::string prefix);
/// Exact renames {old: new}; other keys pass unchanged.
KeyMap rename(std::map<std::string, std::string> renames);
/// Applies each map in turn (a key dropped by one is dropped).
KeyMap chain(std::vector<KeyMap> maps);

/// Loads `state` into `module` in place: values through Module::load_state_dict (the same missing
/// / unexpected / shape-mismatch report, and with strict the same KeyError, nothing changed), then
/// requires_grad and the attribute map of every loaded entry that carries them. `state` is a dict
/// of tensors, or a file's root as io::save(module, path) writes it (its "state" is used).
/// `key_map` renames or drops keys before anything else; a non-tensor entry left is a TypeError
/// naming its key.
nn::LoadResult load_into(nn::Module& module, const Value& state, bool strict = true, const KeyMap& key_map = {});
/// load_into(module, io::load(path), strict, key_map).
nn::LoadResult load_into(nn::Module& module, const std::string& path, bool strict = true,
                         const KeyMap& key_map = {});
// NB: a string literal converts to both Value and std::string; this overload picks the path.
/// load_into from the file at `path`.
nn::LoadResult load_into(nn::Module& module, const char* path, bool strict = true, const KeyMap& key_map = {});

/// {"architecture": architecture(module), "state": to_value(module)}: a module as a value that
/// module_from_value rebuilds (when every type in it is built in or registered).
Value module_value(const nn::Module& module);
/// Whether `v` is what module_value (or io::save(module, path)) writes.
bool is_module_value(const Value& v);
/// The module `v` (a module_value) describes, its ties made again and its state loaded strictly;
/// `where` names it in errors.
std::shared_ptr<nn::Module> module_from_value(const Value& v, const std::string& where);

/// Writes module_value(module) to `path`.
void save(const nn::Module& module, const std::string& path, const SaveOptions& options = {});
/// Rebuilds the module a file written by save(module, path) holds: its architecture, the ties its
/// state records, and its state loaded strictly. An error naming the file if it holds no
/// architecture.
std::shared_ptr<nn::Module> load_module(const std::string& path);
/// load_module(path) as the type the caller expects: io::load_module<nn::Sequential>(path); a
/// TypeError naming the file and the type it holds otherwise.
template <typename M>
std::shared_ptr<M> load_module(const std::string& path) {
  std::shared_ptr<nn::Module> module = load_module(path);
  std::shared_ptr<M> typed = std::dynamic_pointer_cast<M>(module);
  EMBER_CHECK_TYPE(typed != nullptr, "io::load_module: '", path, "' holds a ", module->type_name(),
                   ", not the type asked for");
  return typed;
}

}  // namespace ember::io
