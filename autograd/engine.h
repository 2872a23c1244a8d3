#pragma once
// Runs the backward graph. Nodes execute in dependency order (a node runs once every gradient
// for it has arrived) from an explicit ready queue, never by recursion, so graph depth is bounded
// only by memory. Saved tensors are freed as each node finishes unless retain_graph is set.
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

/// Accumulates d(outputs)/d(leaf) into every leaf's .grad. `grad_outputs` may be empty (every
/// output must then have one element) or hold one gradient per output (undefined: ones).
void backward(const TensorList& outputs, const TensorList& grad_outputs = {},
              bool retain_graph = false, bool create_graph = false);

/// Returns d(outputs)/d(inputs) without touching any .grad (torch.autograd.grad).
/// `retain_graph` defaults to create_graph; with allow_unused, an input the outputs do not depend
/// on gets an undefined tensor instead of an error.
TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd
