// The scatter family composed of the indexing ops: scatter (a tensor, a number, "add" and
// "multiply"), scatter_reduce, index_reduce, index_copy, index_fill, masked_scatter and put.
// Writes go through index_put on the flattened tensor, so where an index repeats the last write in
// index's row-major order wins, as on PyTorch's CPU (adding them would give a value none of them is).
// scatter_reduce's prod, amax and amin carry PyTorch's gradient formulas (autograd::record_function);
// every other gradient is the composition's.
#include <utility>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/composite_grad.h"
#include "ember/ops/ops.h"

namespace ember {

using autograd::TensorList;

namespace {

enum class Reduction { Sum, Prod, Mean, Amax, Amin };

Reduction parse_reduction(std::string_view reduce) {
  if (reduce == "sum") return Reduction::Sum;
  if (reduce == "prod") return Reduction::Prod;
  if (reduce == "mean") return Reduction::Mean;
  if (reduce == "amax") return Reduction::Amax;
  EMBER_CHECK(reduce == "amin", "scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got ",
              reduce);
  return Reduction::Amin;
}

// A 0-d tensor as shape [1]: the ops along a dim take a 0-d tensor as 1-D of one entry (PyTorch's rule).
Tensor lift(const Tensor& t) { return t.dim() == 0 ? reshape(t, {1}) : t; }

// NB: the messages and exception types of these checks are PyTorch's (RuntimeError, IndexError where
// it raises one), with the shapes and dtypes added: Python scripts match them.
void check_index_dtype(const Tensor& index, const char* op) {
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, op, "(): Expected dtype int32/int64 for index, got ",
              index.dtype());
}

void check_same_dtype(const Tensor& self, const Tensor& source, const char* op, const char* what) {
  EMBER_CHECK(source.dtype() == self.dtype(), op, "(): Expected self.dtype to be equal to ", what, ".dtype, got ",
              self.dtype(), " and ", source.dtype());
}

// index (any shape) as int64, every value checked to lie in [0, size), or in [-size, size) and wrapped
// when negative counts from the end: an IndexError names the first bad value, the dim and its size.
Tensor checked_index(const Tensor& index, int64_t size, int64_t dim, bool negative_counts, const char* op) {
  Tensor idx = index.to(kInt64);
  if (idx.numel() == 0) return idx;
  const int64_t lo = min(idx).item<int64_t>(), hi = max(idx).item<int64_t>();
  const int64_t first = negative_counts ? -size : 0;
  EMBER_CHECK_INDEX(lo >= first && hi < size, op, "(): index ", lo < first ? lo : hi,
                    " is out of bounds for dimension ", dim, " with size ", size);
  return negative_counts && lo < 0 ? where(lt(idx, 0), add(idx, size), idx) : idx;
}

// PyTorch's shape rule of scatter and scatter_reduce (checked only for a non-empty index): index has
// self's number of dims and is no larger than src anywhere, nor than self outside dim.
void check_scatter_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op) {
  EMBER_CHECK(index.dim() == self.dim(), op,
              "(): Index tensor must have the same number of dimensions as self tensor (", index.sizes(), " and ",
              self.sizes(), ")");
  EMBER_CHECK(!src || src->dim() == self.dim(), op, "(): Index tensor must have the same number of dimensions as src ",
              "tensor (", index.sizes(), " and ", src->sizes(), ")");
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK((d == dim || index.size(d) <= self.size(d)) && (!src || index.size(d) <= src->size(d)), op,
                "(): Expected index ", index.sizes(), " to be no larger than self ", self.sizes(),
                " apart from dimension ", dim, " and to be no larger size than src ",
                src ? src->sizes() : index.sizes());
}

// src's leading part in index's shape: PyTorch reads src only where index has elements.
Tensor narrow_to(Tensor src, IntArrayRef shape) {
  for (int64_t d = 0; d < src.dim(); ++d)
    if (src.size(d) != shape[static_cast<size_t>(d)]) src = narrow(src, d, 0, shape[static_cast<size_t>(d)]);
  return src;
}

// The flat row-major position in a tensor of `shape` of each element of index (int64, in range): its
// own coordinates, with its value as the coordinate along dim.
Tensor flat_targets(IntArrayRef shape, int64_t dim, const Tensor& index) {
  DimVector strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d) + 1] * shape[static_cast<size_t>(d) + 1];
  Tensor flat = mul(index, strides[static_cast<size_t>(dim)]);
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d == dim || index.size(d) == 1) continue;
    DimVector along(static_cast<size_t>(index.dim()), 1);
    along[static_cast<size_t>(d)] = index.size(d);
    Tensor coordinate = reshape(arange(index.size(d), TensorOptions(kInt64).device(index.device())), along);
    flat = add(flat, mul(coordinate, strides[static_cast<size_t>(d)]));
  }
  return reshape(flat, {flat.numel()});
}

// self with the flat positions `targets` set to values (the last write of a repeated position wins).
Tensor write_flat(const Tensor& self, const Tensor& targets, const Tensor& values) {
  return reshape(index_put(reshape(self, {self.numel()}), {targets}, reshape(values, {values.numel()})), self.sizes());
}

// How many of index's elements name each position of self (int64, self's shape).
Tensor hit_counts(const Tensor& self, int64_t dim, const Tensor& index) {
  const TensorOptions counts = TensorOptions(kInt64).device(self.device());
  return scatter_add(zeros(self.sizes(), counts), dim, index, ones(index.sizes(), counts));
}

// What scatter_reduce's prod, amax and amin need from their index: the flat targets, which positions
// receive anything, and the most elements sent to one position.
struct Targets {
  Tensor flat;
  Tensor hit;
  int64_t longest = 0;
};

Targets targets_of(const Tensor& self, int64_t dim, const Tensor& index) {
  const Tensor counts = hit_counts(self, dim, index);
  return {flat_targets(self.sizes(), dim, index), gt(counts, 0), max(counts).item<int64_t>()};
}

// For each flat position that `targets` names (ascending), the combination (maximum or minimum) of
// the values sent there: sorted by position, each run of equal positions combined by a segmented scan
// (log2 of the longest run steps, each one op over every element), and each run's last element kept.
std::pair<Tensor, Tensor> segment_extremum(const Tensor& targets, const Tensor& values_flat, bool amax,
                                           int64_t longest) {
  const Tensor order = argsort(targets);
  const Tensor keys = index_select(targets, 0, order);
  Tensor values = index_select(values_flat, 0, order);
  const int64_t n = keys.numel();
  for (int64_t step = 1; step < longest; step *= 2) {  // NB: Hillis-Steele; a run is contiguous after the sort
    const Tensor later = narrow(values, 0, step, n - step), earlier = narrow(values, 0, 0, n - step);
    const Tensor same = eq(narrow(keys, 0, step, n - step), narrow(keys, 0, 0, n - step));
    const Tensor combined = amax ? maximum(later, earlier) : minimum(later, earlier);
    values = cat({narrow(values, 0, 0, step), where(same, combined, later)}, 0);
  }
  const Tensor last = cat(
      {ne(narrow(keys, 0, 1, n - 1), narrow(keys, 0, 0, n - 1)), ones({1}, TensorOptions(kBool).device(keys.device()))},
      0);
  const Tensor ends = reshape(nonzero(last), {-1});
  return {index_select(keys, 0, ends), index_select(values, 0, ends)};
}

Tensor scatter_extremum(const Tensor& self, const Tensor& src, const Targets& t, bool amax, bool include_self) {
  const auto [positions, values] = segment_extremum(t.flat, reshape(src, {src.numel()}), amax, t.longest);
  const Tensor placed = reshape(index_put(zeros({self.numel()}, self.options()), {positions}, values), self.sizes());
  const Tensor reduced = include_self ? (amax ? maximum(self, placed) : minimum(self, placed)) : placed;
  return where(t.hit, reduced, self);
}

// self with src's elements multiplied in one at a time, in index's order: (self * s0) * s1 ..., or
// s0 * s1 ... without self, as PyTorch's loop. NB: the order decides where a product passes through the
// subnormals or overflows, so no tree order will do: one step per element sent to the most-hit position.
Tensor scatter_prod(const Tensor& self, const Tensor& src, const Targets& t, bool include_self) {
  const Tensor order = argsort(t.flat, 0, false, /*stable=*/true);
  const Tensor keys = index_select(t.flat, 0, order);
  const Tensor values = index_select(reshape(src, {src.numel()}), 0, order);
  const int64_t n = keys.numel();
  const TensorOptions options = TensorOptions(kInt64).device(keys.device());
  const Tensor first = cat(
      {ones({1}, TensorOptions(kBool).device(keys.device())), ne(narrow(keys, 0, 1, n - 1), narrow(keys, 0, 0, n - 1))},
      0);
  const Tensor position = arange(n, options);
  const Tensor rank = sub(position, std::get<0>(cummax(where(first, position, 0), 0)));  // place within its run
  const Tensor flat = reshape(self, {self.numel()});
  Tensor product = include_self ? flat : where(reshape(t.hit, {-1}), ones_like(flat), flat);
  for (int64_t k = 0; k < t.longest; ++k) {
    const Tensor at = reshape(nonzero(eq(rank, k)), {-1});
    const Tensor slots = index_select(keys, 0, at);
    product = index_put(product, {slots}, mul(index_select(product, 0, slots), index_select(values, 0, at)));
  }
  return reshape(product, self.sizes());
}

Tensor ones_at_zeros(const Tensor& t) { return where(eq(t, 0), ones_like(t), t); }

// scatter_reduce with prod, and PyTorch's gradient (scatter_reduce_backward): self's is grad * (the
// product with self's zeros taken as 1) / self, so inf and NaN entries get NaN as in PyTorch; src's is
// grad * result / src, the exclusive product where src holds the only 0 sent to a position, 0 where two.
Tensor scatter_reduce_prod(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool include_self) {
  const Targets t = targets_of(self, dim, index);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = scatter_prod(self, src, t, include_self);
  }
  autograd::record_function(
      "ScatterReduceBackward0", out, {self, src}, {self, src, index},
      [dim, include_self, t](const TensorList& saved, const TensorList& grads, const autograd::Node&) {
        const Tensor &x = saved[0], &s = saved[1], &idx = saved[2], &grad = grads[0];
        const Tensor masked_self = ones_at_zeros(x);
        Tensor grad_self = div(mul(grad, scatter_prod(masked_self, s, t, include_self)), masked_self);
        if (!include_self) grad_self = where(t.hit, zeros_like(grad_self), grad_self);
        const Tensor src_zero = eq(s, 0);
        const Tensor zeros_sent = gather(scatter_add(zeros_like(x), dim, idx, src_zero.to(x.dtype())), dim, idx);
        const Tensor single_zero = logical_and(src_zero, eq(zeros_sent, 1));
        const Tensor without_it = scatter_prod(x, where(single_zero, ones_like(s), s), t, include_self);
        const Tensor result = scatter_prod(x, s, t, include_self);
        const Tensor grad_src = where(single_zero, gather(mul(grad, without_it), dim, idx),
                                      div(gather(mul(grad, result), dim, idx), ones_at_zeros(s)));
        return TensorList{grad_self, grad_src};
      });
  return out;
}

// scatter_reduce with amax or amin, and PyTorch's gradient: the elements equal to the result share its
// gradient. NB: as PyTorch's, the count includes self's element where it equals the result even when
// include_self=False (self's own gradient there is then 0, and the others get less than grad).
Tensor scatter_reduce_extremum(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool amax,
                               bool include_self) {
  const Targets t = targets_of(self, dim, index);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = scatter_extremum(self, src, t, amax, include_self);
  }
  autograd::record_function(
      "ScatterReduceBackward0", out, {self, src}, {self, src, index},
      [dim, amax, include_self, t](const TensorList& saved, const TensorList& grads, const autograd::Node&) {
        const Tensor &x = saved[0], &s = saved[1], &idx = saved[2], &grad = grads[0];
        Tensor result;
        {
          autograd::NoGradGuard no_grad;  // only compared with: no gradient flows through it
          result = scatter_extremum(x, s, t, amax, include_self);
        }
        const Tensor self_is = eq(x, result).to(grad.dtype());
        const Tensor src_is = eq(s, gather(result, dim, idx)).to(grad.dtype());
        const Tensor share = div(grad, scatter_add(self_is, dim, idx, src_is));
        Tensor grad_self = mul(self_is, share);
        if (!include_self) grad_self = where(t.hit, zeros_like(grad_self), grad_self);
        return TensorList{grad_self, mul(src_is, gather(share, dim, idx))};
      });
  return out;
}

// prod, amax or amin with an empty index: a copy of self with PyTorch's gradient, whose formulas hold
// with nothing sent too: grad * self / self for prod (NaN at inf and NaN, 1 at 0), and for amax and
// amin grad / (self == self) (NaN at NaN). src gets zeros.
Tensor unwritten_extremum_or_prod(const Tensor& self, const Tensor& src, Reduction reduction) {
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = clone(self);
  }
  autograd::record_function("ScatterReduceBackward0", out, {self, src}, {self, src},
                            [reduction](const TensorList& saved, const TensorList& grads, const autograd::Node&) {
                              const Tensor &x = saved[0], &grad = grads[0];
                              Tensor grad_self;
                              if (reduction == Reduction::Prod) {
                                const Tensor masked = ones_at_zeros(x);
                                grad_self = div(mul(grad, masked), masked);
                              } else {
                                const Tensor is_result = eq(x, x).to(grad.dtype());
                                grad_self = mul(is_result, div(grad, is_result));
                              }
                              return TensorList{grad_self, zeros(saved[1].sizes(), grad.options())};
                            });
  return out;
}

}  // namespace

Tensor impl_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (self.dim() == 0) {
    wrap_dim(dim, 1, "scatter");
    return reshape(scatter(reshape(self, {1}), 0, lift(index), lift(src)), {});
  }
  const int64_t d = wrap_dim(dim, self.dim(), "scatter");
  check_index_dtype(index, "scatter");
  check_same_dtype(self, src, "scatter", "src");
  // NB: as PyTorch, with an empty index nothing is read from src (whatever its shape), yet the result
  // depends on it, with a zero gradient.
  if (index.numel() == 0) return detail::with_zero_grad(clone(self), {src});
  const Tensor idx = lift(index), from = lift(src);
  check_scatter_shapes(self, d, idx, &from, "scatter");
  const Tensor targets = flat_targets(self.sizes(), d, checked_index(idx, self.size(d), d, false, "scatter"));
  return write_flat(self, targets, narrow_to(from, idx.sizes()));
}

Tensor impl_scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  return scatter(self, dim, index, full(lift(index).sizes(), value, self.options()));
}

Tensor impl_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  EMBER_CHECK(reduce == "add" || reduce == "multiply",
              "scatter(): reduce argument must be either add or multiply (scatter_reduce has the others), got ",
              reduce);
  return reduce == "add" ? scatter_reduce(self, dim, index, src, "sum") : scatter_reduce(self, dim, index, src, "prod");
}

Tensor impl_scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value, std::string_view reduce) {
  return scatter(self, dim, index, full(lift(index).sizes(), value, self.options()), reduce);
}

Tensor impl_scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self) {
  const Reduction reduction = parse_reduction(reduce);
  if (self.dim() == 0) {
    wrap_dim(dim, 1, "scatter_reduce");
    return reshape(scatter_reduce(reshape(self, {1}), 0, lift(index), lift(src), reduce, include_self), {});
  }
  const int64_t d = wrap_dim(dim, self.dim(), "scatter_reduce");
  check_index_dtype(index, "scatter_reduce");
  check_same_dtype(self, src, "scatter", "src");
  if (index.numel() == 0) {
    return reduction == Reduction::Sum || reduction == Reduction::Mean
               ? detail::with_zero_grad(clone(self), {src})
               : unwritten_extremum_or_prod(self, src, reduction);
  }
  const Tensor idx_in = lift(index), src_in = lift(src);
  check_scatter_shapes(self, d, idx_in, &src_in, "scatter_reduce");
  const Tensor idx = checked_index(idx_in, self.size(d), d, false, "scatter_reduce");
  const Tensor from = narrow_to(src_in, idx.sizes());
  switch (reduction) {
    case Reduction::Prod:
      return scatter_reduce_prod(self, d, idx, from, include_self);
    case Reduction::Amax:
    case Reduction::Amin:
      return scatter_reduce_extremum(self, d, idx, from, reduction == Reduction::Amax, include_self);
    case Reduction::Sum:
    case Reduction::Mean:
      break;
  }
  const Tensor counts = hit_counts(self, d, idx);
  const Tensor hit = gt(counts, 0);
  const Tensor total = scatter_add(include_self ? self : where(hit, zeros_like(self), self), d, idx, from);
  if (reduction == Reduction::Sum) return total;
  const Tensor n = (include_self ? add(counts, 1) : where(hit, counts, ones_like(counts))).to(self.dtype());
  return is_floating(self.dtype()) ? div(total, n) : floor_divide(total, n);
}

Tensor impl_index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self) {
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  if (self.dim() == 0) {
    wrap_dim(dim, 1, "index_reduce");
    return reshape(index_reduce(reshape(self, {1}), 0, index, lift(source), reduce, include_self), {});
  }
  const int64_t d = wrap_dim(dim, self.dim(), "index_reduce");
  check_index_dtype(index, "index_reduce");
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_reduce(): Index is supposed to be a vector, got shape ", index.sizes());
  const Tensor from = lift(source);
  EMBER_CHECK_INDEX(from.dim() == self.dim() && from.size(d) == index.numel(), "index_reduce(): Number of indices (",
                    index.numel(), ") should be equal to source.size(dim) (source ", source.sizes(), ", dim ", d, ")");
  for (int64_t k = 0; k < self.dim(); ++k)
    EMBER_CHECK(k == d || from.size(k) == self.size(k), "index_reduce(): Source/destination tensor must have same ",
                "slice shapes (source ", source.sizes(), ", self ", self.sizes(), ", dimension ", d, ")");
  DimVector along(static_cast<size_t>(self.dim()), 1);
  along[static_cast<size_t>(d)] = index.numel();
  const Tensor idx = checked_index(reshape(index, along), self.size(d), d, false, "index_reduce");
  return scatter_reduce(self, d, expand(idx, from.sizes()), from, reduce, include_self);
}

Tensor impl_index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  if (self.dim() == 0) {
    wrap_dim(dim, 1, "index_copy");
    return reshape(index_copy(reshape(self, {1}), 0, index, lift(source)), {});
  }
  const int64_t d = wrap_dim(dim, self.dim(), "index_copy");
  check_index_dtype(index, "index_copy");
  check_same_dtype(self, source, "index_copy", "source");
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_copy(): Index should have dimension 1 or 0, got shape ", index.sizes());
  const Tensor from = lift(source);
  bool fits = from.dim() == self.dim() && from.size(d) == index.numel();
  for (int64_t k = 0; fits && k < self.dim(); ++k) fits = k == d || from.size(k) == self.size(k);
  EMBER_CHECK_INDEX(fits, "index_copy(): source ", source.sizes(), " does not fit self ", self.sizes(), " with ",
                    index.numel(), " indices along dimension ", d);
  DimVector along(static_cast<size_t>(self.dim()), 1);
  along[static_cast<size_t>(d)] = index.numel();
  const Tensor idx = checked_index(reshape(index, along), self.size(d), d, false, "index_copy");
  return write_flat(self, flat_targets(self.sizes(), d, expand(idx, from.sizes())), from);
}

Tensor impl_index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  if (self.dim() == 0) {
    wrap_dim(dim, 1, "index_fill");
    return reshape(index_fill(reshape(self, {1}), 0, index, value), {});
  }
  const int64_t d = wrap_dim(dim, self.dim(), "index_fill");
  check_index_dtype(index, "index_fill");
  EMBER_CHECK(index.dim() <= 1, "index_fill(): Index has to be a vector/scalar, got shape ", index.sizes());
  const int64_t size = self.size(d);
  const Tensor idx = checked_index(reshape(index, {index.numel()}), size, d, true, "index_fill");
  DimVector along(static_cast<size_t>(self.dim()), 1);
  along[static_cast<size_t>(d)] = size;
  const TensorOptions flags = TensorOptions(kBool).device(self.device());
  const Tensor hit = index_put(zeros({size}, flags), {idx}, ones({}, flags));
  // NB: a fill casts value to self's dtype (int(2.7) in an integer tensor) rather than promote self
  return where(reshape(hit, along), value.dtype() == self.dtype() ? value : value.to(self.dtype()), self);
}

Tensor impl_index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  return index_fill(self, dim, index, full({}, value, self.options()));
}

Tensor impl_masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(mask.dtype() == kBool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  check_same_dtype(self, source, "masked_scatter", "source");
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter");
  const Tensor positions = reshape(nonzero(reshape(expand(mask, shape), {-1})), {-1});
  const int64_t count = positions.numel();
  EMBER_CHECK(source.numel() >= count,
              "masked_scatter(): Number of elements of source < number of ones in mask (source ", source.sizes(), ", ",
              count, " true in mask ", mask.sizes(), ")");
  const Tensor taken = narrow(reshape(source, {source.numel()}), 0, 0, count);
  return write_flat(expand(self, shape), positions, taken);
}

Tensor impl_put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  check_index_dtype(index, "put_");
  check_same_dtype(self, source, "put_", "source");
  EMBER_CHECK(index.numel() == source.numel(),
              "put_(): Expected source and index to have the same number of elements, ",
              "but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  const int64_t n = self.numel();
  Tensor idx = index.to(kInt64);
  if (idx.numel() > 0) {
    const int64_t lo = min(idx).item<int64_t>(), hi = max(idx).item<int64_t>();
    EMBER_CHECK_INDEX(lo >= -n && hi < n, "put_(): index ", lo < -n ? lo : hi, " out of range for tensor of size ",
                      self.sizes(), " (", n, " elements)");
    if (lo < 0) idx = where(lt(idx, 0), add(idx, n), idx);
  }
  return reshape(index_put(reshape(self, {n}), {reshape(idx, {-1})}, reshape(source, {-1}), accumulate), self.sizes());
}

}  // namespace ember
