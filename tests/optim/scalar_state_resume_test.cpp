// Per-parameter scalar state ("step", NAdam's "mu_product", ASGD's "eta" and "mu") keeps its dtype
// through a state_dict: a float64 run resumed from a checkpoint rounds as the uninterrupted one did
// (they were cast to the parameter's dtype, and the float64 product then drifted from float32's).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using namespace ember::optim;

namespace {

using Make = std::function<std::unique_ptr<Optimizer>(NamedParameters)>;

// `steps` steps of f(w) = sum(w^4 - w) from w, or from a checkpoint of parameters and state.
std::pair<Tensor, OptimizerStateDict> run(const Make& make, int steps, const Tensor& start,
                                          const OptimizerStateDict* state) {
  Tensor w = start.clone().set_requires_grad();
  auto opt = make({{"w", w}});
  if (state) EXPECT_TRUE(opt->load_state_dict(*state, true).ok());
  for (int i = 0; i < steps; ++i) {
    opt->zero_grad();
    sum(pow(w, 4.0) - w).backward();
    opt->step();
  }
  return {w.detach().clone(), opt->state_dict().clone()};
}

}  // namespace

TEST(ScalarStateResumeTest, Float64RunsResumeBitForBit) {
  const std::vector<std::pair<const char*, Make>> optimizers = {
      {"NAdam", [](NamedParameters p) { return std::make_unique<NAdam>(std::move(p), NAdamOptions{.lr = 0.01}); }},
      {"ASGD",
       [](NamedParameters p) { return std::make_unique<ASGD>(std::move(p), ASGDOptions{.lr = 0.01, .t0 = 2}); }}};
  const Tensor start = ember::testing::seeded_randn({5}, 3);
  for (const auto& [name, make] : optimizers) {
    Tensor straight = run(make, 12, start, nullptr).first;
    auto [middle, state] = run(make, 6, start, nullptr);
    auto [resumed, after] = run(make, 6, middle, &state);
    EXPECT_TRUE(ember::testing::same_bits(resumed, straight)) << name;
    for (const auto& [key, t] : after.state.at("w"))  // the scalars stayed float32 through the load
      if (t.dim() == 0) EXPECT_EQ(t.dtype(), kFloat32) << name << " " << key;
  }
}
