// Tensor.__getitem__ / __setitem__ with PyTorch's rules. Ints, slices (positive steps), None and
// Ellipsis make views (select, slice, unsqueeze), so t[1:, ::2] shares t's storage. Index tensors
// (int, or bool masks; lists and NumPy arrays become tensors) are "advanced" indices, handed to
// ember::index and Tensor::index_put_ (ops/advanced_index.h) on that view: a copy for reading, an
// in-place write for assignment, both differentiable (y[1:3] = v makes y depend on v, as in
// PyTorch). Ints select before advanced indexing (t[0, :, idx] has shape [n, len(idx)]).
#include <pybind11/complex.h>
#include <pybind11/numpy.h>

#include <string>

#include "bindings.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::python {
namespace {

// The basic part of an index applied: a view of the tensor, and the advanced part left for
// ember::index / index_put_ on that view (one entry per index position: undefined for a whole dim,
// an int index tensor, or a bool mask; ops/advanced_index.h).
struct Indexed {
  Tensor view;
  std::vector<Tensor> indices;
  bool advanced() const { return !indices.empty(); }
};

bool is_range(const py::handle& item) { return PyObject_TypeCheck(item.ptr(), &PyRange_Type); }

bool is_index_tensor(const py::handle& item) {
  if (py::isinstance<Tensor>(item) || py::isinstance<py::list>(item) || is_range(item)) return true;
  // NB: a NumPy integer scalar has an array interface too, but indexes as the int it is.
  if (PyIndex_Check(item.ptr()) && !py::isinstance<py::array>(item)) return false;
  return !py::isinstance<py::str>(item) && py::hasattr(item, "__array_interface__");
}

Tensor index_tensor(const py::handle& item) {
  if (py::isinstance<Tensor>(item)) return item.cast<Tensor>();
  py::object data = py::reinterpret_borrow<py::object>(item);
  if (is_range(item)) data = py::list(data);
  // NB: an empty list indexes nothing: int64, as in PyTorch, not the float32 of ember.tensor([]).
  if (py::isinstance<py::list>(data) && py::len(data) == 0)
    return ember::empty({0}, TensorOptions(kInt64));
  return py::module_::import("ember").attr("tensor")(data).cast<Tensor>();
}

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

Indexed apply_basic(const Tensor& self, const py::object& index) {
  std::vector<py::object> items;
  if (py::isinstance<py::tuple>(index)) {
    for (const py::handle& h : index) items.push_back(py::reinterpret_borrow<py::object>(h));
  } else {
    items.push_back(index);
  }
  // Index tensors are made once: lists and arrays become tensors here.
  std::vector<Tensor> tensors(items.size());
  int64_t used = 0, ellipses = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const py::object& item = items[i];
    if (item.is_none()) continue;
    if (item.ptr() == Py_Ellipsis) {
      ++ellipses;
      continue;
    }
    if (is_index_tensor(item)) {
      tensors[i] = index_tensor(item);
      used += is_mask(tensors[i]) ? tensors[i].dim() : 1;  // a 0-d mask adds a dim
    } else {
      ++used;
    }
  }
  EMBER_CHECK_INDEX(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  EMBER_CHECK_INDEX(used <= self.dim(), "too many indices for tensor of dimension ", self.dim());

  Indexed r{self, {}};
  int64_t dim = 0, covered = 0;  // dims of the view passed, and those the advanced entries cover
  auto add_advanced = [&](const Tensor& t) {
    for (; covered < dim; ++covered) r.indices.emplace_back();
    r.indices.push_back(t);
    int64_t n = is_mask(t) ? t.dim() : 1;
    dim += n;
    covered += n;
  };
  for (size_t i = 0; i < items.size(); ++i) {
    const py::object& item = items[i];
    PyObject* o = item.ptr();
    if (o == Py_Ellipsis) {
      dim += self.dim() - used;
    } else if (item.is_none()) {
      r.view = r.view.unsqueeze(dim++);
    } else if (tensors[i].defined()) {
      Tensor t = tensors[i];
      if (is_mask(t) && t.dim() == 0) {  // t[True] adds a dim of size 1, t[False] one of size 0
        r.view = r.view.unsqueeze(dim);
        t = t.reshape({1});
      }
      EMBER_CHECK_TYPE(!is_floating(t.dtype()),
                       "tensors used as indices must be long, int, byte or bool tensors, got ", t.dtype());
      add_advanced(t);
    } else if (PyBool_Check(o)) {
      throw ember::TypeError("indexing with a Python bool is not supported; use a bool tensor");
    } else if (PyIndex_Check(o)) {
      r.view = r.view.select(dim, item.cast<int64_t>());
    } else if (PySlice_Check(o)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw py::error_already_set();
      EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
      int64_t size = r.view.size(dim);
      PySlice_AdjustIndices(size, &start, &stop, step);
      stop = std::max(start, static_cast<Py_ssize_t>(stop));
      r.view = r.view.slice(dim, start, stop, step);
      ++dim;
    } else {
      throw ember::TypeError(
          "only integers, slices (`:`), ellipsis (`...`), None and long or byte tensors are valid "
          "indices (got " + std::string(py::str(py::type::of(item).attr("__name__"))) + ")");
    }
  }
  return r;
}

Tensor getitem(const Tensor& self, const py::object& index) {
  Indexed ix = apply_basic(self, index);
  return ix.advanced() ? ember::index(ix.view, ix.indices) : ix.view;
}

// value without its leading size-1 dims: as PyTorch, t[i] = v takes a v with more dims than t[i]
// where the extra leading ones have size 1 (broadcasting would add them back anyway).
Tensor without_leading_ones(Tensor v) {
  while (v.dim() > 0 && v.size(0) == 1) v = v.squeeze(0);
  return v;
}

void setitem(const Tensor& self, const py::object& index, const py::object& value_in) {
  py::object value = value_in;
  if (PyComplex_Check(value.ptr())) {
    // A Python complex number is written as a 0-d tensor of self's complex dtype.
    EMBER_CHECK_TYPE(is_complex(self.dtype()), "setitem: a complex value cannot be written into a ", self.dtype(),
                     " tensor");
    value = py::cast(complex_number(value.cast<std::complex<double>>(), self));
  }
  bool scalar = !py::isinstance<Tensor>(value) && !is_index_tensor(value);
  if (scalar && py::isinstance<Tensor>(index)) {
    // t[mask] = value with a mask of t's shape (x[x < 0] = 0): one masked_fill, no gather.
    Tensor mask = index.cast<Tensor>();
    if (mask.dtype() == kBool && mask.sizes() == self.sizes()) {
      self.copy_(masked_fill(self, mask, value.cast<Scalar>()));
      return;
    }
  }
  Indexed ix = apply_basic(self, index);
  if (!ix.advanced()) {
    if (scalar) {
      ix.view.fill_(value.cast<Scalar>());
    } else {
      // NB: broadcast to the view first, as PyTorch's setitem does: an expanded source repeats its
      // elements, so one that shares memory with the view (x[0:2] = x[1]) is read before the write
      // instead of being refused as a partial overlap (which copy_ itself still refuses).
      Tensor v = without_leading_ones(index_tensor(value));
      if (v.sizes() != ix.view.sizes()) {
        bool fits = v.dim() <= ix.view.dim();
        for (int64_t i = 1; fits && i <= v.dim(); ++i) fits = v.size(-i) == ix.view.size(-i) || v.size(-i) == 1;
        EMBER_CHECK_VALUE(fits, "setitem: shape mismatch: value tensor of shape ", v.sizes(),
                          " cannot be broadcast to indexing result of shape ", ix.view.sizes());
        v = v.expand(ix.view.sizes());
      }
      ix.view.copy_(v);
    }
    return;
  }
  Tensor v = scalar ? scalar_tensor(value.cast<Scalar>(), ix.view.options()) : without_leading_ones(index_tensor(value));
  // NB: setitem converts the values, as PyTorch's; index_put_ itself requires the tensor's dtype
  ix.view.index_put_(ix.indices, v.dtype() == ix.view.dtype() ? v : v.to(ix.view.dtype()));
}

}  // namespace

void bind_indexing(py::module_& m) {
  auto cls = tensor_class(m);
  cls.def("__getitem__", &getitem, py::arg("index"), R"doc(
t[1], t[:, 1:3], t[::2], t[None], t[..., 0], t[mask], t[index_tensor], t[[0, 2]]. Ints, slices,
None and ... give views sharing storage; bool masks and index tensors give copies.)doc");
  cls.def("__setitem__", [](const Tensor& self, const py::object& index, const py::object& value) {
    setitem(self, index, value);
  }, py::arg("index"), py::arg("value"), R"doc(
t[i] = 0, t[:, 1:] = other (broadcast), t[mask] = 0.0, t[idx] = values: writes in place.)doc");
}

}  // namespace ember::python
