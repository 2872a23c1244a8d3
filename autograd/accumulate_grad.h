#pragma once
// The node at the end of every path into a leaf: runs the leaf's hooks and adds the gradient into
// .grad (a fresh tensor the first time, in place after that).
#include "ember/autograd/node.h"

namespace ember::autograd {

class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  TensorList apply(TensorList&& grads) override;
  const char* name() const override { return "AccumulateGrad"; }
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

}  // namespace ember::autograd
