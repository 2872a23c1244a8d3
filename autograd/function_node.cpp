#include "ember/autograd/function_node.h"

#include "ember/autograd/record.h"

namespace ember::autograd {
namespace {

class FunctionNode : public Node {
 public:
  FunctionNode(const char* name, BackwardFunction backward) : name_(name), backward_(std::move(backward)) {}
  const char* name() const override { return name_; }
  TensorList apply(TensorList&& grads) override {
    TensorList saved;
    saved.reserve(saved_.size());
    for (const SavedTensor& s : saved_) saved.push_back(s.unpack(this));
    return backward_(saved, grads, *this);
  }
  void release_saved() override {
    for (SavedTensor& s : saved_) s.reset();
  }
  std::vector<SavedTensor> saved_;

 private:
  const char* name_;
  BackwardFunction backward_;
};

}  // namespace

void record_function(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
                     BackwardFunction backward) {
  if (!any_requires_grad(inputs)) return;
  auto node = std::make_shared<FunctionNode>(name, std::move(backward));
  node->reserve_next_edges(inputs.size());
  for (const Tensor& t : inputs) node->add_next_edge(gradient_edge(t));
  node->saved_.reserve(saved.size());
  for (const Tensor& t : saved) node->saved_.push_back(t.defined() ? SavedTensor(t) : SavedTensor());
  set_history(out, node);
}

}  // namespace ember::autograd
