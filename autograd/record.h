#pragma once
// What an op calls to put itself on the tape:
//
//   Tensor out = ...forward...;
//   if (autograd::any_requires_grad(a, b)) {
//     auto node = autograd::make_node<MulBackward>(a, b);   // one next edge per input
//     if (node->needs_input_grad(0)) node->b = SavedTensor(b);  // save only what backward needs
//     autograd::set_history(out, node);
//   }
//
// Views and in-place writes follow PyTorch: a view remembers its base, an in-place op on a view
// gives the base a CopySlices history (so `y = zeros(4); y[1:3] = v` makes y depend on v), and a
// view whose storage was written in place since its history was recorded has that history
// rebuilt from its base's (refresh_view) before anything reads it.
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
/// For every view op: `out` views `in`'s storage. Records `node` (null when `in` needs no
/// gradient) as out's history and, in grad mode for floating dtypes, remembers out's base so that
/// in-place writes through either reach the other's history.
void set_view_history(const Tensor& in, const Tensor& out, const std::shared_ptr<Node>& node);
/// Rebuilds a view's grad_fn from its base's history if its storage was written in place since
/// the grad_fn was set; nothing for other tensors. Whatever reads a grad_fn calls it first.
void refresh_view(const Tensor& t, AutogradMeta& meta);

/// Checks an in-place write to `self` is allowed (not a leaf requiring grad, not a view of one)
/// before it happens; `op` names the op in the error.
void check_inplace(const Tensor& self, const char* op);
/// After an in-place op that was recorded: bumps the version and makes `result` (the history of
/// the value written; invalid for a constant) self's new history. For a view, the base's history
/// becomes a CopySlices node: the base's old history outside the view, `result` inside it.
void rebase_history(const Tensor& self, const Edge& result);

/// After an in-place view op (t_, unsqueeze_, ...) that gave `self` the layout of `view`, a view of
/// self made by the op: self's history becomes view's (nothing when view has none).
void take_view_history(const Tensor& self, const Tensor& view);
/// detach_: self becomes a leaf that needs no gradient; refused for a view that requires grad (its
/// base's history goes through it).
void detach_in_place(const Tensor& self);

/// The two nodes view tracking builds, made of ops that autograd does not name: ops/ registers
/// them when the library loads (ops/view_history.cpp).
struct ViewNodes {
  /// A view's history as a function of its base's current one (gradient: the view's positions).
  std::shared_ptr<Node> (*as_strided)(const Tensor& base, const Tensor& view) = nullptr;
  /// The base's history after an in-place write into `view` recorded as `result`.
  std::shared_ptr<Node> (*copy_slices)(const Tensor& base, const Tensor& view, const Edge& result) = nullptr;
};
void register_view_nodes(const ViewNodes& nodes);

}  // namespace ember::autograd
