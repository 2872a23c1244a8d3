// Autocast from Python: the per-thread switch (core/autocast.h) that ember.autocast sets, and
// _autocast_call, through which the ops written in Python (losses, 3-d convolution and pooling,
// linear algebra) apply their policy from the same lists as the C++ ops (ops/autocast_policy.cpp).
#include "bindings.h"

#include <pybind11/stl.h>

#include <string>

#include "ember/ops/autocast.h"

namespace ember::python {
namespace {

DeviceType device_type(const std::string& name) {
  Device d(name);
  return d.type;
}

const char* policy_name(autocast::Policy p) {
  switch (p) {
    case autocast::Policy::lower: return "lower_precision_fp";
    case autocast::Policy::fp32: return "fp32";
    case autocast::Policy::promote: return "promote";
    case autocast::Policy::keep: return "keep";
    case autocast::Policy::state: return "state";
    case autocast::Policy::none: break;
  }
  return nullptr;
}

// The tensors of a call: positional and keyword arguments that are tensors, or lists and tuples
// of them (cat's, einsum's operands).
void collect(const py::handle& v, std::vector<Tensor>& out) {
  if (py::isinstance<Tensor>(v)) {
    out.push_back(v.cast<Tensor>());
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    for (const py::handle& e : v)
      if (py::isinstance<Tensor>(e)) out.push_back(e.cast<Tensor>());
  }
}

py::object cast_arg(const py::handle& v, const autocast::Cast& cast) {
  if (py::isinstance<Tensor>(v)) return py::cast(cast(v.cast<Tensor>()));
  const bool is_list = py::isinstance<py::list>(v);
  if (is_list || py::isinstance<py::tuple>(v)) {
    py::list items;
    for (const py::handle& e : v)
      items.append(py::isinstance<Tensor>(e) ? py::cast(cast(e.cast<Tensor>())) : py::reinterpret_borrow<py::object>(e));
    if (is_list) return std::move(items);
    return py::type::of(v)(py::tuple(items));
  }
  return py::reinterpret_borrow<py::object>(v);
}

}  // namespace

void bind_autocast(py::module_& m) {
  m.def("_autocast_state", [](const std::string& type) {
    autocast::State s = autocast::state(device_type(type));
    return py::make_tuple(s.enabled, s.dtype, s.cache_enabled);
  }, py::arg("device_type"), "(enabled, dtype, cache_enabled) of this thread's autocast for a device type.");
  m.def("_set_autocast_state", [](const std::string& type, bool enabled, DType dtype, bool cache_enabled) {
    autocast::set_state(device_type(type), autocast::State{enabled, dtype, cache_enabled});
  }, py::arg("device_type"), py::arg("enabled"), py::arg("dtype"), py::arg("cache_enabled"));
  m.def("_autocast_increment_nesting", &autocast::increment_nesting);
  m.def("_autocast_decrement_nesting", &autocast::decrement_nesting);
  m.def("_clear_autocast_cache", &autocast::clear_cache);
  m.def("_autocast_any_enabled", [] {
    return autocast::is_enabled(DeviceType::CPU) || autocast::is_enabled(DeviceType::CUDA);
  });
  m.def("_autocast_policy", [](const std::string& op, const std::string& type) -> py::object {
    const char* name = policy_name(autocast::policy(op, device_type(type)));
    if (name == nullptr) return py::none();
    return py::str(name);
  }, py::arg("op"), py::arg("device_type"), "The op's autocast policy on a device type, or None.");
  m.def("_autocast_policy_names", &autocast::policy_names);
  m.def("_autocast_call", [](const std::string& op, const py::function& fn, const py::args& args,
                             const py::kwargs& kwargs) -> py::object {
    std::vector<Tensor> tensors;
    for (const py::handle& a : args) collect(a, tensors);
    for (const auto& kv : kwargs) collect(kv.second, tensors);
    if (!autocast::applies(op, tensors)) return fn(*args, **kwargs);
    return autocast::run(op, tensors, [&](const autocast::Cast& cast) {
      py::list new_args;
      for (const py::handle& a : args) new_args.append(cast_arg(a, cast));
      py::dict new_kwargs;
      for (const auto& kv : kwargs) new_kwargs[kv.first] = cast_arg(kv.second, cast);
      return py::object(fn(*py::tuple(new_args), **new_kwargs));
    });
  }, py::arg("op"), py::arg("fn"), "fn(*args, **kwargs) under op's autocast policy (ember._amp_op).");
}

}  // namespace ember::python
