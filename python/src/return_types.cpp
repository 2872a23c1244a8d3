// ember.return_types (torch.return_types): the named tuple classes ops return, max(x, 0) an
// ember.return_types.max(values, indices). Each class is made once, with __module__
// "ember.return_types" and set on ember._C.return_types (which ember/return_types.py re-exports),
// so its results pickle; every one is made at import (the op table's by the generated
// bind_table_ops, the rest below), so a pickle loads in a fresh process. repr is torch's form.
#include <map>
#include <string>
#include <vector>

#include "bindings.h"

namespace ember::python {
namespace {

py::module_& return_types_module() {
  static auto* module = new py::module_();
  return *module;
}

// torch's repr: "ember.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))".
py::str repr_of(py::handle self) {
  py::object cls = py::type::of(self);
  std::string out = "ember.return_types." + cls.attr("__name__").cast<std::string>() + "(";
  py::tuple fields = cls.attr("_fields");
  for (size_t i = 0; i < fields.size(); ++i)
    out += "\n" + fields[i].cast<std::string>() + "=" + py::repr(self[py::int_(i)]).cast<std::string>() +
           (i + 1 < fields.size() ? "," : "");
  return py::str(out + ")");
}

}  // namespace

py::object named_tuple_class(const char* name, std::initializer_list<const char*> fields) {
  static auto* classes = new std::map<std::string, py::object>();
  auto it = classes->find(name);
  if (it != classes->end()) {
    EMBER_CHECK(py::len(it->second.attr("_fields")) == fields.size(), "return type '", name,
                "' declared with two different field lists");
    return it->second;
  }
  py::tuple names(fields.size());
  size_t i = 0;
  for (const char* f : fields) names[i++] = py::str(f);
  py::dict kwargs;
  kwargs["module"] = "ember.return_types";
  py::object cls = py::module_::import("collections").attr("namedtuple")(name, names, **kwargs);
  py::setattr(cls, "__repr__", py::cpp_function(&repr_of, py::name("__repr__"), py::is_method(cls)));
  return_types_module().attr(name) = cls;
  return classes->emplace(name, cls).first->second;
}

void bind_return_types(py::module_& m) {
  return_types_module() = m.def_submodule("return_types", "The named tuples ops return (torch.return_types).");
  // The results of functions bound by hand (python/src/linalg.cpp), as torch names them.
  named_tuple_class("linalg_lstsq", {"solution", "residuals", "rank", "singular_values"});
}

}  // namespace ember::python
