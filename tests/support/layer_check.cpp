#include "support/layer_check.h"

#include <gtest/gtest.h>

#include "ember/core/factory.h"
#include "ember/ops/ops.h"
#include "support/expect.h"

namespace ember::testing {

void check_layer(nn::Module& layer, const FixtureCase& c, bool train, const LayerForward& forward,
                 LayerTolerance tolerance) {
  const double rtol = tolerance.rtol, atol = tolerance.atol;
  nn::StateDict state;
  for (const auto& [key, t] : c.tensors) {
    if (key.rfind("param.", 0) == 0) state.insert(key.substr(6), t);
    if (key.rfind("buffer.", 0) == 0) state.insert(key.substr(7), t);
  }
  nn::LoadResult r = layer.load_state_dict(state);
  ASSERT_TRUE(r.ok()) << r.str();
  layer.train(train);
  layer.zero_grad();  // a layer checked twice must not add up its gradients
  std::vector<Tensor> inputs;
  for (int i = 1;; ++i) {
    std::string key = i == 1 ? "input" : "input" + std::to_string(i);
    if (!c.tensors.count(key)) break;
    Tensor x = c.tensor(key).clone();
    if (x.is_floating_point()) x.set_requires_grad();
    inputs.push_back(x);
  }
  std::vector<Tensor> outputs = forward(inputs);
  Tensor total = zeros({}, outputs.empty() ? kFloat32 : outputs[0].dtype());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string suffix = i == 0 ? "" : std::to_string(i + 1);
    expect_close(outputs[i], c.tensor("output" + suffix), rtol, atol, "output" + suffix);
    if (c.tensors.count("grad_output" + suffix))  // none for integer outputs (pooling indices)
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
