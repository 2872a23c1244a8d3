// ember.set_default_device / get_default_device and `with ember.device(...)` (torch's forms).
//
// While a device other than the CPU is the default, the factories (zeros, ones, empty, full, rand,
// randn, randint, randperm, arange, linspace, logspace, eye, scalar_tensor; ember.tensor and
// as_tensor read it too) place a tensor without device= there, and every built-in layer built
// then is placed there as its device= would (layer_binding.h), so a Python Module subclass gets
// there through them. The *_like factories and from_numpy keep their input's device, as in torch.
// The default is process-wide (as torch's) and belongs to the Python API: C++ callers name devices.
#include <pybind11/stl.h>

#include <optional>
#include <vector>

#include "bindings.h"
#include "ember/core/factory.h"

namespace ember::python {
namespace {

std::optional<Device> g_default;                // nullopt: the CPU
std::vector<std::optional<Device>> g_replaced;  // the defaults `with ember.device(...)` blocks replaced

Device device_from(const py::handle& v) {
  if (PyLong_Check(v.ptr())) return Device::cuda(v.cast<int16_t>());
  return py::isinstance<py::str>(v) ? Device(v.cast<std::string>()) : v.cast<Device>();
}

void set_default(const py::handle& device) {
  if (device.is_none()) {
    g_default.reset();
    return;
  }
  Device target = device_from(device);
  if (target.is_cuda() && py::isinstance<py::str>(device) &&
      device.cast<std::string>().find(':') == std::string::npos) {
    // NB: torch resolves a bare 'cuda' to the current device at once: without one it raises here.
    (void)empty({0}, TensorOptions(kFloat32).device(target));
  }
  g_default = target.type == DeviceType::CPU ? std::nullopt : std::optional<Device>(target);
}

}  // namespace

std::optional<Device> default_device() { return g_default; }

void bind_default_device(py::module_& m) {
  m.def(
      "get_default_device", [] { return g_default.value_or(Device()); },
      "The device factories use without device= (torch.get_default_device): cpu unless set_default_device or a "
      "`with ember.device(...)` block chose another.");
  m.def("set_default_device", &set_default, py::arg("device"),
        "Makes `device` (a device, 'cpu', 'cuda', 'cuda:1', an index, or None = cpu) the default of the factories "
        "and of the layers built from now on (torch.set_default_device).");
  m.def(
      "_default_device", [] { return g_default; }, "The default device, None while it is the CPU.");
  auto device = py::reinterpret_borrow<py::class_<Device>>(m.attr("device"));
  device
      .def("__enter__",
           [](py::object self) -> Device {
             g_replaced.push_back(g_default);
             try {
               set_default(self);
             } catch (...) {
               g_replaced.pop_back();
               throw;
             }
             return self.cast<Device>();
           })
      .def("__exit__", [](const Device&, const py::args&) {
        g_default = g_replaced.back();
        g_replaced.pop_back();
      });
}

}  // namespace ember::python
