#include "ember/jit/program_file.h"

#include "ember/core/error.h"
#include "ember/io/module_io.h"

namespace ember::jit {

namespace {
constexpr const char* kFormat = "ember.program";
constexpr int64_t kFileVersion = 1;
}  // namespace

io::Value to_value(const TracedModule& module) {
  return io::Value::dict({{"format", kFormat},
                          {"version", kFileVersion},
                          {"training", module.is_training()},
                          {"state", io::to_value(module, /*include_non_persistent=*/true)},
                          {"modules", module.module_types()},
                          {"programs", io::Value::dict({{"train", module.program(true).to_value()},
                                                        {"eval", module.program(false).to_value()}})}});
}

bool holds_program(const io::Value& root) {
  const io::Value* format = root.is_dict() ? root.find("format") : nullptr;
  return format != nullptr && format->is_string() && format->as_string() == kFormat;
}

std::shared_ptr<TracedModule> from_value(const io::Value& root, const std::string& where) {
  EMBER_CHECK_VALUE(holds_program(root), "jit.load: '", where,
                    "' holds no program (it was not written by jit.save; io::load reads it)");
  const io::Value* version = root.find("version");
  EMBER_CHECK_VALUE(
      version != nullptr && version->is_int() && version->as_int() >= 1 && version->as_int() <= kFileVersion,
      "jit.load: '", where, "': the program file's version is not one this build reads (1 to ", kFileVersion, ")");
  const io::Value* programs = root.find("programs");
  const io::Value* state = root.find("state");
  const io::Value* training = root.find("training");
  EMBER_CHECK_VALUE(
      programs != nullptr && programs->is_dict() && programs->contains("train") && programs->contains("eval") &&
          state != nullptr && state->is_dict() && training != nullptr && training->is_bool(),
      "jit.load: '", where, "': a program file needs 'programs' (train and eval), 'state' and 'training'");
  auto module = std::make_shared<TracedModule>(Program::from_value(programs->at("train"), where),
                                               Program::from_value(programs->at("eval"), where));
  if (const io::Value* types = root.find("modules")) module->set_module_types(*types);
  module->register_state(*state);
  for (const Program* p : {&module->program(true), &module->program(false)}) {
    for (const auto& [name, id] : p->state()) {
      EMBER_CHECK_VALUE(state->contains(name), "jit.load: '", where, "': the program reads state '", name,
                        "', which the file does not hold");
    }
  }
  module->train(training->as_bool());
  return module;
}

void save(const TracedModule& module, const std::string& path, const io::SaveOptions& options) {
  io::save(to_value(module), path, options);
}

std::shared_ptr<TracedModule> load(const std::string& path) { return from_value(io::load(path), path); }

}  // namespace ember::jit
