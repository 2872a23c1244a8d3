#include "ember/io/training_state.h"

#include <set>

#include "ember/core/error.h"
#include "ember/data/data_loader.h"
#include "ember/io/module_io.h"
#include "ember/io/optim_io.h"

namespace ember::io {

namespace {

constexpr const char* kWhere = "io::TrainingState::load";

std::string quoted(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// The model part must be a dict of tensors before anything is loaded.
void check_model_value(const Value& value) {
  detail::expect_type(value, Value::Type::Dict, "a dict", kWhere, "model");
  for (size_t i = 0; i < value.size(); ++i)
    detail::expect_type(value.items()[i], Value::Type::Tensor, "a Tensor", kWhere, "model/" + value.keys()[i].str());
}

// Every parameter of the optimizer must be named by the checkpoint and the other way round:
// a resumed run with a parameter starting fresh would not reproduce the original one.
void check_optimizer_names(const optim::Optimizer& optimizer, const Value& value) {
  const Value& type_v = detail::field(value, "type", kWhere, "optimizer");
  detail::expect_type(type_v, Value::Type::String, "a str", kWhere, "optimizer/type");
  const std::string& type = type_v.as_string();
  EMBER_CHECK_VALUE(type == optimizer.name(), kWhere, ": the checkpoint holds the state of a '",
                    type, "' optimizer, not of a '", optimizer.name(), "'");
  optim::OptimizerStateDict sd =
      detail::optimizer_state_from_value(value, std::string(kWhere) + ": optimizer");
  std::set<std::string> saved, here;
  for (const auto& g : sd.param_groups) saved.insert(g.params.begin(), g.params.end());
  for (const auto& g : optimizer.param_groups())
    for (const auto& [n, p] : g.params) here.insert(n);
  std::set<std::string> missing, unexpected;
  for (const std::string& n : here)
    if (!saved.contains(n)) missing.insert(n);
  for (const std::string& n : saved)
    if (!here.contains(n)) unexpected.insert(n);
  EMBER_CHECK_VALUE(missing.empty(), kWhere, ": the checkpoint's optimizer does not name ",
                    quoted(missing));
  EMBER_CHECK_VALUE(unexpected.empty(), kWhere, ": the checkpoint's optimizer names ",
                    quoted(unexpected), ", which this optimizer does not have");
  const auto& groups = optimizer.param_groups();
  EMBER_CHECK_VALUE(sd.param_groups.size() == groups.size(), kWhere, ": the checkpoint's optimizer has ",
                    sd.param_groups.size(), " parameter groups, this one has ", groups.size());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    std::set<std::string> in_group;
    for (const auto& [n, p] : groups[gi].params) in_group.insert(n);
    std::set<std::string> saved_group(sd.param_groups[gi].params.begin(), sd.param_groups[gi].params.end());
    EMBER_CHECK_VALUE(in_group == saved_group, kWhere, ": parameter group ", gi,
                      " holds other parameters than in the checkpoint (saved ", quoted(saved_group),
                      "; here ", quoted(in_group), ")");
  }
}

}  // namespace

Value TrainingState::to_value() const {
  Value out = Value::dict({{"step", step}, {"epoch", epoch}});
  if (model) out.set("model", io::to_value(*model));
  if (optimizer) out.set("optimizer", io::to_value(*optimizer));
  if (scheduler) out.set("scheduler", io::to_value(*scheduler));
  if (scaler) out.set("scaler", io::to_value(*scaler));
  Value gens = Value::dict();
  for (const auto& [name, g] : generators) {
    EMBER_CHECK_VALUE(g != nullptr, "io::TrainingState::to_value: generator '", name, "' is null");
    gens.set(name, io::to_value(*g));
  }
  out.set("generators", std::move(gens));
  if (!loaders.empty()) {
    Value saved = Value::dict();
    for (const auto& [name, loader] : loaders) {
      EMBER_CHECK_VALUE(loader != nullptr, "io::TrainingState::to_value: loader '", name, "' is null");
      const data::DataLoader::Progress p = loader->progress();
      saved.set(name, Value::dict({{"generator", io::to_value(loader->generator())},
                                   {"epochs", p.epochs},
                                   {"position", p.position}}));
    }
    out.set("loaders", std::move(saved));
  }
  out.set("extras", extras);
  return out;
}

void TrainingState::load(const Value& value) {
  using detail::field;
  // ---- check everything that can be checked without changing anything
  const Value& step_v = field(value, "step", kWhere);
  const Value& epoch_v = field(value, "epoch", kWhere);
  detail::expect_type(step_v, Value::Type::Int, "an int", kWhere, "step");
  detail::expect_type(epoch_v, Value::Type::Int, "an int", kWhere, "epoch");
  const Value& extras_v = field(value, "extras", kWhere);
  auto part = [&](bool here, const char* key) -> const Value* {
    const Value* v = value.find(key);
    EMBER_CHECK_VALUE(here || v == nullptr, kWhere, ": the checkpoint has a '", key,
                      "' but this training state has none to load it into");
    return here ? &field(value, key, kWhere) : nullptr;
  };
  const Value* model_v = part(model != nullptr, "model");
  const Value* optimizer_v = part(optimizer != nullptr, "optimizer");
  const Value* scheduler_v = part(scheduler != nullptr, "scheduler");
  const Value* scaler_v = part(scaler != nullptr, "scaler");
  if (model_v) check_model_value(*model_v);
  if (optimizer_v) check_optimizer_names(*optimizer, *optimizer_v);
  if (scaler_v && scaler->is_enabled()) {  // NB: into a scratch scaler: fully checked before anything changes
    optim::GradScaler scratch;
    load_into(scratch, *scaler_v);
  }

  const Value& gens = field(value, "generators", kWhere);
  detail::expect_type(gens, Value::Type::Dict, "a dict", kWhere, "generators");
  for (const Key& name : gens.keys())
    EMBER_CHECK_VALUE(name.is_string() && generators.contains(name.as_string()), kWhere,
                      ": the checkpoint has generator ", name, ", which this training state does not list");
  std::map<std::string, Generator::State> states;  // read into scratch generators: fully checked
  for (const auto& [name, g] : generators) {
    EMBER_CHECK_VALUE(g != nullptr, kWhere, ": generator '", name, "' is null");
    Generator scratch;
    load_into(scratch, field(gens, name, kWhere, "generators"));
    states[name] = scratch.get_state();
  }

  struct LoaderState {
    Generator::State generator;
    data::DataLoader::Progress progress;
  };
  std::map<std::string, LoaderState> loader_states;
  const Value* loaders_v = value.find("loaders");
  EMBER_CHECK_VALUE(loaders.empty() || loaders_v != nullptr, kWhere,
                    ": the checkpoint has no 'loaders', but this training state lists loader '", loaders.begin()->first,
                    "'");
  if (loaders_v != nullptr) {
    detail::expect_type(*loaders_v, Value::Type::Dict, "a dict", kWhere, "loaders");
    for (const Key& name : loaders_v->keys())
      EMBER_CHECK_VALUE(name.is_string() && loaders.contains(name.as_string()), kWhere, ": the checkpoint has loader ",
                        name, ", which this training state does not list");
    for (const auto& [name, loader] : loaders) {
      EMBER_CHECK_VALUE(loader != nullptr, kWhere, ": loader '", name, "' is null");
      const Value& saved = field(*loaders_v, name, kWhere, "loaders");
      const std::string at = "loaders/" + name;
      Generator scratch;
      load_into(scratch, field(saved, "generator", kWhere, at));
      const Value& epochs_v = field(saved, "epochs", kWhere, at);
      const Value& position_v = field(saved, "position", kWhere, at);
      detail::expect_type(epochs_v, Value::Type::Int, "an int", kWhere, at + "/epochs");
      detail::expect_type(position_v, Value::Type::Int, "an int", kWhere, at + "/position");
      const int64_t position = position_v.as_int();
      EMBER_CHECK_VALUE(position >= 0 && position <= loader->num_batches(), kWhere, ": loader '", name,
                        "' was saved at batch ", position, " of an epoch, but this loader has ", loader->num_batches(),
                        " batches per epoch");
      loader_states[name] = {scratch.get_state(), {epochs_v.as_int(), position}};
    }
  }

  // ---- apply: each part checks its own contents again and throws before changing itself
  if (model_v) load_into(*model, *model_v, /*strict=*/true);
  if (optimizer_v) load_into(*optimizer, *optimizer_v, /*strict=*/true);
  if (scheduler_v) load_into(*scheduler, *scheduler_v);
  if (scaler_v) load_into(*scaler, *scaler_v);
  for (const auto& [name, g] : generators) g->set_state(states[name]);
  for (const auto& [name, loader] : loaders) {  // the generator first: resume() redraws the epoch's order from it
    loader->generator().set_state(loader_states[name].generator);
    loader->resume(loader_states[name].progress);
  }
  step = step_v.as_int();
  epoch = epoch_v.as_int();
  extras = extras_v;
}

}  // namespace ember::io
