#pragma once
// Module: the base of every layer. It owns named parameters, buffers (persistent or not) and child
// modules, in registration order; structured names join with dots ("encoder.layers.0.weight").
// A tensor registered in two places (a tied embedding and decoder) is one parameter: traversal
// yields it once, state_dict() lists it under every name. Layers read their tensors through
// parameter("weight"), so replacing or tying a parameter can never leave a stale handle behind.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/module_hooks.h"
#include "ember/nn/ordered_dict.h"

namespace ember::nn {

using StateDict = OrderedDict<Tensor>;

/// What load_state_dict found; a clean load has all three lists empty.
struct LoadResult {
  struct ShapeMismatch {
    std::string key;
    DimVector checkpoint_shape;
    DimVector model_shape;
  };
  std::vector<std::string> missing_keys;     // in the model, no value in the state
  std::vector<std::string> unexpected_keys;  // in the state, nowhere in the model
  std::vector<ShapeMismatch> shape_mismatches;

  bool ok() const { return missing_keys.empty() && unexpected_keys.empty() && shape_mismatches.empty(); }
  /// One line per problem, e.g. "shape mismatch for 'fc.weight': checkpoint [10, 3], model [10, 4]".
  std::string str() const;
};

enum class StateKind { Parameter, Buffer };

/// One name under which a parameter or buffer is reachable (a tied tensor has several).
struct StateEntry {
  std::string name;
  Tensor tensor;
  StateKind kind;
  bool persistent;
};

class Module {
 public:
  /// `type_name` names the layer ("Linear") in printouts and saved architectures.
  explicit Module(std::string type_name = "Module");
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& type_name() const { return type_name_; }

  // ---- registration (names: non-empty, no dots, unique among this module's entries)
  /// Registers a parameter (sets requires_grad on it); returns the handle stored.
  Tensor register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);
  /// Registers a buffer; a non-persistent buffer is moved by to() but not saved.
  Tensor register_buffer(const std::string& name, Tensor tensor, bool persistent = true);
  /// Registers a child module; returns it, typed.
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_child(name, module);
    return module;
  }
  /// Replaces the tensor of an existing parameter: how a tie is made after construction
  /// (decoder.replace_parameter("weight", embedding.parameter("weight"))).
  Tensor replace_parameter(const std::string& name, Tensor tensor);
  /// Replaces an existing buffer's tensor, keeping its persistence.
  Tensor replace_buffer(const std::string& name, Tensor tensor);
  /// Replaces an existing child, keeping its position.
  void replace_module(const std::string& name, std::shared_ptr<Module> module);

  // ---- this module's own entries
  const Tensor& parameter(const std::string& name) const;
  const Tensor& buffer(const std::string& name) const;
  std::shared_ptr<Module> child(const std::string& name) const;
  /// Child `name` as an M, looked up at each call: layers run their children through it, so a
  /// child replaced after construction (from Python, a subclass overriding forward, say) is the
  /// one that runs. A KeyError if there is none, a TypeError if it is no M.
  template <typename M = Module>
  M& child_as(const std::string& name) const {
    Module& m = child_ref(name);
    auto* typed = dynamic_cast<M*>(&m);
    EMBER_CHECK_TYPE(typed != nullptr, type_name_, ": child '", name, "' is a ", m.type_name(),
                     ", which this layer cannot run in its place");
    return *typed;
  }
  bool has_parameter(const std::string& name) const { return parameters_.contains(name); }
  bool has_buffer(const std::string& name) const { return buffers_.contains(name); }
  bool has_child(const std::string& name) const { return children_.contains(name); }
  bool is_persistent_buffer(const std::string& name) const;

  // ---- traversal (registration order; each distinct tensor/module once, under its first name)
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_parameters(const std::string& prefix = "",
                                                               bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(const std::string& prefix = "",
                                                            bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  /// This module and every descendant (non-owning pointers, valid while the tree lives).
  std::vector<Module*> modules();
  std::vector<std::pair<std::string, Module*>> named_modules(const std::string& prefix = "");
  /// Every parameter and buffer under every name it is reachable by, ties included.
  std::vector<StateEntry> state_entries(bool include_non_persistent = false) const;

  // ---- state
  /// Persistent parameters and buffers by structured name; a tied tensor appears under each name.
  StateDict state_dict() const;
  /// Copies values from `state` in place (converting dtype). Reports missing keys, unexpected keys
  /// and shape mismatches; with strict, any of them is an error listing them all and nothing is
  /// changed. A name whose tensor is also reachable under another name (a tie, in the model or
  /// in the state) is satisfied by any of its names. Tied model names given different values by
  /// the state are an error.
  LoadResult load_state_dict(const StateDict& state, bool strict = true);

  // ---- mode, gradients, conversion
  /// Sets training mode here and in every descendant.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  /// Clears every parameter's gradient (set_to_none) or zeroes it in place.
  void zero_grad(bool set_to_none = true);
  /// Converts floating parameters and buffers in place: every handle and tie stays valid.
  void to(DType dtype);
  /// Moves parameters and buffers in place.
  void to(Device device);
  /// fn(module) on every descendant, then on this module.
  void apply(const std::function<void(Module&)>& fn);

  // ---- printing
  /// The settings shown in the printout: "in_features=784, out_features=10, bias=True".
  virtual std::string extra_repr() const { return ""; }
  /// PyTorch-style tree of modules, each line with its parameter count.
  std::string str() const;
  /// Number of distinct parameter elements (trainable only if asked).
  int64_t num_parameters(bool trainable_only = false) const;

  // ---- running
  /// The single-tensor forward most layers have; modules without one throw NotImplementedError.
  virtual Tensor forward(const Tensor& input);
  /// forward with this module's hooks around it: how containers and layers call their children.
  Tensor operator()(const Tensor& input);

  // ---- hooks (nn/module_hooks.h), run by operator()
  /// Adds a hook and returns its id (for remove_hook); prepend runs it before the others.
  int register_forward_pre_hook(ForwardPreHook hook, bool prepend = false);
  /// always_call: the hook also runs when forward throws (with an undefined output).
  int register_forward_hook(ForwardHook hook, bool prepend = false, bool always_call = false);
  int register_full_backward_hook(BackwardHook hook, bool prepend = false);
  /// Removes hook `id` (of any kind); false when this module has no hook by that id.
  bool remove_hook(int id);
  /// The hooks as they are now, a snapshot that later changes leave alone (null when none).
  std::shared_ptr<const HookLists> hooks() const { return hooks_; }

 private:
  struct Buffer {
    Tensor tensor;
    bool persistent;
  };
  void check_new_name(const std::string& name, const char* what) const;
  Module& child_ref(const std::string& name) const;
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  void collect_entries(const std::string& prefix, bool include_non_persistent,
                       std::vector<StateEntry>& out) const;
  void convert(const std::function<Tensor(const Tensor&)>& fn, bool floating_only);
  void print(std::ostream& os, int indent) const;

  std::string type_name_;
  OrderedDict<Tensor> parameters_;
  OrderedDict<Buffer> buffers_;
  OrderedDict<std::shared_ptr<Module>> children_;
  bool training_ = true;
  std::shared_ptr<const HookLists> hooks_;  // copied on write (nn/module_hooks.h); null when none
  int next_hook_id_ = 0;
};

/// Prints module.str().
std::ostream& operator<<(std::ostream& os, const Module& module);

}  // namespace ember::nn
