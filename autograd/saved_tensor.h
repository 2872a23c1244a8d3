#pragma once
// A tensor an op keeps for its backward. It remembers the version the tensor had when saved, so
// unpacking after an in-place change is an error instead of a wrong gradient. Only a leaf is kept
// as itself (its gradient must reach its accumulator). Any other tensor keeps its data and, apart,
// the grad_fn it had when saved: holding the tensor itself would hold whatever grad_fn it gets
// later, and an in-place op on it (y.mul_(y)) makes that the saving node, a cycle never freed.
// An op's own output is saved without a grad_fn (that is the saving node) and reattached to it on
// unpack. The grad_fn is reattached only under create_graph, when backward records.
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
  std::shared_ptr<Node> grad_fn_;  // a saved non-leaf input's grad_fn at save time
  uint32_t output_nr_ = 0;
  uint64_t version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  bool requires_grad_ = false;
};

}  // namespace ember::autograd
