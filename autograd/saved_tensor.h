#pragma once
// A tensor an op keeps for its backward. It remembers the version the tensor had when saved, so
// unpacking after an in-place change is an error instead of a wrong gradient. An op's own output
// is saved without its grad_fn (which would be a cycle) and reattached to it on unpack.
#include <memory>

#include "ember/autograd/node.h"

namespace ember::autograd {

class SavedTensor {
 public:
  SavedTensor() = default;
  /// `is_output`: t is an output of the node that saves it.
  explicit SavedTensor(const Tensor& t, bool is_output = false);

  /// The saved tensor; `owner` is the saving node (needed for saved outputs under create_graph).
  Tensor unpack(const Node* owner = nullptr) const;
  bool defined() const { return data_.defined() || released_; }
  void reset();

 private:
  Tensor data_;
  uint64_t version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  bool requires_grad_ = false;
};

}  // namespace ember::autograd
