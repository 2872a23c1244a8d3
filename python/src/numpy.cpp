// NumPy interop without copies, both ways:
//   ember.from_numpy(a)  a tensor over the array's memory; the tensor keeps the array alive.
//   t.numpy()            an array over the tensor's memory; the array keeps the tensor alive.
//   memoryview(t)        the buffer protocol (so np.asarray(t) and others read it in place).
// Writes through either side are seen by the other. NB: writes made through NumPy do not bump the
// tensor's version counter, so autograd cannot detect them (as in PyTorch).
#include "bindings.h"

#include <pybind11/numpy.h>

#include <string>

#include "ember/core/factory.h"

namespace ember::python {
namespace {

// The NumPy dtype of an Ember dtype; bfloat16 has none.
py::dtype numpy_dtype(DType t, const char* op) {
  switch (t) {
    case kBool: return py::dtype("bool");
    case kUInt8: return py::dtype("uint8");
    case kInt8: return py::dtype("int8");
    case kInt16: return py::dtype("int16");
    case kInt32: return py::dtype("int32");
    case kInt64: return py::dtype("int64");
    case kFloat16: return py::dtype("float16");
    case kFloat32: return py::dtype("float32");
    case kFloat64: return py::dtype("float64");
    case kComplex64: return py::dtype("complex64");
    case kComplex128: return py::dtype("complex128");
    case kBFloat16: break;
  }
  throw ember::TypeError(std::string(op) +
                         ": bfloat16 has no NumPy dtype; convert first, e.g. t.float().numpy()");
}

// The buffer-protocol format character of an Ember dtype.
std::string buffer_format(DType t) {
  switch (t) {
    case kBool: return "?";
    case kUInt8: return "B";
    case kInt8: return "b";
    case kInt16: return py::format_descriptor<int16_t>::format();
    case kInt32: return py::format_descriptor<int32_t>::format();
    case kInt64: return py::format_descriptor<int64_t>::format();
    case kFloat16: return "e";
    case kFloat32: return "f";
    case kFloat64: return "d";
    case kComplex64: return "Zf";
    case kComplex128: return "Zd";
    case kBFloat16: break;
  }
  throw ember::TypeError("buffer: bfloat16 has no buffer format; convert first, e.g. t.float()");
}

DType ember_dtype(const py::dtype& d) {
  if (d.kind() == 'b' && d.itemsize() == 1) return kBool;
  if (d.kind() == 'u' && d.itemsize() == 1) return kUInt8;
  if (d.kind() == 'i' && d.itemsize() == 1) return kInt8;
  if (d.kind() == 'i' && d.itemsize() == 2) return kInt16;
  if (d.kind() == 'i' && d.itemsize() == 4) return kInt32;
  if (d.kind() == 'i' && d.itemsize() == 8) return kInt64;
  if (d.kind() == 'f' && d.itemsize() == 2) return kFloat16;
  if (d.kind() == 'f' && d.itemsize() == 4) return kFloat32;
  if (d.kind() == 'f' && d.itemsize() == 8) return kFloat64;
  if (d.kind() == 'c' && d.itemsize() == 8) return kComplex64;
  if (d.kind() == 'c' && d.itemsize() == 16) return kComplex128;
  throw ember::TypeError("from_numpy: can't convert an array of dtype " + std::string(py::str(d)) +
                         "; supported: bool, uint8, int8, int16, int32, int64, float16, float32, float64, "
                         "complex64, complex128");
}

void check_numpy_ok(const Tensor& t, const char* op) {
  EMBER_CHECK(t.device().is_cpu(), op, ": the tensor is on ", t.device(),
              "; copy it to the CPU first with .cpu()");
  EMBER_CHECK(!t.requires_grad(), "Can't call ", op,
              "() on Tensor that requires grad. Use tensor.detach().", op, "() instead.");
}

}  // namespace

Tensor from_numpy(const py::array& a) {
  DType dtype = ember_dtype(a.dtype());
  EMBER_CHECK_TYPE(a.dtype().byteorder() != '>', "from_numpy: big-endian arrays are not supported");
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  std::vector<int64_t> strides;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    py::ssize_t s = a.strides(i);
    EMBER_CHECK_VALUE(s >= 0, "from_numpy: at least one stride in the given array is negative; "
                      "copy it first with numpy.ascontiguousarray(a) (or use ember.tensor(a))");
    EMBER_CHECK_VALUE(s % a.itemsize() == 0,
                      "from_numpy: strides must be multiples of the element size, got ", s,
                      " bytes for ", a.itemsize(), "-byte elements");
    strides.push_back(s / a.itemsize());
  }
  // NB: the owner holds a reference to the array; the tensor may die on a thread without the GIL
  // (inside backward), so the deleter takes the GIL before releasing it.
  std::shared_ptr<void> owner(new py::object(a), [](void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(p);
  });
  return from_blob(const_cast<void*>(a.data()), shape, dtype, std::move(owner), strides);
}

void bind_numpy(py::module_& m) {
  m.def("from_numpy", [](const py::object& a) {
    EMBER_CHECK_TYPE(py::isinstance<py::array>(a), "from_numpy: expected a numpy.ndarray, got ",
                     std::string(py::str(py::type::of(a).attr("__name__"))));
    return from_numpy(py::reinterpret_borrow<py::array>(a));
  }, py::arg("array"), R"doc(
A tensor that shares the array's memory (no copy): writes to either are seen by the other, and the
tensor keeps the array alive. Supported dtypes: bool, uint8, int8, int16, int32, int64, float16,
float32, float64, complex64, complex128; negative strides are refused (copy with ember.tensor(a)
instead).)doc");

  auto cls = tensor_class(m);
  cls.def("numpy", [](const py::object& self, bool force) -> py::array {
    const Tensor& t = self.cast<const Tensor&>();
    if (force) {
      Tensor c = t.detach().to(Device()).clone();
      return py::array(numpy_dtype(c.dtype(), "numpy"), c.sizes().std_vec(),
                       std::vector<py::ssize_t>(), c.data_ptr(), py::cast(c));
    }
    check_numpy_ok(t, "numpy");
    std::vector<py::ssize_t> strides;
    for (int64_t s : t.strides()) strides.push_back(static_cast<py::ssize_t>(s * t.itemsize()));
    // NB: the array's base is the Python tensor object, which keeps the storage alive.
    return py::array(numpy_dtype(t.dtype(), "numpy"), t.sizes().std_vec(), strides, t.data_ptr(), self);
  }, py::arg("force") = false, R"doc(
The tensor's values as a NumPy array that shares its memory (no copy), for CPU tensors of any
layout: writes to either are seen by the other, and the array keeps the tensor alive. A tensor
that requires grad is refused (call .detach() first); bfloat16 has no NumPy dtype (TypeError:
convert with .float() first). force=True copies instead (detached, on the CPU).)doc");
  cls.def("__array__", [](const py::object& self, const py::object& dtype, const py::object& copy) {
    py::object arr = self.attr("numpy")();
    if (!dtype.is_none()) arr = arr.attr("astype")(dtype);
    if (!copy.is_none() && copy.cast<bool>()) arr = arr.attr("copy")();
    return arr;
  }, py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  cls.def_buffer([](const Tensor& t) {
    check_numpy_ok(t, "buffer");
    std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
    std::vector<py::ssize_t> strides;
    for (int64_t s : t.strides()) strides.push_back(static_cast<py::ssize_t>(s * t.itemsize()));
    return py::buffer_info(t.data_ptr(), static_cast<py::ssize_t>(t.itemsize()), buffer_format(t.dtype()),
                           t.dim(), shape, strides);
  });
}

}  // namespace ember::python
