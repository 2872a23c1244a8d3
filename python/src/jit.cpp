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

std::vector<Tensor> tensors_of(const py::handle& inputs, const char* what) {
  std::vector<Tensor> out;
  if (py::isinstance<Tensor>(inputs)) return {inputs.cast<Tensor>()};
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(inputs) || py::isinstance<py::list>(inputs), what,
                   ": expected a tensor or a tuple of tensors, got ",
                   std::string(py::str(py::type::of(inputs).attr("__name__"))));
  for (py::handle h : inputs) {
    EMBER_CHECK_TYPE(py::isinstance<Tensor>(h), what, ": a program's inputs are tensors, got a ",
                     std::string(py::str(py::type::of(h).attr("__name__"))));
    out.push_back(h.cast<Tensor>());
  }
  return out;
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
        jit::Forward forward = [&module](const std::vector<Tensor>& in) {
          py::tuple args(in.size());
          for (size_t i = 0; i < in.size(); ++i) args[i] = py::cast(in[i]);
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
