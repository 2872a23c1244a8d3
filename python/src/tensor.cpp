// The Tensor class: metadata, Python number conversions, operators (Python numbers on either
// side), in-place ops, repr and the shared argument helpers of bindings.h.
#include "bindings.h"

#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <string>

#include "ember/autograd/node.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace pybind11::detail {

bool type_caster<ember::Scalar>::load(handle src, bool convert) {
  PyObject* o = src.ptr();
  // NB: a complex number (NumPy's complex128 is one) is no Scalar: its __float__ would drop the
  // imaginary part. The operators take it as a 0-d complex tensor (complex_number below).
  if (PyComplex_Check(o)) return false;
  if (PyBool_Check(o)) {
    value = ember::Scalar(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = ember::Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(o)) {
    value = ember::Scalar(PyFloat_AsDouble(o));
    return true;
  }
  if (!convert || isinstance<ember::Tensor>(src)) return false;
  // NumPy scalars: numpy.bool_, integers (they have __index__) and floats (__float__).
  std::string type = Py_TYPE(o)->tp_name;
  if (type == "numpy.bool" || type == "numpy.bool_") {
    value = ember::Scalar(PyObject_IsTrue(o) == 1);
    return true;
  }
  if (PyIndex_Check(o)) {
    long long v = PyLong_AsLongLong(object(reinterpret_steal<object>(PyNumber_Index(o))).ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = ember::Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float &&
      type.rfind("numpy.", 0) == 0) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = ember::Scalar(v);
    return true;
  }
  return false;
}

}  // namespace pybind11::detail

namespace ember::python {

Tensor complex_number(std::complex<double> value, const Tensor& like) {
  const bool wide = like.dtype() == kFloat64 || like.dtype() == kComplex128;
  const Tensor t = tensor(std::vector<std::complex<double>>{value}, {}, TensorOptions(kComplex128));
  return t.to(wide ? kComplex128 : kComplex64).to(like.device());
}

py::class_<Tensor> tensor_class(py::module_& m) {
  return py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
}

std::vector<int64_t> size_args(const py::args& args) {
  if (args.size() == 1 && !PyIndex_Check(args[0].ptr()))
    return args[0].cast<std::vector<int64_t>>();
  std::vector<int64_t> sizes;
  for (const py::handle& a : args) sizes.push_back(a.cast<int64_t>());
  return sizes;
}

std::vector<int64_t> dims_arg(const py::handle& dim) {
  if (dim.is_none()) return {};
  if (PyIndex_Check(dim.ptr())) return {dim.cast<int64_t>()};
  return dim.cast<std::vector<int64_t>>();
}

std::optional<std::vector<int64_t>> optional_dims_arg(const py::handle& dim) {
  if (dim.is_none()) return std::nullopt;
  return dims_arg(dim);
}

Tensor as_tensor_like(const py::handle& value, const Tensor& like) {
  if (py::isinstance<Tensor>(value)) return value.cast<Tensor>();
  return wrap_scalar(value.cast<Scalar>(), like);
}

py::object item_of(const Tensor& t) {
  if (t.dtype() == kBool) return py::bool_(t.item<bool>());
  if (t.is_complex()) return py::cast(t.item<std::complex<double>>());
  if (is_floating(t.dtype())) return py::float_(t.item<double>());
  return py::int_(t.item<int64_t>());
}

py::object tolist(const Tensor& t) {
  const DType as = t.is_complex() ? kComplex128
                   : is_floating(t.dtype()) ? kFloat64 : (t.dtype() == kBool ? kBool : kInt64);
  Tensor c = copy_as(t, as, Device());
  auto one = [&](int64_t i) -> py::object {
    if (c.dtype() == kComplex128) return py::cast(c.data_ptr<std::complex<double>>()[i]);
    if (c.dtype() == kFloat64) return py::float_(c.data_ptr<double>()[i]);
    if (c.dtype() == kBool) return py::bool_(c.data_ptr<bool>()[i]);
    return py::int_(c.data_ptr<int64_t>()[i]);
  };
  if (c.dim() == 0) return one(0);
  DimVector strides = contiguous_strides(c.sizes());
  auto rec = [&](auto&& self, int64_t dim, int64_t base) -> py::object {
    py::list out;
    for (int64_t i = 0; i < c.sizes()[dim]; ++i)
      out.append(dim + 1 == c.dim() ? one(base + i) : self(self, dim + 1, base + i * strides[dim]));
    return out;
  };
  return rec(rec, 0, 0);
}

py::tuple shape_tuple(IntArrayRef sizes) {
  py::tuple out(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) out[i] = py::int_(sizes[i]);
  return out;
}

// other * alpha of two Python numbers, as Python computes it: integers stay integers.
static Scalar times(Scalar other, Scalar alpha) {
  if (other.is_floating() || alpha.is_floating()) return Scalar(other.to_double() * alpha.to_double());
  return Scalar(other.to<int64_t>() * alpha.to<int64_t>());
}

void bind_tensor(py::module_& m) {
  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol(), py::dynamic_attr(), R"doc(
A multi-dimensional array with autograd, as torch.Tensor. Make one with ember.tensor(data),
ember.zeros(2, 3), ember.from_numpy(array), ...; a tensor is one Python object (t.grad is t.grad;
Python attributes set on it stay), and views (reshape, transpose, indexing with ints and slices)
share its storage.)doc");

  // ---- metadata
  cls.def_property_readonly("shape", [](const Tensor& t) { return shape_tuple(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
            if (dim) return py::int_(t.size(*dim));
            return shape_tuple(t.sizes());
          },
          py::arg("dim") = py::none(), "The shape as a tuple, or the size of one dim.")
      .def(
          "stride",
          [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
            if (dim) return py::int_(t.stride(*dim));
            return shape_tuple(t.strides());
          },
          py::arg("dim") = py::none(), "Strides in elements.")
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device().is_cuda(); })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); });
  // The probes of devices and layouts Ember does not have, as scripts test them (x.is_mps, ...).
  for (const char* name : {"is_xpu", "is_mps", "is_meta", "is_ipu", "is_xla", "is_hpu", "is_maia", "is_mtia",
                           "is_vulkan", "is_mkldnn", "is_nested", "is_quantized", "is_sparse", "is_sparse_csr"})
    cls.def_property_readonly(name, [](const Tensor&) { return false; });
  cls.def("element_size", &Tensor::itemsize)
      .def_property_readonly("itemsize", &Tensor::itemsize)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("is_complex", &Tensor::is_complex)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("_is_same", &Tensor::is_same, "True when both are the same tensor (not merely equal).")
      .def_property_readonly("_version", &Tensor::version,
                             "The in-place write counter of the tensor's storage (shared with its views).")
      .def_property_readonly(
          "T",
          [](const Tensor& t) {
            std::vector<int64_t> dims;
            for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
            return t.permute(dims);
          },
          "The dims reversed (the transpose of a matrix).");

  // ---- Python values
  cls.def("item", &item_of, "The value of a one-element tensor as a Python number.")
      .def("tolist", &tolist, "The values as nested Python lists (a number for a 0-d tensor).")
      .def("__len__", [](const Tensor& t) {
        if (t.dim() == 0) throw ember::TypeError("len() of a 0-d tensor");
        return t.size(0);
      })
      .def("__iter__", [](const Tensor& t) {
        if (t.dim() == 0) throw ember::TypeError("iteration over a 0-d tensor");
        py::list rows;
        for (int64_t i = 0; i < t.size(0); ++i) rows.append(t.select(0, i));
        return py::iter(rows);
      })
      .def("__bool__", [](const Tensor& t) {
        EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
        return t.item<double>() != 0;
      })
      .def("__float__", [](const Tensor& t) { return t.item<double>(); })
      .def("__int__", [](const Tensor& t) { return t.item<int64_t>(); })
      .def("__index__", [](const Tensor& t) {
        EMBER_CHECK_TYPE(!is_floating(t.dtype()) && t.dtype() != kBool && t.numel() == 1,
                         "only integer tensors of a single element can be converted to an index");
        return t.item<int64_t>();
      });

  // ---- conversions
  cls.def(
         "type",
         [](const Tensor& t, std::optional<DType> dtype) -> py::object {
           if (dtype) return py::cast(t.to(*dtype));
           return py::str("ember." + std::string(dtype_name(t.dtype())));
         },
         py::arg("dtype") = py::none())
      .def("float", [](const Tensor& t) { return t.to(kFloat32); })
      .def("double", [](const Tensor& t) { return t.to(kFloat64); })
      .def("half", [](const Tensor& t) { return t.to(kFloat16); })
      .def("bfloat16", [](const Tensor& t) { return t.to(kBFloat16); })
      .def("long", [](const Tensor& t) { return t.to(kInt64); })
      .def("int", [](const Tensor& t) { return t.to(kInt32); })
      .def("bool", [](const Tensor& t) { return t.to(kBool); })
      .def("byte", [](const Tensor& t) { return t.to(kUInt8); })
      .def("char", [](const Tensor& t) { return t.to(kInt8); })
      .def("short", [](const Tensor& t) { return t.to(kInt16); })
      .def("cfloat", [](const Tensor& t) { return t.to(kComplex64); })
      .def("cdouble", [](const Tensor& t) { return t.to(kComplex128); })
      .def("cpu", [](const Tensor& t) { return t.to(Device()); })
      .def("new_zeros", [](const Tensor& t, const py::args& size) { return zeros(size_args(size), t.options()); })
      .def("new_ones", [](const Tensor& t, const py::args& size) { return ones(size_args(size), t.options()); })
      .def(
          "new_full",
          [](const Tensor& t, const std::vector<int64_t>& size, Scalar value) {
            return full(size, value, t.options());
          },
          py::arg("size"), py::arg("fill_value"));

  // ---- operators; a Python number on either side becomes a 0-d tensor of the promoted dtype
  cls.def("__add__", [](const Tensor& a, const Tensor& b) { return a + b; }, py::is_operator())
      .def("__add__", [](const Tensor& a, Scalar b) { return a + b; }, py::is_operator())
      .def("__radd__", [](const Tensor& a, Scalar b) { return b + a; }, py::is_operator())
      .def("__sub__", [](const Tensor& a, const Tensor& b) { return a - b; }, py::is_operator())
      .def("__sub__", [](const Tensor& a, Scalar b) { return a - b; }, py::is_operator())
      .def("__rsub__", [](const Tensor& a, Scalar b) { return b - a; }, py::is_operator())
      .def("__mul__", [](const Tensor& a, const Tensor& b) { return a * b; }, py::is_operator())
      .def("__mul__", [](const Tensor& a, Scalar b) { return a * b; }, py::is_operator())
      .def("__rmul__", [](const Tensor& a, Scalar b) { return b * a; }, py::is_operator())
      .def("__truediv__", [](const Tensor& a, const Tensor& b) { return a / b; }, py::is_operator())
      .def("__truediv__", [](const Tensor& a, Scalar b) { return a / b; }, py::is_operator())
      // NB: PyTorch's Tensor.__rtruediv__ is reciprocal() * other: its rounding, and 0 / -5e-324 = 0 * -inf = NaN
      .def("__rtruediv__", [](const Tensor& a, Scalar b) { return reciprocal(a) * b; }, py::is_operator())
      .def("__pow__", [](const Tensor& a, const Tensor& b) { return a.pow(b); }, py::is_operator())
      .def("__pow__", [](const Tensor& a, Scalar b) { return a.pow(b); }, py::is_operator())
      .def("__rpow__", [](const Tensor& a, Scalar b) { return pow(b, a); }, py::is_operator())
      .def("__mod__", [](const Tensor& a, const Tensor& b) { return a % b; }, py::is_operator())
      .def("__mod__", [](const Tensor& a, Scalar b) { return a % b; }, py::is_operator())
      .def("__rmod__", [](const Tensor& a, Scalar b) { return b % a; }, py::is_operator())
      .def("__matmul__", &ember::matmul, py::is_operator(),
           py::call_guard<py::gil_scoped_release>())
      .def("__neg__", [](const Tensor& a) { return -a; })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def("__abs__", [](const Tensor& a) { return a.abs(); })
      // The bitwise ops (integer and bool tensors; on bool, & | ^ ~ are the logical ops).
      .def("__invert__", [](const Tensor& a) { return ~a; })
      .def("__and__", [](const Tensor& a, const Tensor& b) { return a & b; }, py::is_operator())
      .def("__and__", [](const Tensor& a, Scalar b) { return a & b; }, py::is_operator())
      .def("__rand__", [](const Tensor& a, Scalar b) { return a & b; }, py::is_operator())
      .def("__or__", [](const Tensor& a, const Tensor& b) { return a | b; }, py::is_operator())
      .def("__or__", [](const Tensor& a, Scalar b) { return a | b; }, py::is_operator())
      .def("__ror__", [](const Tensor& a, Scalar b) { return a | b; }, py::is_operator())
      .def("__xor__", [](const Tensor& a, const Tensor& b) { return a ^ b; }, py::is_operator())
      .def("__xor__", [](const Tensor& a, Scalar b) { return a ^ b; }, py::is_operator())
      .def("__rxor__", [](const Tensor& a, Scalar b) { return a ^ b; }, py::is_operator())
      .def("__lshift__", [](const Tensor& a, const Tensor& b) { return a << b; }, py::is_operator())
      .def("__lshift__", [](const Tensor& a, Scalar b) { return a << b; }, py::is_operator())
      .def("__rlshift__", [](const Tensor& a, Scalar b) { return wrap_scalar(b, a) << a; }, py::is_operator())
      .def("__rshift__", [](const Tensor& a, const Tensor& b) { return a >> b; }, py::is_operator())
      .def("__rshift__", [](const Tensor& a, Scalar b) { return a >> b; }, py::is_operator())
      .def("__rrshift__", [](const Tensor& a, Scalar b) { return wrap_scalar(b, a) >> a; }, py::is_operator());
  // A Python complex number becomes a 0-d complex tensor (complex_number): z * 1j, 2j - t, x / (1 + 1j).
  // NB: after the Scalar overloads, so that a NumPy float (or a one-element array) stays a Scalar.
  using Complex = std::complex<double>;
  cls.def(
         "__add__", [](const Tensor& a, Complex b) { return a + complex_number(b, a); }, py::is_operator())
      .def(
          "__radd__", [](const Tensor& a, Complex b) { return complex_number(b, a) + a; }, py::is_operator())
      .def(
          "__sub__", [](const Tensor& a, Complex b) { return a - complex_number(b, a); }, py::is_operator())
      .def(
          "__rsub__", [](const Tensor& a, Complex b) { return complex_number(b, a) - a; }, py::is_operator())
      .def(
          "__mul__", [](const Tensor& a, Complex b) { return a * complex_number(b, a); }, py::is_operator())
      .def(
          "__rmul__", [](const Tensor& a, Complex b) { return complex_number(b, a) * a; }, py::is_operator())
      .def(
          "__truediv__", [](const Tensor& a, Complex b) { return a / complex_number(b, a); }, py::is_operator())
      .def(
          "__rtruediv__", [](const Tensor& a, Complex b) { return complex_number(b, a) / a; }, py::is_operator());
  // Comparisons give bool tensors.
#define EMBER_COMPARISON(pyname, op)                                                         \
  cls.def(pyname, [](const Tensor& a, const Tensor& b) { return a op b; }, py::is_operator()) \
      .def(pyname, [](const Tensor& a, Scalar b) { return a op b; }, py::is_operator());
  EMBER_COMPARISON("__eq__", ==)
  EMBER_COMPARISON("__ne__", !=)
  EMBER_COMPARISON("__lt__", <)
  EMBER_COMPARISON("__le__", <=)
  EMBER_COMPARISON("__gt__", >)
  EMBER_COMPARISON("__ge__", >=)
#undef EMBER_COMPARISON
  cls.def(
         "__eq__", [](const Tensor& a, Complex b) { return a == complex_number(b, a); }, py::is_operator())
      .def(
          "__ne__", [](const Tensor& a, Complex b) { return a != complex_number(b, a); }, py::is_operator());

  // ---- in-place ops: they write through every view and return the tensor itself
#define EMBER_INPLACE_BINARY(name, pyname)                                                            \
  {                                                                                                   \
    auto write = [](const py::object& self, const py::object& other) {                                \
      const Tensor& t = self.cast<const Tensor&>();                                                   \
      if (py::isinstance<Tensor>(other))                                                              \
        t.name(other.cast<Tensor>());                                                                 \
      else if (PyComplex_Check(other.ptr()))                                                          \
        t.name(complex_number(other.cast<std::complex<double>>(), t));                                \
      else                                                                                            \
        t.name(other.cast<Scalar>());                                                                 \
      return self;                                                                                    \
    };                                                                                                \
    cls.def(#name, write, py::arg("other"));                                                          \
    cls.def(pyname, write, py::is_operator());                                                        \
  }
  EMBER_INPLACE_BINARY(add_, "__iadd__")
  EMBER_INPLACE_BINARY(sub_, "__isub__")
  // NB: alpha goes to C++, which scales other in the dtype self and other compute in (ops/inplace.cpp); a
  // one-element tensor alpha is its number, as PyTorch's Scalar conversion takes it (L-BFGS passes one)
  auto scalar_of = [](const py::object& alpha) {
    return py::isinstance<Tensor>(alpha) ? item_of(alpha.cast<Tensor>()).cast<Scalar>() : alpha.cast<Scalar>();
  };
  auto with_alpha = [&](const char* name, auto by_tensor, auto by_number) {
    cls.def(
        name,
        [=](const py::object& self, const Tensor& other, const py::object& alpha) {
          by_tensor(self.cast<const Tensor&>(), other, scalar_of(alpha));
          return self;
        },
        py::arg("other"), py::kw_only(), py::arg("alpha"));
    cls.def(
        name,
        [=](const py::object& self, Scalar other, const py::object& alpha) {
          by_number(self.cast<const Tensor&>(), times(other, scalar_of(alpha)));
          return self;
        },
        py::arg("other"), py::kw_only(), py::arg("alpha"));
  };
  with_alpha(
      "add_", [](const Tensor& t, const Tensor& other, Scalar alpha) { t.add_(other, alpha); },
      [](const Tensor& t, Scalar other) { t.add_(other); });
  with_alpha(
      "sub_", [](const Tensor& t, const Tensor& other, Scalar alpha) { t.sub_(other, alpha); },
      [](const Tensor& t, Scalar other) { t.sub_(other); });
  EMBER_INPLACE_BINARY(mul_, "__imul__")
  EMBER_INPLACE_BINARY(div_, "__itruediv__")
#undef EMBER_INPLACE_BINARY
  // div_ with a rounding_mode: div's result written back, which self's dtype must hold (PyTorch's rule)
  cls.def(
      "div_",
      [](const py::object& self, const py::object& other, const std::optional<std::string>& rounding_mode) {
        const Tensor& t = self.cast<const Tensor&>();
        const auto mode = optional_view(rounding_mode);
        const Tensor result =
            py::isinstance<Tensor>(other) ? div(t, other.cast<Tensor>(), mode) : div(t, other.cast<Scalar>(), mode);
        EMBER_CHECK(can_cast(result.dtype(), t.dtype()), "result type ", torch_type_name(result.dtype()),
                    " can't be cast to the desired output type ", torch_type_name(t.dtype()));
        t.copy_(result);
        return self;
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode"));
  cls.def(
      "__floordiv__",
      [](const Tensor& a, const py::object& b) {
        return py::isinstance<Tensor>(b) ? floor_divide(a, b.cast<Tensor>()) : floor_divide(a, b.cast<Scalar>());
      },
      py::is_operator());
  cls.def(
      "__rfloordiv__", [](const Tensor& a, Scalar b) { return floor_divide(b, a); }, py::is_operator());
  cls.def(
      "__ifloordiv__",
      [](const py::object& self, const py::object& other) {
        const Tensor& t = self.cast<const Tensor&>();
        t.copy_(py::isinstance<Tensor>(other) ? floor_divide(t, other.cast<Tensor>())
                                              : floor_divide(t, other.cast<Scalar>()));
        return self;
      },
      py::is_operator());
  cls.def("zero_", [](const py::object& self) {
    self.cast<const Tensor&>().zero_();
    return self;
  });
  cls.def("fill_", [](const py::object& self, const py::object& v) {
    const Tensor& t = self.cast<const Tensor&>();
    if (py::isinstance<Tensor>(v)) {
      // A one-element tensor value is copied (its gradient flows), as PyTorch's fill_ does.
      const Tensor& value = v.cast<const Tensor&>();
      EMBER_CHECK_VALUE(value.dim() == 0, "fill_: only supports a 0-dimensional value tensor, but got a tensor with ",
                        value.dim(), " dimension(s)");
      t.copy_(value);
    } else {
      t.fill_(v.cast<Scalar>());
    }
    return self;
  }, py::arg("value"));
  cls.def("copy_", [](const py::object& self, const Tensor& src) {
    self.cast<const Tensor&>().copy_(src);
    return self;
  }, py::arg("src"));
  cls.def("copy_", [](const py::object& self, Scalar src) {  // a Python number, as PyTorch converts it
    self.cast<const Tensor&>().fill_(src);
    return self;
  }, py::arg("src"));
  // In-place view ops, detach_ and resize_: the same Python object comes back, changed.
  cls.def("t_", [](const py::object& self) {
    self.cast<const Tensor&>().t_();
    return self;
  });
  for (const char* name : {"transpose_", "swapdims_", "swapaxes_"})
    cls.def(name, [](const py::object& self, int64_t dim0, int64_t dim1) {
      self.cast<const Tensor&>().transpose_(dim0, dim1);
      return self;
    }, py::arg("dim0"), py::arg("dim1"));
  cls.def("unsqueeze_", [](const py::object& self, int64_t dim) {
    self.cast<const Tensor&>().unsqueeze_(dim);
    return self;
  }, py::arg("dim"));
  cls.def("squeeze_", [](const py::object& self, std::optional<int64_t> dim) {
    self.cast<const Tensor&>().squeeze_(dim);
    return self;
  }, py::arg("dim") = py::none());
  cls.def("detach_", [](const py::object& self) {
    self.cast<const Tensor&>().detach_();
    return self;
  }, "Cuts the tensor from the graph in place: a leaf that needs no gradient.");
  cls.def("resize_", [](const py::object& self, const py::args& sizes) {
    self.cast<const Tensor&>().resize_(size_args(sizes));
    return self;
  }, "Gives the tensor a new shape (contiguous), keeping its elements in order; grows its storage if needed.");
  cls.def("resize_as_", [](const py::object& self, const Tensor& other) {
    self.cast<const Tensor&>().resize_(other.sizes());
    return self;
  }, py::arg("other"));
  cls.def("clamp_", [](const py::object& self, std::optional<Scalar> min, std::optional<Scalar> max) {
    self.cast<const Tensor&>().clamp_(min, max);
    return self;
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
}

}  // namespace ember::python
