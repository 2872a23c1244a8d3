#pragma once
// A vector that keeps its first N elements inline, so the sizes and strides of a typical tensor
// cost no heap allocation. NB: Abseil's InlinedVector, not a container of our own: a hand-written
// one lost its elements when it grew past N (cat of more than 8 tensors, 7-D shapes). Derived
// rather than aliased only so that it is a type of namespace ember, where argument-dependent
// lookup finds ember's operator<< for shapes.
#include <cstddef>

#include <absl/container/inlined_vector.h>

namespace ember {

template <typename T, size_t N>
class SmallVector : public absl::InlinedVector<T, N> {
 public:
  using absl::InlinedVector<T, N>::InlinedVector;
};

}  // namespace ember
