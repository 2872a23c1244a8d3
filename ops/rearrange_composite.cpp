// Rearranging and selecting composed of views and indexing (tile, movedim, unflatten, take,
// take_along_dim, msort, cartesian_prod, combinations, repeat_interleave's tensor forms,
// tensor_split, broadcast_tensors, meshgrid, unfold's windows, diff): their gradients are those ops'.
#include <algorithm>
#include <string_view>
#include <vector>

#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

// A dim wrapped with PyTorch's message, which Python scripts match: a 0-d tensor takes -1 and 0.
int64_t torch_wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t rank = std::max<int64_t>(ndim, 1);
  EMBER_CHECK_INDEX(dim >= -rank && dim < rank, "Dimension out of range (expected to be in range of [", -rank, ", ",
                    rank - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + rank : dim;
}

}  // namespace

Tensor impl_tile(const Tensor& self, IntArrayRef dims) {
  // fewer dims than self has count from the right (PyTorch's rule), more add leading dims
  DimVector repeats(static_cast<size_t>(std::max<int64_t>(0, self.dim() - static_cast<int64_t>(dims.size()))), 1);
  for (int64_t d : dims) repeats.push_back(d);
  return repeat(self, repeats);
}

Tensor impl_movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (", source,
              " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t n = self.dim();
  DimVector src, dst;
  for (size_t i = 0; i < source.size(); ++i) {
    src.push_back(torch_wrap_dim(source[i], n));
    dst.push_back(torch_wrap_dim(destination[i], n));
  }
  for (size_t i = 0; i < src.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK(src[i] != src[j] && dst[i] != dst[j], "movedim: repeated dim in `source` (", source,
                  ") or `destination` (", destination, ")");
  if (n == 0) return self.view_as(self);
  DimVector order(static_cast<size_t>(n), -1);
  for (size_t i = 0; i < src.size(); ++i) order[static_cast<size_t>(dst[i])] = src[i];
  int64_t rest = 0;
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (std::find(src.begin(), src.end(), rest) != src.end()) ++rest;
    o = rest++;
  }
  return self.permute(order);
}

Tensor impl_unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  EMBER_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const int64_t d = torch_wrap_dim(dim, self.dim());
  DimVector resolved(sizes.begin(), sizes.end());
  const auto inferred = std::count(resolved.begin(), resolved.end(), -1);
  EMBER_CHECK(inferred <= 1, "only one dimension can be inferred");
  int64_t known = 1;
  for (int64_t s : resolved)
    if (s != -1) known *= s;
  if (inferred) {
    // resolved here, so a zero-size dim splits too, as long as -1 is determined
    EMBER_CHECK(known != 0, "unflatten: cannot reshape tensor of ", self.size(d), " elements into shape ", sizes,
                " because the unspecified dimension size -1 can be any value and is ambiguous");
    *std::find(resolved.begin(), resolved.end(), -1) = self.size(d) / known;
  }
  int64_t total = 1;
  for (int64_t s : resolved) total *= s;
  EMBER_CHECK(total == self.size(d), "unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim,
              " (", self.size(d), ") in the input tensor");
  DimVector shape(self.sizes().begin(), self.sizes().begin() + d);
  for (int64_t s : resolved) shape.push_back(s);
  for (int64_t i = d + 1; i < self.dim(); ++i) shape.push_back(self.size(i));
  return self.reshape(shape);
}

Tensor impl_take(const Tensor& self, const Tensor& index) {
  const int64_t n = self.numel();
  const Tensor flat = index.reshape({-1});
  const Tensor outside = logical_or(ge(flat, Scalar(n)), lt(flat, Scalar(-n)));
  if (any(outside).item<bool>()) {
    const int64_t bad = masked_select(flat, outside).select(0, 0).item<int64_t>();
    throw IndexError(detail::str("out of range: tried to access index ", bad, " on a tensor of ", n, " elements."));
  }
  const Tensor wrapped = where(lt(flat, Scalar(0)), flat + n, flat);
  return self.reshape({-1}).index_select(0, wrapped).reshape(index.sizes());
}

Tensor impl_take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  if (!dim) return take(self, indices.reshape({-1}));
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  EMBER_CHECK(self.dim() == indices.dim(),
              "torch.take_along_dim(): input and indices should have the same number "
              "of dimensions, but got ",
              self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  DimVector in_shape = self.sizes().vec(), ix_shape = indices.sizes().vec();
  in_shape[static_cast<size_t>(d)] = ix_shape[static_cast<size_t>(d)] = 1;
  DimVector x_shape = broadcast_shapes(in_shape, ix_shape, "take_along_dim"), i_shape = x_shape;
  x_shape[static_cast<size_t>(d)] = self.size(d);
  i_shape[static_cast<size_t>(d)] = indices.size(d);
  return gather(self.expand(x_shape), d, indices.expand(i_shape));
}

Tensor impl_msort(const Tensor& self) { return std::get<0>(sort(self, 0)); }

Tensor impl_cartesian_prod(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod: expected at least one tensor");
  for (const Tensor& t : tensors) EMBER_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", t.sizes());
  if (tensors.size() == 1) return tensors[0];
  // the k-th column: tensor k along dim k of the grid of every size, flattened row-major
  DimVector grid;
  for (const Tensor& t : tensors) grid.push_back(t.size(0));
  std::vector<Tensor> columns;
  for (size_t k = 0; k < tensors.size(); ++k) {
    DimVector view(tensors.size(), 1);
    view[k] = grid[k];
    columns.push_back(tensors[k].reshape(view).expand(grid).reshape({-1}));
  }
  return stack(columns, 1);
}

Tensor impl_combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", self.sizes());
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  const int64_t n = self.size(0);
  if (r == 0) return empty({0}, TensorOptions(self.dtype()).device(self.device()));
  // the index rows in itertools' order: the rightmost position that can still advance advances,
  // and the ones after it restart just after it (at it, with replacement)
  std::vector<int64_t> rows, pick(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) pick[static_cast<size_t>(i)] = with_replacement ? 0 : i;
  const auto last = [&](int64_t i) { return with_replacement ? n - 1 : n - r + i; };
  int64_t count = 0;
  if (with_replacement ? n > 0 : r <= n) {
    while (true) {
      rows.insert(rows.end(), pick.begin(), pick.end());
      ++count;
      int64_t i = r - 1;
      while (i >= 0 && pick[static_cast<size_t>(i)] == last(i)) --i;
      if (i < 0) break;
      const int64_t start = ++pick[static_cast<size_t>(i)];
      for (int64_t j = i + 1; j < r; ++j) pick[static_cast<size_t>(j)] = with_replacement ? start : start + (j - i);
    }
  }
  if (count == 0) return empty({0, r}, TensorOptions(self.dtype()).device(self.device()));
  const Tensor index = tensor(rows).to(self.device());
  return self.index_select(0, index).reshape({count, r});
}

Tensor impl_repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK_TYPE(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, "repeats has to be Long or Int tensor");
  const std::vector<int64_t> counts = repeats.to(kInt64).to_vector<int64_t>();
  std::vector<int64_t> index;
  for (size_t i = 0; i < counts.size(); ++i) {
    EMBER_CHECK(counts[i] >= 0, "repeats can not be negative");
    index.insert(index.end(), static_cast<size_t>(counts[i]), static_cast<int64_t>(i));
  }
  EMBER_CHECK(!output_size || *output_size == static_cast<int64_t>(index.size()),
              "allocated size does not match required size");
  return tensor(index).to(repeats.device());
}

Tensor impl_repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                              std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() <= 1, "repeats must be 0-dim or 1-dim tensor");
  EMBER_CHECK_TYPE(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, "repeats has to be Long or Int tensor");
  if (repeats.numel() == 1) return repeat_interleave(self, repeats.reshape({}).item<int64_t>(), dim, output_size);
  const Tensor x = !dim ? self.flatten() : self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t d = dim ? torch_wrap_dim(*dim, self.dim()) : 0;
  EMBER_CHECK(repeats.size(0) == x.size(d), "repeats must have the same size as input along dim, but got ",
              "repeats.size(0) = ", repeats.size(0), " and input.size(", d, ") = ", x.size(d));
  // NB: an index_select, so the gradient sums the copies back into each entry.
  return index_select(x, d, repeat_interleave(repeats, output_size));
}

namespace {

// The views of self along dim between consecutive bounds (PyTorch's slices: a negative bound
// counts from the end, each is clamped to [0, size], and an end before its start gives nothing).
std::vector<Tensor> split_at(const Tensor& self, IntArrayRef bounds, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  const int64_t d = torch_wrap_dim(dim, self.dim()), size = self.size(d);
  auto clamp_bound = [size](int64_t b) { return std::clamp<int64_t>(b < 0 ? b + size : b, 0, size); };
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (size_t i = 0; i <= bounds.size(); ++i) {
    const int64_t end = i < bounds.size() ? clamp_bound(bounds[i]) : size;
    parts.push_back(self.narrow(d, start, std::max<int64_t>(0, end - start)));
    start = end;
  }
  return parts;
}

}  // namespace

std::vector<Tensor> impl_tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  EMBER_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t size = self.size(torch_wrap_dim(dim, self.dim()));
  DimVector bounds;
  for (int64_t k = 1; k < sections; ++k) bounds.push_back(k * (size / sections) + std::min(k, size % sections));
  return split_at(self, bounds, dim);
}

std::vector<Tensor> impl_tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  return split_at(self, indices, dim);
}

std::vector<Tensor> impl_tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  EMBER_CHECK(t.device().is_cpu(), "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              t.device());
  EMBER_CHECK_TYPE(t.dtype() == kInt64, "tensor_split expected tensor_indices_or_sections to have ScalarType Long, ",
                   "but got ", torch_type_name(t.dtype()));
  EMBER_CHECK(t.dim() <= 1, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or ",
              "one-dimensional tensor, but got a tensor with ", t.dim(), " dims");
  if (t.dim() == 0) return tensor_split(self, t.item<int64_t>(), dim);
  const std::vector<int64_t> indices = t.to_vector<int64_t>();
  return split_at(self, indices, dim);
}

std::vector<Tensor> impl_broadcast_tensors(const std::vector<Tensor>& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<Tensor> impl_meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing) {
  EMBER_CHECK(indexing == "ij" || indexing == "xy", "torch.meshgrid: indexing must be one of \"xy\" or ",
              "\"ij\", but received: ", indexing);
  std::vector<Tensor> flat;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1,
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", tensors[i].sizes(),
                " at position ", i);
    flat.push_back(tensors[i].reshape({-1}));
  }
  const bool swap = indexing == "xy" && flat.size() >= 2;
  if (swap) std::swap(flat[0], flat[1]);
  DimVector shape;
  for (const Tensor& t : flat) shape.push_back(t.numel());
  std::vector<Tensor> out;
  for (size_t k = 0; k < flat.size(); ++k) {
    DimVector view(flat.size(), 1);
    view[k] = shape[k];
    out.push_back(flat[k].reshape(view).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

Tensor impl_unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dimension, self.dim(), "unfold");
  const int64_t length = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK(size <= length, "unfold: maximum size for tensor at dimension ", d, " is ", length, " but size is ",
              size);
  EMBER_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  if (self.dim() == 0) return self.as_strided({size}, {1}, self.storage_offset());
  DimVector sizes(self.sizes().begin(), self.sizes().end()), strides(self.strides().begin(), self.strides().end());
  sizes[d] = (length - size) / step + 1;
  strides[d] = self.stride(d) * step;
  sizes.push_back(size);
  strides.push_back(self.stride(d));
  return self.as_strided(sizes, strides, self.storage_offset());
}

Tensor impl_diff(const Tensor& self, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append) {
  EMBER_CHECK(self.dim() > 0, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, "order must be non-negative but got ", n);
  if (n == 0) return self.clone();  // a copy, as PyTorch's; prepend and append are not joined either
  const int64_t d = wrap_dim(dim, self.dim(), "diff");
  Tensor x = self;
  if (prepend.defined() || append.defined()) {
    std::vector<Tensor> parts;
    for (const Tensor* t : {&prepend, &self, &append})
      if (t->defined()) parts.push_back(*t);
    x = cat(parts, d);
  }
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const Tensor later = x.narrow(d, 1, x.size(d) - 1), earlier = x.narrow(d, 0, x.size(d) - 1);
    x = x.dtype() == kBool ? logical_xor(later, earlier) : sub(later, earlier);  // bool: whether neighbours differ
  }
  return x;
}

}  // namespace ember
