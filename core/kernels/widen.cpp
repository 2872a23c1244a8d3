#include "ember/core/kernels/widen.h"

#include <algorithm>

#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/parallel.h"
#include "ember/core/strided.h"

namespace ember::detail {

Tensor Widening::widen(const Tensor& t, bool output, bool write_only) {
  if (!t.defined() || !is_16bit_float(t.dtype())) return t;
  for (Entry& e : entries_) {
    const Tensor& o = e.original;
    if (o.data_ptr() == t.data_ptr() && o.dtype() == t.dtype() && o.sizes() == t.sizes() &&
        o.strides() == t.strides()) {
      e.output = e.output || output;
      if (!e.filled && !write_only) {  // an in-place op's input over its write-only output
        copy_data(e.wide, t);
        e.filled = true;
      }
      return e.wide;
    }
  }
  Tensor wide = write_only ? empty(t.sizes(), TensorOptions(DType::Float32).device(t.device()))
                           : copy_as(t, DType::Float32, t.device());
  entries_.push_back({t, wide, output, !write_only});
  return wide;
}

bool chunkable(std::initializer_list<const Tensor*> tensors, int64_t& numel) {
  bool any_16bit = false;
  for (const Tensor* t : tensors) {
    if (t == nullptr || !t->defined()) continue;
    if (!t->is_contiguous() || t->device().type != DeviceType::CPU) return false;
    if (numel < 0) numel = t->numel();
    if (t->numel() != numel) return false;
    any_16bit = any_16bit || is_16bit_float(t->dtype());
  }
  return any_16bit;
}

Tensor chunk_of(const Tensor& t, int64_t begin, int64_t len) {
  if (!t.defined()) return t;
  return as_strided_data(t, {len}, {1}, t.storage_offset() + begin);
}

void for_each_chunk(int64_t numel, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t chunks = (numel + kWidenChunk - 1) / kWidenChunk;
  // NB: a chunk is about as much work as kElementwiseGrain's share of a float32 op; four per task
  parallel_for(0, chunks, 4, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const int64_t begin = c * kWidenChunk;
      f(begin, std::min(kWidenChunk, numel - begin));
    }
  });
}

void Widening::narrow() {
  for (const Entry& e : entries_)
    if (e.output) copy_data(e.original, e.wide);
}

}  // namespace ember::detail
