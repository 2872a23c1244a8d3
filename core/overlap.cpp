#include "ember/core/overlap.h"

#include <algorithm>
#include <numeric>

namespace ember {
namespace {

// Each element at its own address and the addresses without gaps (some permutation of a
// contiguous layout); size-1 dims say nothing.
bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<int64_t> order;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) != 1) order.push_back(d);
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return t.stride(x) < t.stride(y); });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

// [first, last] byte address of t's elements (t non-empty, strides not negative).
std::pair<const char*, const char*> byte_range(const Tensor& t) {
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  const char* begin = static_cast<const char*>(t.data_ptr());
  return {begin, begin + (last + 1) * static_cast<int64_t>(t.itemsize()) - 1};
}

// The same elements at the same addresses: equal sizes, and equal strides wherever a dim has more
// than one element (a size-1 dim's stride never moves).
bool same_layout(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype() || a.data_ptr() != b.data_ptr()) return false;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
  return true;
}

}  // namespace

MemOverlap memory_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || a.storage() != b.storage()) return MemOverlap::No;
  if (a.is_same(b)) return MemOverlap::Full;
  auto [a_begin, a_end] = byte_range(a);
  auto [b_begin, b_end] = byte_range(b);
  if (a_end < b_begin || b_end < a_begin) return MemOverlap::No;
  if (!non_overlapping_and_dense(a) || !non_overlapping_and_dense(b)) return MemOverlap::TooHard;
  return same_layout(a, b) ? MemOverlap::Full : MemOverlap::Partial;
}

void check_no_partial_overlap(const Tensor& written, const Tensor& read, const char* op) {
  EMBER_CHECK_VALUE(memory_overlap(written, read) != MemOverlap::Partial, op,
                    ": unsupported operation: some elements of the input tensor and the written-to tensor "
                    "refer to a single memory location (", describe(read), " read while ", describe(written),
                    " is written); clone() the input first");
}

}  // namespace ember
