#pragma once
// A node of the backward graph: maps the gradients of an op's outputs to the gradients of its
// inputs and knows, per input, the edge to the node that produced it. Ops subclass Node next to
// their forward function (ops/*.cpp); AccumulateGrad ends every path at a leaf.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

using TensorList = std::vector<Tensor>;
using Hook = std::function<Tensor(const Tensor&)>;
class Node;

/// Where a gradient goes: input slot `input_nr` of `fn` (fn null: nowhere).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

/// Shape, dtype and device of one output, kept to check and zero-fill gradients.
struct TensorMeta {
  DimVector sizes;
  DType dtype = kFloat32;
  Device device;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// One gradient per input (next edge) from one gradient per output; may return undefined
  /// tensors for inputs that need none.
  virtual TensorList apply(TensorList&& grad_outputs) = 0;
  /// "MulBackward": how errors and graph printouts name the node.
  virtual const char* name() const = 0;
  /// Drops saved tensors once backward ran without retain_graph.
  virtual void release_saved() {}
  /// Whether apply gets zeros for an output no gradient reached (the default), or an undefined
  /// tensor (a node that fills them itself, or not: ember.autograd.Function's materialize_grads).
  virtual bool materializes_grads() const { return true; }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  void add_next_edge(Edge edge) { next_edges_.push_back(std::move(edge)); }
  void set_next_edge(size_t i, Edge edge) { next_edges_[i] = std::move(edge); }
  size_t num_inputs() const { return next_edges_.size(); }
  /// Whether input i leads anywhere: ops skip computing (and saving for) the others.
  bool needs_input_grad(size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }

  /// Records an output's metadata and returns its output number.
  uint32_t add_output(const Tensor& t);
  size_t num_outputs() const { return num_outputs_; }
  const TensorMeta& output_meta(size_t i) const { return i == 0 ? first_output_ : more_outputs_[i - 1]; }
  void reserve_next_edges(size_t n) { next_edges_.reserve(n); }
  /// Later nodes run first in backward (ties broken by dependency order).
  uint64_t sequence_nr() const { return sequence_nr_; }

  /// Hooks on the gradient of output `output_nr`, run before apply (tensor hooks of non-leaves).
  int add_pre_hook(uint32_t output_nr, Hook hook);
  bool remove_pre_hook(int id);
  void run_pre_hooks(TensorList& grads) const;

  /// Scratch space of the engine for the backward pass that holds this node, kept in the node so
  /// the engine needs no hash maps. A pass claims it (`owner`, 0 when free) and frees it when it
  /// ends; a concurrent pass that reaches a claimed node (the leaves' accumulators, which graphs
  /// built on different threads share) keeps that node's state in a table of its own.
  struct EngineState {
    std::atomic<uint64_t> owner{0};  // id of the pass that holds it, 0: none
    bool discovered = false;
    int dependencies = 0;   // gradients still to arrive in this pass
    bool needed = false;    // grad(): a captured input is reachable from here
    TensorList grads;       // gradients of the outputs, accumulated as they arrive
  };
  EngineState& engine_state() { return engine_state_; }

 private:
  EngineState engine_state_;
  std::vector<Edge> next_edges_;
  TensorMeta first_output_;  // most nodes have one output: no allocation for it
  std::vector<TensorMeta> more_outputs_;
  uint32_t num_outputs_ = 0;
  uint64_t sequence_nr_;
  struct PreHook {
    int id;
    uint32_t output_nr;
    Hook fn;
  };
  std::vector<PreHook> pre_hooks_;
};

/// Releases a node without recursing down a long chain of nodes (each destructor would otherwise
/// destroy the next, and 100,000 ops deep that overflows the stack).
void release_node(std::shared_ptr<Node>&& node);

/// A fresh id for a tensor hook.
int next_hook_id();

}  // namespace ember::autograd
