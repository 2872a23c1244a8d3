// dtype objects (ember.float32, ...), devices (ember.device("cpu")) and the CUDA device queries.
#include "bindings.h"

#include <string>

#include "ember/core/backend.h"
#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/promotion.h"

namespace ember::python {

void bind_dtype(py::module_& m) {
  py::class_<DType>(m, "dtype", "An element type: ember.float32, ember.int64, ... (as torch.dtype)")
      .def_property_readonly("is_floating_point", [](DType t) { return is_floating(t); })
      .def_property_readonly("is_complex", [](DType t) { return is_complex(t); })
      .def_property_readonly("itemsize", [](DType t) { return itemsize(t); },
                             "Bytes per element.")
      .def("__repr__", [](DType t) { return "ember." + std::string(dtype_name(t)); })
      .def("__str__", [](DType t) { return "ember." + std::string(dtype_name(t)); })
      .def("__eq__", [](DType a, const py::object& b) {
        return py::isinstance<DType>(b) && a == b.cast<DType>();
      })
      .def("__hash__", [](DType t) { return static_cast<int>(t); })
      .def(py::pickle([](DType t) { return std::string(dtype_name(t)); },
                      [](const std::string& name) { return *dtype_from_name(name); }));
  for (DType t : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
                  kComplex64, kComplex128})
    m.attr(std::string(dtype_name(t)).c_str()) = py::cast(t);
  // PyTorch's aliases.
  m.attr("half") = py::cast(kFloat16);
  m.attr("float") = py::cast(kFloat32);
  m.attr("double") = py::cast(kFloat64);
  m.attr("short") = py::cast(kInt16);
  m.attr("int") = py::cast(kInt32);
  m.attr("long") = py::cast(kInt64);
  m.attr("cfloat") = py::cast(kComplex64);
  m.attr("cdouble") = py::cast(kComplex128);

  m.def("set_default_dtype", &set_default_dtype, py::arg("d"),
        "The dtype factories create and Python floats take (float32 by default; floating dtypes only).");
  m.def("get_default_dtype", &default_dtype, "The dtype factories create and Python floats take.");

  // Type promotion, as torch's functions of the same names.
  m.def("promote_types", &promote_types, py::arg("type1"), py::arg("type2"),
        "The smallest dtype both type1 and type2 convert to without losing their category.");
  m.def("result_type", py::overload_cast<const Tensor&, const Tensor&>(&result_type), py::arg("tensor1"),
        py::arg("tensor2"), "The dtype an arithmetic op of the two operands computes in.");
  m.def("result_type", py::overload_cast<const Tensor&, const Scalar&>(&result_type), py::arg("tensor1"),
        py::arg("tensor2"));
  m.def("result_type", [](const Scalar& a, const Tensor& b) { return result_type(b, a); }, py::arg("tensor1"),
        py::arg("tensor2"));
  m.def("can_cast", &can_cast, py::arg("from_"), py::arg("to"),
        "Whether a value of dtype from_ may be cast to `to` (PyTorch's rule).");

  py::class_<Device>(m, "device", "Where a tensor lives: ember.device('cpu'), ember.device('cuda:0')")
      .def(py::init([](const std::string& spec) { return Device(spec); }), py::arg("type"))
      .def(py::init([](const std::string& type, int index) {
             Device d(type);
             d.index = static_cast<int16_t>(index);
             return d;
           }),
           py::arg("type"), py::arg("index"))
      .def_property_readonly("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_property_readonly("index", [](const Device& d) -> py::object {
        if (d.is_cpu()) return py::none();
        return py::int_(d.index);
      })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) {
        return d.is_cpu() ? std::string("device(type='cpu')")
                          : "device(type='cuda', index=" + std::to_string(d.index) + ")";
      })
      .def("__eq__", [](const Device& a, const py::object& b) {
        if (py::isinstance<py::str>(b)) return a == Device(b.cast<std::string>());
        return py::isinstance<Device>(b) && a == b.cast<Device>();
      })
      .def("__hash__", [](const Device& d) { return static_cast<int>(d.type) * 1024 + d.index; });
  py::implicitly_convertible<py::str, Device>();

  // What ember.cuda (python/ember/cuda.py) asks; core's backend interface answers in every build
  // (core/backend.h), and device calls without a device raise "no CUDA device: ...".
  m.def("_cuda_backend_built", [] { return backend_built(DeviceType::CUDA); },
        "Whether this build has the CUDA backend.");
  m.def("_cuda_device_count", [] { return cuda::device_count(); }, "Usable CUDA devices (0 without one).");
  m.def("_cuda_synchronize", &cuda::synchronize, py::arg("index") = -1, py::call_guard<py::gil_scoped_release>(),
        "Waits for the kernels queued on cuda:index (-1: every device).");
  m.def("_cuda_empty_cache", &cuda::empty_cache, "Returns the CUDA allocator's cached blocks to the driver.");
  m.def("_cuda_get_device_name", &cuda::get_device_name, py::arg("index") = 0, "The name of cuda:index.");
  m.def("_cpu_memory_allocated", &cpu_memory_allocated, "Bytes held by live CPU storages (core/storage.h).");
  m.def("_cpu_max_memory_allocated", &cpu_max_memory_allocated, "The most _cpu_memory_allocated held since the reset.");
  m.def("_cpu_reset_peak_memory_stats", &reset_cpu_peak_memory, "Starts the peak over from what is held now.");
  m.def("_cuda_memory_allocated", &cuda::memory_allocated, py::arg("index") = 0,
        "Bytes held by live tensors on cuda:index.");
  m.def("_cuda_memory_reserved", &cuda::memory_reserved, py::arg("index") = 0,
        "Bytes the allocator holds on cuda:index (live and cached).");
  m.def("_cudnn_version", &cuda::cudnn_version, "cuDNN's version (cudnnGetVersion()).");
  m.def(
      "_cpu_capability",
      [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl"))
          return "AVX512";
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "AVX2" : "DEFAULT";
      },
      "The widest vector extension of this CPU that PyTorch's names cover: AVX512, AVX2 or DEFAULT.");
  m.def("_check_device", [](const Device& d, const std::string& what) { check_device(d, what); }, py::arg("device"),
        py::arg("what"), "Raises 'no CUDA device: <what> on <device>: ...' unless the device can be used.");
}

}  // namespace ember::python
