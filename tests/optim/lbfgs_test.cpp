// LBFGS (optim/lbfgs.h) through the C++ API: it minimises a convex quadratic to its known optimum
// with a fixed step and with the strong-Wolfe line search, counts its closure calls, keeps its
// state under the first parameter, resumes from a state_dict bit for bit, and refuses a step
// without a closure. tests/python/test_lbfgs.py replays torch's trajectories.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

// f(w, b) = |A w - y|^2 + (b - 2)^2 / 2, minimised at w* = A^-1 y, b* = 2.
struct Quadratic {
  Tensor a = tensor(std::vector<double>{3, 1, 0, 1, 2, 0.5, 0, 0.5, 1.5}).reshape({3, 3});
  Tensor y = tensor(std::vector<double>{1, -2, 0.5});
  Tensor w = zeros({3}, kFloat64).set_requires_grad();
  Tensor b = zeros({}, kFloat64).set_requires_grad();
  int calls = 0;
  LBFGS::Closure closure() {
    return [this] {
      ++calls;
      w.set_grad(Tensor()), b.set_grad(Tensor());
      Tensor r = matmul(a, w) - y;
      Tensor loss = sum(r * r) + (b - 2.0) * (b - 2.0) * 0.5;
      loss.backward();
      return loss;
    };
  }
  Tensor optimum() const { return linalg_solve(a, y.unsqueeze(1)).squeeze(1); }
};

}  // namespace

TEST(LBFGSTest, ReachesTheOptimumWithEitherStep) {
  for (bool wolfe : {false, true}) {
    Quadratic q;
    LBFGS opt({{"w", q.w}, {"b", q.b}},
              {.lr = wolfe ? 1.0 : 0.2, .max_iter = 50, .tolerance_change = 1e-15, .strong_wolfe = wolfe});
    for (int i = 0; i < 4; ++i) opt.step(q.closure());
    expect_close(q.w.detach(), q.optimum(), 1e-6, 1e-6);
    EXPECT_NEAR(q.b.item<double>(), 2.0, 1e-6);
    const ParamState& state = opt.state().at("w");  // the first parameter's name
    EXPECT_EQ(state.at("func_evals").item<int64_t>(), q.calls);
    EXPECT_EQ(state.at("old_dirs").size(1), 4);  // flat over w and b
    EXPECT_FALSE(opt.state().contains("b"));
  }
}

TEST(LBFGSTest, ResumeFromAStateDictGoesOnBitForBit) {
  struct Run {
    Tensor w, b;
    OptimizerStateDict state;
  };
  // `steps` steps, from a checkpoint (parameters and optimizer state) when given.
  auto run = [](int steps, const Run* from) {
    Quadratic q;
    LBFGS opt({{"w", q.w}, {"b", q.b}}, {.max_iter = 3, .history_size = 2, .strong_wolfe = true});
    if (from) {
      NoGradGuard g;
      q.w.copy_(from->w), q.b.copy_(from->b);
      EXPECT_TRUE(opt.load_state_dict(from->state, true).ok());
    }
    for (int i = 0; i < steps; ++i) opt.step(q.closure());
    return Run{q.w.detach().clone(), q.b.detach().clone(), opt.state_dict().clone()};
  };
  const Run straight = run(4, nullptr), mid = run(2, nullptr), resumed = run(2, &mid);
  EXPECT_TRUE(ember::testing::same_bits(resumed.w, straight.w));
  EXPECT_TRUE(ember::testing::same_bits(resumed.b, straight.b));
  EXPECT_EQ(mid.state.state.at("w").at("old_dirs").size(0), 2);  // history_size rows at most
  EXPECT_EQ(resumed.state.state.at("w").at("n_iter").item<int64_t>(),
            straight.state.state.at("w").at("n_iter").item<int64_t>());
}

TEST(LBFGSTest, NeedsAClosureAndOneGroup) {
  Quadratic q;
  LBFGS opt({{"w", q.w}});
  expect_error<ValueError>([&] { opt.step(LBFGS::Closure()); }, {"LBFGS", "closure"});
  expect_error<ValueError>([&] { LBFGS({{"w", q.w}}, {.history_size = 0}); }, {"LBFGS", "history_size"});
}
