// ember.nn.Module's Python protocol, bound on the C++ class itself: attribute registration
// (__setattr__ / __getattr__ with PyTorch's rules), the traversals, state_dict as an OrderedDict,
// load_state_dict's errors, __call__ (hooks), the hook registrations and the conversions. It has
// to be the C++ class, not a Python subclass of it: layers built in C++ reach Python as instances
// of the C++ classes and must have the whole API (see python/ember/nn/modules/module.py).
//
// Two Python helpers stay Python and are called from here: nn/_hidden_entries.py (entries
// parametrize, weight_norm, prune took over) and nn/_module_copy.py (copy.deepcopy). Each is
// imported on first use. A call with hooks runs in module_call.cpp.
#include <pybind11/stl.h>
#include <pybind11/typing.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/nn/module.h"

namespace ember::python {
namespace {

using nn::Module;

// An attribute of a Python module, imported on first use and kept for the interpreter's life.
class PyAttr {
 public:
  PyAttr(const char* module, const char* name) : module_(module), name_(name) {}
  py::handle operator()() {
    // NB: never released: a static py::object would be released after the interpreter is gone.
    if (!obj_) obj_ = py::object(py::module_::import(module_).attr(name_)).release().ptr();
    return obj_;
  }

 private:
  const char *module_, *name_;
  PyObject* obj_ = nullptr;
};

PyAttr hidden_table{"ember.nn._hidden_entries", "_table"}, hidden_slot{"ember.nn._hidden_entries", "SLOT"};
PyAttr parameter_class{"ember.nn.parameter", "Parameter"};
PyAttr ordered_dict{"collections", "OrderedDict"}, object_dir{"builtins", "object"};
PyAttr incompatible_keys{"ember._C.nn", "_IncompatibleKeys"}, cuda_target{"ember._C", "_cuda_target"};
PyAttr deepcopy_module{"ember.nn._module_copy", "deepcopy_module"};

// A function of nn/_hidden_entries.py (only called where some module has hidden entries).
py::object hidden(const char* name) { return py::module_::import("ember.nn._hidden_entries").attr(name); }

// Whether any module has hidden entries: the table is empty in almost every program.
bool any_hidden() { return PyDict_GET_SIZE(hidden_table().ptr()) != 0; }

// (how, setter) when entry `name` of `self` is hidden, else None.
py::object hidden_spec(py::handle self, const py::str& name) {
  return any_hidden() ? py::reinterpret_borrow<py::object>(hidden("spec")(self, name)) : py::object(py::none());
}

// The structured names (under `prefix`) of every hidden entry of self's tree.
std::vector<std::string> hidden_under(py::handle self, const std::string& prefix) {
  std::vector<std::string> out;
  if (!any_hidden()) return out;
  for (auto h : hidden("under")(self)) {
    auto name = h.cast<std::string>();
    out.push_back(prefix.empty() ? name : prefix + "." + name);
  }
  return out;
}

bool is_under(const std::string& name, const std::vector<std::string>& hidden_names) {
  for (const auto& h : hidden_names)
    if (name == h || (name.size() > h.size() && name.compare(0, h.size(), h) == 0 && name[h.size()] == '.'))
      return true;
  return false;
}

std::string type_name(py::handle self) { return py::str(py::type::of(self).attr("__name__")); }

bool initialized(py::handle self) {
  if (!py::isinstance<Module>(self)) return false;
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  for (auto vh : py::detail::values_and_holders(inst))
    if (!vh.holder_constructed()) return false;
  return true;
}

void object_setattr(py::handle self, py::handle name, py::handle value) {
  if (PyObject_GenericSetAttr(self.ptr(), name.ptr(), value.ptr()) != 0) throw py::error_already_set();
}

// Removes a plain attribute `name` from the instance dict (a registered entry replaces it).
void drop_plain(py::handle self, py::handle name) {
  py::object d = py::getattr(self, "__dict__", py::none());
  if (PyDict_Check(d.ptr()) && PyDict_DelItem(d.ptr(), name.ptr()) != 0) PyErr_Clear();
}

bool holds_modules(py::handle value) {
  py::object items = PyDict_Check(value.ptr()) ? value.attr("values")() : py::reinterpret_borrow<py::object>(value);
  for (auto v : items)
    if (py::isinstance<Module>(v)) return true;
  return false;
}

void warn(const std::string& message) {
  // NB: stack level 1 from C++ is the Python line that assigned the attribute.
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
}

void setattr(py::handle self, const py::str& name_obj, py::handle value) {
  const std::string name = name_obj;
  const bool is_tensor = py::isinstance<Tensor>(value), is_module = py::isinstance<Module>(value);
  const bool ready = initialized(self);
  if ((is_tensor || is_module) && !ready)
    throw py::attribute_error("cannot assign " + std::string(is_module ? "module" : "parameter or tensor") + " '" +
                              name + "' before Module.__init__() call");
  if (ready) {
    py::object spec = hidden_spec(self, name_obj);
    if (!spec.is_none()) {  // an entry parametrize, weight_norm, ... took over (_hidden_entries.py)
      py::tuple how_setter = spec;
      if (!how_setter[1].is_none()) {
        how_setter[1](self, name_obj, value);
        return;
      }
      if (py::handle(how_setter[0]).is(hidden_slot()) && is_tensor) {
        self.cast<Module&>().replace_parameter(name, value.cast<Tensor>());
        return;
      }
      hidden("unhide")(self, name_obj);
    }
  }
  if (is_tensor && py::isinstance(value, parameter_class())) {
    Module& m = self.cast<Module&>();
    drop_plain(self, name_obj);
    auto t = value.cast<Tensor>();
    if (m.has_parameter(name))
      m.replace_parameter(name, t);
    else if (m.has_buffer(name) || m.has_child(name))
      throw py::key_error("attribute '" + name + "' already exists (a buffer or child module)");
    else
      m.register_parameter(name, t, t.requires_grad());
    return;
  }
  if (is_module) {
    Module& m = self.cast<Module&>();
    drop_plain(self, name_obj);
    if (m.has_child(name))
      m.replace_module(name, hold_module(value));
    else if (m.has_parameter(name) || m.has_buffer(name))
      throw py::key_error("attribute '" + name + "' already exists (a parameter or buffer)");
    else
      m.register_module(name, hold_module(value));
    return;
  }
  if (ready) {
    Module& m = self.cast<Module&>();
    const std::string cls = type_name(self), given = type_name(value);
    if (m.has_buffer(name)) {
      if (!is_tensor)
        throw py::type_error("cannot assign '" + given + "' as buffer '" + name + "' (ember.Tensor expected)");
      m.replace_buffer(name, value.cast<Tensor>());
      return;
    }
    if (m.has_parameter(name))
      throw py::type_error("cannot assign '" + given + "' as parameter '" + name + "' (ember.nn.Parameter expected)");
    if (m.has_child(name))
      throw py::type_error("cannot assign '" + given + "' as child module '" + name + "' (ember.nn.Module expected)");
    if (is_tensor) {
      warn(cls + "." + name +
           " is a plain Tensor: it is not registered, so state_dict() does not save it and to() does not move "
           "or convert it. Use self.register_buffer('" +
           name + "', tensor) for state (or nn.Parameter for a trainable tensor).");
    } else if ((PyList_Check(value.ptr()) || PyTuple_Check(value.ptr()) || PyDict_Check(value.ptr())) &&
               holds_modules(value)) {
      const char* kind = PyDict_Check(value.ptr()) ? "ModuleDict" : "ModuleList";
      warn(cls + "." + name + " is a plain " + given +
           " holding modules: they are not registered, so their parameters are not in parameters() or "
           "state_dict(). Use ember.nn." +
           kind + ".");
    }
  }
  object_setattr(self, name_obj, value);
}

// Called only when ordinary lookup fails: parameters, buffers and children.
py::object getattr(py::handle self, const py::str& name_obj) {
  const std::string name = name_obj;
  if (name.compare(0, 2, "__") != 0 && initialized(self)) {
    py::object spec = hidden_spec(self, name_obj);
    if (!spec.is_none()) return hidden("read")(self, name_obj, py::tuple(spec)[0]);
    const Module& m = self.cast<const Module&>();
    if (m.has_parameter(name)) return parameter_handle(m.parameter(name));
    if (m.has_buffer(name)) return py::cast(m.buffer(name));
    if (m.has_child(name)) return py::cast(m.child(name));
  }
  throw py::attribute_error("'" + type_name(self) + "' object has no attribute '" + name + "'");
}

bool has_entry(const Module& m, const std::string& name) {
  return m.has_parameter(name) || m.has_buffer(name) || m.has_child(name);
}

// ---- traversals

// The names hidden directly in `self` (not in its children).
std::vector<std::string> hidden_names(py::handle self) {
  return any_hidden() ? hidden("names")(self).cast<std::vector<std::string>>() : std::vector<std::string>{};
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> visible_children(py::handle self) {
  auto children = self.cast<const Module&>().named_children();
  auto hide = hidden_names(self);
  if (!hide.empty())
    std::erase_if(children, [&](const auto& c) { return std::find(hide.begin(), hide.end(), c.first) != hide.end(); });
  return children;
}

// (name, parameter) pairs; each parameter records its name relative to self (see below).
py::list named_parameters(py::handle self, const std::string& prefix, bool recurse) {
  // NB: each parameter records its name relative to this module, per module traversed (a tensor is
  // one object, which several modules may reach): an optimizer built from plain tensors keys its
  // state by these names (ember.optim._traversed_names), the newest traversal winning.
  static int64_t traversals = 0;
  const Module& m = self.cast<const Module&>();
  py::int_ root(reinterpret_cast<uintptr_t>(&m));
  py::int_ stamp(++traversals);
  static py::str& ember_names = *new py::str("_ember_names");
  auto hide = hidden_under(self, prefix);
  py::list out;
  for (auto& [name, t] : m.named_parameters(prefix, recurse)) {
    if (!hide.empty() && is_under(name, hide)) continue;
    py::object p = parameter_handle(t);
    py::dict attributes = p.attr("__dict__");
    PyObject* names = PyDict_SetDefault(attributes.ptr(), ember_names.ptr(), py::dict().ptr());  // borrowed
    if (!names || PyDict_SetItem(names, root.ptr(), py::make_tuple(stamp, name).ptr()) != 0)
      throw py::error_already_set();
    out.append(py::make_tuple(name, p));
  }
  return out;
}

py::list named_buffers(py::handle self, const std::string& prefix, bool recurse) {
  auto hide = hidden_under(self, prefix);
  py::list out;
  for (auto& [name, t] : self.cast<const Module&>().named_buffers(prefix, recurse))
    if (hide.empty() || !is_under(name, hide)) out.append(py::make_tuple(name, t));
  return out;
}

void named_modules(py::handle self, py::set& memo, const std::string& prefix, bool remove_duplicate, py::list& out) {
  // NB: keyed by the C++ module: a built-in child may reach Python as a new object each time.
  py::int_ key(reinterpret_cast<uintptr_t>(&self.cast<const Module&>()));
  if (memo.contains(key)) return;
  if (remove_duplicate) memo.add(key);
  out.append(py::make_tuple(prefix, self));
  for (auto& [name, child] : visible_children(self))
    named_modules(py::cast(child), memo, prefix.empty() ? name : prefix + "." + name, remove_duplicate, out);
}

// Every (name, tensor) pair, a tied tensor under each of its names (remove_duplicate=False, as
// PyTorch's): the local entries of every module that named_modules(remove_duplicate=False) reaches.
py::list named_tensors_with_duplicates(py::handle self, const std::string& prefix, bool recurse, bool buffers) {
  py::list modules;
  py::set memo;
  if (recurse)
    named_modules(self, memo, prefix, false, modules);
  else
    modules.append(py::make_tuple(prefix, self));
  py::list out;
  for (auto item : modules) {
    auto entry = py::reinterpret_borrow<py::tuple>(item);
    const std::string at = entry[0].cast<std::string>();
    py::handle module = entry[1];
    const Module& m = module.cast<const Module&>();
    const auto hide = hidden_names(module);
    for (auto& [name, t] : buffers ? m.named_buffers("", false) : m.named_parameters("", false)) {
      if (std::find(hide.begin(), hide.end(), name) != hide.end()) continue;
      out.append(py::make_tuple(at.empty() ? name : at + "." + name, buffers ? py::cast(t) : parameter_handle(t)));
    }
  }
  return out;
}

py::list second_of_each(const py::list& pairs) {
  py::list out;
  for (auto p : pairs) out.append(py::reinterpret_borrow<py::tuple>(p)[1]);
  return out;
}

// NB: the typing names below only annotate the stubs (python/generate_stubs.py).
using ModuleRef = py::typing::TypeVar<"Module">;
using NamedTensors = py::typing::Iterator<py::typing::TypeVar<"tuple[str, Tensor]">>;
using Tensors = py::typing::Iterator<Tensor>;
using NamedModules = py::typing::Iterator<py::typing::TypeVar<"tuple[str, Module]">>;
using Modules = py::typing::Iterator<ModuleRef>;
using HookHandle = py::typing::TypeVar<"RemovableHandle">;

template <typename Typed>
Typed iterate(const py::list& items) {
  return py::reinterpret_steal<Typed>(py::iter(items).release());
}

ModuleRef self_ref(py::handle self) { return py::reinterpret_borrow<ModuleRef>(self); }

// ---- state

py::typing::TypeVar<"collections.OrderedDict[str, Tensor]"> state_dict(py::handle self, const std::string& prefix,
                                                                       bool keep_vars) {
  py::object out = ordered_dict()();
  auto hide = hidden_under(self, "");
  for (const auto& e : self.cast<const Module&>().state_entries(false)) {
    if (!hide.empty() && is_under(e.name, hide)) continue;
    py::object value = !keep_vars                           ? py::cast(e.tensor.detach())
                       : e.kind == nn::StateKind::Parameter ? parameter_handle(e.tensor)
                                                            : py::cast(e.tensor);
    out[py::str(prefix + e.name)] = value;
  }
  return py::reinterpret_steal<py::typing::TypeVar<"collections.OrderedDict[str, Tensor]">>(out.release());
}

py::typing::TypeVar<"_IncompatibleKeys"> load_state_dict(py::handle self, py::handle state_dict, bool strict) {
  py::list items;
  for (auto kv : state_dict.attr("items")()) {
    py::tuple pair = py::reinterpret_borrow<py::tuple>(kv);
    if (!py::isinstance<Tensor>(pair[1]))
      throw py::type_error("load_state_dict: '" + std::string(py::str(pair[0])) + "' is a " + type_name(pair[1]) +
                           ", expected a Tensor");
    items.append(pair);
  }
  const std::string head = "Error(s) in loading state_dict for " + type_name(self) + ":\n";
  py::tuple result;
  try {
    result = any_hidden() && !hidden_under(self, "").empty() ? hidden("load_state_dict")(self, items, strict)
                                                             : self.attr("_load_state_dict")(items, strict);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_KeyError)) throw;
    py::tuple args = e.value().attr("args");
    throw std::runtime_error(head + std::string(py::str(args.empty() ? e.value() : args[0])));
  }
  if (!result[2].cast<std::string>().empty()) throw std::runtime_error(head + result[2].cast<std::string>());
  return py::reinterpret_steal<py::typing::TypeVar<"_IncompatibleKeys">>(
      incompatible_keys()(result[0], result[1]).release());
}

// PyTorch's named tuple (missing_keys, unexpected_keys), which prints "<All keys matched
// successfully>" when both are empty.
py::object incompatible_keys_type() {
  py::object base = py::module_::import("collections")
                        .attr("namedtuple")("IncompatibleKeys", py::make_tuple("missing_keys", "unexpected_keys"));
  py::cpp_function repr([base](py::handle self) -> py::object {
    py::tuple t = py::reinterpret_borrow<py::tuple>(self);
    if (py::len(t[0]) == 0 && py::len(t[1]) == 0) return py::str("<All keys matched successfully>");
    return base.attr("__repr__")(self);
  });
  py::dict body;
  body["__repr__"] = py::reinterpret_steal<py::object>(PyInstanceMethod_New(repr.ptr()));
  body["__str__"] = body["__repr__"];
  body["__slots__"] = py::tuple();
  body["__module__"] = "ember.nn.modules.module";
  body["__doc__"] = "What load_state_dict returns: (missing_keys, unexpected_keys).";
  return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type))("_IncompatibleKeys",
                                                                                       py::make_tuple(base), body);
}

}  // namespace

void bind_module_protocol(py::module_& m) {
  auto add_child = [](Module& m, const std::string& name, py::handle module) {
    m.register_module(name, hold_module(module));
  };
  py::module_ nn = m.attr("nn");
  nn.attr("_IncompatibleKeys") = incompatible_keys_type();
  auto cls = py::reinterpret_borrow<py::class_<Module, std::shared_ptr<Module>>>(nn.attr("Module"));
  // The constructor bound in nn.cpp takes the type name; a subclass's is its Python class name
  // ("Net(...)" in printouts and saved architectures).
  py::object base_init = cls.attr("__init__");
  py::setattr(
      cls, "__init__",
      py::cpp_function(
          [base_init](py::handle self, const py::args&, const py::kwargs&) { base_init(self, type_name(self)); },
          py::name("__init__"), py::is_method(cls), "Module(): call super().__init__() first in a subclass."));
  cls.def("__call__",
          [](py::handle self, const py::args& args, const py::kwargs& kwargs) -> py::object {
            if (vmap_depth() > 0) [[unlikely]] {  // batched inputs or parameters (ember.func.vmap)
              py::object out = call_batched_module(self, args, kwargs);
              if (!out.is(py::ellipsis())) return out;
            }
            auto hooks = self.cast<const Module&>().hooks();
            if (hooks && !hooks->empty()) return call_with_hooks(self, args, kwargs);
            return self.attr("forward")(*args, **kwargs);
          })
      // ---- hooks (run by module_call.cpp); each returns a handle whose remove() unregisters it
      .def(
          "register_forward_pre_hook",
          [](py::handle self, py::function hook, bool prepend, bool with_kwargs) {
            return py::reinterpret_steal<HookHandle>(
                self.attr("_register_forward_pre_hook")(hook, prepend, with_kwargs).release());
          },
          py::arg("hook"), py::kw_only(), py::arg("prepend") = false, py::arg("with_kwargs") = false,
          "hook(module, args) -> None or new args, before each forward (with_kwargs: hook(module, args, kwargs) "
          "-> None or (new_args, new_kwargs)).")
      .def(
          "register_forward_hook",
          [](py::handle self, py::function hook, bool prepend, bool with_kwargs, bool always_call) {
            return py::reinterpret_steal<HookHandle>(
                self.attr("_register_forward_hook")(hook, prepend, with_kwargs, always_call).release());
          },
          py::arg("hook"), py::kw_only(), py::arg("prepend") = false, py::arg("with_kwargs") = false,
          py::arg("always_call") = false,
          "hook(module, args, output) -> None or a new output, after each forward (with_kwargs: hook(module, args, "
          "kwargs, output)); always_call also runs it when forward raises.")
      .def(
          "register_full_backward_hook",
          [](py::handle self, py::function hook, bool prepend) {
            return py::reinterpret_steal<HookHandle>(
                self.attr("_register_full_backward_hook")(hook, prepend).release());
          },
          py::arg("hook"), py::arg("prepend") = false,
          "hook(module, grad_input, grad_output) -> None or a new grad_input, when the gradients with respect to "
          "the module's inputs are computed (see python/src/module_call.cpp for the limits).")
      .def(
          "register_backward_hook",
          [](py::handle self, py::function hook) {
            return py::reinterpret_steal<HookHandle>(self.attr("_register_full_backward_hook")(hook, false).release());
          },
          py::arg("hook"), "PyTorch's deprecated form; Ember runs it as register_full_backward_hook.")
      .def(
          "register_full_backward_pre_hook",
          [](py::handle, py::function, bool) {
            PyErr_SetString(PyExc_NotImplementedError,
                            "register_full_backward_pre_hook is not supported by Ember; "
                            "register_full_backward_hook sees grad_output too");
            throw py::error_already_set();
          },
          py::arg("hook"), py::arg("prepend") = false)
      // ---- attributes
      .def("__setattr__", &setattr, py::arg("name"), py::arg("value"))
      .def("__getattr__", &getattr, py::arg("name"))
      .def(
          "__delattr__",
          [](py::handle self, const py::str& name) {
            if (initialized(self) && has_entry(self.cast<const Module&>(), name))
              throw py::attribute_error("can't delete '" + std::string(name) +
                                        "': Ember modules can't unregister entries");
            object_setattr(self, name, py::handle());
          },
          py::arg("name"))
      .def("__dir__",
           [](py::handle self) {
             py::set names(object_dir().attr("__dir__")(self));
             if (initialized(self)) {
               const Module& m = self.cast<const Module&>();
               for (auto& [k, t] : m.named_parameters("", false)) names.add(py::str(k));
               for (auto& [k, t] : m.named_buffers("", false)) names.add(py::str(k));
               for (auto& [k, c] : m.named_children()) names.add(py::str(k));
             }
             py::list out(names);
             out.attr("sort")();
             return out;
           })
      // ---- registration
      .def(
          "register_parameter",
          [](py::handle self, const py::str& name, py::handle param) {
            if (param.is_none()) return object_setattr(self, name, param);
            if (!py::isinstance<Tensor>(param))
              throw py::type_error("cannot assign '" + type_name(param) + "' as parameter '" + std::string(name) + "'");
            auto t = param.cast<Tensor>();
            self.cast<Module&>().register_parameter(name, t, t.requires_grad());
          },
          py::arg("name"), py::arg("param"),
          "Registers `param` as parameter `name` (None: an attribute that reads None).")
      .def(
          "register_buffer",
          [](py::handle self, const py::str& name, py::handle tensor, bool persistent) {
            if (tensor.is_none()) return object_setattr(self, name, tensor);
            if (!py::isinstance<Tensor>(tensor))
              throw py::type_error("cannot assign '" + type_name(tensor) + "' as buffer '" + std::string(name) +
                                   "' (ember.Tensor expected)");
            drop_plain(self, name);
            self.cast<Module&>().register_buffer(name, tensor.cast<Tensor>(), persistent);
          },
          py::arg("name"), py::arg("tensor"), py::arg("persistent") = true,
          "Registers a buffer: state that is not trained but is moved by to() and, when persistent, saved by "
          "state_dict() (running statistics, masks, ...).")
      .def("add_module", add_child, py::arg("name"), py::arg("module"), "Registers `module` as child `name`.")
      .def("register_module", add_child, py::arg("name"), py::arg("module"),
           "Registers `module` as child `name` (add_module).")
      .def(
          "get_submodule",
          [](py::handle self, const std::string& target) {
            std::shared_ptr<Module> at = self.cast<std::shared_ptr<Module>>();
            size_t start = 0;
            while (!target.empty() && start <= target.size()) {
              size_t dot = std::min(target.find('.', start), target.size());
              const std::string part = target.substr(start, dot - start);
              if (!at->has_child(part))
                throw py::attribute_error(type_name(py::cast(at)) + " has no submodule '" + part + "'");
              at = at->child(part);
              start = dot + 1;
            }
            return target.empty() ? self_ref(self) : py::reinterpret_steal<ModuleRef>(py::cast(at).release());
          },
          py::arg("target"), "The descendant at a dotted path (\"encoder.layers.0\").")
      // ---- traversal; each returns an iterator, as PyTorch's generators
      .def(
          "named_parameters",
          [](py::handle self, const std::string& prefix, bool recurse, bool remove_duplicate) {
            return iterate<NamedTensors>(remove_duplicate
                                             ? named_parameters(self, prefix, recurse)
                                             : named_tensors_with_duplicates(self, prefix, recurse, false));
          },
          py::arg("prefix") = "", py::arg("recurse") = true, py::arg("remove_duplicate") = true,
          "(structured name, parameter) pairs in registration order, each tensor once (remove_duplicate=False: "
          "a tied one under each of its names).")
      .def(
          "parameters",
          [](py::handle self, bool recurse) {
            return iterate<Tensors>(second_of_each(named_parameters(self, "", recurse)));
          },
          py::arg("recurse") = true,
          "The parameters of named_parameters(); each carries its structured name (relative to this module), under "
          "which an optimizer built from them keys its state.")
      .def(
          "named_buffers",
          [](py::handle self, const std::string& prefix, bool recurse, bool remove_duplicate) {
            return iterate<NamedTensors>(remove_duplicate ? named_buffers(self, prefix, recurse)
                                                          : named_tensors_with_duplicates(self, prefix, recurse, true));
          },
          py::arg("prefix") = "", py::arg("recurse") = true, py::arg("remove_duplicate") = true)
      .def(
          "buffers",
          [](py::handle self, bool recurse) {
            return iterate<Tensors>(second_of_each(named_buffers(self, "", recurse)));
          },
          py::arg("recurse") = true)
      .def("named_children",
           [](py::handle self) {
             py::list out;
             for (auto& [name, child] : visible_children(self)) out.append(py::make_tuple(name, child));
             return iterate<NamedModules>(out);
           })
      .def("children",
           [](py::handle self) {
             py::list out;
             for (auto& [name, child] : visible_children(self)) out.append(py::cast(child));
             return iterate<Modules>(out);
           })
      .def(
          "named_modules",
          [](py::handle self, py::object memo, const std::string& prefix, bool remove_duplicate) {
            py::set seen = memo.is_none() ? py::set() : py::reinterpret_borrow<py::set>(memo);
            py::list out;
            named_modules(self, seen, prefix, remove_duplicate, out);
            return iterate<NamedModules>(out);
          },
          py::arg("memo") = py::none(), py::arg("prefix") = "", py::arg("remove_duplicate") = true,
          "This module and every descendant, depth first, each once (PyTorch's order).")
      .def("modules",
           [](py::handle self) {
             py::set memo;
             py::list out;
             named_modules(self, memo, "", true, out);
             return iterate<Modules>(second_of_each(out));
           })
      .def(
          "apply",
          [](py::handle self, py::function fn) {
            for (auto& [name, child] : visible_children(self)) py::cast(child).attr("apply")(fn);
            fn(self);
            return self_ref(self);
          },
          py::arg("fn"), "fn(module) on every descendant, then on this module; returns self.")
      // ---- state
      .def("state_dict", &state_dict, py::kw_only(), py::arg("prefix") = "", py::arg("keep_vars") = false,
           "Persistent parameters and buffers by structured name, in registration order, as an OrderedDict; the "
           "tensors share memory with the module's (detached unless keep_vars).")
      .def("load_state_dict", &load_state_dict, py::arg("state_dict"), py::arg("strict") = true,
           "Copies values in place. strict: any missing or unexpected key is a RuntimeError and nothing changes; "
           "otherwise they are returned as (missing_keys, unexpected_keys). A shape mismatch is always a "
           "RuntimeError (as in PyTorch).")
      .def(
          "__deepcopy__",
          [base_init](py::handle self, py::dict memo) {
            return py::reinterpret_steal<ModuleRef>(deepcopy_module()(self, memo, base_init).release());
          },
          py::arg("memo"), "copy.deepcopy(model), as PyTorch's (see nn/_module_copy.py for how and its limits).")
      // ---- modes and conversions
      .def(
          "requires_grad_",
          [](py::handle self, bool requires_grad) {
            for (auto p : named_parameters(self, "", true))
              py::reinterpret_borrow<py::tuple>(p)[1].cast<Tensor>().set_requires_grad(requires_grad);
            return self_ref(self);
          },
          py::arg("requires_grad") = true)
      .def("float",
           [](py::handle self) { return py::reinterpret_steal<ModuleRef>(self.attr("to")(kFloat32).release()); })
      .def("double",
           [](py::handle self) { return py::reinterpret_steal<ModuleRef>(self.attr("to")(kFloat64).release()); })
      .def("half",
           [](py::handle self) { return py::reinterpret_steal<ModuleRef>(self.attr("to")(kFloat16).release()); })
      .def("bfloat16",
           [](py::handle self) { return py::reinterpret_steal<ModuleRef>(self.attr("to")(kBFloat16).release()); })
      .def("cpu", [](py::handle self) { return py::reinterpret_steal<ModuleRef>(self.attr("to")("cpu").release()); })
      .def(
          "cuda",
          [](py::handle self, py::object device) {
            return py::reinterpret_steal<ModuleRef>(self.attr("to")(cuda_target()(device)).release());
          },
          py::arg("device") = py::none());
}

}  // namespace ember::python
