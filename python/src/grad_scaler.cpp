// ember.amp.GradScaler: torch.amp.GradScaler's API over optim::GradScaler (dynamic loss scaling).
// Optimizers are told apart by their Python object (any optimizer with param_groups works, one
// written in Python too); their gradients are read from param_groups at each unscale_ and step.
#include "ember/optim/grad_scaler.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/core/backend.h"

namespace ember::python {
namespace {

// The scaler and the device type it was made for (torch's __init__ argument, kept for pickling).
struct PyGradScaler : optim::GradScaler {
  PyGradScaler(std::string device, optim::GradScalerOptions options)
      : optim::GradScaler(options), device(std::move(device)) {}
  std::string device;
};

std::shared_ptr<PyGradScaler> make(const std::string& device, double init_scale, double growth_factor,
                                   double backoff_factor, int64_t growth_interval, bool enabled) {
  if (enabled && device.starts_with("cuda") && cuda::device_count() == 0) {
    if (PyErr_WarnEx(PyExc_UserWarning, "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                     1) != 0)
      throw py::error_already_set();
    enabled = false;
  }
  return std::make_shared<PyGradScaler>(
      device, optim::GradScalerOptions{init_scale, growth_factor, backoff_factor, growth_interval, enabled});
}

// Every gradient of an optimizer's parameters, in group order: optim::gradients_of for Ember's
// (written in Python too: their groups live in C++), param_groups for any other.
std::vector<Tensor> gradients(py::handle optimizer) {
  if (py::isinstance<optim::Optimizer>(optimizer))
    return optim::gradients_of(optimizer.cast<const optim::Optimizer&>());
  std::vector<Tensor> out;
  for (py::handle group : optimizer.attr("param_groups"))
    for (py::handle p : group[py::str("params")]) {
      py::object grad = p.attr("grad");
      if (!grad.is_none()) out.push_back(grad.cast<Tensor>());
    }
  return out;
}

// outputs times the scale: a tensor, or lists and tuples of them (kept as such), or any other
// iterable of them (a lazy map, as torch's).
py::object scaled(py::handle self, optim::GradScaler& s, py::handle outputs) {
  if (py::isinstance<Tensor>(outputs)) return py::cast(s.scale(outputs.cast<Tensor>()));
  if (py::isinstance<py::list>(outputs) || py::isinstance<py::tuple>(outputs)) {
    py::list items;
    for (py::handle v : outputs) items.append(scaled(self, s, v));
    if (py::isinstance<py::list>(outputs)) return std::move(items);
    return py::type::of(outputs)(py::tuple(items));
  }
  EMBER_CHECK_VALUE(py::isinstance(outputs, py::module_::import("collections.abc").attr("Iterable")),
                    "outputs must be a Tensor or an iterable of Tensors");
  return py::module_::import("builtins").attr("map")(self.attr("scale"), outputs);
}

double scale_value(py::handle new_scale) {
  if (!py::isinstance<Tensor>(new_scale)) return new_scale.cast<double>();
  Tensor t = new_scale.cast<Tensor>();
  EMBER_CHECK_VALUE(t.numel() == 1 && !t.requires_grad() && t.is_floating_point(),
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with "
                    "requires_grad=False.");
  return t.item<double>();
}

py::dict state_dict_of(const optim::GradScaler& s) {
  py::dict d;  // PyTorch's keys and types; {} when disabled
  if (std::optional<optim::GradScalerState> st = s.state_dict()) {
    d["scale"] = st->scale;
    d["growth_factor"] = st->growth_factor;
    d["backoff_factor"] = st->backoff_factor;
    d["growth_interval"] = st->growth_interval;
    d["_growth_tracker"] = st->growth_tracker;
  }
  return d;
}

void load_state_dict_into(optim::GradScaler& s, const py::dict& d) {
  std::optional<optim::GradScalerState> st;
  if (!d.empty()) {
    for (const char* key : {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"})
      EMBER_CHECK_KEY(d.contains(key), "GradScaler.load_state_dict: '", key, "' is missing");
    auto number = [&](const char* key) {
      py::object v = d[key];
      return py::isinstance<Tensor>(v) ? v.cast<Tensor>().item<double>() : v.cast<double>();
    };
    st = optim::GradScalerState{number("scale"), number("growth_factor"), number("backoff_factor"),
                                static_cast<int64_t>(number("growth_interval")),
                                static_cast<int64_t>(number("_growth_tracker"))};
  }
  s.load_state_dict(st);
}

}  // namespace

void bind_grad_scaler(py::module_& m) {
  using S = PyGradScaler;
  using Gil = py::call_guard<py::gil_scoped_release>;
  py::class_<S, std::shared_ptr<S>>(m, "GradScaler", R"doc(
torch.amp.GradScaler(device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
growth_interval=2000, enabled=True): dynamic loss scaling (C++ optim::GradScaler).
`scaler.scale(loss).backward()`, optionally `scaler.unscale_(opt)` before clipping, `scaler.step(opt)`
(skipped where a gradient is inf or NaN), `scaler.update()`. Works with any optimizer that has
param_groups. device "cuda" without a CUDA device warns and disables the scaler, as PyTorch's does;
disabled, it passes everything through.)doc",
                                    py::dynamic_attr())
      .def(py::init(&make), py::arg("device") = "cuda", py::arg("init_scale") = 65536.0, py::arg("growth_factor") = 2.0,
           py::arg("backoff_factor") = 0.5, py::arg("growth_interval") = 2000, py::arg("enabled") = true)
      .def("is_enabled", &S::is_enabled)
      .def(
          "scale",
          [](py::handle self, py::object outputs) {
            S& s = self.cast<S&>();
            return s.is_enabled() ? scaled(self, s, outputs) : outputs;
          },
          py::arg("outputs"), "outputs (a tensor, or lists, tuples and iterables of tensors) times the scale.")
      .def(
          "unscale_",
          [](S& s, py::handle optimizer) {
            if (!s.is_enabled()) return;
            std::vector<Tensor> grads = gradients(optimizer);
            without_gil([&] { s.unscale_(optimizer.ptr(), grads); });
          },
          py::arg("optimizer"),
          "Divides optimizer's gradients by the scale in place (once per optimizer per update()).")
      .def(
          "step",
          [](S& s, py::handle optimizer, const py::args& args, const py::kwargs& kwargs) -> py::object {
            if (!s.is_enabled()) return optimizer.attr("step")(*args, **kwargs);
            EMBER_CHECK_AS(Error, !kwargs.contains("closure"),
                           "Closure use is not currently supported if GradScaler is enabled.");
            std::vector<Tensor> grads = gradients(optimizer);
            bool run = without_gil([&] { return s.begin_step(optimizer.ptr(), [&] { return grads; }); });
            return run ? optimizer.attr("step")(*args, **kwargs) : py::none();
          },
          py::arg("optimizer"), "optimizer.step(*args, **kwargs) unless its gradients held an inf or NaN (then None).")
      .def(
          "update",
          [](S& s, py::handle new_scale) {
            if (!s.is_enabled()) return;
            if (new_scale.is_none()) {
              without_gil([&] { s.update(); });
              return;
            }
            s.update(scale_value(new_scale));
          },
          py::arg("new_scale") = py::none(),
          "Backs the scale off after an inf or NaN, else counts towards its growth; or sets new_scale.")
      .def("get_scale", &S::get_scale)
      .def("get_growth_factor", &S::get_growth_factor)
      .def("set_growth_factor", &S::set_growth_factor, py::arg("new_factor"))
      .def("get_backoff_factor", &S::get_backoff_factor)
      .def("set_backoff_factor", &S::set_backoff_factor, py::arg("new_factor"))
      .def("get_growth_interval", &S::get_growth_interval)
      .def("set_growth_interval", &S::set_growth_interval, py::arg("new_interval"))
      .def("_get_growth_tracker", [](const S& s) { return s.is_enabled() ? s.growth_tracker() : 0; })
      .def(
          "state_dict", [](const S& s) { return state_dict_of(s); },
          "{'scale', 'growth_factor', 'backoff_factor', 'growth_interval', '_growth_tracker'}; {} when disabled.")
      .def(
          "load_state_dict",
          [](S& s, py::handle d) { load_state_dict_into(s, py::dict(py::reinterpret_borrow<py::object>(d))); },
          py::arg("state_dict"))
      .def(py::pickle(
          [](const S& s) {
            py::dict state = state_dict_of(s);
            return py::make_tuple(s.device, s.is_enabled(), state);
          },
          [](const py::tuple& t) {
            py::dict st = t[2];
            auto get = [&](const char* key, py::object fallback) { return st.contains(key) ? st[key] : fallback; };
            auto s = std::make_shared<S>(
                t[0].cast<std::string>(),
                optim::GradScalerOptions{get("scale", py::float_(65536.0)).cast<double>(),
                                         get("growth_factor", py::float_(2.0)).cast<double>(),
                                         get("backoff_factor", py::float_(0.5)).cast<double>(),
                                         get("growth_interval", py::int_(2000)).cast<int64_t>(), t[1].cast<bool>()});
            if (s->is_enabled()) load_state_dict_into(*s, st);
            return s;
          }));
}

}  // namespace ember::python
