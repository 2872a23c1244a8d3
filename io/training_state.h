#pragma once
// Everything a training run needs to resume exactly where it stopped, gathered into one
// io::Value: the model, the optimizer, the LR scheduler (if any), every random generator the run
// draws from (by name: the default one behind dropout and init, the one that shuffles the data,
// ...), the step and epoch counters and whatever else the user keeps in `extras`. Restoring it
// into freshly built objects and training on reproduces the uninterrupted run bit for bit
// (FORMAT.md §3), on the same build.
//
//   Generator data_gen(7);
//   io::TrainingState ts{.model = &model, .optimizer = &adam, .scheduler = &sched};
//   ts.generators["data"] = &data_gen;   // "default" (default_generator()) is there already
//   ts.step = step;
//   manager.save(ts.to_value(), step);
//   ...
//   if (auto ckpt = manager.restore()) ts.load(ckpt->state);  // then step = ts.step
//
// Data loaders go in by name too (`ts.loaders["train"] = &loader`): each is saved whole (its
// generator, the epochs started and the next batch's position) and resumes where it was, so a
// step-based loop (data::DataLoader::next_batch()) needs nothing in `extras`.
//
// The tree: {"step": int, "epoch": int, "model": io::to_value(model), "optimizer": {...},
// "scheduler": {...} (only with a scheduler), "scaler": {...} (only with a loss scaler),
// "generators": {name: {...}, ...}, "loaders": {name: {"generator": {...}, "epochs": int,
// "position": int}, ...} (only with loaders), "extras": ...}, with the optimizer, scheduler,
// scaler and generators as io/optim_io.h writes them.
#include <cstdint>
#include <map>
#include <string>

#include "ember/core/generator.h"
#include "ember/io/value.h"
#include "ember/nn/module.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"

namespace ember::data {
class DataLoader;
}

namespace ember::io {

/// Pointers to the objects of a run (not owned; they must outlive the calls) and its counters.
struct TrainingState {
  nn::Module* model = nullptr;
  optim::Optimizer* optimizer = nullptr;
  /// Optional: a run without a scheduler saves none and refuses a checkpoint that has one.
  optim::LRScheduler* scheduler = nullptr;
  /// Optional, as the scheduler: the loss scaler of a float16 run.
  optim::GradScaler* scaler = nullptr;
  /// Every generator the run draws from, by name. NB: "default" is there from the start because
  /// dropout and init draw from it without saying so; forgetting it would break exact resume
  /// silently.
  std::map<std::string, Generator*> generators = {{"default", &default_generator()}};
  /// The run's data loaders, by name, each with its own generator (not listed in `generators`).
  std::map<std::string, data::DataLoader*> loaders;
  int64_t step = 0;
  int64_t epoch = 0;
  /// Anything else the run needs back (best metric, the current epoch's data order, ...).
  Value extras = Value::dict();

  /// The whole state. It refers to the live tensors (no copy): save it before training goes on.
  Value to_value() const;
  /// Restores every part set here from `value`. Strict: a part missing from the value (the
  /// model, the optimizer, the scheduler, a generator, a loader, a model or optimizer parameter), or one
  /// the value has but this state does not, is an error naming it. Presence, types and names are
  /// checked before anything is changed; a part that still fails to load (a shape mismatch)
  /// throws with the parts before it loaded.
  void load(const Value& value);
};

}  // namespace ember::io
