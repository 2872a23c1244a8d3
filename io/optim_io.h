#pragma once
// Optimizers, LR schedulers and random generators as io::Value trees, so that a checkpoint holds
// them beside the model (FORMAT.md §3). Parameters are named by their structured names, never by
// position: state saved from one model lands on the same names after parameters were reordered,
// added or removed, and whatever cannot be matched is reported.
//
//   io::Value v = io::Value::dict({{"optimizer", io::to_value(adam)},
//                                 {"scheduler", io::to_value(sched)},
//                                 {"data_rng", io::to_value(data_gen)}});
//   io::save(v, "ckpt.ember");
//   io::Value back = io::load("ckpt.ember");
//   optim::OptimizerLoadReport r = io::load_into(adam, back.at("optimizer"));
//
// The trees (every dict ordered as shown):
//   optimizer  {"type": "Adam",
//               "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "amsgrad": False, ...,
//                                 "params": ["fc.weight", ...]}],
//               "state": {"fc.weight": {"step": Tensor, "exp_avg": Tensor, ...}, ...}}
//              Hyperparameters are floats (flags 0.0 / 1.0); "params" lists the group's member
//              names in order; "state" holds only parameters that have taken a step; each step
//              count is the 0-d "step" tensor of its parameter's state.
//   scheduler  {"type": "StepLR", "last_epoch": 3.0, "step_count": 4.0, ...,
//               "base_lrs": [0.1], "last_lr": [0.01], ...}
//              The scalars (floats) and per-group lists (of floats) of its SchedulerStateDict.
//   scaler     {"type": "GradScaler", "scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5,
//               "growth_interval": 2000, "_growth_tracker": 0}   (PyTorch's state_dict keys)
//              A disabled scaler's is {"type": "GradScaler"} alone.
//   generator  {"type": "Generator", "seed": "9600629759793949339", "counter": "1024"}
//              NB: seed and counter are uint64 and a Value int is int64, so both are stored as
//              decimal strings, exactly; load_into also takes a non-negative int for either.
//
// to_value() refers to the live state tensors (no copy): save it before training goes on, or
// clone what you keep. load_into() copies, so the loaded Value may go away afterwards.
// Malformed values are errors naming the path inside the tree: a KeyError for a missing key, a
// TypeError for a node of the wrong type, a ValueError for a bad value (a different optimizer
// type, a seed that is not a number).
#include <string>

#include "ember/core/generator.h"
#include "ember/io/value.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/plateau.h"

namespace ember::io {

/// The optimizer's type, groups (hyperparameters and member names) and per-parameter state.
Value to_value(const optim::Optimizer& optimizer);
/// Restores what to_value() saved into an optimizer of the same type, by parameter name:
/// parameters the value does not name start fresh, state for names the optimizer lacks is
/// dropped; both are reported (strict: unexpected names are an error). Groups are matched by
/// position and take the saved hyperparameters, as PyTorch's load_state_dict does; each one that
/// differs from the optimizer's is in the report's `overridden` ("group 0 lr: 0.001 -> 0.000375"),
/// and keep_hyperparameters keeps the optimizer's own (a resumed run with a new learning rate).
/// Nothing changes when an error is thrown.
optim::OptimizerLoadReport load_into(optim::Optimizer& optimizer, const Value& value, bool strict = false,
                                     bool keep_hyperparameters = false);

/// The scheduler's type and progress (its SchedulerStateDict).
Value to_value(const optim::LRScheduler& scheduler);
/// Restores a scheduler of the same type; its configuration comes from its constructor.
void load_into(optim::LRScheduler& scheduler, const Value& value);

/// ReduceLROnPlateau's progress (best metric, counters, lrs); type "ReduceLROnPlateau".
Value to_value(const optim::ReduceLROnPlateau& scheduler);
/// Restores a ReduceLROnPlateau.
void load_into(optim::ReduceLROnPlateau& scheduler, const Value& value);

/// The loss scaler's scale and growth state.
Value to_value(const optim::GradScaler& scaler);
/// Restores it (optim::GradScaler::load_state_dict: a disabled scaler ignores it, an enabled one
/// refuses a disabled one's).
void load_into(optim::GradScaler& scaler, const Value& value);

/// The generator's seed and counter: restoring them replays exactly the draws still to come.
Value to_value(const Generator& generator);
/// Sets the generator to the saved seed and counter.
void load_into(Generator& generator, const Value& value);

namespace detail {
/// dict.at(key) for a loader: a TypeError unless `dict` is a dict, a KeyError naming
/// "<where>: '<path>/<key>'" and the keys there are when absent.
const Value& field(const Value& dict, const std::string& key, const std::string& where,
                   const std::string& path = "");
/// A TypeError "<where>: '<path>' is of type <type>, expected <expected>" unless `v` is a `type`.
void expect_type(const Value& v, Value::Type type, const char* expected, const std::string& where,
                 const std::string& path);
/// Key `i` of `dict` as a name: a TypeError "<where>: '<path>' is keyed by the int K, expected
/// a name" when it is an int (a tree from PyTorch, keyed by position, read where Ember keys by name).
const std::string& name_key(const Value& dict, size_t i, const std::string& where, const std::string& path);
/// The optimizer tree parsed into a state dict (types checked, "type" not compared).
optim::OptimizerStateDict optimizer_state_from_value(const Value& value, const std::string& where);
}  // namespace detail

}  // namespace ember::io
