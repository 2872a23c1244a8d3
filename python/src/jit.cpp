// ember._C.jit: tracing a module (Python-defined or C++) into a program, the TracedModule that
// replays it, and program files (jit/jit.h). ember/jit.py gives them torch.jit's names.
#include "ember/jit/jit.h"

#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/core/tracing.h"
#include "ember/io/value.h"
#include "ember/nn/module.h"

namespace ember::python {

namespace {

// The tensors of a program's inputs in order: a tensor, or tuples and lists of them to any depth
// (an LSTM's (input, (h, c))), as torch.jit.trace takes them.
void flatten(const py::handle& inputs, const char* what, std::vector<Tensor>& out) {
  if (py::isinstance<Tensor>(inputs)) {
    out.push_back(inputs.cast<Tensor>());
    return;
  }
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(inputs) || py::isinstance<py::list>(inputs), what,
                   ": a program's inputs are tensors, or tuples and lists of them; got a ",
                   std::string(py::str(py::type::of(inputs).attr("__name__"))));
  for (py::handle h : inputs) flatten(h, what, out);
}

std::vector<Tensor> tensors_of(const py::handle& inputs, const char* what) {
  std::vector<Tensor> out;
  flatten(inputs, what, out);
  return out;
}

// `shape` (the example's nesting) with its tensors replaced by `flat`'s, in order.
py::object unflatten(const py::handle& shape, const std::vector<Tensor>& flat, size_t& next) {
  if (py::isinstance<Tensor>(shape)) return py::cast(flat[next++]);
  py::list items;
  for (py::handle h : shape) items.append(unflatten(h, flat, next));
  return py::isinstance<py::tuple>(shape) ? py::object(py::tuple(items)) : py::object(items);
}

std::string path_of(const py::object& f) {
  return py::str(py::module_::import("os").attr("fspath")(f)).cast<std::string>();
}

}  // namespace

void bind_jit(py::module_& m) {
  py::module_ jit = m.def_submodule("jit", "ember.jit's C++ half: traced programs and their files");
  py::class_<jit::TracedModule, nn::Module, std::shared_ptr<jit::TracedModule>>(jit, "TracedModule", R"doc(
A module whose forward replays a traced program (ember.jit.trace, ember.jit.load): its parameters and
buffers keep the names of the module traced, and train()/eval() choose the program traced in that mode.)doc")
      .def(
          "forward",
          [](jit::TracedModule& self, const py::args& args) {
            return value_to_py(self.run(tensors_of(args, "TracedModule.forward")));
          },
          "The program of the current mode run on the inputs.")
      .def_property_readonly(
          "code", [](const jit::TracedModule& self) { return self.program(self.is_training()).str(); },
          "The current mode's program, one op per line.")
      .def(
          "_program",
          [](const jit::TracedModule& self, bool training) { return value_to_py(self.program(training).to_value()); },
          py::arg("training"), "The program traced in that mode as its document (io/FORMAT.md, section 8).")
      .def_property_readonly(
          "graph", [](const jit::TracedModule& self) { return self.program(self.is_training()).str(); },
          "The same as code.")
      .def(
          "save", [](const jit::TracedModule& self, const py::object& f) { jit::save(self, path_of(f)); }, py::arg("f"),
          "ember.jit.save(self, f): f a path (str or os.PathLike).");

  jit.def(
      "_trace",
      [](const py::object& module, const py::object& example_inputs, bool check, double tolerance) {
        std::shared_ptr<nn::Module> held = hold_module(module);
        const std::vector<Tensor> inputs = tensors_of(example_inputs, "jit.trace");
        const py::tuple shape =
            py::isinstance<Tensor>(example_inputs) ? py::make_tuple(example_inputs) : py::tuple(example_inputs);
        jit::Forward forward = [&module, &shape](const std::vector<Tensor>& in) {
          size_t next = 0;
          py::tuple args = unflatten(shape, in, next).cast<py::tuple>();
          return py_to_value(module(*args));
        };
        return jit::trace(*held, inputs, forward, {.check = check, .check_tolerance = tolerance});
      },
      py::arg("module"), py::arg("example_inputs"), py::arg("check") = true, py::arg("check_tolerance") = 1e-5);
  jit.def(
      "save", [](const jit::TracedModule& m, const std::string& path) { jit::save(m, path); }, py::arg("m"),
      py::arg("f"));
  jit.def(
      "load", [](const std::string& path) { return jit::load(path); }, py::arg("f"));
  jit.def(
      "_is_tracing", [] { return tracing::recording(); }, "True inside a forward being traced.");
  jit.def("_op_names", &jit::op_names, "Every op a program may name.");
}

}  // namespace ember::python
