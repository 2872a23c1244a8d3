#pragma once
// The node at the end of every path into a leaf: runs the leaf's hooks and adds the gradient into
// .grad (a fresh tensor the first time, in place after that). The leaf owns its accumulator and
// the accumulator refers back weakly, so building a graph does not allocate one per op. Backward
// passes on several threads may reach one leaf at once: the accumulation holds the leaf's lock
// (AutogradMeta::leaf_mutex), which also makes sure the threads share one accumulator.
#include "ember/autograd/node.h"

namespace ember::autograd {

class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(const Tensor& variable);
  TensorList apply(TensorList&& grads) override;
  const char* name() const override { return "AccumulateGrad"; }
  /// The leaf, or an undefined tensor if it no longer exists.
  Tensor variable() const;

 private:
  std::weak_ptr<TensorImpl> variable_;
};

}  // namespace ember::autograd
