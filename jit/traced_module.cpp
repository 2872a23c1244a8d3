#include "ember/jit/traced_module.h"

#include "ember/core/error.h"

namespace ember::jit {

namespace {

std::vector<std::string> split_dots(const std::string& dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', start)) {
    parts.push_back(dotted.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(dotted.substr(start));
  return parts;
}

}  // namespace

TracedModule::TracedModule(Program train, Program eval)
    : nn::Module("TracedModule"), train_(std::move(train)), eval_(std::move(eval)) {}

io::Value TracedModule::run(const std::vector<Tensor>& inputs) {
  const bool training = is_training();
  const Program& p = program(training);
  return p.run(inputs, state_of(p, training ? train_paths_ : eval_paths_));
}

Tensor TracedModule::forward(const Tensor& input) {
  io::Value out = run({input});
  EMBER_CHECK_TYPE(out.is_tensor(), "TracedModule.forward: the program returns a ", out.type_name(),
                   ", not one tensor: use run()");
  return out.as_tensor();
}

void TracedModule::set_module_types(const io::Value& types) {
  EMBER_CHECK_VALUE(types.is_dict(), "TracedModule: module types must be a dict, got ", types.type_name());
  for (const io::Value& t : types.items())
    EMBER_CHECK_VALUE(t.is_string(), "TracedModule: a module type must be a str, got ", t.type_name());
  module_types_ = types;
}

void TracedModule::register_state(const io::Value& state) {
  EMBER_CHECK_VALUE(state.is_dict(), "TracedModule: a state must be a dict, got ", state.type_name());
  for (size_t i = 0; i < state.keys().size(); ++i) {
    const std::string& name = state.keys()[i].as_string();
    const io::Value& leaf = state.items()[i];
    EMBER_CHECK_TYPE(leaf.is_tensor(), "TracedModule: state entry '", name, "' is a ", leaf.type_name());
    std::vector<std::string> parts = split_dots(name);
    nn::Module* owner = this;
    std::string path;
    for (size_t p = 0; p + 1 < parts.size(); ++p) {
      path += (p ? "." : "") + parts[p];
      if (!owner->has_child(parts[p])) {
        const io::Value* type = module_types_.find(path);
        owner->register_module(parts[p], std::make_shared<nn::Module>(type ? type->as_string() : "Module"));
      }
      owner = owner->child(parts[p]).get();
    }
    const Tensor& t = leaf.as_tensor();
    if (leaf.tensor_kind() == io::TensorKind::Parameter)
      owner->register_parameter(parts.back(), t, t.requires_grad());
    else
      owner->register_buffer(parts.back(), t, leaf.persistent());
  }
}

std::vector<Tensor> TracedModule::state_of(const Program& program, std::vector<std::vector<std::string>>& paths) const {
  if (paths.size() != program.state().size()) {
    paths.clear();
    for (const auto& [name, id] : program.state()) paths.push_back(split_dots(name));
  }
  std::vector<Tensor> out;
  out.reserve(paths.size());
  for (const std::vector<std::string>& parts : paths) {
    const nn::Module* owner = this;
    // NB: looked up each run, not cached: a child or a parameter may be replaced between runs
    for (size_t p = 0; p + 1 < parts.size(); ++p) owner = &owner->child_as<nn::Module>(parts[p]);
    const std::string& leaf = parts.back();
    out.push_back(owner->has_parameter(leaf) ? owner->parameter(leaf) : owner->buffer(leaf));
  }
  return out;
}

}  // namespace ember::jit
