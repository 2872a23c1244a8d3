// The Python protocol of Tensor beyond its ops: repr and str (PyTorch's printout, Tensor::str) and
// the print options, format(t, spec), pickling and copy.deepcopy, and PyTorch's argument forms of
// to, cuda, type_as, new_tensor and new_empty, the mT, real and imag properties, and torch's memory
// methods on a machine without page-locked memory (pin_memory, is_pinned, share_memory_, is_shared);
// apply_, map_ and map2_ (a Python callable per element, CPU tensors only, as torch's).
#include <pybind11/stl.h>

#include <cmath>
#include <string>

#include "bindings.h"
#include "ember/autograd/print_options.h"
#include "ember/core/backend.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;

// repr and str as method descriptors, as a built-in type's: pprint keys a dict by type(t).__repr__,
// which must be hashable (pybind11's own method objects are not).
PyObject* tensor_repr(PyObject* self, PyObject*) {
  try {
    return py::str(py::handle(self).cast<const Tensor&>().str()).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}
PyMethodDef repr_method{"__repr__", tensor_repr, METH_NOARGS, "PyTorch's printout of the tensor."};
PyMethodDef str_method{"__str__", tensor_repr, METH_NOARGS, "PyTorch's printout of the tensor."};

/// The device t.cuda(device) and Module.cuda(device) move to: cuda:0 for None, cuda:N for N, else the
/// CUDA device named.
Device cuda_target(const py::object& device) {
  if (device.is_none()) return Device::cuda(0);
  if (py::isinstance<py::int_>(device)) return Device::cuda(device.cast<int16_t>());
  const Device d = py::isinstance<Device>(device) ? device.cast<Device>() : Device(py::str(device).cast<std::string>());
  EMBER_CHECK(d.is_cuda(), "Invalid device, must be cuda device, got ", d);
  return d;
}

Device device_of(const py::handle& d) {
  if (py::isinstance<Device>(d)) return d.cast<Device>();
  if (py::isinstance<py::int_>(d) && !py::isinstance<py::bool_>(d)) return Device::cuda(d.cast<int16_t>());
  return Device(py::str(d).cast<std::string>());
}

// t.to(dtype), t.to(device, dtype), t.to(other), each with non_blocking and copy (positional after a
// dtype, or keywords) and memory_format: a host-to-device copy returns once staged anyway, and Ember
// tensors are strided.
Tensor to(const Tensor& t, const py::args& args, const py::kwargs& kwargs) {
  std::optional<Device> device;
  std::optional<DType> dtype;
  bool copy = false;
  int flags = 0;  // the positional bools seen: non_blocking, then copy
  for (const py::handle& a : args) {
    if (py::isinstance<DType>(a)) {
      dtype = a.cast<DType>();
    } else if (py::isinstance<Tensor>(a)) {
      const Tensor& other = a.cast<const Tensor&>();
      dtype = other.dtype();
      device = other.device();
    } else if (py::isinstance<py::bool_>(a)) {
      if (flags++ == 1) copy = a.cast<bool>();
    } else if (!a.is_none()) {
      device = device_of(a);
    }
  }
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    if (name == "device") {
      if (!value.is_none()) device = device_of(value);
    } else if (name == "dtype") {
      if (!value.is_none()) dtype = value.cast<DType>();
    } else if (name == "copy") {
      copy = value.cast<bool>();
    } else if (name != "non_blocking" && name != "memory_format") {
      throw TypeError("to() got an unexpected keyword argument '" + name + "'");
    }
  }
  Tensor out = t;
  if (dtype) out = out.to(*dtype);
  if (device) out = out.to(*device);
  return copy && out.is_same(t) ? out.clone() : out;
}

// Pickling: a tensor travels as its values (a NumPy array, whose protocol-5 pickling avoids a copy),
// its class (nn.Parameter or a subclass), requires_grad and its Python attributes; bfloat16 as
// float32, which holds every bfloat16 exactly. As PyTorch's, neither the gradient nor the graph.
py::dict python_attributes(const py::object& self) {
  py::dict out;
  if (!py::hasattr(self, "__dict__")) return out;
  for (const auto& [key, value] : py::dict(self.attr("__dict__")))
    if (py::str(key).cast<std::string>() != "_ember_names") out[key] = value;  // NB: names of modules, not ours
  return out;
}

py::tuple reduce_ex(const py::object& self, int /*protocol*/) {
  const Tensor& t = self.cast<const Tensor&>();
  Tensor values = t.detach();
  const bool bfloat16 = values.dtype() == kBFloat16;
  if (bfloat16) values = values.to(kFloat32);
  const py::dict state = python_attributes(self);
  py::object rebuild = py::module_::import("ember._C").attr("_rebuild_tensor");
  return py::make_tuple(rebuild,
                        py::make_tuple(py::type::of(self), py::cast(values).attr("numpy")("force"_a = true), bfloat16,
                                       t.requires_grad(), state.empty() ? py::object(py::none()) : py::object(state)));
}

// An instance of cls (Tensor or a subclass) holding t.
py::object as_instance(const py::object& cls, const Tensor& t, const py::object& tensor_type) {
  if (cls.is(tensor_type)) return py::cast(t);
  py::object obj = cls.attr("__new__")(cls);
  tensor_type.attr("__init__")(obj, t);  // NB: not cls.__init__, which may take other arguments
  return obj;
}

// The elements of t broadcast to `shape`, as a flat list of Python numbers.
py::list python_values(const Tensor& t, IntArrayRef shape) {
  return py::list(tolist(t.detach().expand(shape).contiguous().reshape({-1})));
}

// self's elements replaced by `values` (Python numbers, row-major), converted to self's dtype.
const py::object& write_values(const py::object& self, const py::list& values) {
  const Tensor& t = self.cast<const Tensor&>();
  py::module_ np = py::module_::import("numpy");
  py::object array = values.empty() ? np.attr("zeros")(shape_tuple(t.sizes()))
                                    : np.attr("array")(values).attr("reshape")(shape_tuple(t.sizes()));
  const Tensor v =
      py::module_::import("ember._C").attr("from_numpy")(np.attr("ascontiguousarray")(array)).cast<Tensor>();
  t.copy_(v.to(t.dtype()));
  return self;
}

// The checks apply_, map_ and map2_ share: a CPU tensor, and no operand that requires grad.
void check_elementwise_callable(const char* who, std::initializer_list<std::reference_wrapper<const Tensor>> tensors) {
  const Tensor& self = tensors.begin()->get();
  EMBER_CHECK_TYPE(self.device().is_cpu(), who, " is only implemented on CPU tensors");
  for (const Tensor& t : tensors)
    EMBER_CHECK(!t.requires_grad(), "Can't call ", who, " on Variable that requires grad. Use var.detach().", who,
                " instead.");
}

}  // namespace

void bind_tensor_protocol(py::module_& m) {
  auto cls = tensor_class(m);
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  cls.attr("__repr__") = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, &repr_method));
  cls.attr("__str__") = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, &str_method));
  m.def("set_printoptions", &set_print_options, py::arg("precision") = py::none(), py::arg("threshold") = py::none(),
        py::arg("edgeitems") = py::none(), py::arg("linewidth") = py::none(), py::arg("profile") = py::none(),
        py::arg("sci_mode") = py::none(),
        R"doc(How tensors print from now on (torch.set_printoptions): `profile` ("default", "short", "full")
sets the first four options, then each option given overrides it. sci_mode=None (also when left out)
lets each tensor choose its notation; True or False forces it.)doc");
  m.def(
      "get_printoptions",
      [] {
        const PrintOptions& o = print_options();
        py::object threshold = std::isinf(o.threshold) ? py::object(py::float_(o.threshold))
                                                       : py::object(py::int_(static_cast<int64_t>(o.threshold)));
        return py::dict("precision"_a = o.precision, "threshold"_a = threshold, "edgeitems"_a = o.edgeitems,
                        "linewidth"_a = o.linewidth, "sci_mode"_a = o.sci_mode);
      },
      "The print options as a dict, which set_printoptions(**options) restores.");

  cls.def("__format__", [](const py::object& self, const py::object& spec) -> py::object {
    // As PyTorch: a 0-d tensor formats as its number; any other only with an empty spec (str(t)).
    const Tensor& t = self.cast<const Tensor&>();
    if (t.dim() == 0) return item_of(t).attr("__format__")(spec);
    return py::module_::import("builtins").attr("object").attr("__format__")(self, spec);
  });
  cls.def("__reduce_ex__", &reduce_ex, py::arg("protocol"));
  m.def("_rebuild_tensor", [cls](const py::object& tensor_cls, py::object array, bool bfloat16, bool requires_grad,
                                 const py::object& state) {
    if (!array.attr("flags").attr("writeable").cast<bool>())
      array = py::module_::import("numpy").attr("array")(
          array);  // NB: from_numpy shares memory, and a tensor may be written
    Tensor t = py::module_::import("ember._C").attr("from_numpy")(array).cast<Tensor>();
    if (bfloat16) t = t.to(kBFloat16);
    py::object out = as_instance(tensor_cls, t, cls);
    if (requires_grad) out.cast<const Tensor&>().set_requires_grad(true);
    if (!state.is_none()) out.attr("__dict__").attr("update")(state);
    return out;
  });
  cls.def(
      "__deepcopy__",
      [cls](const py::object& self, const py::dict& memo) -> py::object {
        const Tensor& t = self.cast<const Tensor&>();
        EMBER_CHECK(t.is_leaf(),
                    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                    "protocol at the moment");
        const py::int_ id(reinterpret_cast<uintptr_t>(self.ptr()));
        if (memo.contains(id)) return memo[id];
        py::object copy = as_instance(py::type::of(self), t.detach().clone(), cls);
        memo[id] = copy;
        const Tensor& made = copy.cast<const Tensor&>();
        if (t.requires_grad()) made.set_requires_grad(true);
        py::module_ copy_module = py::module_::import("copy");
        if (t.grad().defined()) copy.attr("grad") = copy_module.attr("deepcopy")(self.attr("grad"), memo);
        const py::dict attributes = python_attributes(self);
        if (!attributes.empty()) copy.attr("__dict__").attr("update")(copy_module.attr("deepcopy")(attributes, memo));
        return copy;
      },
      py::arg("memo"));

  cls.def(
      "to", [](const Tensor& t, const py::args& args, const py::kwargs& kwargs) { return to(t, args, kwargs); },
      "A copy in another dtype and/or on another device (the tensor itself if already so; copy=True "
      "copies anyway): to(dtype), to(device, dtype), to(other).");
  m.def("_cuda_target", &cuda_target, py::arg("device") = py::none());
  cls.def(
      "cuda",
      [](const Tensor& t, const py::object& device, bool, const py::object&) {
        return t.to(cuda_target(device));  // without a GPU (or the backend) the copy raises "no CUDA device: ..."
      },
      py::arg("device") = py::none(), py::arg("non_blocking") = false, py::arg("memory_format") = py::none());
  cls.def(
      "type_as", [](const Tensor& t, const Tensor& other) { return t.to(other.dtype()).to(other.device()); },
      py::arg("other"), "self in other's dtype, on other's device.");
  cls.def(
      "new_tensor",
      [](const Tensor& t, const py::object& data, std::optional<DType> dtype, const py::object& device,
         bool requires_grad) {
        Tensor out =
            py::module_::import("ember").attr("tensor")(data, "dtype"_a = dtype.value_or(t.dtype())).cast<Tensor>();
        out = out.to(device.is_none() ? t.device() : device_of(device));
        if (requires_grad) out.set_requires_grad(true);
        return out;
      },
      py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false);
  cls.def(
      "new_empty",
      [](const Tensor& t, const py::args& size, std::optional<DType> dtype, const py::object& device,
         bool requires_grad) {
        const bool sequence = size.size() == 1 && !py::isinstance<py::int_>(size[0]);
        const std::vector<int64_t> shape = sequence ? size[0].cast<std::vector<int64_t>>() : size_args(size);
        return empty(shape, TensorOptions(dtype.value_or(t.dtype()))
                                .device(device.is_none() ? t.device() : device_of(device))
                                .requires_grad(requires_grad));
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false);
  cls.def_property_readonly(
      "mT",
      [](const Tensor& t) {
        EMBER_CHECK(t.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ", t.dim(),
                    "-D tensor.");
        return t.transpose(-2, -1);
      },
      "The last two dims swapped (a batch of matrices transposed).");
  // pin_memory raises without a CUDA device, as torch's (page-locked memory needs the driver); with one it
  // returns the tensor as it is: Ember has no page-locked allocator, and copies to the device work from
  // ordinary memory (is_pinned() stays False).
  cls.def(
      "is_pinned", [](const Tensor&, const py::object&) { return false; }, py::arg("device") = py::none(),
      "False: Ember never allocates page-locked memory.");
  cls.def(
      "pin_memory",
      [](const py::object& self, const py::object&) {
        const Tensor& t = self.cast<const Tensor&>();
        EMBER_CHECK(t.device().is_cpu(), "cannot pin '", t.device().type, "' tensor of ember.", t.dtype(),
                    ": only dense CPU tensors can be pinned");
        if (cuda::device_count() == 0)
          (void)empty({0}, TensorOptions().device(Device::cuda(0)));  // "no CUDA device: ..."
        return self;
      },
      py::arg("device") = py::none(), "The tensor itself where a CUDA device exists (raises without one, as torch's).");
  // share_memory_ marks the tensor shared; it does not move the storage: that matters only to DataLoader's
  // thread workers, which share this process's memory anyway. Process workers get a copy, as torch's do
  // for tensors not shared.
  cls.def(
      "share_memory_",
      [](const py::object& self) {
        self.attr("_ember_shared") = true;
        return self;
      },
      "Marks the tensor shared and returns it.");
  cls.def(
      "is_shared",
      [](const py::object& self) {
        return self.cast<const Tensor&>().device().is_cuda() ||
               py::bool_(py::getattr(self, "_ember_shared", py::bool_(false)));
      },
      "True after share_memory_() and for CUDA tensors, as in torch.");
  cls.def(
      "apply_",
      [](const py::object& self, const py::object& callable) -> py::object {
        const Tensor& t = self.cast<const Tensor&>();
        check_elementwise_callable("apply_()", {t});
        py::list out;
        for (const py::handle& v : python_values(t, t.sizes())) out.append(callable(v));
        return write_values(self, out);
      },
      py::arg("callable"), "In place: every element x becomes callable(x). Slow: CPU only.");
  cls.def(
      "map_",
      [](const py::object& self, const Tensor& tensor, const py::object& callable) -> py::object {
        const Tensor& t = self.cast<const Tensor&>();
        check_elementwise_callable("map_()", {t, tensor});
        const py::list xs = python_values(t, t.sizes()), ys = python_values(tensor, t.sizes());
        py::list out;
        for (size_t i = 0; i < xs.size(); ++i) out.append(callable(xs[i], ys[i]));
        return write_values(self, out);
      },
      py::arg("tensor"), py::arg("callable"),
      "In place: every element x becomes callable(x, y), y tensor's (broadcast) at its position. Slow: CPU only.");
  cls.def(
      "map2_",
      [](const py::object& self, const Tensor& x, const Tensor& y, const py::object& callable) -> py::object {
        const Tensor& t = self.cast<const Tensor&>();
        check_elementwise_callable("map2_()", {t, x, y});
        const py::list ss = python_values(t, t.sizes()), as = python_values(x, t.sizes()),
                       bs = python_values(y, t.sizes());
        py::list out;
        for (size_t i = 0; i < ss.size(); ++i) out.append(callable(ss[i], as[i], bs[i]));
        return write_values(self, out);
      },
      py::arg("x"), py::arg("y"), py::arg("callable"),
      "In place: every element s becomes callable(s, a, b), a and b x's and y's (broadcast). Slow: CPU only.");
  // torch's complex parts are properties: views of the complex tensor (t.real of a real t is t).
  cls.def_property_readonly("real", [](const Tensor& t) { return real(t); });
  cls.def_property_readonly("imag", [](const Tensor& t) { return imag(t); });
}

}  // namespace ember::python
