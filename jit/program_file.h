#pragma once
// A traced module in a checkpoint file: its parameters and buffers by dotted name with their
// attributes (requires_grad, persistence, ties stored once: io/FORMAT.md) and its two programs as
// documents in the metadata, no class path anywhere:
//
//   {"format": "ember.program", "version": 1, "training": true,
//    "state": {"fc.weight": <parameter>, ...},          non-persistent buffers included
//    "modules": {"fc": "Linear", ...},                   the traced modules' type names, for printing
//    "programs": {"train": <program>, "eval": <program>}}
//
//   jit::save(*traced, "model.ember");
//   std::shared_ptr<jit::TracedModule> m = jit::load("model.ember");
#include <memory>
#include <string>

#include "ember/io/serialize.h"
#include "ember/io/value.h"
#include "ember/jit/traced_module.h"

namespace ember::jit {

/// The file's root as io::save writes it.
io::Value to_value(const TracedModule& module);
/// True when a loaded root holds a program (its "format" is "ember.program").
bool holds_program(const io::Value& root);
/// The module a root holds, validated (jit/program.h); `where` names it in errors.
std::shared_ptr<TracedModule> from_value(const io::Value& root, const std::string& where);

/// Writes the module to `path` (atomically, as every io::save).
void save(const TracedModule& module, const std::string& path, const io::SaveOptions& options = {});
/// The module the file at `path` holds; a ValueError naming the file if it holds no program.
std::shared_ptr<TracedModule> load(const std::string& path);

}  // namespace ember::jit
