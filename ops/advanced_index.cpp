#include "ember/ops/advanced_index.h"

#include <algorithm>

#include "ember/autograd/grad_mode.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/convert.h"
#include "ember/ops/index.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

// The indices in one form: the indexed dims of t (increasing) and, per indexed dim, the position
// of every selected element, broadcast to index_shape, wrapped into [0, size) and bounds-checked.
struct Resolved {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> positions;
  DimVector index_shape;
  int64_t count = 0;  // numel of index_shape
  bool adjacent = true;
};

Resolved resolve(const Tensor& t, const std::vector<Tensor>& indices, const char* op) {
  Resolved r;
  std::vector<Tensor> raw;
  int64_t dim = 0;
  for (const Tensor& ix : indices) {
    if (!ix.defined()) {
      ++dim;
      continue;
    }
    EMBER_CHECK_VALUE(ix.device() == t.device(), op, ": indices on ", ix.device(), " for a tensor on ",
                      t.device());
    if (ix.dtype() == kBool || ix.dtype() == kUInt8) {
      EMBER_CHECK_INDEX(ix.dim() > 0, op, ": a 0-d bool mask takes no dimension; unsqueeze the tensor first");
      EMBER_CHECK_INDEX(dim + ix.dim() <= t.dim(), op, ": too many indices for tensor of dimension ", t.dim());
      for (int64_t j = 0; j < ix.dim(); ++j)
        EMBER_CHECK_INDEX(t.size(dim + j) == ix.size(j), op, ": The shape of the mask ", ix.sizes(),
                          " at index ", j, " does not match the shape of the indexed tensor ", t.sizes(),
                          " at index ", dim + j);
      Tensor coords = nonzero(ix);
      for (int64_t j = 0; j < ix.dim(); ++j) {
        r.dims.push_back(dim + j);
        raw.push_back(coords.select(1, j));
      }
      dim += ix.dim();
    } else {
      EMBER_CHECK_TYPE(ix.dtype() == kInt64 || ix.dtype() == kInt32, op,
                       ": tensors used as indices must be long, int, byte or bool tensors, got ", ix.dtype());
      EMBER_CHECK_INDEX(dim < t.dim(), op, ": too many indices for tensor of dimension ", t.dim());
      r.dims.push_back(dim++);
      raw.push_back(ix);
    }
  }
  for (const Tensor& ix : raw) r.index_shape = broadcast_shapes(r.index_shape, ix.sizes(), op);
  r.count = numel_of(r.index_shape);
  for (size_t j = 0; j < raw.size(); ++j) {
    int64_t size = t.size(r.dims[j]);
    std::vector<int64_t> pos = expand_data(raw[j], r.index_shape).to_vector<int64_t>();
    for (int64_t& p : pos) {
      EMBER_CHECK_INDEX(p >= -size && p < size, op, ": index ", p, " is out of bounds for dimension ",
                        r.dims[j], " with size ", size);
      if (p < 0) p += size;
    }
    r.positions.push_back(std::move(pos));
    if (j > 0) r.adjacent &= r.dims[j] == r.dims[j - 1] + 1;
  }
  return r;
}

}  // namespace

Tensor impl_index(const Tensor& t, const std::vector<Tensor>& indices) {
  Resolved r = resolve(t, indices, "index");
  if (r.dims.empty()) return t;
  // Indexed dims first, flattened into one, picked with index_select, then unflattened.
  std::vector<int64_t> perm(r.dims.begin(), r.dims.end());
  for (int64_t d = 0; d < t.dim(); ++d)
    if (std::find(r.dims.begin(), r.dims.end(), d) == r.dims.end()) perm.push_back(d);
  Tensor front = permute(t, perm);
  int64_t k = static_cast<int64_t>(r.dims.size()), indexed = 1;
  for (int64_t j = 0; j < k; ++j) indexed *= front.size(j);
  std::vector<int64_t> linear(static_cast<size_t>(r.count), 0);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t n = 0; n < r.count; ++n) linear[n] = linear[n] * front.size(j) + r.positions[j][n];
  DimVector flat_shape{indexed}, out_shape = r.index_shape;
  for (int64_t d = k; d < front.dim(); ++d) {
    flat_shape.push_back(front.size(d));
    out_shape.push_back(front.size(d));
  }
  Tensor out = reshape(index_select(reshape(front, flat_shape), 0, tensor(linear, {r.count}, TensorOptions(kInt64).device(t.device()))), out_shape);
  int64_t first = r.dims.front();
  if (!r.adjacent || first == 0) return out;
  // The indexed dims go back to where the first of them was.
  int64_t nb = static_cast<int64_t>(r.index_shape.size());
  std::vector<int64_t> place;
  for (int64_t i = 0; i < first; ++i) place.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i) place.push_back(i);
  for (int64_t i = nb + first; i < out.dim(); ++i) place.push_back(i);
  return permute(out, place);
}

Tensor impl_index_put(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  if (autocast::applies("index_put", t))
    return autocast::run("index_put", {t, values}, [&](const autocast::Cast& cast) { return index_put(cast(t), indices, cast(values), accumulate); });
  EMBER_CHECK_VALUE(values.device() == t.device(), "index_put: values on ", values.device(),
                    " for a tensor on ", t.device());
  EMBER_CHECK_TYPE(values.dtype() == t.dtype(), "index_put: Index put requires the source and destination dtypes ",
                   "match, got ", t.dtype(), " for the destination and ", values.dtype(), " for the source");
  // Where each indexed element lives in t's row-major order: t's indexing applied to its positions.
  Tensor where = index(arange(t.numel(), TensorOptions(kInt64).device(t.device())).reshape(t.sizes()), indices);
  DimVector shape = where.sizes().vec();
  bool fits = values.dim() <= where.dim();
  for (int64_t i = 1; fits && i <= values.dim(); ++i) {
    int64_t v = values.size(-i), w = where.size(-i);
    fits = v == w || v == 1;
  }
  EMBER_CHECK_VALUE(fits, "index_put: shape mismatch: value tensor of shape ", values.sizes(),
                    " cannot be broadcast to indexing result of shape ", where.sizes());
  Tensor vals = reshape(expand(values, shape), {where.numel()});
  Tensor flat = reshape(t, {t.numel()});
  std::vector<int64_t> pos = where.to_vector<int64_t>();
  if (!accumulate) {
    // The last write to a position wins: keep only it, and clear every written position.
    std::vector<bool> written(static_cast<size_t>(t.numel()), false);
    std::vector<int64_t> keep;
    for (size_t n = pos.size(); n-- > 0;) {
      if (written[static_cast<size_t>(pos[n])]) continue;
      written[static_cast<size_t>(pos[n])] = true;
      keep.push_back(static_cast<int64_t>(n));
    }
    if (keep.size() != pos.size()) {
      std::reverse(keep.begin(), keep.end());
      Tensor kept = tensor(keep, {static_cast<int64_t>(keep.size())}, TensorOptions(kInt64).device(t.device()));
      vals = index_select(vals, 0, kept);
      std::vector<int64_t> unique;
      for (int64_t n : keep) unique.push_back(pos[static_cast<size_t>(n)]);
      pos = std::move(unique);
    }
    // NB: cleared to -0, the identity of addition (+0 + -0 is +0: a written -0 would come out +0)
    flat = masked_fill(flat, tensor(written, {t.numel()}, TensorOptions(kBool).device(t.device())),
                       is_floating(t.dtype()) ? Scalar(-0.0) : Scalar(int64_t(0)));
  }
  Tensor at = tensor(pos, {static_cast<int64_t>(pos.size())}, TensorOptions(kInt64).device(t.device()));
  return reshape(index_add(flat, 0, at, vals), t.sizes());
}

Tensor impl_nonzero(const Tensor& t) {
  std::vector<double> values = t.to_vector<double>();
  DimVector strides = contiguous_strides(t.sizes());
  std::vector<int64_t> coords;
  int64_t rows = 0;
  for (size_t flat = 0; flat < values.size(); ++flat) {
    if (values[flat] == 0) continue;
    int64_t rest = static_cast<int64_t>(flat);
    for (int64_t d = 0; d < t.dim(); ++d) {
      coords.push_back(rest / strides[static_cast<size_t>(d)]);
      rest %= strides[static_cast<size_t>(d)];
    }
    ++rows;
  }
  return tensor(coords, {rows, t.dim()}, TensorOptions(kInt64).device(t.device()));
}

Tensor impl_argwhere(const Tensor& self) { return nonzero(self); }

Tensor impl_masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK_TYPE(mask.dtype() == kBool, "masked_select: expected a bool mask, got ", mask.dtype());
  EMBER_CHECK_VALUE(mask.device() == self.device(), "masked_select: mask on ", mask.device(), " for a tensor on ",
                    self.device());
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  // The flat positions of the true entries, picked by index_select (whose gradient is index_add).
  Tensor positions = nonzero(reshape(expand(mask, shape), {-1})).reshape({-1});
  return index_select(reshape(expand(self, shape), {-1}), 0, positions);
}

}  // namespace ember
