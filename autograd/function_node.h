#pragma once
// A backward given as a function instead of a Node subclass: for composite ops whose gradient must
// be PyTorch's formula rather than their composition's (a clamped log whose gradient is not the
// clamp's, a loss whose terms would give inf - inf for an infinite incoming gradient).
//
//   Tensor out = ...forward, under NoGradGuard...;
//   autograd::record_function("HuberLossBackward", out, {x, y}, {x, y},
//                             [](const TensorList& saved, const TensorList& grads, const Node& node) {...});
//
// The backward gets the saved tensors (inputs, never the output: saving it would be a cycle), the
// output's gradient and the node (for needs_input_grad); it returns one gradient per input, written
// in differentiable ops so that double backward works.
#include <functional>

#include "ember/autograd/node.h"
#include "ember/autograd/saved_tensor.h"

namespace ember::autograd {

using BackwardFunction = std::function<TensorList(const TensorList& saved, const TensorList& grads, const Node& node)>;

/// Makes `out` the output of a node named `name` (a string literal) with next edges to `inputs`
/// (undefined ones allowed), when grad mode is on and one of them requires grad; nothing otherwise.
void record_function(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
                     BackwardFunction backward);

}  // namespace ember::autograd
