// The C++ half of ember.autograd.Function (python/ember/_autograd_function.py): a graph node whose
// backward is a Python callable. The Python side runs forward without recording, then records one
// such node over the tensor inputs with the differentiable outputs as its outputs.
#include "bindings.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "ember/autograd/autograd.h"
#include "ember/autograd/record.h"

namespace ember::python {
namespace {

class PythonFunctionNode : public autograd::Node {
 public:
  PythonFunctionNode() = default;
  void bind(std::string name, py::function backward, py::function release) {
    name_ = std::move(name);
    backward_.emplace(std::move(backward));
    release_.emplace(std::move(release));
  }
  const char* name() const override { return name_.c_str(); }
  // NB: the Python side fills zeros itself unless ctx.set_materialize_grads(False).
  bool materializes_grads() const override { return false; }

  // grads: one per recorded output (undefined where none arrived); returns one per input.
  autograd::TensorList apply(autograd::TensorList&& grads) override {
    py::gil_scoped_acquire gil;  // NB: backward and grad run the engine without the GIL
    py::tuple args(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) args[i] = grads[i].defined() ? py::cast(grads[i]) : py::none();
    py::object result = backward_->fn()(*args);
    autograd::TensorList out;
    for (const py::handle& h : result) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
    EMBER_CHECK(out.size() == num_inputs(), name_, ": the Python backward gave ", out.size(),
                " gradients for ", num_inputs(), " tensor inputs");
    return out;
  }
  // The context drops its saved tensors (a later use says the graph was freed).
  void release_saved() override {
    py::gil_scoped_acquire gil;
    release_->fn()();
  }

 private:
  std::string name_;
  std::optional<PyCallable> backward_, release_;
};

}  // namespace

void bind_autograd_function(py::module_& m) {
  auto ag = py::reinterpret_borrow<py::module_>(m.attr("_autograd"));
  ag.def("_record_function", [](const std::string& name, const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& outputs, const std::vector<Tensor>& dirty,
                                py::function backward, py::function release) {
    auto node = autograd::make_node_from_list<PythonFunctionNode>(inputs);
    node->bind(name, std::move(backward), std::move(release));
    for (const Tensor& out : outputs) {
      bool is_dirty = false;
      for (const Tensor& d : dirty) is_dirty = is_dirty || d.is_same(out);
      if (is_dirty) {
        // An input written in place (ctx.mark_dirty): its history moves past this node.
        autograd::check_inplace(out, name.c_str());
        autograd::rebase_history(out, autograd::Edge{node, node->add_output(out)});
      } else {
        autograd::set_history(out, node);
      }
    }
  }, py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::arg("dirty"), py::arg("backward"),
     py::arg("release"),
     "Records a node over `inputs` whose backward(*grads of outputs) -> one gradient per input is a "
     "Python callable; release() runs when the graph is freed.");
}

}  // namespace ember::python
