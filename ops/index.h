#pragma once
// Indexing along a dimension: index_select, gather, scatter_add, index_add, masked_fill and
// embedding (declared from the op table, ember/ops/functions.h). Index tensors are int64 or int32;
// an index outside [0, size) is an IndexError naming the index and the size (negative indices are
// refused, as in PyTorch; embedding's padding_idx may be negative, counted from V). Each op is
// differentiable in its floating inputs (never in the index or mask), and the backward of each is
// again built from these ops, so second derivatives work.
#include "ember/core/kernels/index.h"
#include "ember/ops/functions.h"
