#pragma once
// What an op calls to put itself on the tape:
//
//   Tensor out = ...forward...;
//   if (autograd::any_requires_grad(a, b)) {
//     auto node = autograd::make_node<MulBackward>(a, b);   // one next edge per input
//     if (node->needs_input_grad(0)) node->b = SavedTensor(b);  // save only what backward needs
//     autograd::set_history(out, node);
//   }
#include <memory>
#include <vector>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/saved_tensor.h"

namespace ember::autograd {

/// True when grad mode is on and some input requires grad.
template <typename... Ts>
bool any_requires_grad(const Ts&... ts) {
  return GradMode::is_enabled() && ((ts.defined() && ts.requires_grad()) || ...);
}
bool any_requires_grad(const std::vector<Tensor>& ts);

/// The edge gradient flows along into t: its grad_fn, its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);

/// A node of type N with one next edge per input, in order.
template <typename N, typename... Ts>
std::shared_ptr<N> make_node(const Ts&... inputs) {
  auto node = std::make_shared<N>();
  node->reserve_next_edges(sizeof...(Ts));
  (node->add_next_edge(gradient_edge(inputs)), ...);
  return node;
}
template <typename N>
std::shared_ptr<N> make_node_from_list(const std::vector<Tensor>& inputs) {
  auto node = std::make_shared<N>();
  node->reserve_next_edges(inputs.size());
  for (const Tensor& t : inputs) node->add_next_edge(gradient_edge(t));
  return node;
}

/// Makes `out` the next output of `node`.
void set_history(const Tensor& out, const std::shared_ptr<Node>& node);
/// As set_history, for a view of an input: marks it so in-place writes to it can be refused.
void set_view_history(const Tensor& out, const std::shared_ptr<Node>& node);

/// Checks an in-place write to `self` is allowed (not a leaf requiring grad, not a view of one
/// that requires grad) before it happens; `op` names the op in the error.
void check_inplace(const Tensor& self, const char* op);
/// After an in-place op: bumps the version and, when recording, makes `node` the new history of
/// `self` (node's first input is self's previous history).
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node);

}  // namespace ember::autograd
