// Autograd: requires_grad, .grad, grad_fn, backward, ember.autograd.grad, grad mode, hooks and
// gradcheck. backward and grad release the GIL while the engine runs; hooks written in Python
// take it back for the duration of each call.
#include "bindings.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>

#include "ember/autograd/autograd.h"

namespace ember::python {
namespace {

// A tensor hook: fn(grad) returns a replacement gradient or None (keep it).
autograd::Hook tensor_hook(py::function fn) {
  return [call = PyCallable(std::move(fn))](const Tensor& grad) -> Tensor {
    py::gil_scoped_acquire gil;  // NB: before r, so that r is released while holding it
    py::object r = call.fn()(grad);
    if (r.is_none()) return Tensor();
    EMBER_CHECK_TYPE(py::isinstance<Tensor>(r), "hook: a tensor hook must return a Tensor or None, got ",
                     std::string(py::str(py::type::of(r).attr("__name__"))));
    return r.cast<Tensor>();
  };
}

// What register_hook returns: handle.remove() unregisters the hook (torch.utils.hooks.RemovableHandle).
struct RemovableHandle {
  Tensor tensor;
  int id;
  void remove() {
    if (tensor.defined()) tensor.remove_hook(id);
    tensor = Tensor();
  }
};

std::vector<Tensor> tensor_list(const py::object& obj) {
  if (obj.is_none()) return {};
  if (py::isinstance<Tensor>(obj)) return {obj.cast<Tensor>()};
  std::vector<Tensor> out;
  for (const py::handle& h : obj) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}

py::object none_if_undefined(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

}  // namespace

void bind_autograd(py::module_& m) {
  auto cls = tensor_class(m);
  py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "Node",
      "A node of the backward graph (Tensor.grad_fn).")
      .def("name", &autograd::Node::name)
      .def_property_readonly("next_functions", [](const autograd::Node& n) {
        py::list out;
        for (const auto& e : n.next_edges())
          out.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
        return py::tuple(out);
      })
      .def("__repr__", [](const autograd::Node& n) { return "<" + std::string(n.name()) + ">"; });

  py::class_<RemovableHandle>(m, "RemovableHandle", "handle.remove() unregisters the hook.")
      .def("remove", &RemovableHandle::remove)
      .def("__enter__", [](RemovableHandle& h) -> RemovableHandle& { return h; },
           py::return_value_policy::reference)
      .def("__exit__", [](RemovableHandle& h, const py::args&) { h.remove(); });

  cls.def_property("requires_grad", &Tensor::requires_grad,
                   [](const Tensor& t, bool r) { t.set_requires_grad(r); },
                   "Whether gradients are computed for this tensor (settable on leaves).")
      .def("requires_grad_", [](const py::object& self, bool r) {
        self.cast<const Tensor&>().set_requires_grad(r);
        return self;
      }, py::arg("requires_grad") = true)
      .def_property("grad", [](const Tensor& t) { return none_if_undefined(t.grad()); },
                    [](const Tensor& t, std::optional<Tensor> g) { t.set_grad(g.value_or(Tensor())); },
                    "The accumulated gradient (None until backward reaches this leaf).")
      .def_property_readonly("grad_fn", [](const Tensor& t) { return t.grad_fn(); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def("detach", &Tensor::detach, "Same data (shared storage), cut from the graph.")
      .def_property_readonly("data", &Tensor::detach, "A detached view of the same data.")
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def("backward", [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph,
                          bool create_graph) {
        t.backward(gradient.value_or(Tensor()), retain_graph.value_or(create_graph), create_graph);
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
         py::arg("create_graph") = false, py::call_guard<py::gil_scoped_release>(),
         "Accumulates d self / d leaf into every leaf's .grad; gradient is needed unless self has one element.")
      .def("register_hook", [](const Tensor& t, py::function fn) {
        return RemovableHandle{t, t.register_hook(tensor_hook(std::move(fn)))};
      }, py::arg("hook"), "hook(grad) -> new grad or None, run when the gradient of this tensor is computed.");

  auto ag = m.def_submodule("_autograd", "ember.autograd's C++ half");
  ag.def("backward", [](const py::object& tensors, const py::object& grad_tensors,
                        std::optional<bool> retain_graph, bool create_graph) {
    std::vector<Tensor> outputs = tensor_list(tensors), grads = tensor_list(grad_tensors);
    py::gil_scoped_release nogil;
    autograd::backward(outputs, grads, retain_graph.value_or(create_graph), create_graph);
  }, py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = py::none(),
        py::arg("create_graph") = false);
  ag.def("grad", [](const py::object& outputs, const py::object& inputs, const py::object& grad_outputs,
                    std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    std::vector<Tensor> outs = tensor_list(outputs), ins = tensor_list(inputs),
                        gouts = tensor_list(grad_outputs);
    std::vector<Tensor> grads;
    {
      py::gil_scoped_release nogil;
      grads = autograd::grad(outs, ins, gouts, retain_graph, create_graph, allow_unused);
    }
    py::tuple out(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) out[i] = none_if_undefined(grads[i]);
    return out;
  }, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(),
        py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
        py::arg("allow_unused") = false);
  ag.def("is_grad_enabled", &autograd::GradMode::is_enabled);
  ag.def("set_grad_enabled", &autograd::GradMode::set_enabled, py::arg("mode"));
  for (bool second : {false, true}) {
    ag.def(second ? "gradgradcheck" : "gradcheck",
           [second](py::function fn, const py::object& inputs, double eps, double atol, double rtol) {
      auto call = PyCallable(std::move(fn));
      autograd::TensorFunction f = [call](const autograd::TensorList& xs) {
        py::gil_scoped_acquire gil;
        py::object r = call.fn()(*py::cast(xs));
        return r.cast<Tensor>();
      };
      std::vector<Tensor> xs = tensor_list(inputs);
      autograd::GradcheckOptions options{eps, atol, rtol};
      {
        py::gil_scoped_release nogil;
        second ? autograd::gradgradcheck(f, xs, options) : autograd::gradcheck(f, xs, options);
      }
      return true;
    }, py::arg("func"), py::arg("inputs"), py::arg("eps") = 1e-6, py::arg("atol") = 1e-5,
       py::arg("rtol") = 1e-3);
  }
}

}  // namespace ember::python
