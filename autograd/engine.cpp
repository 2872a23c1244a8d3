#include "ember/autograd/engine.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <queue>
#include <typeinfo>
#include <unordered_map>

#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/backward_hooks.h"
#include "ember/autograd/record.h"
#include "ember/core/autocast.h"
#include "ember/core/factory.h"
#include "ember/core/tracing.h"

namespace ember::autograd {
namespace {

// Ready nodes run newest first, and a leaf's accumulator before any other: the accumulator of a
// parameter is made once and kept, so by its creation number it would wait for the whole backward
// pass, and the hooks on it (DDP's buckets, FSDP's reduce-scatter, which releases a unit's gathered
// parameters) would all run at the end, every unit's gradient held until then. PyTorch's engine
// gives AccumulateGrad the highest priority for the same reason.
// Accumulators among themselves go by creation number too, never by address: the order of their
// hooks is the order of the collectives they start, which every rank must share, and a run must
// repeat itself. The type is asked once per node, not at every comparison.
struct Ready {
  bool accumulates;
  uint64_t sequence_nr;
  Node* node;
  bool operator<(const Ready& o) const {
    return accumulates != o.accumulates ? o.accumulates : sequence_nr < o.sequence_nr;
  }
};
Ready ready_entry(Node* n) { return {dynamic_cast<const AccumulateGrad*>(n) != nullptr, n->sequence_nr(), n}; }

// Where grad() wants the gradient arriving at (node, slot) to be captured.
struct Capture {
  Node* node;
  uint32_t slot;
  size_t index;
};

std::atomic<uint64_t> g_run_id{0};

void check_grad(const Tensor& g, const TensorMeta& meta, const Node& producer, size_t input) {
  EMBER_CHECK(g.sizes() == IntArrayRef(meta.sizes), "backward: ", producer.name(),
              " returned a gradient of shape ", g.sizes(), " for input ", input, ", expected ",
              meta.sizes);
  EMBER_CHECK(g.device() == meta.device, "backward: ", producer.name(), " returned a gradient on ",
              g.device(), " for input ", input, ", expected ", meta.device);
}

// Runs the graph below `roots`. With `captures`, only nodes leading to a captured slot run, no
// AccumulateGrad runs, and the captured gradients are returned.
TensorList run(const std::vector<Edge>& roots, TensorList root_grads, bool keep_graph,
               bool create_graph, const std::vector<Capture>& captures) {
  const bool capturing = !captures.empty();
  const uint64_t run_id = ++g_run_id;
  // The nodes whose embedded state this pass holds, freed however the pass ends; the states of
  // nodes another pass holds (a leaf's accumulator shared by graphs on two threads).
  std::vector<Node*> owned;
  std::unordered_map<Node*, Node::EngineState> elsewhere;
  struct Release {
    std::vector<Node*>& owned;
    ~Release() {
      for (Node* n : owned) {
        n->engine_state().grads.clear();
        n->engine_state().owner.store(0, std::memory_order_release);
      }
    }
  } release{owned};
  auto state = [&](Node* n) -> Node::EngineState& {
    Node::EngineState& s = n->engine_state();
    return s.owner.load(std::memory_order_relaxed) == run_id ? s : elsewhere.at(n);
  };
  // Claims n's state (or makes one elsewhere) and resets it, the first time this pass touches n.
  auto prepare = [&](Node* n) -> Node::EngineState& {
    Node::EngineState& s = n->engine_state();
    uint64_t free = 0;
    if (s.owner.load(std::memory_order_relaxed) == run_id) return s;
    if (auto it = elsewhere.find(n); it != elsewhere.end()) return it->second;
    if (!s.owner.compare_exchange_strong(free, run_id, std::memory_order_acquire)) return elsewhere[n];
    owned.push_back(n);
    s.discovered = false;
    s.dependencies = 0;
    s.needed = false;
    s.grads.clear();
    return s;
  };
  for (const Capture& c : captures) prepare(c.node).needed = true;  // before discovery's post-order

  // Discover the graph iteratively, in post-order so "needed" is decided bottom-up.
  std::vector<Node*> nodes;
  {
    std::vector<std::pair<Node*, size_t>> stack;
    auto enter = [&](Node* n) {
      Node::EngineState& s = prepare(n);
      if (s.discovered) return;
      s.discovered = true;
      nodes.push_back(n);
      stack.push_back({n, 0});
    };
    for (const Edge& r : roots) {
      if (!r.valid()) continue;
      enter(r.fn.get());
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < node->next_edges().size()) {
          const Edge& e = node->next_edges()[next++];
          if (e.valid()) enter(e.fn.get());
          continue;
        }
        if (capturing && !state(node).needed) {
          for (const Edge& e : node->next_edges())
            if (e.valid() && state(e.fn.get()).needed) state(node).needed = true;
        }
        stack.pop_back();
      }
    }
    for (Node* node : nodes) {
      if (capturing && !state(node).needed) continue;
      for (const Edge& e : node->next_edges())
        if (e.valid() && (!capturing || state(e.fn.get()).needed)) ++state(e.fn.get()).dependencies;
    }
  }

  TensorList captured(captures.size());
  std::priority_queue<Ready> ready;
  auto deliver = [&](const Edge& e, Tensor g) {
    Node::EngineState& s = state(e.fn.get());
    if (s.grads.empty()) s.grads.resize(e.fn->num_outputs());
    if (g.defined()) {
      Tensor& slot = s.grads[e.input_nr];
      slot = slot.defined() ? slot.add(g) : std::move(g);
    }
  };

  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].valid() || (capturing && !state(roots[i].fn.get()).needed)) continue;
    deliver(roots[i], std::move(root_grads[i]));
  }
  for (const Edge& r : roots) {
    if (!r.valid()) continue;
    Node::EngineState& s = state(r.fn.get());
    if (s.dependencies == 0 && !s.grads.empty()) {
      ready.push(ready_entry(r.fn.get()));
      s.dependencies = -1;  // queued
    }
  }

  AutoGradMode mode(create_graph);
  // NB: backward formulas run in the dtypes the forward chose: autocast's casts (and an fp32-list
  // op's upcast) inside a backward would change the gradients' dtypes node by node.
  autocast::Suspend no_autocast;
  while (!ready.empty()) {
    Node* node = ready.top().node;
    ready.pop();
    TensorList grads = std::move(state(node).grads);
    state(node).grads.clear();
    grads.resize(node->num_outputs());

    node->run_pre_hooks(grads);
    if (capturing) {
      for (const Capture& c : captures)
        if (c.node == node) captured[c.index] = grads[c.slot];
      if (dynamic_cast<AccumulateGrad*>(node)) continue;
      bool downstream = false;
      for (const Edge& e : node->next_edges())
        if (e.valid() && state(e.fn.get()).needed) downstream = true;
      if (!downstream) continue;
    }

    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    TensorList outs;
    if (any) {
      for (size_t k = 0; k < grads.size(); ++k)
        if (!grads[k].defined() && node->materializes_grads()) {
          const TensorMeta& m = node->output_meta(k);
          grads[k] = zeros(m.sizes, TensorOptions(m.dtype).device(m.device));
        }
      // A profiler sees the node's ops inside a range named after it (PyTorch's MulBackward0 rows).
      std::optional<tracing::Range> profiled;
      if (tracing::recording()) [[unlikely]]
        profiled.emplace(node->name());
      outs = node->apply(std::move(grads));
    }
    if (!keep_graph) node->release_saved();
    if (!any) outs.resize(node->num_inputs());
    EMBER_INTERNAL_ASSERT(outs.size() == node->num_inputs() || dynamic_cast<AccumulateGrad*>(node),
                          node->name(), " returned ", outs.size(), " gradients for ",
                          node->num_inputs(), " inputs");

    for (size_t i = 0; i < node->num_inputs(); ++i) {
      const Edge& e = node->next_edges()[i];
      if (!e.valid() || (capturing && !state(e.fn.get()).needed)) continue;
      Tensor g = i < outs.size() ? std::move(outs[i]) : Tensor();
      if (g.defined()) {
        const TensorMeta& m = e.fn->output_meta(e.input_nr);
        // NB: a CPU scalar that joined a GPU op (ops/binary.h) gets its 0-d gradient back on the
        // CPU, as PyTorch's engine does; any other device change is a bug of the op.
        if (g.dim() == 0 && g.device() != m.device && m.device.is_cpu()) g = g.to(m.device);
        check_grad(g, m, *node, i);
        // NB: a real input of a complex op (a float32 x in x * z) gets the real part of its complex
        // gradient, as PyTorch's formulas do (handle_r_to_c): dL/dx for the real x.
        if (is_complex(g.dtype()) && !is_complex(m.dtype)) g = g.real().contiguous();
        if (g.dtype() != m.dtype) g = g.to(m.dtype);
      }
      deliver(e, std::move(g));
      if (--state(e.fn.get()).dependencies == 0) ready.push(ready_entry(e.fn.get()));
    }
  }
  // Drop gradients left in nodes that never ran (pruned by grad()).
  for (Node* node : nodes) state(node).grads.clear();
  return captured;
}

std::vector<Edge> root_edges(const TensorList& outputs, TensorList& grads, const char* api) {
  EMBER_CHECK_VALUE(grads.empty() || grads.size() == outputs.size(), api, ": got ", grads.size(),
                    " gradients for ", outputs.size(), " outputs");
  grads.resize(outputs.size());
  std::vector<Edge> roots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.requires_grad(), api, ": output ", i,
                " does not require grad and has no grad_fn");
    if (!grads[i].defined()) {
      EMBER_CHECK(out.numel() == 1, api, ": grad can be implicitly created only for outputs with "
                  "one element; output ", i, " has shape ", out.sizes());
      // A complex loss has no gradient direction of its own (PyTorch refuses it too): pass one.
      EMBER_CHECK(!is_complex(out.dtype()), api,
                  ": grad can be implicitly created only for real scalar outputs; "
                  "output ",
                  i, " is ", out.dtype(), " (take .real or .abs(), or pass a gradient)");
      grads[i] = ones_like(out);
    } else {
      EMBER_CHECK_VALUE(grads[i].sizes() == out.sizes(), api, ": gradient of shape ",
                        grads[i].sizes(), " for output ", i, " of shape ", out.sizes());
    }
    roots.push_back(gradient_edge(out));
  }
  return roots;
}

}  // namespace

void backward(const TensorList& outputs, const TensorList& grad_outputs, bool retain_graph,
              bool create_graph) {
  TensorList grads = grad_outputs;
  std::vector<Edge> roots = root_edges(outputs, grads, "backward");
  detail::CallbackFrame callbacks;
  run(roots, std::move(grads), retain_graph || create_graph, create_graph, {});
  callbacks.run();
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  TensorList grads = grad_outputs;
  std::vector<Edge> roots = root_edges(outputs, grads, "grad");
  std::vector<Capture> captures;
  std::vector<std::shared_ptr<Node>> hold;  // keeps accumulators made here alive for the run
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].requires_grad(), "grad: input ", i, " does not require grad");
    Edge e = gradient_edge(inputs[i]);
    captures.push_back({e.fn.get(), e.input_nr, i});
    hold.push_back(e.fn);
  }
  detail::CallbackFrame callbacks;
  TensorList result = run(roots, std::move(grads), retain_graph.value_or(create_graph),
                          create_graph, captures);
  callbacks.run();
  for (size_t i = 0; i < result.size(); ++i)
    EMBER_CHECK(result[i].defined() || allow_unused, "grad: input ", i,
                " is not used by the outputs (pass allow_unused=true to get an undefined tensor)");
  return result;
}

}  // namespace ember::autograd
