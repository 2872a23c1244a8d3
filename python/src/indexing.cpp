// Tensor.__getitem__ / __setitem__ with PyTorch's rules. Ints, slices (positive steps), None and
// Ellipsis make views (select, slice, unsqueeze), so t[1:, ::2] shares t's storage. Index tensors
// (int, or bool masks; lists and NumPy arrays become tensors) are "advanced" indices: they are
// broadcast together, and t[idx] gathers with index_select, a copy that stays differentiable. As
// in PyTorch the gathered dims replace the indexed ones where the index tensors are adjacent, and
// go first otherwise; ints select before advanced indexing (t[0, :, idx] has shape [n, len(idx)]).
#include "bindings.h"

#include <pybind11/numpy.h>

#include <string>

#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::python {
namespace {

// The result of the basic part of an index: a view of the tensor, and the advanced indices left
// to apply to it (dims of that view, each with an int64 index tensor).
struct Indexed {
  Tensor view;
  std::vector<int64_t> dims;
  std::vector<Tensor> indices;
};

bool is_index_tensor(const py::handle& item) {
  return py::isinstance<Tensor>(item) || py::isinstance<py::list>(item) ||
         (!py::isinstance<py::str>(item) && py::hasattr(item, "__array_interface__"));
}

Tensor index_tensor(const py::handle& item) {
  if (py::isinstance<Tensor>(item)) return item.cast<Tensor>();
  return py::module_::import("ember").attr("tensor")(item).cast<Tensor>();
}

// Dims of the tensor an item consumes (None and Ellipsis consume none).
int64_t consumed(const py::handle& item) {
  if (item.is_none() || item.ptr() == Py_Ellipsis) return 0;
  if (is_index_tensor(item)) {
    Tensor t = index_tensor(item);
    return (t.dtype() == kBool || t.dtype() == kUInt8) ? t.dim() : 1;  // a 0-d mask adds a dim
  }
  return 1;
}

Indexed apply_basic(const Tensor& self, const py::object& index) {
  std::vector<py::object> items;
  if (py::isinstance<py::tuple>(index)) {
    for (const py::handle& h : index) items.push_back(py::reinterpret_borrow<py::object>(h));
  } else {
    items.push_back(index);
  }
  int64_t used = 0, ellipses = 0;
  for (const auto& item : items) {
    used += consumed(item);
    ellipses += item.ptr() == Py_Ellipsis;
  }
  EMBER_CHECK_INDEX(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  EMBER_CHECK_INDEX(used <= self.dim(), "too many indices for tensor of dimension ", self.dim());

  Indexed r{self, {}, {}};
  int64_t dim = 0;
  for (const auto& item : items) {
    PyObject* o = item.ptr();
    if (o == Py_Ellipsis) {
      dim += self.dim() - used;
    } else if (item.is_none()) {
      r.view = r.view.unsqueeze(dim++);
    } else if (PyBool_Check(o)) {
      throw ember::TypeError("indexing with a Python bool is not supported; use a bool tensor");
    } else if (PyIndex_Check(o) && !py::isinstance<Tensor>(item) && !py::isinstance<py::array>(item)) {
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
    } else if (is_index_tensor(item)) {
      Tensor t = index_tensor(item);
      if (t.dtype() == kBool || t.dtype() == kUInt8) {
        if (t.dim() == 0) {  // t[True] adds a dim of size 1, t[False] one of size 0
          r.view = r.view.unsqueeze(dim);
          t = t.reshape({1});
        }
        IntArrayRef have = r.view.sizes();
        for (int64_t j = 0; j < t.dim(); ++j)
          EMBER_CHECK_INDEX(dim + j < r.view.dim() && have[dim + j] == t.size(j),
                            "The shape of the mask ", t.sizes(), " at index ", j,
                            " does not match the shape of the indexed tensor ", have);
        // The mask's true positions, one coordinate tensor per masked dim.
        std::vector<bool> mask = t.to_vector<bool>();
        DimVector strides = contiguous_strides(t.sizes());
        std::vector<std::vector<int64_t>> coords(static_cast<size_t>(t.dim()));
        for (size_t flat = 0; flat < mask.size(); ++flat) {
          if (!mask[flat]) continue;
          int64_t rest = static_cast<int64_t>(flat);
          for (int64_t j = 0; j < t.dim(); ++j) {
            coords[j].push_back(rest / strides[j]);
            rest %= strides[j];
          }
        }
        for (int64_t j = 0; j < t.dim(); ++j) {
          r.dims.push_back(dim + j);
          r.indices.push_back(tensor(coords[j]));
        }
        dim += t.dim();
      } else {
        EMBER_CHECK_TYPE(!is_floating(t.dtype()),
                         "tensors used as indices must be long, int, byte or bool tensors, got ",
                         t.dtype());
        r.dims.push_back(dim++);
        r.indices.push_back(t.to(kInt64));
      }
    } else {
      throw ember::TypeError(
          "only integers, slices (`:`), ellipsis (`...`), None and long or byte tensors are valid "
          "indices (got " + std::string(py::str(py::type::of(item).attr("__name__"))) + ")");
    }
  }
  return r;
}

// The advanced part, prepared: the view with the indexed dims moved to the front, the broadcast
// shape of the indices, and each selected position as one index per indexed dim.
struct Advanced {
  Tensor front;               // view.permute(indexed dims first, the rest in order)
  DimVector index_shape;      // broadcast shape of the index tensors
  int64_t count = 0;          // numel of index_shape
  std::vector<std::vector<int64_t>> positions;  // [indexed dim][n], wrapped and bounds-checked
  bool adjacent = true;       // indexed dims consecutive: results go where they were
  int64_t first_dim = 0;
};

Advanced prepare(const Indexed& ix) {
  Advanced a;
  const Tensor& v = ix.view;
  DimVector shape;
  for (const Tensor& t : ix.indices) shape = broadcast_shapes(shape, t.sizes(), "index");
  a.index_shape = shape;
  a.count = numel_of(shape);
  std::vector<int64_t> perm(ix.dims.begin(), ix.dims.end());
  for (int64_t d = 0; d < v.dim(); ++d)
    if (std::find(ix.dims.begin(), ix.dims.end(), d) == ix.dims.end()) perm.push_back(d);
  a.front = v.permute(perm);
  a.first_dim = ix.dims.front();
  for (size_t j = 1; j < ix.dims.size(); ++j) a.adjacent &= ix.dims[j] == ix.dims[j - 1] + 1;
  for (size_t j = 0; j < ix.indices.size(); ++j) {
    std::vector<int64_t> pos = expand_data(ix.indices[j], shape).to_vector<int64_t>();
    int64_t size = v.size(ix.dims[j]);
    for (int64_t& p : pos) {
      EMBER_CHECK_INDEX(p >= -size && p < size, "index ", p, " is out of bounds for dimension ",
                        ix.dims[j], " with size ", size);
      if (p < 0) p += size;
    }
    a.positions.push_back(std::move(pos));
  }
  return a;
}

// Where the gathered dims go in the result: [index dims..., rest...] is the "front" layout; when
// the indexed dims were adjacent, the index dims move back to where the first of them was.
std::vector<int64_t> placement(const Advanced& a, int64_t result_dim) {
  int64_t nb = static_cast<int64_t>(a.index_shape.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < a.first_dim; ++i) perm.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  for (int64_t i = nb + a.first_dim; i < result_dim; ++i) perm.push_back(i);
  return perm;
}

Tensor getitem(const Tensor& self, const py::object& index) {
  Indexed ix = apply_basic(self, index);
  if (ix.indices.empty()) return ix.view;
  Advanced a = prepare(ix);
  int64_t k = static_cast<int64_t>(ix.dims.size());
  IntArrayRef fs = a.front.sizes();
  // One linear index into the indexed dims, flattened.
  std::vector<int64_t> linear(static_cast<size_t>(a.count), 0);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t n = 0; n < a.count; ++n) linear[n] = linear[n] * fs[j] + a.positions[j][n];
  std::vector<int64_t> flat_shape{-1}, out_shape(a.index_shape.begin(), a.index_shape.end());
  for (int64_t d = k; d < a.front.dim(); ++d) {
    flat_shape.push_back(fs[d]);
    out_shape.push_back(fs[d]);
  }
  Tensor out = a.front.reshape(flat_shape).index_select(0, tensor(linear)).reshape(out_shape);
  if (a.adjacent && a.first_dim > 0) out = out.permute(placement(a, out.dim()));
  return out;
}

void setitem(const Tensor& self, const py::object& index, const py::object& value) {
  bool scalar = !py::isinstance<Tensor>(value) && !is_index_tensor(value);
  if (scalar && py::isinstance<Tensor>(index)) {
    // t[mask] = value with a mask of t's shape (x[x < 0] = 0): one masked_fill, no loop.
    Tensor mask = index.cast<Tensor>();
    if (mask.dtype() == kBool && mask.sizes() == self.sizes()) {
      self.copy_(masked_fill(self, mask, value.cast<Scalar>()));
      return;
    }
  }
  Indexed ix = apply_basic(self, index);
  Tensor v = scalar ? Tensor() : index_tensor(value);
  if (ix.indices.empty()) {
    if (scalar) ix.view.fill_(value.cast<Scalar>());
    else ix.view.copy_(v);
    return;
  }
  Advanced a = prepare(ix);
  int64_t k = static_cast<int64_t>(ix.dims.size());
  Tensor values;  // [count, rest...]: the value of each selected position
  if (!scalar) {
    DimVector front_shape = a.index_shape;
    for (int64_t d = k; d < a.front.dim(); ++d) front_shape.push_back(a.front.size(d));
    std::vector<int64_t> result_shape(front_shape.begin(), front_shape.end());
    if (a.adjacent && a.first_dim > 0) {
      std::vector<int64_t> perm = placement(a, static_cast<int64_t>(front_shape.size()));
      for (size_t i = 0; i < perm.size(); ++i) result_shape[i] = front_shape[perm[i]];
      // Broadcast to the result's layout, then move the index dims back to the front.
      std::vector<int64_t> inverse(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
      v = v.expand(result_shape).permute(inverse);
    } else {
      v = v.expand(result_shape);
    }
    std::vector<int64_t> flat{a.count};
    for (int64_t d = k; d < a.front.dim(); ++d) flat.push_back(a.front.size(d));
    values = v.reshape(flat);
  }
  // NB: one view per position (select is a view), so the writes reach self whatever its layout.
  for (int64_t n = 0; n < a.count; ++n) {
    Tensor target = a.front;
    for (int64_t j = 0; j < k; ++j) target = target.select(0, a.positions[j][n]);
    if (scalar) target.fill_(value.cast<Scalar>());
    else target.copy_(values.select(0, n));
  }
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
