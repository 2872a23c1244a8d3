#pragma once
// Joining and splitting along a dimension: cat, stack, split, split_with_sizes, chunk. cat and
// stack promote their inputs to a common dtype; the pieces of split and chunk are views of the
// input (narrow), each with its own gradient path.
#include <vector>

#include "ember/core/kernels/join.h"
#include "ember/core/tensor.h"

namespace ember {

/// Concatenates along dim: cat({a, b}, 1) of [2, 3] and [2, 4] is [2, 7]. Sizes must match
/// outside dim; 1-D tensors of shape [0] are skipped (PyTorch's legacy rule). Needs >= 1 tensor.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Joins same-shaped tensors along a new dim: stack of three [2, 3] at dim 0 is [3, 2, 3].
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Views of split_size entries along dim (the last may be smaller).
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
/// Views with the given sizes along dim; they must add up to t.size(dim).
std::vector<Tensor> split_with_sizes(const Tensor& t, IntArrayRef split_sizes, int64_t dim = 0);
/// split_with_sizes under PyTorch's overloaded name: split(t, {2, 3}, 1). NB: a one-element
/// braced list, split(t, {5}), picks the split_size overload; use split_with_sizes for it.
std::vector<Tensor> split(const Tensor& t, IntArrayRef split_sizes, int64_t dim = 0);
/// split into pieces of ceil(size / chunks): at most `chunks` views (fewer when they run out,
/// as in PyTorch: a size-5 dim in 4 chunks gives pieces of 2, 2 and 1).
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);

}  // namespace ember
