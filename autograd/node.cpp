#include "ember/autograd/node.h"

#include <atomic>

namespace ember::autograd {
namespace {

// Per thread, as in PyTorch: ordering only matters among nodes of one thread's graph.
thread_local uint64_t t_sequence = 0;
std::atomic<int> g_hook_id{0};

// Nodes whose last reference went away while another node was being destroyed.
thread_local std::vector<std::shared_ptr<Node>> t_pending;
thread_local bool t_draining = false;

}  // namespace

int next_hook_id() { return ++g_hook_id; }

void release_node(std::shared_ptr<Node>&& node) {
  if (!node) return;
  if (node.use_count() > 1) {
    node.reset();
    return;
  }
  t_pending.push_back(std::move(node));
  if (t_draining) return;
  t_draining = true;
  while (!t_pending.empty()) {
    std::shared_ptr<Node> n = std::move(t_pending.back());
    t_pending.pop_back();
    n.reset();  // its destructor queues its own edges instead of destroying them
  }
  t_draining = false;
}

Node::Node() : sequence_nr_(t_sequence++) {}

Node::~Node() {
  for (Edge& e : next_edges_) release_node(std::move(e.fn));
}

uint32_t Node::add_output(const Tensor& t) {
  TensorMeta meta{t.sizes().vec(), t.dtype(), t.device()};
  if (num_outputs_ == 0)
    first_output_ = std::move(meta);
  else
    more_outputs_.push_back(std::move(meta));
  return num_outputs_++;
}

int Node::add_pre_hook(uint32_t output_nr, Hook hook) {
  int id = next_hook_id();
  pre_hooks_.push_back({id, output_nr, std::move(hook)});
  return id;
}

bool Node::remove_pre_hook(int id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it) {
    if (it->id == id) {
      pre_hooks_.erase(it);
      return true;
    }
  }
  return false;
}

void Node::run_pre_hooks(TensorList& grads) const {
  for (const PreHook& h : pre_hooks_) {
    Tensor& g = grads[h.output_nr];
    if (!g.defined()) continue;
    Tensor replaced = h.fn(g);
    if (replaced.defined()) g = std::move(replaced);
  }
}

}  // namespace ember::autograd
