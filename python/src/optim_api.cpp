// torch.optim.Optimizer's Python API over the C++ optimizers (ember.optim's docstring has the user's
// view): torch's constructor signatures; params given as tensors, (name, tensor) pairs, a dict or
// group dicts, each named by the module traversal that yielded it or, failing that, by position
// ("#0", "#1", ... as torch keys them); param_groups as live views; state by parameter; and
// optimizers written in Python, whose C++ half (optim.cpp's PyOptimizer) holds the groups and the
// hyperparameters C++ can hold while the rest, and the per-parameter state, live in Python.
//
// The Python side of an optimizer lives in its __dict__: _keyed_by_position, _names_root (the
// module the names of plain tensors are relative to) and, for one written in Python, _extras (per
// group, the entries C++ can't hold), _defaults, _int_keys and _state.
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/shape.h"
#include "ember/io/optim_io.h"
#include "optim_binding.h"

namespace ember::python {
namespace {

using optim::NamedParameters;
using optim::Optimizer;

constexpr char kPosition = '#';

py::object abc(const char* name) { return py::module_::import("collections.abc").attr(name); }
bool is_mapping(py::handle h) { return py::isinstance(h, abc("Mapping")); }
py::object borrow(py::handle h) { return py::reinterpret_borrow<py::object>(h); }
// dict(h): a new dict (py::dict(obj) is obj itself when it is one).
py::dict copy_of(py::handle h) { return py::module_::import("builtins").attr("dict")(h); }
bool truthy(py::handle h) {
  int r = PyObject_IsTrue(h.ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}
std::string type_name_of(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

// torch's implementation switches, accepted when off.
bool is_switch(const std::string& key) {
  return key == "foreach" || key == "fused" || key == "differentiable" || key == "capturable";
}

// The options as C++ takes them: the switches checked off and dropped.
py::dict without_switches(const py::dict& options, const std::string& who) {
  py::dict out;
  for (auto [k, v] : options) {
    std::string key = py::str(k);
    if (!is_switch(key)) {
      out[k] = v;
      continue;
    }
    EMBER_CHECK_VALUE(!truthy(v), who, ": ", key, "=True is not supported");
  }
  return out;
}

// Whether the C++ half can hold a hyperparameter: a bool, a number (a one-element tensor too) or
// a pair of numbers.
bool is_native(py::handle v) {
  static py::handle real = py::object(py::module_::import("numbers").attr("Real")).release();
  auto number = [](py::handle x) { return py::isinstance(x, real) && !PyBool_Check(x.ptr()); };
  if (PyBool_Check(v.ptr()) || number(v)) return true;
  if (py::isinstance<Tensor>(v)) return v.cast<Tensor>().numel() == 1;
  return (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) && py::len(v) == 2 && number(v[py::int_(0)]) &&
         number(v[py::int_(1)]);
}

// ---- naming the parameters

// A parameter as given: its name, or none for a plain tensor (named by resolve()).
struct Given {
  std::optional<std::string> name;
  py::object tensor;
};

struct GivenGroup {
  explicit GivenGroup(std::vector<Given> p) : params(std::move(p)) {}
  std::vector<Given> params;
  py::dict options;  // for the C++ half
  py::dict extras;   // an optimizer written in Python: the entries C++ can't hold
};

std::vector<Given> named(py::handle params, const std::string& who) {
  EMBER_CHECK_TYPE(!py::isinstance<Tensor>(params), who,
                   ": params must be an iterable of tensors or of (name, tensor) pairs, got a Tensor (pass [t] or "
                   "model.parameters())");
  py::object items = is_mapping(params) ? params.attr("items")() : borrow(params);
  std::vector<Given> out;
  for (py::handle item : items) {
    if (py::isinstance<Tensor>(item)) {
      out.push_back({std::nullopt, borrow(item)});
      continue;
    }
    bool pair = (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) && py::len(item) == 2 &&
                py::isinstance<py::str>(item[py::int_(0)]) && py::isinstance<Tensor>(item[py::int_(1)]);
    EMBER_CHECK_TYPE(pair, who, ": expected tensors or (name, tensor) pairs, got ", type_name_of(item));
    out.push_back({item[py::int_(0)].cast<std::string>(), item[py::int_(1)]});
  }
  return out;
}

struct Traversed {
  std::vector<std::optional<std::string>> names;
  py::object root = py::none();
};

// Names for plain tensors that Module.parameters() / named_parameters() yielded: each traversal
// records, on every tensor, its name relative to the module traversed (module_protocol.cpp). The
// names come from a module every tensor was reached from: `prefer` if it is one, else the one
// traversed last; none when there is none (the tensors are then keyed by position).
Traversed traversed_names(const std::vector<py::object>& tensors, py::handle prefer) {
  Traversed out{std::vector<std::optional<std::string>>(tensors.size())};
  if (tensors.empty()) return out;
  std::vector<py::dict> tags;
  for (const auto& t : tensors) {
    py::object tag = py::getattr(t, "_ember_names", py::none());
    tags.push_back(tag.is_none() ? py::dict() : tag.cast<py::dict>());
  }
  py::object root = py::none();
  int64_t newest = -1;
  for (auto [key, ignored] : tags[0]) {
    int64_t oldest = INT64_MAX;  // the traversal of `key` that reached the first of the tensors
    bool common = true;
    for (const auto& tag : tags) {
      if (!tag.contains(key)) {
        common = false;
        break;
      }
      oldest = std::min(oldest, tag[key].cast<py::tuple>()[0].cast<int64_t>());
    }
    if (!common) continue;
    if (!prefer.is_none() && key.equal(prefer)) {
      root = borrow(key);
      break;
    }
    if (oldest > newest) newest = oldest, root = borrow(key);
  }
  if (root.is_none()) return out;
  for (size_t i = 0; i < tensors.size(); ++i) out.names[i] = tags[i][root].cast<py::tuple>()[1].cast<std::string>();
  out.root = root;
  return out;
}

struct Resolved {
  Groups groups;
  bool positional = false;
  py::object root = py::none();
};

// The groups with every name filled in: by traversal, or, where a name is missing or repeated, every
// parameter by "#<position over all groups>" from `first_position` on.
Resolved resolve(std::vector<GivenGroup> groups, size_t first_position, py::handle prefer) {
  std::vector<py::object> plain;
  for (const auto& g : groups)
    for (const auto& p : g.params)
      if (!p.name) plain.push_back(p.tensor);
  Traversed found = traversed_names(plain, prefer);
  size_t k = 0;
  std::set<std::string> seen;
  Resolved out;
  for (auto& g : groups)
    for (auto& p : g.params) {
      if (!p.name) p.name = found.names[k++];
      if (!p.name || !seen.insert(*p.name).second) out.positional = true;
    }
  if (!out.positional) out.root = found.root;
  size_t position = first_position;
  for (auto& g : groups) {
    NamedParameters params;
    for (auto& p : g.params)
      params.emplace_back(out.positional ? kPosition + std::to_string(position++) : *p.name, p.tensor.cast<Tensor>());
    out.groups.emplace_back(std::move(params), g.options);
  }
  return out;
}

// Whether a group entry goes to the C++ half of an optimizer written in Python: a key its defaults
// hold, or one the LR schedulers add (initial_lr, ...) with a value C++ can hold.
bool goes_to_cpp(const std::string& key, py::handle value, const py::dict& native) {
  return native.contains(key) || (optim::is_scheduler_key(key) && is_native(value));
}

GivenGroup given_group(py::handle group, const std::string& who, const py::dict* native) {
  EMBER_CHECK_KEY(group.contains("params"), who, ": a parameter group needs a 'params' entry");
  GivenGroup out(named(group[py::str("params")], who));
  py::dict options;
  for (auto [k, v] : group.cast<py::dict>()) {
    std::string key = py::str(k);
    if (key == "params") continue;
    if (native && !goes_to_cpp(key, v, *native))
      out.extras[k] = v;
    else
      options[k] = v;
  }
  out.options = native ? options : without_switches(options, who);
  return out;
}

// `params` as an optimizer's constructor takes it: tensors, (name, tensor) pairs, a dict name ->
// tensor, or group dicts. `native`: an optimizer written in Python, its C++ half's defaults.
std::vector<GivenGroup> given_groups(py::handle params, const std::string& who, const py::dict* native) {
  EMBER_CHECK_TYPE(!py::isinstance<Tensor>(params), who,
                   ": params must be an iterable of tensors, of (name, tensor) pairs or of param-group dicts, got a "
                   "Tensor (pass [t] or model.parameters())");
  std::vector<GivenGroup> out;
  if (!is_mapping(params)) {
    py::list items(borrow(params));
    bool dicts = !items.empty() && std::all_of(items.begin(), items.end(), [](py::handle g) { return is_mapping(g); });
    if (dicts) {
      for (py::handle g : items) out.push_back(given_group(py::dict(borrow(g)), who, native));
      return out;
    }
    out.emplace_back(named(items, who));
  } else {
    out.emplace_back(named(params, who));
  }
  EMBER_CHECK_VALUE(!out[0].params.empty(), who, ": got an empty parameter list");
  return out;
}

// ---- the Python side of an optimizer

Optimizer& cpp(py::handle self) { return self.cast<Optimizer&>(); }
std::string name_of(py::handle self) { return cpp(self).name(); }
bool is_python(py::handle self) { return !py::getattr(self, "_extras", py::none()).is_none(); }
bool keyed_by_position(py::handle self) { return py::getattr(self, "_keyed_by_position").cast<bool>(); }

// The names of every parameter, over all groups in order.
std::vector<std::string> all_names(const Optimizer& opt) {
  std::vector<std::string> out;
  for (const auto& g : opt.param_groups())
    for (const auto& [name, t] : g.params) out.push_back(name);
  return out;
}

py::int_ id_of(py::handle h) { return py::int_(reinterpret_cast<uintptr_t>(h.ptr())); }

// Parameter name by tensor object (id), and tensor by name.
std::pair<py::dict, py::dict> parameter_maps(const Optimizer& opt) {
  py::dict name_of_id, param_of_name;
  for (const auto& g : opt.param_groups())
    for (const auto& [name, t] : g.params) {
      py::object p = py::cast(t);
      name_of_id[id_of(p)] = name;
      param_of_name[py::str(name)] = p;
    }
  return {name_of_id, param_of_name};
}

// A live view of one parameter group (torch's group dict): hyperparameters read and write the
// optimizer's; "params" holds the tensors and "param_names" their names.
struct GroupView {
  py::object opt;
  size_t index;

  const optim::ParamGroup& group() const {
    const auto& groups = cpp(opt).param_groups();
    EMBER_CHECK_INDEX(index < groups.size(), "no parameter group ", index);
    return groups[index];
  }
  // An optimizer written in Python: the entries its C++ half can't hold; else None.
  py::object extras() const {
    py::object all = py::getattr(opt, "_extras", py::none());
    return all.is_none() ? all : borrow(all[py::int_(index)]);
  }

  py::object get(const std::string& key) const {
    const optim::ParamGroup& g = group();
    if (key == "params" || key == "param_names") {
      py::list out;
      for (const auto& [name, t] : g.params) out.append(key == "params" ? py::cast(t) : py::str(name));
      return out;
    }
    if (g.options.contains(key)) {
      const optim::Hyperparam& h = g.options.at(key);
      // NB: C++ holds numbers as doubles; an int hyperparameter (max_iter) reads back an int.
      if (h.is_number() && std::trunc(h.number()) == h.number() && py::getattr(opt, "_int_keys").contains(key))
        return py::int_(static_cast<int64_t>(h.number()));
      return py_of(h);
    }
    py::object e = extras();
    if (!e.is_none() && e.contains(key)) return e[py::str(key)];
    throw py::key_error(key);
  }

  void set(const std::string& key, py::handle value) const {
    EMBER_CHECK_TYPE(key != "params" && key != "param_names", "can't set '", key,
                     "' of a parameter group (use add_param_group)");
    py::object e = extras();
    if (!e.is_none() && !goes_to_cpp(key, value, dict_of(group().options))) {
      e[py::str(key)] = value;
      return;
    }
    Optimizer& o = cpp(opt);
    EMBER_CHECK_TYPE(is_native(value), o.name(), ": hyperparameter '", key,
                     "' must be a number, a bool or a pair of numbers, got ", type_name_of(value));
    if (is_switch(key)) {
      EMBER_CHECK_VALUE(!truthy(value), o.name(), ": ", key, "=True is not supported");
      return;
    }
    set_group_option(o, index, key, value);
  }

  void del(const std::string& key) const {
    py::object e = extras();
    EMBER_CHECK_TYPE(!e.is_none() && e.contains(key), "can't delete hyperparameters of a parameter group");
    PyObject_DelItem(e.ptr(), py::str(key).ptr());
  }

  py::list keys() const {
    py::list out;
    out.append("params");
    out.append("param_names");
    for (const auto& [key, value] : group().options) out.append(key);
    py::object e = extras();
    if (!e.is_none())
      for (py::handle k : e) out.append(k);
    return out;
  }
  py::list items() const {
    py::list out;
    for (py::handle k : keys()) out.append(py::make_tuple(k, get(k.cast<std::string>())));
    return out;
  }
};

// A built-in optimizer's state, by parameter (the tensor, as in PyTorch) or by name: a snapshot of
// the C++ state's entries, whose tensors are the live state tensors.
struct StateView {
  py::dict state, name_of_id, param_of_name;

  explicit StateView(const Optimizer& opt) : state(py::cast(opt.state())) {
    std::tie(name_of_id, param_of_name) = parameter_maps(opt);
  }
  py::object name(py::handle key) const {
    if (!py::isinstance<Tensor>(key)) return borrow(key);
    EMBER_CHECK_KEY(name_of_id.contains(id_of(key)), "the tensor is not a parameter of this optimizer");
    return name_of_id[id_of(key)];
  }
  bool contains(py::handle key) const {
    if (py::isinstance<Tensor>(key) && !name_of_id.contains(id_of(key))) return false;
    return state.contains(name(key));
  }
  // The parameters that have state (tensors, as PyTorch's keys).
  py::list params() const {
    py::list out;
    for (auto [name, entry] : state)
      if (param_of_name.contains(name)) out.append(param_of_name[name]);
    return out;
  }
};

// Registers a bound class as a virtual subclass of collections.abc's `base` (Mapping or
// MutableMapping): isinstance checks pass, and its methods are its own, bound in C++.
void register_as(py::handle cls, const char* base) { abc(base).attr("register")(cls); }

// As PyTorch loads optimizer state: floating tensors take the parameter's dtype, "step" stays as
// saved; copies, so that the loaded dict and the optimizer share nothing.
py::object state_value(const std::string& key, py::handle value, const Tensor& param) {
  if (!py::isinstance<Tensor>(value)) return borrow(value);
  Tensor v = value.cast<Tensor>();
  if (key != "step" && v.is_floating_point() && param.is_floating_point()) v = v.to(param.dtype());
  return py::cast(v.clone());
}

// (missing, unexpected, moved, overridden): overridden lists each hyperparameter the checkpoint
// changed, "group 0 lr: 0.5 -> 0.01" (the optimizer's value, then the checkpoint's).
py::object report(py::handle missing, py::handle unexpected, py::handle moved, py::handle overridden) {
  static py::handle type = [] {
    py::object t =
        py::module_::import("collections")
            .attr("namedtuple")("OptimizerLoadReport", py::make_tuple("missing", "unexpected", "moved", "overridden"));
    t.attr("__module__") = "ember.optim";
    return t.release();
  }();
  return type(missing, unexpected, moved, overridden);
}

// State keyed by position loads only into an optimizer keyed by position whose parameters match it
// in number and shape.
void check_positions(py::handle self, const py::dict& state_dict, bool saved_positional) {
  const Optimizer& opt = cpp(self);
  const std::string who = opt.name() + ".load_state_dict";
  bool mine = keyed_by_position(self);
  EMBER_CHECK_VALUE(saved_positional == mine, who, ": the state is keyed by ", saved_positional ? "position" : "name",
                    " but this optimizer keys its parameters by ", mine ? "position" : "name",
                    "; build both from the same kind of parameters (model.parameters() or model.named_parameters())");
  std::vector<size_t> saved_sizes, my_sizes;
  for (py::handle g : state_dict.attr("get")("param_groups", py::list()))
    saved_sizes.push_back(py::len(g[py::str("params")]));
  std::vector<Tensor> params;
  for (const auto& g : opt.param_groups()) {
    my_sizes.push_back(g.params.size());
    for (const auto& [name, t] : g.params) params.push_back(t);
  }
  EMBER_CHECK_VALUE(saved_sizes == my_sizes, who, ": state keyed by position holds groups of ",
                    py::str(py::cast(saved_sizes)).cast<std::string>(), " parameters, this optimizer has ",
                    py::str(py::cast(my_sizes)).cast<std::string>(),
                    ": the model changed, so positions would land on other parameters");
  for (auto [key, entry] : state_dict.attr("get")("state", py::dict()).cast<py::dict>()) {
    std::string k = py::str(key);
    std::string digits = k.empty() ? "" : k.substr(1);
    bool ok = !k.empty() && k[0] == kPosition && !digits.empty() &&
              std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c); }) && digits.size() < 19 &&
              std::stoull(digits) < params.size();
    EMBER_CHECK_VALUE(ok, who, ": state keyed by position has an entry ", py::repr(key).cast<std::string>(),
                      ", not one of #0..#", params.size() - 1);
    const Tensor& p = params[std::stoull(digits)];
    for (auto [field, value] : entry.cast<py::dict>()) {
      if (!py::isinstance<Tensor>(value)) continue;
      Tensor v = value.cast<Tensor>();
      EMBER_CHECK_VALUE(v.dim() == 0 || v.sizes() == p.sizes(), who, ": state '", py::str(field).cast<std::string>(),
                        "' of parameter ", k, " has shape ", shape_str(v.sizes()), ", the parameter at that position ",
                        shape_str(p.sizes()), ": the model changed, so positions would land on other parameters");
    }
  }
}

// What an optimizer written in Python keeps its state in: defaultdict(dict), as torch.
py::object new_python_state() {
  return py::module_::import("collections").attr("defaultdict")(py::module_::import("builtins").attr("dict"));
}

// load_state_dict of an optimizer written in Python: the C++ half loads (and checks) the groups'
// hyperparameters it holds; the groups' other entries and the per-parameter state are this side's.
py::object load_python_state(py::handle self, const py::dict& state_dict, bool strict) {
  Optimizer& opt = cpp(self);
  py::list saved_groups = state_dict.attr("get")("param_groups", py::list());
  py::list cpp_groups;
  for (size_t i = 0; i < saved_groups.size(); ++i) {
    const auto& options = opt.param_groups()[std::min(i, opt.param_groups().size() - 1)].options;
    py::dict kept;
    for (auto [k, v] : saved_groups[i].cast<py::dict>()) {
      std::string key = py::str(k);
      if (key == "params" || options.contains(key) || optim::is_scheduler_key(key)) kept[k] = v;
    }
    cpp_groups.append(kept);
  }
  py::dict cpp_state;
  for (auto [k, v] : state_dict)
    if (py::str(k).cast<std::string>() != "state") cpp_state[k] = v;
  cpp_state["param_groups"] = cpp_groups;
  cpp_state["state"] = py::dict();
  optim::OptimizerLoadReport loaded = io::load_into(opt, py_to_value(cpp_state), false);

  auto [ignored, params] = parameter_maps(opt);
  py::dict saved = state_dict.attr("get")("state", py::dict());
  std::vector<std::string> unexpected;
  for (auto [name, entry] : saved)
    if (!params.contains(name)) unexpected.push_back(py::str(name));
  std::sort(unexpected.begin(), unexpected.end());
  EMBER_CHECK_KEY(!strict || unexpected.empty(), opt.name(),
                  ".load_state_dict: state for parameters this optimizer does not have: ",
                  py::repr(py::cast(unexpected)).cast<std::string>());
  py::list extras = self.attr("_extras");
  for (size_t i = 0; i < std::min<size_t>(extras.size(), saved_groups.size()); ++i) {
    py::dict extra = extras[i];
    extra.clear();
    py::dict cpp_group = cpp_groups[i];
    for (auto [k, v] : saved_groups[i].cast<py::dict>())
      if (!cpp_group.contains(k)) extra[k] = v;
  }
  py::object state = new_python_state();
  for (auto [name, entry] : saved) {
    if (!params.contains(name)) continue;
    py::object p = params[name];
    py::dict values;
    for (auto [k, v] : entry.cast<py::dict>()) values[k] = state_value(py::str(k), v, p.cast<Tensor>());
    state[p] = values;
  }
  self.attr("_state") = state;
  py::list missing;
  for (auto [name, p] : params)
    if (!saved.contains(name)) missing.append(name);
  return report(missing, py::cast(unexpected), py::cast(loaded.moved), py::cast(loaded.overridden));
}

// torch.optim.Optimizer(params, defaults), for optimizers written in Python: params as the
// built-in optimizers take them, defaults the hyperparameters every group starts from. The C++ half
// holds the groups and the hyperparameters that are bools, numbers or pairs of numbers (so the LR
// schedulers and checkpoints see them); any other value and any key a group adds stay in Python.
void python_optimizer_init(py::handle self, py::handle base_init, py::handle params, py::handle defaults_given) {
  const std::string who = type_name_of(self);
  py::dict defaults = copy_of(defaults_given), native, python_only;
  for (auto [k, v] : defaults) (is_native(v) ? native : python_only)[k] = v;
  EMBER_CHECK_TYPE(!py::isinstance<Tensor>(params), who,
                   ": params must be an iterable of tensors, of (name, tensor) pairs or of param-group dicts, got a "
                   "Tensor (pass [t] or model.parameters())");
  py::list items(is_mapping(params) ? params.attr("items")() : borrow(params));
  EMBER_CHECK_VALUE(!items.empty(), who, ": got an empty parameter list");
  if (!std::all_of(items.begin(), items.end(), [](py::handle g) { return is_mapping(g); })) {
    py::dict one;
    one["params"] = items;
    items = py::list();
    items.append(one);
  }
  std::vector<GivenGroup> given;
  py::list group_extras;
  for (py::handle g : items) {
    given.push_back(given_group(g, who, &native));
    py::dict extra = copy_of(python_only);
    extra.attr("update")(given.back().extras);
    group_extras.append(extra);
  }
  Resolved r = resolve(std::move(given), 0, py::none());
  base_init(self, who, r.groups, native);
  py::set ints;
  for (auto [k, v] : native)
    if (PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr())) ints.add(k);
  self.attr("_keyed_by_position") = r.positional;
  self.attr("_names_root") = r.root;
  self.attr("_int_keys") = py::frozenset(ints);
  self.attr("_defaults") = defaults;
  self.attr("_extras") = group_extras;
  self.attr("_state") = new_python_state();
}

void add_param_group(py::handle self, py::handle param_group) {
  Optimizer& opt = cpp(self);
  const bool python = is_python(self);
  EMBER_CHECK_TYPE(is_mapping(param_group), opt.name(), ".add_param_group: expected a dict, got ",
                   type_name_of(param_group));
  py::dict native = dict_of(opt.param_groups()[0].options);
  GivenGroup g = given_group(param_group, opt.name(), python ? &native : nullptr);
  std::vector<std::string> existing = all_names(opt);
  NamedParameters params;
  if (keyed_by_position(self)) {
    size_t position = existing.size();
    for (const auto& p : g.params) params.emplace_back(kPosition + std::to_string(position++), p.tensor.cast<Tensor>());
  } else {
    std::vector<py::object> plain;
    for (const auto& p : g.params)
      if (!p.name) plain.push_back(p.tensor);
    // NB: names relative to the module the optimizer's own came from, when they can be
    Traversed found = traversed_names(plain, py::getattr(self, "_names_root"));
    size_t k = 0;
    std::set<std::string> seen(existing.begin(), existing.end());
    for (auto& p : g.params) {
      if (!p.name) p.name = found.names[k++];
      EMBER_CHECK_VALUE(p.name && seen.insert(*p.name).second, opt.name(),
                        ".add_param_group: the optimizer keys its state by name, and these parameters have no names "
                        "of their own or repeat one; pass (name, tensor) pairs");
      params.emplace_back(*p.name, p.tensor.cast<Tensor>());
    }
  }
  self.attr("_add_param_group")(params, g.options);
  if (python) {
    py::dict extra;
    for (auto [k, v] : self.attr("_defaults").cast<py::dict>())
      if (!is_native(v)) extra[k] = v;
    extra.attr("update")(g.extras);
    self.attr("_extras").attr("append")(extra);
  }
}

py::dict state_dict(py::handle self) {
  const Optimizer& opt = cpp(self);
  py::dict state = value_to_py(io::to_value(opt));
  if (is_python(self)) {
    py::list saved = state["param_groups"], extras = self.attr("_extras");
    for (size_t i = 0; i < std::min(saved.size(), extras.size()); ++i) saved[i].attr("update")(extras[i]);
    auto [name_of_id, ignored] = parameter_maps(opt);
    py::dict by_name;
    for (auto [p, entry] : self.attr("_state").cast<py::dict>())
      if (name_of_id.contains(id_of(p)) && py::len(entry) > 0) by_name[name_of_id[id_of(p)]] = copy_of(entry);
    state["state"] = by_name;
  }
  if (keyed_by_position(self)) state["keyed_by"] = "position";
  return state;
}

py::object load_state_dict(py::handle self, py::handle given, bool strict) {
  py::dict state_dict = copy_of(given);  // NB: a copy, as "keyed_by" is popped
  bool saved_positional = state_dict.attr("pop")("keyed_by", "name").cast<std::string>() == "position";
  if (!saved_positional) {
    bool any = false, all = true;
    for (py::handle g : state_dict.attr("get")("param_groups", py::list()))
      for (py::handle n : g.attr("get")("params", py::list())) {
        any = true;
        all = all && py::isinstance<py::str>(n) && n.cast<std::string>().starts_with(kPosition);
      }
    saved_positional = any && all;
  }
  if (saved_positional || keyed_by_position(self)) check_positions(self, state_dict, saved_positional);
  if (is_python(self)) return load_python_state(self, state_dict, strict);
  optim::OptimizerLoadReport r = io::load_into(cpp(self), py_to_value(state_dict), strict);
  return report(py::cast(r.missing), py::cast(r.unexpected), py::cast(r.moved), py::cast(r.overridden));
}

std::string repr(py::handle self) {
  const Optimizer& opt = cpp(self);
  std::string out = opt.name() + " (";
  for (size_t i = 0; i < opt.param_groups().size(); ++i) {
    out += "\nParameter Group " + std::to_string(i);
    GroupView view{borrow(self), i};
    // NB: the C++ half's hyperparameters, in key order (std::map), as torch sorts them
    for (const auto& [key, value] : opt.param_groups()[i].options)
      out += "\n    " + key + ": " + py::str(view.get(key)).cast<std::string>();
  }
  return out + "\n)";
}

}  // namespace

void torch_optimizer_init(py::handle cls, std::vector<std::string> positional, const std::string& signature,
                          std::function<void(py::dict&)> translate) {
  py::object base_init = cls.attr("__init__");
  const std::string name = py::str(cls.attr("__name__"));
  py::setattr(
      cls, "__init__",
      py::cpp_function(
          [base_init, name, positional, translate](py::handle self, py::handle params, const py::args& args,
                                                   const py::kwargs& kwargs) {
            EMBER_CHECK_TYPE(args.size() <= positional.size(), name, "() takes at most ", positional.size() + 1,
                             " positional arguments, got ", args.size() + 1);
            py::dict defaults;
            for (size_t i = 0; i < args.size(); ++i) defaults[py::str(positional[i])] = args[i];
            for (auto [k, v] : kwargs) {
              EMBER_CHECK_TYPE(!defaults.contains(k), name, "() got multiple values for argument '",
                               py::str(k).cast<std::string>(), "'");
              defaults[k] = v;
            }
            if (translate) translate(defaults);
            Resolved r = resolve(given_groups(params, name, nullptr), 0, py::none());
            base_init(self, r.groups, without_switches(defaults, name));
            self.attr("_keyed_by_position") = r.positional;
            self.attr("_names_root") = r.root;
          },
          py::name("__init__"), py::is_method(cls), py::arg("params"),
          (signature + "\n\nparams: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts "
                       "(ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when "
                       "off.")
              .c_str()));
}

void bind_optimizer_api(py::module_& o) {
  py::object cls = o.attr("Optimizer");
  cls.attr("_keyed_by_position") = false;
  cls.attr("_names_root") = py::none();
  cls.attr("_extras") = py::none();
  cls.attr("_int_keys") = py::module_::import("builtins").attr("frozenset")();

  py::object base_init = cls.attr("__init__");
  py::setattr(
      cls, "__init__",
      py::cpp_function([base_init](py::handle self, py::handle params,
                                   py::handle defaults) { python_optimizer_init(self, base_init, params, defaults); },
                       py::name("__init__"), py::is_method(cls), py::arg("params"), py::arg("defaults"),
                       "torch.optim.Optimizer(params, defaults), for an optimizer written in Python: params as the "
                       "built-in optimizers take them, defaults the hyperparameters every group starts from. "
                       "self.state is a dict per parameter, keyed by the tensor; state_dict() keys it by name."));

  py::class_<GroupView> group(o, "ParamGroup", R"doc(
A live view of one parameter group: reading and writing hyperparameters ("lr", ...) reads and writes
the optimizer's. "params" holds the tensors and "param_names" their names. In an optimizer written
in Python, entries the C++ half cannot hold (None, strings, ...) live in the view's Python dict, and
any key may be added.)doc");
  group.def("__getitem__", &GroupView::get, py::arg("key"))
      .def("__setitem__", &GroupView::set, py::arg("key"), py::arg("value"))
      .def("__delitem__", &GroupView::del, py::arg("key"))
      .def("__iter__", [](const GroupView& v) { return py::iter(v.keys()); })
      .def("__len__", [](const GroupView& v) { return v.keys().size(); })
      .def("__contains__",
           [](const GroupView& v, py::handle key) { return py::isinstance<py::str>(key) && v.keys().contains(key); })
      .def("__repr__",
           [](const GroupView& v) {
             py::dict shown;
             for (py::handle k : v.keys())
               if (k.cast<std::string>() != "params") shown[k] = v.get(k.cast<std::string>());
             return py::repr(shown);
           })
      .def("keys", &GroupView::keys)
      .def("values",
           [](const GroupView& v) {
             py::list out;
             for (py::handle k : v.keys()) out.append(v.get(k.cast<std::string>()));
             return out;
           })
      .def("items", &GroupView::items)
      .def(
          "get",
          [](const GroupView& v, const std::string& key, py::object fallback) {
            return v.keys().contains(py::str(key)) ? v.get(key) : fallback;
          },
          py::arg("key"), py::arg("default") = py::none())
      .def(
          "setdefault",
          [](const GroupView& v, const std::string& key, py::object value) {
            if (!v.keys().contains(py::str(key))) v.set(key, value);
            return v.get(key);
          },
          py::arg("key"), py::arg("default") = py::none())
      .def(
          "pop",
          [](const GroupView& v, const std::string& key, py::args fallback) -> py::object {
            if (!v.keys().contains(py::str(key)) && fallback.size() == 1) return fallback[0];
            py::object value = v.get(key);
            v.del(key);
            return value;
          },
          py::arg("key"))
      .def(
          "update",
          [](const GroupView& v, py::handle other, const py::kwargs& kwargs) {
            py::dict entries;
            if (!other.is_none()) entries = py::dict(borrow(other));
            for (auto [k, value] : kwargs) entries[k] = value;
            for (auto [k, value] : entries) v.set(py::str(k), value);
          },
          py::arg("other") = py::none())
      .def("__eq__", [](const GroupView& v, py::handle other) -> py::object {
        if (!is_mapping(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        return py::bool_(py::dict(v.items()).equal(py::dict(other.attr("items")())));
      });
  group.attr("__hash__") = py::none();
  register_as(group, "MutableMapping");

  py::class_<StateView> state(o, "_StateView", "A built-in optimizer's state by parameter (the tensor) or name.");
  state
      .def(
          "__getitem__", [](const StateView& s, py::handle key) { return s.state[s.name(key)]; }, py::arg("key"))
      .def("__contains__", &StateView::contains, py::arg("key"))
      .def("__iter__", [](const StateView& s) { return py::iter(s.params()); })
      .def("__len__", [](const StateView& s) { return s.state.size(); })
      .def(
          "names", [](const StateView& s) { return py::list(s.state); }, "The names of the parameters that have state.")
      .def("keys", &StateView::params)
      .def("values", [](const StateView& s) { return py::list(s.state.attr("values")()); })
      .def("items",
           [](const StateView& s) {
             py::list out;
             for (py::handle p : s.params()) out.append(py::make_tuple(p, s.state[s.name(p)]));
             return out;
           })
      .def(
          "get",
          [](const StateView& s, py::handle key, py::object fallback) {
            return s.contains(key) ? borrow(s.state[s.name(key)]) : fallback;
          },
          py::arg("key"), py::arg("default") = py::none());
  state.attr("__hash__") = py::none();
  register_as(state, "Mapping");

  auto opt_cls = py::reinterpret_borrow<py::class_<Optimizer, std::shared_ptr<Optimizer>>>(cls);
  opt_cls
      .def_property_readonly(
          "param_groups",
          [](py::object self) {
            py::list out;
            for (size_t i = 0; i < cpp(self).param_groups().size(); ++i) out.append(GroupView{self, i});
            return out;
          },
          "The groups as live views: opt.param_groups[0][\"lr\"] = 0.01 sets the optimizer's lr.")
      .def_property_readonly("defaults",
                             [](py::handle self) -> py::object {
                               if (is_python(self)) return copy_of(self.attr("_defaults"));
                               return dict_of(cpp(self).defaults());
                             })
      .def_property(
          "state",
          [](py::handle self) -> py::object {
            if (is_python(self)) return self.attr("_state");
            return py::cast(StateView(cpp(self)));
          },
          [](py::handle self, py::handle value) {
            if (!is_python(self))
              throw py::attribute_error(name_of(self) +
                                        ".state is the C++ optimizer's; load state with load_state_dict");
            self.attr("_state") = value;
          },
          "Per-parameter state: opt.state[p] (p a parameter; a built-in optimizer also takes its name). An "
          "optimizer written in Python keeps a defaultdict(dict) here, as PyTorch's.")
      .def("add_param_group", &add_param_group, py::arg("param_group"),
           "Adds a group {\"params\": parameters, hyperparameter: value, ...}.")
      .def(
          "step",
          [](py::handle self, py::object closure) -> py::object {
            EMBER_CHECK_AS(NotImplementedError, !is_python(self), name_of(self),
                           ": an optimizer written in Python must override step()");
            py::object loss = py::none();
            if (!closure.is_none()) {
              autograd::AutoGradMode grad(true);
              loss = closure();
            }
            Optimizer& opt = cpp(self);
            without_gil([&] { opt.step(); });
            return loss;
          },
          py::arg("closure") = py::none(),
          "One update of every parameter that has a gradient; with a closure, calls it (under enable_grad) first and "
          "returns its loss.")
      .def("state_dict", &state_dict,
           "{'type', 'param_groups': [{hyperparameters..., 'params': [names]}], 'state': {name: {...}}} (plus "
           "'keyed_by': 'position' when the parameters had no names); refers to the live state tensors.")
      .def("load_state_dict", &load_state_dict, py::arg("state_dict"), py::arg("strict") = false,
           "Restores state by parameter name: returns (missing, unexpected, moved) names; strict makes unexpected "
           "names an error. State keyed by position loads only into an optimizer keyed by position whose "
           "parameters match it in number and shape.")
      .def("__repr__", &repr);
}

}  // namespace ember::python
