// Module hooks from Python: register_forward_pre_hook, register_forward_hook and
// register_full_backward_hook store the Python function in the C++ module (nn/module_hooks.h), so
// a hook lives as long as its module and runs wherever the module is called from: from Python
// (Module.__call__ runs the hooks itself, with PyTorch's tuples of arguments and kwargs:
// module_call.cpp) and from C++ (a Sequential or a built-in layer calling its children through
// Module::operator(), which calls the functors below with one tensor).
//
// NB: a hook holds a weak reference to its module, from which each call makes the module's Python
// object; a strong one would keep the module alive from inside itself, a cycle Python's collector
// cannot see. A hook function that refers to its module (a closure over it) makes that cycle
// anyway, as with the modules a C++ container holds (nn.cpp).
#include "bindings.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "ember/nn/module.h"

namespace ember::python {
namespace {

using nn::Module;

// What every hook written in Python holds.
struct PythonHook {
  PyCallable fn;
  std::weak_ptr<Module> module;
  bool with_kwargs = false;

  // The module's Python object (None once the module is gone); call with the GIL.
  py::object module_object() const {
    std::shared_ptr<Module> m = module.lock();
    return m ? py::cast(m) : py::none();
  }
};

std::string type_name_of(const py::handle& obj) { return py::str(py::type::of(obj).attr("__name__")); }

// The one tensor a hook may hand a C++ caller: a Tensor, or a tuple holding exactly one.
Tensor single_tensor(const py::object& value, const char* what, const Module& m) {
  py::object v = value;
  if (py::isinstance<py::tuple>(v)) {
    auto t = v.cast<py::tuple>();
    EMBER_CHECK_TYPE(t.size() == 1, what, " of ", m.type_name(), " returned ", t.size(),
                     " values, but the module is called from C++ (inside a container) with one tensor");
    v = t[0];
  }
  EMBER_CHECK_TYPE(py::isinstance<Tensor>(v), what, " of ", m.type_name(), " must return a Tensor or None, got ",
                   type_name_of(v));
  return v.cast<Tensor>();
}

struct PyPreHook : PythonHook {
  std::optional<Tensor> operator()(Module& m, const Tensor& input) const {
    py::gil_scoped_acquire gil;
    py::tuple args = py::make_tuple(input);
    py::object r = with_kwargs ? fn.fn()(module_object(), args, py::dict()) : fn.fn()(module_object(), args);
    if (r.is_none()) return std::nullopt;
    if (with_kwargs) {
      EMBER_CHECK_TYPE(py::isinstance<py::tuple>(r) && py::len(r) == 2,
                       "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got ",
                       std::string(py::repr(r)));
      r = r.cast<py::tuple>()[0];
    }
    return single_tensor(r, "forward pre-hook", m);
  }
};

struct PyForwardHook : PythonHook {
  std::optional<Tensor> operator()(Module& m, const Tensor& input, const Tensor& output) const {
    py::gil_scoped_acquire gil;
    py::tuple args = py::make_tuple(input);
    py::object out = output.defined() ? py::cast(output) : py::none();
    py::object r = with_kwargs ? fn.fn()(module_object(), args, py::dict(), out) : fn.fn()(module_object(), args, out);
    if (r.is_none()) return std::nullopt;
    return single_tensor(r, "forward hook", m);
  }
};

struct PyBackwardHook : PythonHook {
  std::optional<Tensor> operator()(const Tensor& grad_input, const Tensor& grad_output) const {
    py::gil_scoped_acquire gil;
    auto optional_tensor = [](const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); };
    py::object r = fn.fn()(module_object(), py::make_tuple(optional_tensor(grad_input)),
                           py::make_tuple(optional_tensor(grad_output)));
    if (r.is_none()) return std::nullopt;
    if (py::isinstance<py::tuple>(r)) {
      auto t = r.cast<py::tuple>();
      EMBER_CHECK_TYPE(t.size() == 1, "backward hook returned ", t.size(), " gradients for 1 input");
      if (t[0].is_none()) return std::nullopt;
      return t[0].cast<Tensor>();
    }
    return r.cast<Tensor>();
  }
};

// What register_*_hook returns: handle.remove() unregisters the hook (PyTorch's RemovableHandle).
struct ModuleHookHandle {
  std::weak_ptr<Module> module;
  int id;
  void remove() {
    if (auto m = module.lock()) m->remove_hook(id);
    module.reset();
  }
};

std::shared_ptr<Module> module_of(const py::handle& self) { return self.cast<std::shared_ptr<Module>>(); }

PythonHook python_hook(const py::handle& self, py::function fn, bool with_kwargs) {
  return PythonHook{PyCallable(std::move(fn)), module_of(self), with_kwargs};
}

}  // namespace

// (pre, forward, backward): [(fn, with_kwargs)], [(fn, with_kwargs, always_call)], [fn]: the
// Python functions themselves for hooks written in Python, adapters of the Python signature for
// hooks registered in C++. Module.__call__ runs them (module_call.cpp).
py::tuple hook_lists(const py::handle& self) {
  std::shared_ptr<Module> m = module_of(self);
  py::list pre, forward, backward;
  std::shared_ptr<const nn::HookLists> hooks = m->hooks();
  if (!hooks) return py::make_tuple(pre, forward, backward);
  auto optional = [](const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); };
  for (const auto& h : hooks->pre) {
    if (const auto* p = h.fn.target<PyPreHook>()) {
      pre.append(py::make_tuple(p->fn.fn(), p->with_kwargs));
      continue;
    }
    pre.append(py::make_tuple(py::cpp_function([fn = h.fn, m, optional](py::handle, py::object args) {
      auto r = fn(*m, single_tensor(args, "forward pre-hook", *m));
      return r ? optional(*r) : py::none();
    }), false));
  }
  for (const auto& h : hooks->forward) {
    if (const auto* p = h.fn.target<PyForwardHook>()) {
      forward.append(py::make_tuple(p->fn.fn(), p->with_kwargs, h.always_call));
      continue;
    }
    forward.append(py::make_tuple(py::cpp_function([fn = h.fn, m, optional](py::handle, py::object args,
                                                                             py::object out) {
      auto r = fn(*m, single_tensor(args, "forward hook", *m), out.is_none() ? Tensor() : out.cast<Tensor>());
      return r ? optional(*r) : py::none();
    }), false, h.always_call));
  }
  for (const auto& h : hooks->backward) {
    if (const auto* p = h.fn.target<PyBackwardHook>()) {
      backward.append(p->fn.fn());
      continue;
    }
    backward.append(py::cpp_function([fn = h.fn, optional](py::handle, py::tuple gi, py::tuple go) {
      auto first = [](const py::tuple& t) { return t.size() == 0 || t[0].is_none() ? Tensor() : t[0].cast<Tensor>(); };
      auto r = fn(first(gi), first(go));
      return r ? py::make_tuple(optional(*r)) : py::object(py::none());
    }));
  }
  return py::make_tuple(pre, forward, backward);
}

void bind_module_hooks(py::module_& m) {
  py::module_ nn = m.attr("nn");
  py::class_<ModuleHookHandle>(nn, "RemovableHandle", "handle.remove() unregisters the module hook.")
      .def_readonly("id", &ModuleHookHandle::id)
      .def("remove", &ModuleHookHandle::remove)
      .def("__enter__", [](ModuleHookHandle& h) -> ModuleHookHandle& { return h; },
           py::return_value_policy::reference)
      .def("__exit__", [](ModuleHookHandle& h, const py::args&) { h.remove(); });

  auto cls = py::reinterpret_borrow<py::class_<Module, std::shared_ptr<Module>>>(nn.attr("Module"));
  cls.def("_register_forward_pre_hook", [](py::handle self, py::function fn, bool prepend, bool with_kwargs) {
       std::shared_ptr<Module> mod = module_of(self);
       int id = mod->register_forward_pre_hook(PyPreHook{python_hook(self, std::move(fn), with_kwargs)}, prepend);
       return ModuleHookHandle{mod, id};
     })
      .def("_register_forward_hook", [](py::handle self, py::function fn, bool prepend, bool with_kwargs,
                                        bool always_call) {
        std::shared_ptr<Module> mod = module_of(self);
        int id = mod->register_forward_hook(PyForwardHook{python_hook(self, std::move(fn), with_kwargs)}, prepend,
                                            always_call);
        return ModuleHookHandle{mod, id};
      })
      .def("_register_full_backward_hook", [](py::handle self, py::function fn, bool prepend) {
        std::shared_ptr<Module> mod = module_of(self);
        int id = mod->register_full_backward_hook(PyBackwardHook{python_hook(self, std::move(fn), false)}, prepend);
        return ModuleHookHandle{mod, id};
      })
      .def("_has_hooks", [](const Module& mod) {
        auto hooks = mod.hooks();
        return hooks && !hooks->empty();
      })
      .def("_hook_lists", &hook_lists);
}

}  // namespace ember::python
