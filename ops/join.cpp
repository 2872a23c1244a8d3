#include "ember/ops/join.h"

#include <algorithm>

#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::TensorList;

namespace {

// PyTorch's legacy rule: a 1-D tensor of shape [0] is left out of cat, whatever the other shapes.
bool skipped_by_cat(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// d(cat)/d(input i) = the slice of grad along dim that input i filled
struct CatBackward : autograd::Node {
  DimVector lengths;  // size along dim of each input; -1 for an input cat skipped
  int64_t dim = 0;
  const char* name() const override { return "CatBackward"; }
  TensorList apply(TensorList&& g) override {
    TensorList out(lengths.size());
    int64_t offset = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] < 0) {
        if (needs_input_grad(i)) out[i] = zeros({0}, g[0].options());
        continue;
      }
      if (needs_input_grad(i)) out[i] = narrow(g[0], dim, offset, lengths[i]);
      offset += lengths[i];
    }
    return out;
  }
};

// d(split)/dt = the gradients of the pieces joined back along dim (the engine zero-fills the
// gradients of unused pieces). One node for all pieces keeps backward O(numel).
struct SplitBackward : autograd::Node {
  int64_t dim = 0;
  const char* name() const override { return "SplitBackward"; }
  TensorList apply(TensorList&& g) override { return {cat(g, dim)}; }
};

// The pieces of t along dim with the given sizes (already checked), as views in one graph node.
std::vector<Tensor> split_views(const Tensor& t, int64_t dim, IntArrayRef sizes) {
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  DimVector shape = t.sizes().vec();
  int64_t offset = t.storage_offset();
  for (int64_t s : sizes) {
    shape[static_cast<size_t>(dim)] = s;
    out.push_back(as_strided_data(t, shape, t.strides(), offset));
    offset += s * t.stride(dim);
  }
  std::shared_ptr<SplitBackward> node;
  if (autograd::any_requires_grad(t)) {
    node = autograd::make_node<SplitBackward>(t);
    node->dim = dim;
  }
  for (const Tensor& piece : out) autograd::set_view_history(t, piece, node);
  return out;
}

}  // namespace

Tensor impl_cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (autocast::applies("cat", tensors))
    return autocast::run("cat", tensors, [&](const autocast::Cast& cast) { return cat(cast(tensors), dim); });
  EMBER_CHECK_VALUE(!tensors.empty(), "cat: expected a non-empty list of tensors");
  DType dtype = tensors[0].dtype();
  size_t ref = tensors.size();  // the first tensor that is not skipped sets the shape
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK_VALUE(t.defined(), "cat: tensor ", i, " is undefined");
    EMBER_CHECK_INDEX(t.dim() > 0, "cat: zero-dimensional tensor (at position ", i,
                      ") cannot be concatenated");
    EMBER_CHECK_VALUE(t.device() == tensors[0].device(), "cat: tensor ", i, " is on ", t.device(),
                      " but tensor 0 is on ", tensors[0].device());
    dtype = promote_types(dtype, t.dtype());
    if (ref == tensors.size() && !skipped_by_cat(t)) ref = i;
  }
  TensorOptions options = TensorOptions(dtype).device(tensors[0].device());
  DimVector shape{0};
  int64_t d = 0;
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  if (ref < tensors.size()) {
    const Tensor& r = tensors[ref];
    d = wrap_dim(dim, r.dim(), "cat");
    shape = r.sizes().vec();
    shape[static_cast<size_t>(d)] = 0;
    for (size_t i = ref; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (skipped_by_cat(t)) continue;
      bool match = t.dim() == r.dim();
      for (int64_t k = 0; match && k < t.dim(); ++k) match = k == d || t.size(k) == r.size(k);
      EMBER_CHECK_VALUE(match, "cat: tensor ", i, " has shape ", t.sizes(), " but tensor ", ref,
                        " has shape ", r.sizes(), "; sizes must match except in dimension ", d);
      shape[static_cast<size_t>(d)] += t.size(d);
      parts.push_back(t);
    }
  }
  Tensor out = empty(shape, options);
  if (out.numel() > 0) cat_stub(out.device().type, out, parts, d);
  if (autograd::any_requires_grad(tensors)) {
    auto node = autograd::make_node_from_list<CatBackward>(tensors);
    node->dim = d;
    for (const Tensor& t : tensors) node->lengths.push_back(skipped_by_cat(t) ? -1 : t.size(d));
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (autocast::applies("stack", tensors))
    return autocast::run("stack", tensors, [&](const autocast::Cast& cast) { return stack(cast(tensors), dim); });
  EMBER_CHECK_VALUE(!tensors.empty(), "stack: expected a non-empty list of tensors");
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK_VALUE(tensors[i].sizes() == tensors[0].sizes(), "stack: tensor ", i, " has shape ",
                      tensors[i].sizes(), " but tensor 0 has shape ", tensors[0].sizes(),
                      "; all tensors must have the same shape");
    parts.push_back(unsqueeze(tensors[i], d));
  }
  return cat(parts, d);
}

std::vector<Tensor> impl_split(const Tensor& t, int64_t split_size, int64_t dim) {
  EMBER_CHECK_VALUE(t.dim() > 0, "split: expects at least a 1-dimensional tensor");
  EMBER_CHECK_VALUE(split_size >= 0, "split: split_size must be non-negative, got ", split_size);
  int64_t d = wrap_dim(dim, t.dim(), "split");
  int64_t size = t.size(d);
  EMBER_CHECK_VALUE(split_size > 0 || size == 0, "split: split_size can only be 0 if dimension ",
                    d, " has size 0, but it has size ", size);
  int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  DimVector sizes(static_cast<size_t>(n), split_size);
  sizes.back() = size - split_size * (n - 1);
  return split_views(t, d, sizes);
}

std::vector<Tensor> impl_split_with_sizes(const Tensor& t, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK_VALUE(t.dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, t.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK_VALUE(s >= 0, "split_with_sizes: split sizes must be non-negative, got ",
                      split_sizes);
    total += s;
  }
  EMBER_CHECK_VALUE(total == t.size(d), "split_with_sizes: split sizes ", split_sizes,
                    " add up to ", total, " but dimension ", d, " of the input ", t.sizes(),
                    " has size ", t.size(d));
  return split_views(t, d, split_sizes);
}

std::vector<Tensor> impl_split(const Tensor& t, IntArrayRef split_sizes, int64_t dim) {
  return split_with_sizes(t, split_sizes, dim);
}

std::vector<Tensor> impl_chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  EMBER_CHECK_VALUE(t.dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  EMBER_CHECK_VALUE(chunks > 0, "chunk: chunks must be positive, got ", chunks);
  int64_t d = wrap_dim(dim, t.dim(), "chunk");
  int64_t size = t.size(d);
  int64_t split_size = (size + chunks - 1) / chunks;
  // NB: a size-0 dim gives `chunks` empty pieces; split would give only one.
  if (size == 0) return split_views(t, d, DimVector(static_cast<size_t>(chunks), 0));
  return split(t, split_size, d);
}

}  // namespace ember
