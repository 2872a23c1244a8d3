// Searching sorted values (searchsorted, bucketize) and finding the distinct ones (unique), composed
// of gather, where, sort and scatter_add; none has a gradient, as in PyTorch.
#include <algorithm>
#include <bit>
#include <numeric>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

// For each row b, where each of values[b] [K] falls in seq[b] [N] (int64 [B, K]): PyTorch's binary
// search, every value at once. It moves right past a boundary unless boundary >= value (> with
// right), so a NaN value lands after every boundary, and a NaN boundary, sorted last, counts as
// below every value the search reaches it with: the answer is the search's, not a count.
Tensor binary_search(const Tensor& seq, const Tensor& values, bool right) {
  const int64_t n = seq.size(-1);
  const TensorOptions on = TensorOptions(kInt64).device(values.device());
  Tensor start = zeros(values.sizes(), on), end = full(values.sizes(), n, on);
  const int steps = std::bit_width(static_cast<uint64_t>(std::max<int64_t>(n, 1))) + 1;
  for (int step = 0; step < steps; ++step) {
    const Tensor active = lt(start, end);
    const Tensor mid = start + floor_divide(end - start, Scalar(2));
    const Tensor at_mid = gather(seq, -1, clamp(mid, std::nullopt, Scalar(std::max<int64_t>(n - 1, 0))));
    const Tensor right_of = logical_not(right ? gt(at_mid, values) : ge(at_mid, values));
    start = where(logical_and(active, right_of), mid + 1, start);
    end = where(logical_and(active, logical_not(right_of)), mid, end);
  }
  return start;
}

}  // namespace

Tensor impl_searchsorted(const Tensor& sorted_sequence, const Tensor& input, bool out_int32, bool right,
                         std::optional<std::string_view> side, const Tensor& sorter) {
  EMBER_CHECK(!side || *side == "left" || *side == "right",
              "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
  EMBER_CHECK(!(side && *side == "left" && right),
              "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
  EMBER_CHECK_AS(NotImplementedError, sorted_sequence.dtype() != kBool && input.dtype() != kBool,
                 "\"searchsorted_out_cpu\" not implemented for 'Bool'");
  right = right || (side && *side == "right");
  EMBER_CHECK(sorted_sequence.dim() > 0,
              "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  const Tensor seq_sorted = sorter.defined() ? gather(sorted_sequence, -1, sorter) : sorted_sequence;
  const DType dtype = out_int32 ? kInt32 : kInt64;
  if (seq_sorted.dim() > 1) {
    const IntArrayRef lead = seq_sorted.sizes();
    EMBER_CHECK(input.dim() == seq_sorted.dim() && std::equal(lead.begin(), lead.end() - 1, input.sizes().begin()),
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
                seq_sorted.sizes(), " and input value tensor ", input.sizes());
  }
  const int64_t n = seq_sorted.size(-1);
  if (n == 0 || input.numel() == 0) return zeros(input.sizes(), TensorOptions(dtype).device(input.device()));
  NoGradGuard no_grad;
  const Tensor seq = seq_sorted.dim() == 1 ? seq_sorted.reshape({1, n}) : seq_sorted.reshape({-1, n});
  const Tensor rows = seq_sorted.dim() == 1 ? input.reshape({1, -1}) : input.reshape({-1, input.size(-1)});
  return binary_search(seq, rows, right).reshape(input.sizes()).to(dtype);
}

Tensor impl_searchsorted(const Tensor& sorted_sequence, Scalar input, bool out_int32, bool right,
                         std::optional<std::string_view> side, const Tensor& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1,
              "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we "
              "got boundaries tensor dim(",
              sorted_sequence.dim(), ") and input value's dim(0) numel(1)");
  const Tensor value = scalar_tensor(input, TensorOptions(sorted_sequence.dtype()).device(sorted_sequence.device()));
  return searchsorted(sorted_sequence, value, out_int32, right, side, sorter);
}

Tensor impl_bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right, std::nullopt, Tensor());
}

namespace {

// The first entry of each run of equal rows in `ranked` (sorted rows [n, m]), as bool [n].
Tensor run_starts(const Tensor& ranked) {
  const int64_t n = ranked.size(0);
  const TensorOptions flags = TensorOptions(kBool).device(ranked.device());
  if (n == 0) return zeros({0}, flags);
  const Tensor changes =
      ranked.size(1) ? any(ne(ranked.narrow(0, 1, n - 1), ranked.narrow(0, 0, n - 1)), 1) : zeros({n - 1}, flags);
  return cat({ones({1}, flags), changes}, 0);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> impl_unique_all(const Tensor& self, bool return_inverse, bool return_counts,
                                                   std::optional<int64_t> dim) {
  // the values are gathered from self, so they require grad when it does (as PyTorch's, whose
  // backward then refuses; here the gradient reaches the entries picked)
  const TensorOptions longs = TensorOptions(kInt64).device(self.device());
  // the slices along dim as rows [n, m] (the entries, for no dim), sorted lexicographically by
  // stable sorts from the last column to the first
  Tensor moved, rows;
  if (dim) {
    EMBER_CHECK_INDEX(self.dim() > 0, "unique: dim ", *dim, " out of range for a 0-d tensor");
    moved = self.movedim({wrap_dim(*dim, self.dim(), "unique")}, {0});
    int64_t m = 1;
    for (int64_t i = 1; i < moved.dim(); ++i) m *= moved.size(i);
    rows = moved.reshape({moved.size(0), m});  // not -1, which an empty input leaves undetermined
  } else {
    rows = self.reshape({-1, 1});
  }
  const int64_t n = rows.size(0);
  Tensor order = arange(n, longs);
  for (int64_t c = rows.size(1) - 1; c >= 0; --c) {
    const Tensor keys = rows.select(1, c).index_select(0, order);
    order = order.index_select(0, argsort(keys, 0, false, true));
  }
  const Tensor ranked = rows.index_select(0, order);
  const Tensor first = run_starts(ranked);
  const Tensor picked = ranked.index_select(0, nonzero(first).reshape({-1}));
  Tensor values;
  if (dim) {
    DimVector shape{picked.size(0)};
    for (int64_t i = 1; i < moved.dim(); ++i) shape.push_back(moved.size(i));
    values = picked.reshape(shape).movedim({0}, {wrap_dim(*dim, self.dim(), "unique")});
  } else {
    values = picked.reshape({-1});
  }
  const Tensor group = cumsum(first.to(kInt64), 0) - 1;  // each sorted row's distinct value
  Tensor inverse = zeros({0}, longs), counts = zeros({0}, longs);
  if (return_inverse) {
    inverse = scatter_add(zeros({n}, longs), 0, order, group);
    if (!dim) inverse = inverse.reshape(self.sizes());
  }
  if (return_counts && n) counts = bincount(group, Tensor(), picked.size(0));
  return {values, inverse, counts};
}

}  // namespace ember
