// ember.func.vmap's way into the bindings. A batched tensor (ember.func._batched.BatchedTensor) is a
// Python object, not a Tensor, so the bindings would refuse it. Once vmap is first used, every
// function of ember._C and of its submodules nn.functional, linalg and fft, and every Tensor method, gets three more
// overloads, tried after its own, which match only when the first, second or third argument is a
// batched tensor (or a list or tuple holding one: cat, stack). They hand the call to the Python
// dispatcher, which applies the op's batching rule. A call with real tensors matches an overload of
// its own first (pybind11 tries the overloads in order), so it does not pay for them; except where
// an overload of its own would take the batched tensor as any object (indexing, add_'s other,
// einsum's *args): there the dispatching one goes first, and from vmap's first use on such a call
// costs about 0.1-0.2 us more (measured: x[0] 0.52 -> 0.65 us, x.add_(y) 0.48 -> 0.59 us).
//
// Module.__call__ asks the same dispatcher while a vmap runs (a C++ layer's forward takes tensors;
// a functional_call may have put batched parameters in it): vmap_depth() is its one test.
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"

namespace ember::python {
namespace {

PyTypeObject* g_batched_type = nullptr;
int g_vmap_depth = 0;

py::object& handler() {
  static py::object* h = new py::object();  // NB: never destroyed: it outlives the interpreter's teardown
  return *h;
}

bool is_batched(py::handle h) { return g_batched_type && PyObject_TypeCheck(h.ptr(), g_batched_type); }

bool holds_batched(py::handle h) {
  if (is_batched(h)) return true;
  if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    for (py::handle item : h)
      if (is_batched(item)) return true;
  }
  return false;
}

// An argument that is (or holds) a batched tensor: what the dispatching overloads match on.
struct BatchedArg {
  py::object object;
};

}  // namespace
}  // namespace ember::python

namespace pybind11::detail {
template <>
struct type_caster<ember::python::BatchedArg> {
  PYBIND11_TYPE_CASTER(ember::python::BatchedArg, const_name("BatchedTensor"));
  bool load(handle src, bool) {
    if (!ember::python::holds_batched(src)) return false;
    value.object = reinterpret_borrow<object>(src);
    return true;
  }
};
}  // namespace pybind11::detail

namespace ember::python {
namespace {

py::object dispatch(const std::string& name, py::tuple args, const py::kwargs& kwargs) {
  return handler()(name, args, kwargs);
}

py::tuple prepend(std::initializer_list<py::handle> first, const py::args& rest) {
  py::tuple out(first.size() + rest.size());
  size_t i = 0;
  for (py::handle h : first) out[i++] = py::reinterpret_borrow<py::object>(h);
  for (py::handle h : rest) out[i++] = py::reinterpret_borrow<py::object>(h);
  return out;
}

// pybind11's records of a function's overloads (the chain its dispatcher walks), or null.
const py::detail::function_record* records(py::handle function) {
  PyObject* self = PyCFunction_GET_SELF(function.ptr());
  if (!self) return nullptr;
#if PYBIND11_VERSION_MAJOR >= 3  // a Python object of pybind11's own type
  return py::detail::function_record_ptr_from_PyObject(self);
#else  // a capsule
  if (!PyCapsule_CheckExact(self)) return nullptr;
  return static_cast<const py::detail::function_record*>(PyCapsule_GetPointer(self, PyCapsule_GetName(self)));
#endif
}

// Whether the function still converts its arguments once it has several overloads. Then pybind11
// first tries every overload without conversions, and retries with them only an overload that has a
// positional parameter (after self) that converts: randn(*args, generator=None) has none, so its
// None default would no longer convert. Such functions (the factories) get no overloads.
bool overloadable(py::handle function, bool method) {
  const py::detail::function_record* first = records(function);
  for (auto* r = first; r; r = r->next) {
    bool converts = false;
    for (size_t i = method ? 1 : 0; i < r->nargs_pos; ++i)
      converts = converts || i >= r->args.size() || r->args[i].convert;
    const size_t keyword_only = r->nargs - r->nargs_pos - (r->has_args ? 1 : 0) - (r->has_kwargs ? 1 : 0);
    if (!converts && keyword_only > 0) return false;
  }
  return first != nullptr;
}

// The positions (0, 1, 2; a method's self is 0) at which some overload of the function would take a
// batched tensor itself, and then fail in its body: a parameter of any object (add_(self, other:
// object)), or *args (einsum(*args)), read from pybind11's signatures. A dispatching overload for
// such a position must come first; the others come last, where a call of real tensors never
// reaches them.
std::array<bool, 3> takes_anything(py::handle function) {
  std::array<bool, 3> anything{};
  for (auto* r = records(function); r; r = r->next) {
    const std::string signature = r->signature ? r->signature : "";
    const size_t open = signature.find('('), close = signature.find(") ->");
    if (open == std::string::npos || close == std::string::npos) continue;
    size_t position = 0, start = open + 1;
    int depth = 0;
    for (size_t i = start; i <= close && position < anything.size(); ++i) {
      const char c = signature[i];
      if (c == '[' || c == '(') ++depth;
      if ((c == ']' || c == ')') && i < close) --depth;
      if ((c != ',' || depth > 0) && i != close) continue;
      const std::string param = signature.substr(start, i - start);
      start = i + 1;
      if (param.find("*args") != std::string::npos) {
        for (size_t k = position; k < anything.size(); ++k) anything[k] = true;
        break;
      }
      if (param == " *" || param == "*" || param.find("**") != std::string::npos) break;  // keyword-only from here
      if (param.find(": object") != std::string::npos) anything[position] = true;
      ++position;
    }
  }
  return anything;
}

// Adds the three dispatching overloads to the function `name` of `scope` (a module or the Tensor
// class), chained after its own (or before); nothing where pybind11 would not chain them (the
// attribute is not one of its functions, or an alias of one defined under another name) or where
// they would change its conversions.
void add_overloads(py::object scope, const std::string& name, const std::string& qualified, bool method) {
  py::object existing = py::getattr(scope, name.c_str(), py::none());
  if (PyInstanceMethod_Check(existing.ptr()))  // a method, as pybind11's metaclass gives it
    existing = py::reinterpret_borrow<py::object>(PyInstanceMethod_GET_FUNCTION(existing.ptr()));
  if (existing.is_none() || !PyCFunction_Check(existing.ptr())) return;
  if (py::str(existing.attr("__name__")).cast<std::string>() != name || !overloadable(existing, method)) return;
  auto first = [qualified](BatchedArg a, const py::args& rest, const py::kwargs& kw) {
    return dispatch(qualified, prepend({a.object}, rest), kw);
  };
  auto second = [qualified](py::object a, BatchedArg b, const py::args& rest, const py::kwargs& kw) {
    return dispatch(qualified, prepend({a, b.object}, rest), kw);
  };
  auto third = [qualified](py::object a, py::object b, BatchedArg c, const py::args& rest, const py::kwargs& kw) {
    return dispatch(qualified, prepend({a, b, c.object}, rest), kw);
  };
  const std::array<bool, 3> anything = takes_anything(existing);
  auto chain = [&](auto f, size_t position) {
    const bool in_front = anything[position];
    py::cpp_function added;
    if (method && in_front)
      added = py::cpp_function(f, py::name(name.c_str()), py::is_method(scope), py::sibling(existing), py::prepend());
    else if (method)
      added = py::cpp_function(f, py::name(name.c_str()), py::is_method(scope), py::sibling(existing));
    else if (in_front)
      added = py::cpp_function(f, py::name(name.c_str()), py::scope(scope), py::sibling(existing), py::prepend());
    else
      added = py::cpp_function(f, py::name(name.c_str()), py::scope(scope), py::sibling(existing));
    // Chained, pybind11 gives back the existing function object (a method's wrapped anew).
    PyObject* function = PyInstanceMethod_Check(added.ptr()) ? PyInstanceMethod_GET_FUNCTION(added.ptr()) : added.ptr();
    return function == existing.ptr();
  };
  // A method's first argument is the real tensor itself.
  if ((method || chain(first, 0)) && chain(second, 1)) chain(third, 2);
}

void install(py::handle batched_type, py::object dispatcher) {
  if (g_batched_type) return;
  EMBER_CHECK(PyType_Check(batched_type.ptr()), "_install_batched_dispatch: expected a class");
  g_batched_type = reinterpret_cast<PyTypeObject*>(batched_type.ptr());
  Py_INCREF(g_batched_type);
  handler() = std::move(dispatcher);
  py::module_ m = py::module_::import("ember._C");
  const std::vector<std::pair<std::string, py::object>> scopes = {{"", m},
                                                                  {"nn.functional.", m.attr("nn").attr("functional")},
                                                                  {"linalg.", m.attr("linalg")},
                                                                  {"fft.", m.attr("fft")}};
  for (const auto& [prefix, scope] : scopes) {
    for (auto item : py::reinterpret_borrow<py::dict>(scope.attr("__dict__"))) {
      std::string name = py::str(item.first);
      std::string qualified = prefix;
      qualified.append(name);
      if (name.rfind("__", 0) != 0) add_overloads(scope, name, qualified, false);
    }
  }
  py::object tensor = m.attr("Tensor");
  for (auto item : py::dict(tensor.attr("__dict__"))) {  // NB: a class's __dict__ is a mappingproxy
    std::string name = py::str(item.first);
    if (name.rfind("__", 0) == 0 && name != "__getitem__" && name != "__setitem__") continue;
    std::string qualified = "Tensor.";
    qualified.append(name);
    if (PyInstanceMethod_Check(item.second.ptr())) add_overloads(tensor, name, qualified, true);
  }
}

}  // namespace

int vmap_depth() { return g_vmap_depth; }

py::object call_batched_module(py::handle module, const py::args& args, const py::kwargs& kwargs) {
  return handler()("Module.__call__", prepend({module}, args), kwargs);
}

void bind_batched_dispatch(py::module_& m) {
  m.def(
      "_install_batched_dispatch",
      [](py::handle batched_type, py::object dispatcher) { install(batched_type, std::move(dispatcher)); },
      "ember.func's hook: batched_type's instances reach dispatcher(name, args, kwargs) from every op binding.");
  m.def(
      "_set_vmap_depth", [](int depth) { g_vmap_depth = depth; },
      "How many vmaps are running (Module.__call__ asks ember.func's dispatcher while any is).");
}

}  // namespace ember::python
