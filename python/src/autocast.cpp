// Autocast from Python: torch's autocast context manager and decorator and its state functions
// over the per-thread switch (core/autocast.h), and _autocast_call, through which the ops written
// in Python apply their policy from the same lists as the C++ ops (ops/autocast_policy.cpp).
#include "ember/ops/autocast.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "ember/core/backend.h"

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

void warn(const char* message) {
  if (PyErr_WarnEx(PyExc_UserWarning, message, 1) != 0) throw py::error_already_set();
}

bool available(const std::string& type) { return type == "cpu" || type == "cuda"; }

// `with ember.autocast("cpu", dtype=ember.bfloat16):`, or as a decorator (torch.autocast).
struct Autocast {
  std::string device;
  DType fast_dtype;
  bool enabled, cache_enabled;
  std::vector<autocast::State> outer;  // the states __enter__ replaced, innermost last

  Autocast(py::handle type, std::optional<DType> dtype, bool enabled_, std::optional<bool> cache) {
    if (!py::isinstance<py::str>(type))
      throw ember::ValueError("Expected `device_type` of type `str`, got: `" +
                              std::string(py::str(py::type::of(type))) + "`");
    device = type.cast<std::string>();
    EMBER_CHECK_AS(Error, available(device), "User specified an unsupported autocast device_type '", device, "'");
    autocast::State s = autocast::state(device_type(device));
    fast_dtype = dtype.value_or(s.dtype);
    cache_enabled = cache.value_or(s.cache_enabled);
    enabled = enabled_;
    const bool low = fast_dtype == kFloat16 || fast_dtype == kBFloat16;
    if (enabled && device == "cuda" && cuda::device_count() == 0) {
      warn("User provided device_type of 'cuda', but CUDA is not available. Disabling");
      enabled = false;
    }
    if (enabled && device == "cpu" && !low) {
      warn(
          "In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast only supports "
          "dtypes of ember.bfloat16, ember.float16 currently.");
      enabled = false;
    }
    EMBER_CHECK_AS(Error, !enabled || device != "cuda" || low,
                   "In CUDA autocast, but the target dtype is not supported; autocast on CUDA computes in "
                   "ember.float16 or ember.bfloat16, got ",
                   fast_dtype);
  }

  void enter() {
    DeviceType type = device_type(device);
    outer.push_back(autocast::state(type));
    autocast::set_state(type, autocast::State{enabled, fast_dtype, cache_enabled});
    autocast::increment_nesting();
  }
  void exit() {
    if (autocast::decrement_nesting() == 0) autocast::clear_cache();
    autocast::set_state(device_type(device), outer.back());
    outer.pop_back();
  }
};

// What @autocast(...) makes of a function: calls it inside the region; binds as a method does
// (__get__), and functools.update_wrapper gives it the function's name and doc.
struct AutocastWrapped {
  py::object region, fn;
};

}  // namespace

void bind_autocast(py::module_& m) {
  py::class_<AutocastWrapped>(m, "_AutocastWrapped", py::dynamic_attr())
      .def("__call__",
           [](const AutocastWrapped& w, const py::args& args, const py::kwargs& kwargs) {
             Autocast& region = w.region.cast<Autocast&>();
             region.enter();
             try {
               py::object out = w.fn(*args, **kwargs);
               region.exit();
               return out;
             } catch (...) {
               region.exit();
               throw;
             }
           })
      .def(
          "__get__",
          [](py::object self, py::object instance, py::object) -> py::object {
            if (instance.is_none()) return self;
            return py::module_::import("types").attr("MethodType")(self, instance);
          },
          py::arg("instance"), py::arg("owner") = py::none());
  py::class_<Autocast>(m, "autocast", R"doc(
`with ember.autocast(device_type="cpu", dtype=ember.bfloat16, enabled=use_amp):`, or as a decorator.
dtype defaults to the device type's (bfloat16 on "cpu", float16 on "cuda"); enabled=False makes a
region without autocast inside one with it; cache_enabled casts each float32 parameter once per
outermost region. As PyTorch's: "cuda" without a CUDA device, and a CPU dtype other than float16
or bfloat16, warn and disable autocast.)doc",
                       py::dynamic_attr())
      .def(py::init<py::handle, std::optional<DType>, bool, std::optional<bool>>(), py::arg("device_type"),
           py::arg("dtype") = py::none(), py::arg("enabled") = true, py::arg("cache_enabled") = py::none())
      .def_readonly("device", &Autocast::device)
      .def_readonly("fast_dtype", &Autocast::fast_dtype)
      .def_readonly("_enabled", &Autocast::enabled)
      .def_readonly("_cache_enabled", &Autocast::cache_enabled)
      .def("__enter__",
           [](py::object self) {
             self.cast<Autocast&>().enter();
             return self;
           })
      .def("__exit__", [](Autocast& a, const py::args&) { a.exit(); })
      .def(
          "__call__",
          [](py::object self, py::object fn) {
            py::object wrapped = py::cast(AutocastWrapped{self, fn});
            py::module_::import("functools").attr("update_wrapper")(wrapped, fn);
            return wrapped;
          },
          py::arg("fn"));

  m.def("is_autocast_available", &available, py::arg("device_type"),
        "True for \"cpu\" and \"cuda\", the device types Ember's autocast has lists for.");
  m.def(
      "is_autocast_enabled",
      [](std::optional<std::string> type) { return autocast::is_enabled(device_type(type.value_or("cuda"))); },
      py::arg("device_type") = py::none(),
      "Whether autocast is on for device_type on this thread (\"cuda\" when not given, as in PyTorch).");
  m.def(
      "set_autocast_enabled",
      [](py::handle type, py::handle enabled) {
        // set_autocast_enabled(device_type, enabled), or PyTorch's older set_autocast_enabled(enabled) for CUDA
        const bool old_form = enabled.is_none();
        DeviceType t = device_type(old_form ? "cuda" : type.cast<std::string>());
        autocast::State s = autocast::state(t);
        s.enabled = py::bool_(py::reinterpret_borrow<py::object>(old_form ? type : enabled));
        autocast::set_state(t, s);
      },
      py::arg("device_type"), py::arg("enabled") = py::none());
  m.def(
      "get_autocast_dtype", [](const std::string& type) { return autocast::state(device_type(type)).dtype; },
      py::arg("device_type"),
      "The 16-bit dtype autocast on device_type casts to (bfloat16 on \"cpu\", float16 on \"cuda\" by default).");
  m.def(
      "set_autocast_dtype",
      [](const std::string& type, DType dtype) {
        autocast::State s = autocast::state(device_type(type));
        s.dtype = dtype;
        autocast::set_state(device_type(type), s);
      },
      py::arg("device_type"), py::arg("dtype"));
  m.def("is_autocast_cache_enabled", [] { return autocast::state(DeviceType::CPU).cache_enabled; });
  m.def(
      "set_autocast_cache_enabled",
      [](bool enabled) {
        for (DeviceType t : {DeviceType::CPU, DeviceType::CUDA}) {
          autocast::State s = autocast::state(t);
          s.cache_enabled = enabled;
          autocast::set_state(t, s);
        }
      },
      py::arg("enabled"));
  m.def("clear_autocast_cache", &autocast::clear_cache);
  m.def("autocast_increment_nesting", &autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &autocast::decrement_nesting);
  m.def("is_autocast_cpu_enabled", [] { return autocast::is_enabled(DeviceType::CPU); });
  m.def("get_autocast_cpu_dtype", [] { return autocast::state(DeviceType::CPU).dtype; });
  m.def("get_autocast_gpu_dtype", [] { return autocast::state(DeviceType::CUDA).dtype; });

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
