#pragma once
// Advanced indexing, PyTorch's t[indices] and t[indices] = values: index, index_put and nonzero
// (argwhere), and masked_select, t[mask] of the broadcast pair as one flat copy (declared from the
// op table, ember/ops/functions.h). `indices` has one entry per leading index
// position: an undefined Tensor takes a whole dim (Python's `:`), an int64/int32 tensor picks
// entries of one dim, a bool (or uint8) mask picks the true positions of as many dims as it has.
// The int indices (masks turned into their coordinates) broadcast together; the result's indexed
// dims replace the indexed ones where those are adjacent, and come first otherwise. Negative
// indices count from the end; out-of-range ones are an IndexError naming the index, the dim and its
// size. index_put converts values to t's dtype; without `accumulate` the last of repeated positions
// wins. Both ops are differentiable in t and values; Tensor::index_put_ is the in-place form.
#include "ember/ops/functions.h"
