#pragma once
// Joining and splitting along a dimension: cat, stack, split, split_with_sizes, chunk (declared
// from the op table, ember/ops/functions.h). cat and stack promote their inputs to a common dtype
// and need at least one tensor; the pieces of split and chunk are views of the input (narrow), each
// with its own gradient path. chunk gives at most `chunks` pieces, fewer when they run out (as in
// PyTorch: a size-5 dim in 4 chunks gives pieces of 2, 2 and 1). NB: in C++ a one-element braced
// list, split(t, {5}), picks the split_size overload; use split_with_sizes for it.
#include "ember/core/kernels/join.h"
#include "ember/ops/functions.h"
