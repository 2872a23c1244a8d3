// PyTorch's optimizer.state_dict() (state keyed by position) -> Ember's optimizer tree (keyed by
// name, io/optim_io.h).
#include <set>

#include "ember/core/error.h"
#include "ember/io/pt_load.h"

namespace ember::io {

namespace {

// Group keys that configure how PyTorch runs a step, not what it computes.
const std::set<std::string> kIgnoredGroupKeys = {"foreach", "capturable", "differentiable", "fused", "initial_lr"};

double number(const Value& v, const std::string& path) {
  EMBER_CHECK_VALUE(v.is_float() || v.is_int() || v.is_bool(), "import_torch_optimizer: '", path, "' is a ",
                    v.type_name(), ", expected a number");
  return v.is_bool() ? (v.as_bool() ? 1.0 : 0.0) : v.as_float();
}

}  // namespace

Value import_torch_optimizer(const Value& torch_state, const std::vector<std::string>& names,
                             const std::string& type) {
  const char* where = "import_torch_optimizer";
  bool adam = type == "Adam" || type == "AdamW";
  EMBER_CHECK_VALUE(adam || type == "SGD", where, ": optimizer type '", type, "' is not mapped (Adam, AdamW, SGD)");
  EMBER_CHECK_VALUE(torch_state.is_dict() && torch_state.contains("state") && torch_state.contains("param_groups"),
                    where, ": the value is not a PyTorch optimizer state_dict (a dict of 'state' and 'param_groups')");
  auto name_of = [&](const Value& id, const std::string& path) -> const std::string& {
    EMBER_CHECK_VALUE(id.is_int(), where, ": '", path, "' is a ", id.type_name(), ", expected a parameter index");
    int64_t i = id.as_int();
    EMBER_CHECK_VALUE(i >= 0 && static_cast<uint64_t>(i) < names.size(), where, ": '", path, "' is parameter ", i,
                      ", but ", names.size(), " names were given");
    return names[static_cast<size_t>(i)];
  };

  Value groups = Value::list();
  const Value& torch_groups = torch_state.at("param_groups");
  EMBER_CHECK_VALUE(torch_groups.is_list() || torch_groups.is_tuple(), where, ": 'param_groups' is a ",
                    torch_groups.type_name(), ", expected a list");
  for (size_t gi = 0; gi < torch_groups.size(); ++gi) {
    const Value& g = torch_groups[gi];
    std::string gpath = "param_groups/" + std::to_string(gi);
    EMBER_CHECK_VALUE(g.is_dict(), where, ": '", gpath, "' is a ", g.type_name(), ", expected a dict");
    Value group = Value::dict();
    for (size_t k = 0; k < g.size(); ++k) {
      const std::string& key = g.keys()[k].as_string();
      const Value& v = g.items()[k];
      std::string path = gpath + "/" + key;
      if (key == "params" || kIgnoredGroupKeys.count(key)) continue;
      if (key == "betas" && adam) {
        EMBER_CHECK_VALUE((v.is_tuple() || v.is_list()) && v.size() == 2, where, ": '", path, "' is not a pair");
        group.set("betas", Value::tuple({number(v[0], path + "/0"), number(v[1], path + "/1")}));
        continue;
      }
      static const std::set<std::string> adam_keys = {"lr", "eps", "weight_decay", "amsgrad", "maximize",
                                                      "decoupled_weight_decay"};
      static const std::set<std::string> sgd_keys = {"lr", "momentum", "dampening", "weight_decay", "nesterov",
                                                     "maximize"};
      EMBER_CHECK_VALUE((adam ? adam_keys : sgd_keys).count(key), where, ": '", path, "' has no ", type,
                        " equivalent in Ember");
      group.set(key, v.is_bool() ? Value(v.as_bool()) : Value(number(v, path)));  // flags stay flags
    }
    if (type == "AdamW") group.set("decoupled_weight_decay", true);
    Value params = Value::list();
    const Value& ids = g.at("params");
    EMBER_CHECK_VALUE(ids.is_list() || ids.is_tuple(), where, ": '", gpath, "/params' is not a list");
    for (size_t i = 0; i < ids.size(); ++i) params.push_back(name_of(ids[i], gpath + "/params/" + std::to_string(i)));
    group.set("params", std::move(params));
    groups.push_back(std::move(group));
  }

  static const std::set<std::string> adam_state = {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  static const std::set<std::string> sgd_state = {"momentum_buffer"};
  Value state = Value::dict();
  const Value& torch_per_param = torch_state.at("state");
  EMBER_CHECK_VALUE(torch_per_param.is_dict(), where, ": 'state' is a ", torch_per_param.type_name(), ", expected a dict");
  for (size_t i = 0; i < torch_per_param.size(); ++i) {
    const Key& key = torch_per_param.keys()[i];
    std::string path = "state/" + key.str();
    EMBER_CHECK_VALUE(key.is_int() && key.as_int() >= 0, where, ": '", path,
                      "' is not keyed by a parameter index (an int)");
    int64_t index = key.as_int();
    const std::string& name = name_of(Value(index), path);
    const Value& entries = torch_per_param.items()[i];
    EMBER_CHECK_VALUE(entries.is_dict(), where, ": '", path, "' is a ", entries.type_name(), ", expected a dict");
    Value out = Value::dict();
    for (size_t k = 0; k < entries.size(); ++k) {
      const std::string& what = entries.keys()[k].as_string();
      const Value& v = entries.items()[k];
      EMBER_CHECK_VALUE((adam ? adam_state : sgd_state).count(what), where, ": '", path, "/", what,
                        "' is no state of Ember's ", type);
      if (v.is_none()) continue;  // SGD's momentum_buffer before the first step
      EMBER_CHECK_VALUE(v.is_tensor(), where, ": '", path, "/", what, "' is a ", v.type_name(), ", expected a Tensor");
      out.set(what, Value(v.as_tensor()));
    }
    EMBER_CHECK_VALUE(!state.contains(name), where, ": parameter '", name, "' has state twice");
    state.set(name, std::move(out));
  }
  return Value::dict({{"type", type}, {"param_groups", std::move(groups)}, {"state", std::move(state)}});
}

}  // namespace ember::io
