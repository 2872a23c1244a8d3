#pragma once
// Optimizer: the base of SGD, Adam, AdamW, RMSprop and Adagrad. It holds parameters by their
// structured names (what Module::named_parameters() returns) in groups that carry their own
// hyperparameters, and keeps per-parameter state keyed by name, never by position, so a checkpoint
// lands on the right parameter after the model gained, lost or reordered parameters.
//
// Hyperparameters are typed (optim/hyperparams.h): numbers, flags and Adam's betas as a pair, held
// by name so that schedulers, checkpoints and bindings handle every optimizer alike; each
// optimizer's options struct converts to and from them, and a key the optimizer does not know is an
// error. Two parameter attributes refine a group per parameter:
//   param.attributes()["lr_scale"]     multiplies the group's lr for that parameter;
//   param.attributes()["weight_decay"] replaces the group's weight decay (0 for norms and biases).
//
// Master weights (the master_weights hyperparameter, off by default): a float16 or bfloat16
// parameter then steps through a float32 copy kept in its state as "master", with float32 state
// tensors and the gradient widened; the parameter receives the master rounded once per step. So
// updates smaller than the parameter's half-ulp accumulate instead of rounding away, as in pure
// bf16 training with fp32 master weights. Checkpoints save "master" by name like any state. When
// the parameter is written by anything else (load_state_dict of the model, an in-place edit) and
// no longer equals its rounded master, the master restarts from the parameter.
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/optim/hyperparams.h"

namespace ember::optim {

using NamedParameters = std::vector<std::pair<std::string, Tensor>>;
/// One parameter's state: {"step": 0-d float32, "exp_avg": ..., ...}.
using ParamState = std::map<std::string, Tensor>;

/// Named parameters sharing hyperparameters; keys missing from `options` take the optimizer's
/// defaults when the group is added: ParamGroup(model.named_parameters(), {{"lr", 0.01}}).
struct ParamGroup {
  NamedParameters params;
  Hyperparams options;
  ParamGroup() = default;
  ParamGroup(NamedParameters params, Hyperparams options = {})  // NOLINT: implicit
      : params(std::move(params)), options(std::move(options)) {}
  /// The number options[key] (lr, momentum, ...); a KeyError naming the key when absent.
  double get(const std::string& key) const { return options.number(key); }
};

/// What state_dict() returns and load_state_dict() takes; the io layer converts it to its tree.
struct OptimizerStateDict {
  struct Group {
    Hyperparams options;
    std::vector<std::string> params;  // member names, in order
  };
  std::vector<Group> param_groups;
  std::map<std::string, ParamState> state;  // by parameter name; absent before the first step
  /// A copy whose state tensors share nothing with this one.
  OptimizerStateDict clone() const;
};

/// What load_state_dict found besides the state it loaded.
struct OptimizerLoadReport {
  std::vector<std::string> unexpected;  // named by the checkpoint, not in this optimizer: dropped
  std::vector<std::string> missing;     // in this optimizer, not in the checkpoint: start fresh
  std::vector<std::string> moved;       // in another group than in the checkpoint
  /// Hyperparameters the checkpoint's differ from, "group 0 lr: 0.001 -> 0.000375" (the
  /// constructor's value, then the checkpoint's): taken from the checkpoint, or kept when asked.
  std::vector<std::string> overridden;
  bool hyperparameters_kept = false;
  /// Every parameter's state found its place (hyperparameters taken from the checkpoint are not a finding).
  bool ok() const { return unexpected.empty() && missing.empty() && moved.empty(); }
  /// One line per kind of finding, e.g. "unexpected: 'old.weight', 'old.bias'".
  std::string str() const;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// "SGD", "Adam", ...: names the optimizer in error messages.
  const std::string& name() const { return name_; }
  /// One update of every parameter that has a gradient (others are skipped), under NoGradGuard.
  void step();
  /// Clears every gradient (set_to_none) or zeroes it in place.
  void zero_grad(bool set_to_none = true);
  /// Adds a group, filling its missing hyperparameters from the defaults. Each of its keys must be
  /// one of the optimizer's (or a scheduler's, e.g. initial_lr) and of the same kind, else an error
  /// names the key and the optimizer. Names and tensors must be new to the optimizer; parameters
  /// must be floating-point or complex leaves.
  void add_param_group(ParamGroup group);
  /// The groups; schedulers and users change hyperparameters here (groups[0].options["lr"]).
  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  const Hyperparams& defaults() const { return defaults_; }
  /// Per-parameter state by name; a parameter has none until its first step.
  const std::map<std::string, ParamState>& state() const { return state_; }

  /// Groups (hyperparameters and member names) and the state tensors themselves (not copies: use
  /// clone() to keep a snapshot while training goes on).
  OptimizerStateDict state_dict() const;
  /// Restores state by parameter name, copying the tensors (floating ones to the parameter's dtype
  /// and device, or float32 for a 16-bit parameter under master_weights; "step" kept as is). Groups are matched by position and take the checkpoint's
  /// hyperparameters, checked as add_param_group checks them (flags saved as 0/1 and Adam's betas
  /// saved as beta1/beta2, as checkpoints before typed hyperparameters hold them, are read as
  /// such); their membership is compared by name. Parameters the checkpoint does not
  /// name start fresh; state for names this optimizer does not have is dropped and reported, an
  /// error under `strict`. A state tensor whose shape no longer fits its parameter, or a different
  /// number of groups, is an error. Nothing changes when an error is thrown.
  OptimizerLoadReport load_state_dict(const OptimizerStateDict& state, bool strict = false,
                                      bool keep_hyperparameters = false);

 protected:
  Optimizer(std::string name, Hyperparams defaults);

  /// One parameter's update: its effective lr (group lr times the lr_scale attribute) and weight
  /// decay (the weight_decay attribute, else the group's).
  struct ParamUpdate {
    const Hyperparams& options;
    const Tensor& param;
    const Tensor& grad;
    ParamState& state;  // empty on the first step: the optimizer fills it
    double lr;
    double weight_decay;
  };
  virtual void update(const ParamUpdate& u) = 0;
  /// The state of the parameter named `name` (empty at first), for an optimizer that steps every
  /// parameter at once (LBFGS keeps its state under the first parameter's name, as PyTorch does).
  ParamState& mutable_state(const std::string& name) { return state_[name]; }
  /// What a state tensor is, for load_state_dict: Param (shaped as its parameter; a floating one
  /// takes the parameter's dtype and device), Scalar (a per-parameter number such as "step": kept
  /// as saved, so a resumed run rounds as the uninterrupted one did), Free (of any shape, on the
  /// parameter's device, its dtype kept: LBFGS's flat vectors).
  enum class StateKind { Param, Scalar, Free };
  virtual StateKind state_kind(const std::string& key) const {
    return key == "step" ? StateKind::Scalar : StateKind::Param;
  }
  /// Throws ValueError for an out-of-range hyperparameter ("SGD: invalid momentum -1").
  virtual void validate(const Hyperparams& /*options*/) const {}

 private:
  /// update() on the float32 master copy of a 16-bit parameter, then the parameter rounded from it.
  void update_through_master(const ParamUpdate& u, const std::string& name);
  /// update() on the (real, imaginary) pairs of a complex parameter, as PyTorch's optimizers view
  /// it: each part has its own moments. Its Param state stays complex, as PyTorch keeps it.
  void update_as_real(const ParamUpdate& u);
  /// Refuses keys of `options` that are neither the optimizer's nor a scheduler's, and values of
  /// another kind than the default's; `where` names the group in the error.
  void check_keys(const Hyperparams& options, const std::string& where) const;

  std::string name_;
  Hyperparams defaults_;
  std::vector<ParamGroup> groups_;
  std::map<std::string, ParamState> state_;
  // Each master-weighted parameter's storage version right after this optimizer wrote it: another
  // version means someone else wrote the parameter since (see update_through_master).
  std::map<std::string, uint64_t> master_written_;
};

namespace detail {
/// A new 0-d float32 step counter at 0 (float32, as torch.optim keeps it).
Tensor new_step();
/// state[key], created by make() when absent (a fresh parameter, or a loaded state that lacks it).
template <typename Make>
const Tensor& state_entry(ParamState& state, const char* key, const Make& make) {
  auto it = state.find(key);
  if (it == state.end()) it = state.emplace(key, make()).first;
  return it->second;
}
/// Adds one to a step counter and returns the new count.
double increment_step(const Tensor& step);
/// `t` as the update kernels take it (core/kernels/optim.h): itself when contiguous and of
/// `param`'s dtype and device, else such a copy.
Tensor dense_like(const Tensor& t, const Tensor& param);
/// Copies `dense` into `t` unless they are the same tensor, and bumps t's version.
void write_back(const Tensor& t, const Tensor& dense);
/// Runs an update kernel, kernel(param, grad, state...), on dense operands: any that is not
/// (a non-contiguous parameter, a gradient of another layout) goes through a dense copy, written
/// back afterwards for the parameter and the state; undefined state stays undefined. Bumps the
/// version of the parameter and of every state tensor.
template <typename Kernel, typename... State>
void run_update(const Tensor& param, const Tensor& grad, const Kernel& kernel, const State&... state) {
  Tensor p = dense_like(param, param);
  auto dense = [&](const Tensor& s) { return s.defined() ? dense_like(s, param) : s; };
  std::array<Tensor, sizeof...(State)> s{dense(state)...};
  std::apply([&](const auto&... d) { kernel(p, dense_like(grad, param), d...); }, s);
  write_back(param, p);
  size_t i = 0;
  (write_back(state, s[i++]), ...);
}
/// A ValueError "<opt>: invalid <key> <value>" unless cond.
void check_option(bool cond, const std::string& opt, const char* key, const Hyperparam& value);
}  // namespace detail

}  // namespace ember::optim
