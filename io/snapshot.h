#pragma once
// A copy of a Value tree's tensors taken in one call, into host buffers that the next copy reuses:
// what a background save writes while training goes on changing the originals.
//
//   io::Snapshot snapshot;
//   io::Value copy = snapshot.take(state);   // state's tensors may change from here on
//
// The copy has the tree's structure and scalars; each distinct tensor (by identity: a tie stays a
// tie) becomes a contiguous host tensor with the original's dtype, shape, requires_grad and
// attributes. A buffer is reused when the tensor at the same position of the next tree has the
// same dtype and size, so a training loop's saves allocate once. The tensors of a copy share
// those buffers: take() overwrites what the previous copy holds.
#include <cstddef>
#include <vector>

#include "ember/io/value.h"

namespace ember::io {

class Snapshot {
 public:
  Value take(const Value& value);
  /// Bytes held in buffers.
  size_t bytes() const;

 private:
  std::vector<Tensor> buffers_;  // by order of first appearance in the tree
};

}  // namespace ember::io
