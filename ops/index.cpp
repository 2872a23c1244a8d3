#include "ember/ops/index.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/join.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

void check_index_dtype(const Tensor& index, const char* op, const char* what = "index") {
  EMBER_CHECK_TYPE(index.dtype() == kInt64 || index.dtype() == kInt32, op, ": ", what,
                   " must be an int64 or int32 tensor, got ", index.dtype());
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK_VALUE(a.device() == b.device(), op, ": tensors on different devices, ", a.device(),
                    " and ", b.device());
}

// A 1-D contiguous int index from a 0-d or 1-D one (no copy when it already is).
Tensor vector_index(const Tensor& index, const char* op) {
  check_index_dtype(index, op);
  EMBER_CHECK_VALUE(index.dim() <= 1, op, ": index must be 0-d or 1-D, got shape ", index.sizes());
  Tensor c = contiguous_data(index);
  return c.dim() == 1 ? c : as_strided_data(c, {1}, {1}, c.storage_offset());
}

// gather/scatter_add checks: index no larger than t outside dim, and than src everywhere.
void check_scatter_gather_shapes(const Tensor& t, int64_t dim, const Tensor& index,
                                 const Tensor* src, const char* op) {
  EMBER_CHECK_VALUE(index.dim() == t.dim(), op, ": index ", index.sizes(), " and input ", t.sizes(),
                    " must have the same number of dims");
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK_VALUE(d == dim || index.size(d) <= t.size(d), op, ": index ", index.sizes(),
                      " is larger than the input ", t.sizes(), " in dimension ", d,
                      " (only dimension ", dim, " may differ)");
  if (!src) return;
  EMBER_CHECK_VALUE(src->dim() == t.dim(), op, ": src ", src->sizes(), " and input ", t.sizes(),
                    " must have the same number of dims");
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK_VALUE(index.size(d) <= src->size(d), op, ": index ", index.sizes(),
                      " is larger than src ", src->sizes(), " in dimension ", d);
}

// A 0-d tensor as shape [1] (gather/scatter treat 0-d like 1-D, as PyTorch does).
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? reshape(t, {1}) : t; }

// g (index's shape) padded with zeros at the end of each dim up to `shape`.
Tensor pad_to(Tensor g, IntArrayRef shape) {
  for (int64_t d = 0; d < g.dim(); ++d) {
    int64_t missing = shape[static_cast<size_t>(d)] - g.size(d);
    if (missing == 0) continue;
    DimVector zshape = g.sizes().vec();
    zshape[static_cast<size_t>(d)] = missing;
    g = cat({g, zeros(zshape, g.options())}, d);
  }
  return g;
}

// Run the kernel on `out` (a fresh tensor holding t's values, owned by the op) and record the
// node. Backwards call them with zeros and an undefined t: one pass over the result, no copy.
Tensor scatter_add_into(Tensor out, const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index_add_into(Tensor out, const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source);

// d(index_select)/dt = zeros with grad added at the selected entries
struct IndexSelectBackward : autograd::Node {
  SavedTensor index;
  DimVector in_shape;
  int64_t dim = 0;
  const char* name() const override { return "IndexSelectBackward"; }
  TensorList apply(TensorList&& g) override {
    return {index_add_into(zeros(in_shape, g[0].options()), Tensor(), dim, index.unpack(this), g[0])};
  }
  void release_saved() override { index.reset(); }
};

// d(gather)/dt = zeros with grad scattered (added) back to the gathered positions
struct GatherBackward : autograd::Node {
  SavedTensor index;
  DimVector in_shape;
  int64_t dim = 0;
  const char* name() const override { return "GatherBackward"; }
  TensorList apply(TensorList&& g) override {
    return {scatter_add_into(zeros(in_shape, g[0].options()), Tensor(), dim, index.unpack(this), g[0])};
  }
  void release_saved() override { index.reset(); }
};

// d(scatter_add)/dt = grad ; d/dsrc = gather(grad, dim, index) (zero where index does not reach)
struct ScatterAddBackward : autograd::Node {
  SavedTensor index;
  DimVector src_shape;
  int64_t dim = 0;
  const char* name() const override { return "ScatterAddBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor gsrc;
    if (needs_input_grad(1)) gsrc = pad_to(gather(g[0], dim, index.unpack(this)), src_shape);
    return {g[0], gsrc};
  }
  void release_saved() override { index.reset(); }
};

// d(index_add)/dt = grad ; d/dsource = index_select(grad, dim, index)
struct IndexAddBackward : autograd::Node {
  SavedTensor index;
  int64_t dim = 0;
  const char* name() const override { return "IndexAddBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor gsrc;
    if (needs_input_grad(1)) gsrc = index_select(g[0], dim, index.unpack(this));
    return {g[0], gsrc};
  }
  void release_saved() override { index.reset(); }
};

// d(masked_fill)/dt = grad where the mask is false, 0 where it is true
struct MaskedFillBackward : autograd::Node {
  SavedTensor mask;
  DimVector in_shape;
  const char* name() const override { return "MaskedFillBackward"; }
  TensorList apply(TensorList&& g) override {
    return {sum_to(masked_fill(g[0], mask.unpack(this), 0), in_shape)};
  }
  void release_saved() override { mask.reset(); }
};

// d(embedding)/dweight = zeros [V, D] with each grad row added at its index (padding rows skipped)
struct EmbeddingBackward : autograd::Node {
  SavedTensor indices;  // flat, 1-D
  int64_t num_weights = 0, padding_idx = -1;
  const char* name() const override { return "EmbeddingBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor idx = indices.unpack(this);
    int64_t d = g[0].size(-1);
    Tensor rows = reshape(g[0], {idx.numel(), d});
    if (padding_idx >= 0) rows = masked_fill(rows, reshape(eq(idx, padding_idx), {idx.numel(), 1}), 0);
    return {index_add_into(zeros({num_weights, d}, g[0].options()), Tensor(), 0, idx, rows)};
  }
  void release_saved() override { indices.reset(); }
};

Tensor scatter_add_into(Tensor out, const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  if (index.numel() > 0) scatter_add_stub(out.device().type, out, dim, index, src);
  if (autograd::any_requires_grad(t, src)) {
    auto node = autograd::make_node<ScatterAddBackward>(t, src);
    if (node->needs_input_grad(1)) node->index = SavedTensor(index);
    node->src_shape = src.sizes().vec();
    node->dim = dim;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor index_add_into(Tensor out, const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
  if (index.numel() > 0 && out.numel() > 0) index_add_stub(out.device().type, out, dim, index, source);
  // NB: with nothing to write the kernel does not run, nor its bounds check: the indices still name
  // places along dim, which must exist (PyTorch's "index out of range in self").
  if (index.numel() > 0 && out.numel() == 0) {
    const int64_t size = out.dim() == 0 ? 1 : out.size(dim);
    const int64_t lo = min(index).item<int64_t>(), hi = max(index).item<int64_t>();
    EMBER_CHECK_INDEX(lo >= 0 && hi < size, "index_add: index ", lo < 0 ? lo : hi, " is out of range for dimension ",
                      dim, " with size ", size);
  }
  if (autograd::any_requires_grad(t, source)) {
    auto node = autograd::make_node<IndexAddBackward>(t, source);
    if (node->needs_input_grad(1)) node->index = SavedTensor(index);
    node->dim = dim;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor impl_index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  check_same_device(t, index, "index_select");
  Tensor idx = vector_index(index, "index_select");
  if (t.dim() == 0) {
    EMBER_CHECK_INDEX(idx.numel() == 1, "index_select: indexing a 0-d tensor needs exactly one "
                      "index, got ", idx.numel());
    wrap_dim(dim, 1, "index_select");
    return reshape(index_select(reshape(t, {1}), 0, idx), {});
  }
  int64_t d = wrap_dim(dim, t.dim(), "index_select");
  DimVector shape = t.sizes().vec();
  shape[static_cast<size_t>(d)] = idx.numel();
  Tensor out = empty(shape, t.options());
  if (idx.numel() > 0) index_select_stub(t.device().type, out, t, d, idx, "index_select");
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<IndexSelectBackward>(t);
    node->index = SavedTensor(idx);
    node->in_shape = t.sizes().vec();
    node->dim = d;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_gather(const Tensor& t, int64_t dim, const Tensor& index) {
  check_same_device(t, index, "gather");
  check_index_dtype(index, "gather");
  if (t.dim() == 0 || index.dim() == 0) {
    wrap_dim(dim, 1, "gather");
    return reshape(gather(at_least_1d(t), 0, at_least_1d(index)), index.sizes());
  }
  int64_t d = wrap_dim(dim, t.dim(), "gather");
  check_scatter_gather_shapes(t, d, index, nullptr, "gather");
  Tensor out = empty(index.sizes(), t.options());
  if (out.numel() > 0) gather_stub(t.device().type, out, t, d, index);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<GatherBackward>(t);
    node->index = SavedTensor(index);
    node->in_shape = t.sizes().vec();
    node->dim = d;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  if (autocast::applies("scatter_add", t))
    return autocast::run("scatter_add", {t, src}, [&](const autocast::Cast& cast) { return scatter_add(cast(t), dim, index, cast(src)); });
  check_same_device(t, index, "scatter_add");
  check_same_device(t, src, "scatter_add");
  check_index_dtype(index, "scatter_add");
  EMBER_CHECK_TYPE(src.dtype() == t.dtype(), "scatter_add: src has dtype ", src.dtype(),
                   " but the input has dtype ", t.dtype());
  if (t.dim() == 0 || index.dim() == 0 || src.dim() == 0) {
    wrap_dim(dim, 1, "scatter_add");
    return reshape(scatter_add(at_least_1d(t), 0, at_least_1d(index), at_least_1d(src)), t.sizes());
  }
  int64_t d = wrap_dim(dim, t.dim(), "scatter_add");
  check_scatter_gather_shapes(t, d, index, &src, "scatter_add");
  return scatter_add_into(copy_as(t, t.dtype(), t.device()), t, d, index, src);
}

Tensor impl_index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
  if (!(alpha.is_bool() ? alpha.to<bool>() : alpha.to<double>() == 1.0)) {
    // NB: as PyTorch, alpha is cast to the input's dtype: an integer input truncates a float alpha
    // (0.5 adds nothing), a bool one takes any nonzero alpha as true.
    Scalar a = t.dtype() != kBool && is_integral(t.dtype()) && alpha.is_floating() ? Scalar(alpha.to<int64_t>()) : alpha;
    Tensor scaled = mul(source, a);
    return index_add(t, dim, index, scaled.dtype() == t.dtype() ? scaled : scaled.to(t.dtype()), 1);
  }
  check_same_device(t, index, "index_add");
  check_same_device(t, source, "index_add");
  Tensor idx = vector_index(index, "index_add");
  EMBER_CHECK_TYPE(source.dtype() == t.dtype(), "index_add: source has dtype ", source.dtype(),
                   " but the input has dtype ", t.dtype());
  if (t.dim() == 0) {
    wrap_dim(dim, 1, "index_add");
    return reshape(index_add(reshape(t, {1}), 0, idx, at_least_1d(source)), {});
  }
  int64_t d = wrap_dim(dim, t.dim(), "index_add");
  bool fits = source.dim() == t.dim() && source.size(d) == idx.numel();
  for (int64_t k = 0; fits && k < t.dim(); ++k) fits = k == d || source.size(k) == t.size(k);
  EMBER_CHECK_VALUE(fits, "index_add: source ", source.sizes(), " does not fit the input ",
                    t.sizes(), " with ", idx.numel(), " indices along dimension ", d);
  return index_add_into(copy_as(t, t.dtype(), t.device()), t, d, idx, source);
}

Tensor impl_masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
  check_same_device(t, mask, "masked_fill");
  EMBER_CHECK_TYPE(mask.dtype() == kBool, "masked_fill: mask must be a bool tensor, got ",
                   mask.dtype());
  DimVector shape = t.sizes() == mask.sizes() ? t.sizes().vec()
                                              : broadcast_shapes(t.sizes(), mask.sizes(), "masked_fill");
  Tensor out = empty(shape, t.options());
  if (out.numel() > 0)
    masked_fill_stub(t.device().type, out, expand_data(t, shape), expand_data(mask, shape), value);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<MaskedFillBackward>(t);
    node->mask = SavedTensor(mask);
    node->in_shape = t.sizes().vec();
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_masked_fill(const Tensor& t, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK_VALUE(value.numel() == 1, "masked_fill: value must be a one-element tensor, got ",
                    describe(value));
  // A value that requires grad gets the gradient of every filled element: a where() records it.
  if (autograd::any_requires_grad(value)) {
    EMBER_CHECK_TYPE(mask.dtype() == kBool, "masked_fill: mask must be a bool tensor, got ", mask.dtype());
    return where(mask, reshape(value, {}).to(t.dtype()), t);
  }
  if (is_floating(value.dtype())) return masked_fill(t, mask, Scalar(value.item<double>()));
  if (value.dtype() == kBool) return masked_fill(t, mask, Scalar(value.item<bool>()));
  return masked_fill(t, mask, Scalar(value.item<int64_t>()));
}

Tensor impl_embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx) {
  check_same_device(weight, indices, "embedding");
  EMBER_CHECK_VALUE(weight.dim() == 2, "embedding: weight must be 2-D [num_embeddings, dim], got ",
                    weight.sizes());
  check_index_dtype(indices, "embedding", "indices");
  int64_t v = weight.size(0), dim = weight.size(1);
  int64_t pad = -1;
  if (padding_idx) {
    EMBER_CHECK_INDEX(*padding_idx >= -v && *padding_idx < v, "embedding: padding_idx ",
                      *padding_idx, " is out of range for ", v, " embeddings");
    pad = *padding_idx < 0 ? *padding_idx + v : *padding_idx;
  }
  Tensor idx = contiguous_data(indices);
  idx = as_strided_data(idx, {idx.numel()}, {1}, idx.storage_offset());
  DimVector shape = indices.sizes().vec();
  shape.push_back(dim);
  Tensor out = empty(shape, weight.options());
  if (idx.numel() > 0) {
    Tensor rows = as_strided_data(out, {idx.numel(), dim}, {dim, 1}, 0);
    index_select_stub(weight.device().type, rows, weight, 0, idx, "embedding");
  }
  if (autograd::any_requires_grad(weight)) {
    auto node = autograd::make_node<EmbeddingBackward>(weight);
    node->indices = SavedTensor(idx);
    node->num_weights = v;
    node->padding_idx = pad;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
