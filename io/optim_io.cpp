#include "ember/io/optim_io.h"

#include <charconv>
#include <limits>

#include "ember/core/error.h"

namespace ember::io {

namespace detail {

namespace {
std::string join(const std::string& path, const std::string& part) {
  return path.empty() ? part : path + "/" + part;
}
std::string display(const std::string& path) { return path.empty() ? "<root>" : path; }
}  // namespace

void expect_type(const Value& v, Value::Type type, const char* expected, const std::string& where,
                 const std::string& path) {
  EMBER_CHECK_TYPE(v.type() == type, where, ": '", display(path), "' is of type ", v.type_name(),
                   ", expected ", expected);
}

const std::string& name_key(const Value& dict, size_t i, const std::string& where, const std::string& path) {
  const Key& key = dict.keys()[i];
  EMBER_CHECK_TYPE(key.is_string(), where, ": '", display(path), "' is keyed by the int ", key.str(),
                   ", expected a name (PyTorch keys optimizer state by position: io::import_torch_optimizer "
                   "maps it to names)");
  return key.as_string();
}

const Value& field(const Value& dict, const std::string& key, const std::string& where,
                   const std::string& path) {
  expect_type(dict, Value::Type::Dict, "a dict", where, path);
  const Value* v = dict.find(key);
  if (v == nullptr) [[unlikely]] {
    std::string keys;
    for (const Key& k : dict.keys()) keys += (keys.empty() ? "" : ", ") + k.repr();
    throw KeyError(::ember::detail::str(where, ": '", join(path, key), "' is missing (",
                                        display(path), " has ", keys.empty() ? "no keys" : keys,
                                        ")"));
  }
  return *v;
}

}  // namespace detail

namespace {

using detail::expect_type;
using detail::field;
using detail::join;

double number(const Value& v, const std::string& where, const std::string& path) {
  EMBER_CHECK_TYPE(v.is_float() || v.is_int(), where, ": '", path, "' is of type ", v.type_name(),
                   ", expected a float");
  return v.as_float();
}

// A hyperparameter as saved: a float (an int reads as one), a bool, or a pair of floats.
optim::Hyperparam hyperparam(const Value& v, const std::string& where, const std::string& path) {
  if (v.is_bool()) return v.as_bool();
  if (v.is_list() || v.is_tuple()) {
    EMBER_CHECK_TYPE(v.size() == 2, where, ": '", path, "' holds ", v.size(),
                     " values, expected a number, a bool or a pair of numbers");
    return optim::Betas{number(v[0], where, path + "/0"), number(v[1], where, path + "/1")};
  }
  EMBER_CHECK_TYPE(v.is_float() || v.is_int(), where, ": '", path, "' is of type ", v.type_name(),
                   ", expected a number, a bool or a pair of numbers");
  return v.as_float();
}

Value value_of(const optim::Hyperparam& h) {
  if (h.is_flag()) return h.flag();
  if (h.is_pair()) return Value::tuple({h.pair().first, h.pair().second});
  return h.number();
}

const std::string& string(const Value& v, const std::string& where, const std::string& path) {
  expect_type(v, Value::Type::String, "a str", where, path);
  return v.as_string();
}

// A list or a tuple: both are sequences to a reader (a user may have built either by hand).
const std::vector<Value>& sequence(const Value& v, const std::string& where,
                                   const std::string& path) {
  EMBER_CHECK_TYPE(v.is_list() || v.is_tuple(), where, ": '", path, "' is of type ", v.type_name(),
                   ", expected a list");
  return v.items();
}

void check_type_name(const Value& value, const std::string& expected, const std::string& where) {
  const std::string& saved = string(field(value, "type", where), where, "type");
  EMBER_CHECK_VALUE(saved == expected, where, ": the value holds the state of a '", saved,
                    "', not of a '", expected, "'");
}

// ---- schedulers: a SchedulerStateDict under a type name

Value scheduler_value(const std::string& type, const optim::SchedulerStateDict& s) {
  Value out = Value::dict({{"type", type}});
  for (const auto& [key, x] : s.scalars) out.set(key, x);
  for (const auto& [key, xs] : s.lists) {
    Value list = Value::list();
    for (double x : xs) list.push_back(x);
    out.set(key, std::move(list));
  }
  return out;
}

optim::SchedulerStateDict scheduler_state(const Value& value, const std::string& type,
                                          const std::string& where) {
  check_type_name(value, type, where);
  optim::SchedulerStateDict s;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string& key = detail::name_key(value, i, where, "");
    const Value& v = value.items()[i];
    if (key == "type") continue;
    if (v.is_list() || v.is_tuple()) {
      std::vector<double>& xs = s.lists[key];
      for (size_t j = 0; j < v.size(); ++j) xs.push_back(number(v[j], where, join(key, std::to_string(j))));
    } else {
      EMBER_CHECK_TYPE(v.is_float() || v.is_int(), where, ": '", key, "' is of type ", v.type_name(),
                       ", expected a float or a list of floats");
      s.scalars[key] = v.as_float();
    }
  }
  return s;
}

// ---- generators: uint64 as decimal strings (a Value int is int64)

uint64_t read_u64(const Value& v, const std::string& where, const std::string& key) {
  if (v.is_int()) {
    EMBER_CHECK_VALUE(v.as_int() >= 0, where, ": '", key, "' is ", v.as_int(),
                      ", expected a non-negative integer");
    return static_cast<uint64_t>(v.as_int());
  }
  EMBER_CHECK_TYPE(v.is_string(), where, ": '", key, "' is of type ", v.type_name(),
                   ", expected a str of decimal digits (or an int)");
  const std::string& s = v.as_string();
  uint64_t out = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  EMBER_CHECK_VALUE(!s.empty() && ec == std::errc() && end == s.data() + s.size(), where, ": '",
                    key, "' is \"", s, "\", expected an unsigned 64-bit integer in decimal");
  return out;
}

}  // namespace

namespace detail {

optim::OptimizerStateDict optimizer_state_from_value(const Value& value, const std::string& where) {
  optim::OptimizerStateDict sd;
  const Value& groups = field(value, "param_groups", where);
  const std::vector<Value>& group_items = sequence(groups, where, "param_groups");
  for (size_t gi = 0; gi < group_items.size(); ++gi) {
    const std::string gpath = "param_groups/" + std::to_string(gi);
    const Value& g = group_items[gi];
    optim::OptimizerStateDict::Group group;
    const std::vector<Value>& names = sequence(field(g, "params", where, gpath), where, join(gpath, "params"));
    for (size_t i = 0; i < names.size(); ++i)
      group.params.push_back(string(names[i], where, join(gpath, "params/" + std::to_string(i))));
    for (size_t i = 0; i < g.size(); ++i) {
      const std::string& key = name_key(g, i, where, gpath);
      if (key != "params") group.options.set(key, hyperparam(g.items()[i], where, join(gpath, key)));
    }
    sd.param_groups.push_back(std::move(group));
  }
  const Value& state = field(value, "state", where);
  expect_type(state, Value::Type::Dict, "a dict", where, "state");
  for (size_t i = 0; i < state.size(); ++i) {
    const std::string& name = name_key(state, i, where, "state");
    const Value& entries = state.items()[i];
    const std::string ppath = "state/" + name;
    expect_type(entries, Value::Type::Dict, "a dict", where, ppath);
    optim::ParamState& ps = sd.state[name];
    for (size_t j = 0; j < entries.size(); ++j) {
      const Value& t = entries.items()[j];
      const std::string& key = name_key(entries, j, where, ppath);
      expect_type(t, Value::Type::Tensor, "a Tensor", where, join(ppath, key));
      ps[key] = t.as_tensor();
    }
  }
  return sd;
}

}  // namespace detail

Value to_value(const optim::Optimizer& optimizer) {
  optim::OptimizerStateDict sd = optimizer.state_dict();
  Value groups = Value::list();
  for (const auto& g : sd.param_groups) {
    Value group = Value::dict();
    for (const auto& [key, x] : g.options) {
      EMBER_CHECK_VALUE(key != "params", "io::to_value(", optimizer.name(),
                        "): a hyperparameter can't be named 'params' (the key of the member names)");
      group.set(key, value_of(x));
    }
    Value names = Value::list();
    for (const std::string& n : g.params) names.push_back(n);
    group.set("params", std::move(names));
    groups.push_back(std::move(group));
  }
  Value state = Value::dict();
  for (const auto& [name, ps] : sd.state) {
    Value entries = Value::dict();
    for (const auto& [key, t] : ps) entries.set(key, t);
    state.set(name, std::move(entries));
  }
  return Value::dict({{"type", optimizer.name()},
                      {"param_groups", std::move(groups)},
                      {"state", std::move(state)}});
}

optim::OptimizerLoadReport load_into(optim::Optimizer& optimizer, const Value& value, bool strict,
                                     bool keep_hyperparameters) {
  const std::string where = "io::load_into(" + optimizer.name() + ")";
  check_type_name(value, optimizer.name(), where);
  return optimizer.load_state_dict(detail::optimizer_state_from_value(value, where), strict, keep_hyperparameters);
}

Value to_value(const optim::LRScheduler& scheduler) {
  return scheduler_value(scheduler.name(), scheduler.state_dict());
}

void load_into(optim::LRScheduler& scheduler, const Value& value) {
  const std::string where = "io::load_into(" + scheduler.name() + ")";
  scheduler.load_state_dict(scheduler_state(value, scheduler.name(), where));
}

Value to_value(const optim::ReduceLROnPlateau& scheduler) {
  return scheduler_value("ReduceLROnPlateau", scheduler.state_dict());
}

void load_into(optim::ReduceLROnPlateau& scheduler, const Value& value) {
  scheduler.load_state_dict(
      scheduler_state(value, "ReduceLROnPlateau", "io::load_into(ReduceLROnPlateau)"));
}

Value to_value(const optim::GradScaler& scaler) {
  Value out = Value::dict({{"type", "GradScaler"}});
  if (std::optional<optim::GradScalerState> s = scaler.state_dict()) {
    out.set("scale", s->scale);
    out.set("growth_factor", s->growth_factor);
    out.set("backoff_factor", s->backoff_factor);
    out.set("growth_interval", s->growth_interval);
    out.set("_growth_tracker", s->growth_tracker);
  }
  return out;
}

void load_into(optim::GradScaler& scaler, const Value& value) {
  const std::string where = "io::load_into(GradScaler)";
  check_type_name(value, "GradScaler", where);
  std::optional<optim::GradScalerState> s;
  if (value.find("scale") != nullptr) {
    auto integer = [&](const char* key) {
      const Value& v = field(value, key, where);
      detail::expect_type(v, Value::Type::Int, "an int", where, key);
      return v.as_int();
    };
    s = optim::GradScalerState{number(field(value, "scale", where), where, "scale"),
                               number(field(value, "growth_factor", where), where, "growth_factor"),
                               number(field(value, "backoff_factor", where), where, "backoff_factor"),
                               integer("growth_interval"), integer("_growth_tracker")};
  }
  scaler.load_state_dict(s);
}

Value to_value(const Generator& generator) {
  Generator::State s = generator.get_state();
  return Value::dict({{"type", "Generator"},
                      {"seed", std::to_string(s.seed)},
                      {"counter", std::to_string(s.counter)}});
}

void load_into(Generator& generator, const Value& value) {
  const std::string where = "io::load_into(Generator)";
  check_type_name(value, "Generator", where);
  Generator::State s;
  s.seed = read_u64(field(value, "seed", where), where, "seed");
  s.counter = read_u64(field(value, "counter", where), where, "counter");
  generator.set_state(s);
}

}  // namespace ember::io
