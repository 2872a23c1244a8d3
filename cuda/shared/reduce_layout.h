#pragma once
// The reduction kernels see their input as [A, O, R, I]: A and R reduced, O and I kept, so out is
// [O, I]. A contiguous input is used in place when its dims (size-1 dims aside) group as
// reduced? kept? reduced? kept? (sum over dim 0 of [B, N] is [1, 1, B, N]; a per-channel sum of
// [N, C, H, W] is [N, C, HW, 1]); any other input is first permuted to kept dims then reduced
// dims and copied, which is [1, O, R, 1]. Host code; tests/cuda reduce through these layouts on
// the host against the CPU kernels.
#include <cstdint>

namespace ember::cuda {

struct ReduceLayout {
  int64_t A = 1, O = 1, R = 1, I = 1;
};

/// The in-place layout of a contiguous input of `ndim` dims, reduced where reduced[d]; false when
/// its dims do not group that way.
inline bool contiguous_reduce_layout(int ndim, const int64_t* sizes, const bool* reduced, ReduceLayout& l) {
  struct Group {
    bool reduced;
    int64_t size;
  };
  Group groups[64];
  int count = 0;
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] == 1) continue;
    if (count > 0 && groups[count - 1].reduced == reduced[d]) {
      groups[count - 1].size *= sizes[d];
    } else {
      if (count == 4) return false;  // a fifth group cannot fit [A, O, R, I]
      groups[count++] = {reduced[d], sizes[d]};
    }
  }
  l = ReduceLayout();
  int k = 0;
  if (count >= 3 && groups[0].reduced) l.A = groups[k++].size;
  if (k < count && !groups[k].reduced) l.O = groups[k++].size;
  if (k < count && groups[k].reduced) l.R = groups[k++].size;
  if (k < count && !groups[k].reduced) l.I = groups[k++].size;
  return k == count;
}

}  // namespace ember::cuda
