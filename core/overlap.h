#pragma once
// How two tensors' elements lie in memory, for in-place ops that read one tensor while writing
// another: reading memory that the write has already changed would give a silently wrong result.
#include "ember/core/tensor.h"

namespace ember {

enum class MemOverlap {
  No,       // different storage, or disjoint address ranges
  Full,     // the same elements in the same layout (x.add_(x) is well defined)
  Partial,  // dense layouts whose address ranges meet in any other way
  TooHard,  // address ranges meet, and a layout with gaps or repeats makes the exact answer costly
};

/// Classifies a against b as PyTorch's get_overlap_status does.
MemOverlap memory_overlap(const Tensor& a, const Tensor& b);

/// Refuses, as PyTorch does, an in-place `op` that writes `written` while reading `read` when they
/// partially overlap ("clone() the tensor first").
void check_no_partial_overlap(const Tensor& written, const Tensor& read, const char* op);

}  // namespace ember
