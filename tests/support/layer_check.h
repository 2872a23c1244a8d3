#pragma once
// Checks a layer against a PyTorch fixture case (tests/fixtures/fixture_writer.py, layer_case):
// loads the case's parameters and buffers into the layer (strict), runs `forward` on its inputs
// (floating ones requiring grad), and compares every output, the input gradients of
// sum(output * grad_output), every parameter gradient and every buffer after the forward.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"

namespace ember::testing {

using LayerForward = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

inline void check_layer_case(nn::Module& layer, const FixtureCase& c, bool train, const LayerForward& forward,
                             double rtol = 1e-5, double atol = 1e-6) {
  nn::StateDict state;
  for (const auto& [key, t] : c.tensors) {
    if (key.rfind("param.", 0) == 0) state.insert(key.substr(6), t);
    if (key.rfind("buffer.", 0) == 0) state.insert(key.substr(7), t);
  }
  nn::LoadResult r = layer.load_state_dict(state);
  ASSERT_TRUE(r.ok()) << r.str();
  layer.train(train);
  std::vector<Tensor> inputs;
  for (int i = 1;; ++i) {
    std::string key = i == 1 ? "input" : "input" + std::to_string(i);
    if (!c.tensors.count(key)) break;
    Tensor x = c.tensor(key).clone();
    if (x.is_floating_point()) x.set_requires_grad();
    inputs.push_back(x);
  }
  std::vector<Tensor> outputs = forward(inputs);
  Tensor total = zeros({});
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string suffix = i == 0 ? "" : std::to_string(i + 1);
    expect_close(outputs[i], c.tensor("output" + suffix), rtol, atol, "output" + suffix);
    if (c.tensors.count("grad_output" + suffix))
      total = total + (outputs[i] * c.tensor("grad_output" + suffix)).sum();
  }
  total.backward();
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string key = i == 0 ? "input" : "input" + std::to_string(i + 1);
    if (c.tensors.count("grad." + key)) expect_close(inputs[i].grad(), c.tensor("grad." + key), rtol, atol, "grad." + key);
  }
  for (const auto& [pname, p] : layer.named_parameters())
    if (c.tensors.count("grad." + pname)) expect_close(p.grad(), c.tensor("grad." + pname), rtol, atol, "grad." + pname);
  for (const auto& [bname, b] : layer.named_buffers())
    if (c.tensors.count("buffer_after." + bname))
      expect_close(b, c.tensor("buffer_after." + bname), rtol, atol, "buffer_after." + bname);
}

}  // namespace ember::testing
