#include "ember/ops/view.h"

#include <algorithm>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/reduce.h"

namespace ember {

using autograd::TensorList;

DimVector infer_shape(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out = shape.vec();
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      EMBER_CHECK_VALUE(infer < 0, op, ": only one dimension can be inferred in shape ", shape);
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK_VALUE(out[i] >= 0, op, ": invalid size ", out[i], " in shape ", shape);
      known *= out[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK_VALUE(known != 0 && numel % known == 0, op, ": shape ", shape,
                      " is invalid for input of size ", numel);
    out[static_cast<size_t>(infer)] = numel / known;
  } else {
    EMBER_CHECK_VALUE(known == numel, op, ": shape ", shape, " is invalid for input of size ", numel);
  }
  return out;
}

namespace {

// Strides for viewing (sizes, strides) as `shape` without a copy, if possible (PyTorch's
// computeStride): each run of merged input dims must be contiguous within itself.
std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef shape) {
  DimVector out(shape.size());
  if (sizes.empty()) {
    for (auto& s : out) s = 1;
    return out;
  }
  int64_t numel = numel_of(sizes);
  if (numel == 0) return contiguous_strides(shape);
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[static_cast<size_t>(d)];
    if (d == 0 || (sizes[static_cast<size_t>(d - 1)] != 1 &&
                   strides[static_cast<size_t>(d - 1)] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<size_t>(view_d)] == 1)) {
        out[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= shape[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[static_cast<size_t>(d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

// d(view)/d(input): the gradient reshaped back to the input's shape.
struct ReshapeBackward : autograd::Node {
  DimVector in_shape;
  const char* name() const override { return "ReshapeBackward"; }
  TensorList apply(TensorList&& g) override { return {reshape(g[0], in_shape)}; }
};

// d(permute)/d(input): the inverse permutation of the gradient.
struct PermuteBackward : autograd::Node {
  DimVector inverse;
  const char* name() const override { return "PermuteBackward"; }
  TensorList apply(TensorList&& g) override { return {permute(g[0], inverse)}; }
};

// d(expand)/d(input): the gradient summed over the broadcast dims.
struct ExpandBackward : autograd::Node {
  DimVector in_shape;
  const char* name() const override { return "ExpandBackward"; }
  TensorList apply(TensorList&& g) override { return {sum_to(g[0], in_shape)}; }
};

// d(slice)/d(input): the gradient placed at the sliced positions of zeros.
struct SliceBackward : autograd::Node {
  DimVector in_shape;
  int64_t dim = 0, start = 0, end = 0, step = 1;
  const char* name() const override { return "SliceBackward"; }
  TensorList apply(TensorList&& g) override {
    return {slice_backward(g[0], in_shape, dim, start, end, step)};
  }
};

// d(slice_backward)/d(grad) = slice of the incoming gradient (double backward).
struct SliceBackwardBackward : autograd::Node {
  int64_t dim = 0, start = 0, end = 0, step = 1;
  const char* name() const override { return "SliceBackwardBackward"; }
  TensorList apply(TensorList&& g) override { return {slice(g[0], dim, start, end, step)}; }
};

// d(select)/d(input): the gradient placed at `index` of `dim` in zeros.
struct SelectBackward : autograd::Node {
  DimVector in_shape;
  int64_t dim = 0, index = 0;
  const char* name() const override { return "SelectBackward"; }
  TensorList apply(TensorList&& g) override {
    return {slice_backward(unsqueeze(g[0], dim), in_shape, dim, index, index + 1, 1)};
  }
};

// The gradient of view_as_real is the complex tensor of the real gradient's pairs, and back.
struct ViewAsRealBackward : autograd::Node {
  const char* name() const override { return "ViewAsRealBackward"; }
  TensorList apply(TensorList&& g) override { return {view_as_complex(contiguous(g[0]))}; }
};
struct ViewAsComplexBackward : autograd::Node {
  const char* name() const override { return "ViewAsComplexBackward"; }
  TensorList apply(TensorList&& g) override { return {view_as_real(g[0])}; }
};

Tensor record_view(const Tensor& in, Tensor out, const std::shared_ptr<autograd::Node>& node = nullptr) {
  autograd::set_view_history(in, out, node);
  return out;
}

}  // namespace

Tensor impl_view(const Tensor& t, IntArrayRef shape) {
  DimVector target = infer_shape(shape, t.numel(), "view");
  auto strides = view_strides(t.sizes(), t.strides(), target);
  EMBER_CHECK_VALUE(strides.has_value(), "view: size ", IntArrayRef(target),
                    " is not compatible with the input's size ", t.sizes(), " and stride ",
                    t.strides(), "; use reshape() instead");
  Tensor out = as_strided_data(t, target, *strides, t.storage_offset());
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<ReshapeBackward>(t);
    node->in_shape = t.sizes().vec();
    return record_view(t, out, node);
  }
  return record_view(t, out);
}

Tensor impl_reshape(const Tensor& t, IntArrayRef shape) {
  DimVector target = infer_shape(shape, t.numel(), "reshape");
  if (view_strides(t.sizes(), t.strides(), target)) return view(t, target);
  return view(contiguous(t), target);
}

Tensor impl_flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  if (t.dim() == 0) return reshape(t, {1});
  int64_t s = wrap_dim(start_dim, t.dim(), "flatten"), e = wrap_dim(end_dim, t.dim(), "flatten");
  EMBER_CHECK_VALUE(s <= e, "flatten: start_dim ", start_dim, " comes after end_dim ", end_dim);
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(t.size(d));
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= t.size(d);
  shape.push_back(merged);
  for (int64_t d = e + 1; d < t.dim(); ++d) shape.push_back(t.size(d));
  return reshape(t, shape);
}

Tensor impl_permute(const Tensor& t, IntArrayRef dims) {
  int64_t n = t.dim();
  EMBER_CHECK_VALUE(static_cast<int64_t>(dims.size()) == n, "permute: ", dims.size(),
                    " dims given for a tensor with ", n, " dims");
  DimVector sizes(dims.size()), strides(dims.size()), inverse(dims.size());
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], n, "permute");
    EMBER_CHECK_VALUE(!seen[static_cast<size_t>(d)], "permute: dim ", d, " repeats in ", dims);
    seen[static_cast<size_t>(d)] = true;
    sizes[i] = t.sizes()[static_cast<size_t>(d)];
    strides[i] = t.strides()[static_cast<size_t>(d)];
    inverse[static_cast<size_t>(d)] = static_cast<int64_t>(i);
  }
  Tensor out = as_strided_data(t, sizes, strides, t.storage_offset());
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<PermuteBackward>(t);
    node->inverse = inverse;
    return record_view(t, out, node);
  }
  return record_view(t, out);
}

Tensor impl_transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  int64_t n = t.dim();
  int64_t a = wrap_dim(dim0, n, "transpose"), b = wrap_dim(dim1, n, "transpose");
  if (n == 0) return view(t, {});
  DimVector dims(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) dims[static_cast<size_t>(i)] = i;
  std::swap(dims[static_cast<size_t>(a)], dims[static_cast<size_t>(b)]);
  return permute(t, dims);
}

Tensor impl_contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = copy_as(t, t.dtype(), t.device());
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<ReshapeBackward>(t);  // identity on values
    node->in_shape = t.sizes().vec();
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_squeeze(const Tensor& t, std::optional<int64_t> dim) {
  if (!dim) {
    DimVector shape;
    for (int64_t s : t.sizes())
      if (s != 1) shape.push_back(s);
    return view(t, shape);
  }
  int64_t d = wrap_dim(*dim, t.dim(), "squeeze");
  if (t.dim() == 0) return view(t, {});
  if (t.size(d) != 1) return view(t, t.sizes());
  DimVector shape = t.sizes().vec();
  shape.erase(shape.begin() + d);
  return view(t, shape);
}

Tensor impl_squeeze_dims(const Tensor& t, IntArrayRef dims) {
  std::vector<bool> named(static_cast<size_t>(std::max<int64_t>(t.dim(), 1)), false);
  for (int64_t dim : dims) {
    const int64_t d = wrap_dim(dim, t.dim(), "squeeze");
    EMBER_CHECK_VALUE(!named[static_cast<size_t>(d)], "squeeze: dim ", d, " appears multiple times in the list of dims");
    named[static_cast<size_t>(d)] = true;
  }
  DimVector shape;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (!(named[static_cast<size_t>(d)] && t.size(d) == 1)) shape.push_back(t.size(d));
  return view(t, shape);
}

Tensor impl_unsqueeze(const Tensor& t, int64_t dim) {
  int64_t d = wrap_dim(dim, t.dim() + 1, "unsqueeze");
  DimVector shape = t.sizes().vec();
  shape.insert(shape.begin() + d, 1);
  return view(t, shape);
}

Tensor impl_expand(const Tensor& t, IntArrayRef shape) {
  Tensor out = expand_data(t, shape);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<ExpandBackward>(t);
    node->in_shape = t.sizes().vec();
    return record_view(t, out, node);
  }
  return record_view(t, out);
}

Tensor impl_slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                  int64_t step) {
  EMBER_CHECK_VALUE(step > 0, "slice: step must be positive, got ", step);
  EMBER_CHECK_INDEX(t.dim() > 0, "slice: cannot slice a 0-d tensor");
  int64_t d = wrap_dim(dim, t.dim(), "slice");
  int64_t size = t.size(d);
  auto clampi = [&](int64_t v) {
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t s = start ? clampi(*start) : 0;
  int64_t e = end ? clampi(*end) : size;
  if (e < s) e = s;
  DimVector sizes = t.sizes().vec(), strides = t.strides().vec();
  sizes[static_cast<size_t>(d)] = (e - s + step - 1) / step;
  strides[static_cast<size_t>(d)] *= step;
  Tensor out = as_strided_data(t, sizes, strides, t.storage_offset() + s * t.stride(d));
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<SliceBackward>(t);
    node->in_shape = t.sizes().vec();
    node->dim = d;
    node->start = s;
    node->end = e;
    node->step = step;
    return record_view(t, out, node);
  }
  return record_view(t, out);
}

Tensor impl_narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  int64_t d = wrap_dim(dim, t.dim(), "narrow");
  int64_t size = t.size(d);
  if (start < 0) start += size;
  EMBER_CHECK_INDEX(start >= 0 && length >= 0 && start + length <= size, "narrow: start ", start,
                    " + length ", length, " exceeds dimension ", d, " of size ", size);
  return slice(t, d, start, start + length, 1);
}

Tensor impl_select(const Tensor& t, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(t.dim() > 0, "select: cannot select from a 0-d tensor");
  int64_t d = wrap_dim(dim, t.dim(), "select");
  int64_t size = t.size(d);
  EMBER_CHECK_INDEX(index >= -size && index < size, "select: index ", index,
                    " out of range for dimension ", d, " of size ", size);
  if (index < 0) index += size;
  DimVector sizes = t.sizes().vec(), strides = t.strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  Tensor out = as_strided_data(t, sizes, strides, t.storage_offset() + index * t.stride(d));
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<SelectBackward>(t);
    node->in_shape = t.sizes().vec();
    node->dim = d;
    node->index = index;
    return record_view(t, out, node);
  }
  return record_view(t, out);
}

Tensor impl_view_as(const Tensor& t, const Tensor& other) { return view(t, other.sizes()); }

// Complex numbers are (real, imaginary) pairs of their real dtype, so both views only rescale the
// layout: sizes gain or lose a trailing 2, strides and the offset double or halve.
Tensor impl_view_as_real(const Tensor& t) {
  EMBER_CHECK_TYPE(is_complex(t.dtype()), "view_as_real: expected a complex tensor, got ", t.dtype());
  DimVector sizes = t.sizes().vec(), strides;
  for (int64_t s : t.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  Tensor out = make_tensor(t.storage(), real_dtype(t.dtype()), sizes, strides, 2 * t.storage_offset());
  if (autograd::any_requires_grad(t)) return record_view(t, out, autograd::make_node<ViewAsRealBackward>(t));
  return record_view(t, out);
}

Tensor impl_view_as_complex(const Tensor& t) {
  if (autocast::applies("view_as_complex", t))
    return autocast::run("view_as_complex", {t}, [&](const autocast::Cast& cast) { return view_as_complex(cast(t)); });
  const std::optional<DType> complex = complex_dtype(t.dtype());
  EMBER_CHECK_TYPE(complex.has_value(), "view_as_complex: expected a float32 or float64 tensor, got ", t.dtype());
  EMBER_CHECK_VALUE(t.dim() >= 1 && t.sizes().back() == 2, "view_as_complex: the last dim must have "
                    "size 2 (real, imaginary), got shape ", t.sizes());
  EMBER_CHECK_VALUE(t.strides().back() == 1, "view_as_complex: the last dim must have stride 1, got "
                    "strides ", t.strides());
  DimVector sizes(t.sizes().begin(), t.sizes().end() - 1), strides;
  for (size_t d = 0; d + 1 < static_cast<size_t>(t.dim()); ++d) {
    EMBER_CHECK_VALUE(t.strides()[d] % 2 == 0, "view_as_complex: every stride but the last must be "
                      "even, got strides ", t.strides());
    strides.push_back(t.strides()[d] / 2);
  }
  EMBER_CHECK_VALUE(t.storage_offset() % 2 == 0, "view_as_complex: the storage offset must be even, "
                    "got ", t.storage_offset());
  Tensor out = make_tensor(t.storage(), *complex, sizes, strides, t.storage_offset() / 2);
  if (autograd::any_requires_grad(t)) return record_view(t, out, autograd::make_node<ViewAsComplexBackward>(t));
  return record_view(t, out);
}

Tensor impl_real(const Tensor& t) { return is_complex(t.dtype()) ? select(view_as_real(t), -1, 0) : t; }

Tensor impl_imag(const Tensor& t) {
  EMBER_CHECK_TYPE(is_complex(t.dtype()), "imag: only complex tensors have imaginary parts, got ",
                   t.dtype());
  return select(view_as_real(t), -1, 1);
}
Tensor impl_reshape_as(const Tensor& t, const Tensor& other) { return reshape(t, other.sizes()); }
Tensor impl_expand_as(const Tensor& t, const Tensor& other) { return expand(t, other.sizes()); }
Tensor impl_broadcast_to(const Tensor& t, IntArrayRef size) { return expand(t, size); }
Tensor impl_swapaxes(const Tensor& t, int64_t axis0, int64_t axis1) { return transpose(t, axis0, axis1); }

Tensor impl_t(const Tensor& self) {
  EMBER_CHECK_VALUE(self.dim() <= 2, "t: expects a tensor with at most 2 dims, got ", self.dim(),
                    "; use transpose() or permute()");
  return self.dim() < 2 ? view(self, self.sizes()) : transpose(self, 0, 1);
}

std::vector<Tensor> impl_unbind(const Tensor& t, int64_t dim) {
  int64_t d = wrap_dim(dim, t.dim(), "unbind");
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(t.size(d)));
  for (int64_t i = 0; i < t.size(d); ++i) out.push_back(select(t, d, i));
  return out;
}

Tensor slice_backward(const Tensor& grad, IntArrayRef in_shape, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  Tensor out = zeros(in_shape, grad.options());
  {
    autograd::NoGradGuard no_grad;
    copy_data(slice(out, dim, start, end, step), grad);
  }
  if (autograd::any_requires_grad(grad)) {
    auto node = autograd::make_node<SliceBackwardBackward>(grad);
    node->dim = dim;
    node->start = start;
    node->end = end;
    node->step = step;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
