// Rprop and ASGD against the update rules written out on doubles (torch.optim's single-tensor
// paths, the oracle), their state by name, a resume from a state_dict that continues bit for bit,
// and the hyperparameter checks. tests/python/test_optim_python.py replays torch's trajectories.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::at;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

// f(w) = sum(sin(3 w) + w^2 / 2): gradient 3 cos(3 w) + w, whose sign changes along the way.
std::vector<double> grad_of(const std::vector<double>& w) {
  std::vector<double> g;
  for (double v : w) g.push_back(3 * std::cos(3 * v) + v);
  return g;
}

void set_grad(const Tensor& w) {
  std::vector<double> values(static_cast<size_t>(w.numel()));
  for (int64_t i = 0; i < w.numel(); ++i) values[i] = at(w, {i});
  w.set_grad(tensor(grad_of(values)));
}

const std::vector<double> kStart{0.9, -0.4, 0.05, 1.7};

}  // namespace

TEST(RpropAsgdTest, RpropFollowsItsRule) {
  Tensor w = tensor(kStart).set_requires_grad();
  Rprop opt({{"w", w}}, {.lr = 0.05, .etas = {0.4, 1.3}, .step_sizes = {1e-3, 0.2}});
  std::vector<double> x = kStart, prev(4, 0.0), size(4, 0.05);
  for (int t = 0; t < 25; ++t) {
    set_grad(w);
    opt.step();
    std::vector<double> g = grad_of(x);
    for (size_t i = 0; i < 4; ++i) {
      const double agree = g[i] * prev[i];
      size[i] = std::clamp(size[i] * (agree > 0 ? 1.3 : agree < 0 ? 0.4 : 1.0), 1e-3, 0.2);
      if (agree < 0) g[i] = 0;
      x[i] -= (g[i] > 0 ? 1 : g[i] < 0 ? -1 : 0) * size[i];
      prev[i] = g[i];
    }
    ASSERT_NO_FATAL_FAILURE(expect_close(w.detach(), tensor(x), 0, 1e-15));
  }
  const ParamState& state = opt.state().at("w");
  EXPECT_TRUE(state.contains("prev") && state.contains("step_size"));
  EXPECT_EQ(state.at("step").item<double>(), 25);
}

TEST(RpropAsgdTest, AsgdFollowsItsRuleAndAveragesAfterT0) {
  Tensor w = tensor(kStart).set_requires_grad();
  const double lr = 0.05, lambd = 1e-2, alpha = 0.6, t0 = 8, wd = 0.1;
  ASGD opt({{"w", w}}, {.lr = lr, .lambd = lambd, .alpha = alpha, .t0 = t0, .weight_decay = wd});
  auto f32 = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  std::vector<double> x = kStart, ax(4, 0.0);
  double eta = f32(lr), mu = 1;
  for (int t = 1; t <= 20; ++t) {
    set_grad(w);
    opt.step();
    std::vector<double> g = grad_of(x);
    for (size_t i = 0; i < 4; ++i) {
      x[i] = x[i] * (1 - lambd * eta) - eta * (g[i] + wd * x[i]);
      ax[i] = mu != 1 ? ax[i] + (x[i] - ax[i]) * mu : x[i];
    }
    eta = f32(lr / std::pow(1 + lambd * lr * t, alpha));
    mu = f32(1 / std::max(1.0, t - t0));
    ASSERT_NO_FATAL_FAILURE(expect_close(w.detach(), tensor(x), 1e-14, 1e-15));
  }
  const ParamState& state = opt.state().at("w");
  expect_close(state.at("ax"), tensor(ax), 1e-14, 1e-15);
  EXPECT_EQ(state.at("eta").item<double>(), eta);
  EXPECT_EQ(state.at("mu").item<double>(), mu);
}

TEST(RpropAsgdTest, ResumeFromAStateDictContinuesBitForBit) {
  for (const char* kind : {"Rprop", "ASGD"}) {
    auto make = [&](const Tensor& w) -> std::unique_ptr<Optimizer> {
      if (std::string(kind) == "Rprop")
        return std::make_unique<Rprop>(NamedParameters{{"w", w}}, RpropOptions{.lr = 0.1});
      return std::make_unique<ASGD>(NamedParameters{{"w", w}}, ASGDOptions{.lr = 0.1, .t0 = 3});
    };
    Tensor w = tensor(kStart).set_requires_grad();
    auto opt = make(w);
    for (int t = 0; t < 7; ++t) set_grad(w), opt->step();
    OptimizerStateDict saved = opt->state_dict().clone();
    Tensor w_saved = w.detach().clone();
    for (int t = 0; t < 7; ++t) set_grad(w), opt->step();
    Tensor w2 = w_saved.clone().set_requires_grad();
    auto opt2 = make(w2);
    EXPECT_TRUE(opt2->load_state_dict(saved, true).ok());
    for (int t = 0; t < 7; ++t) set_grad(w2), opt2->step();
    EXPECT_TRUE(ember::testing::same_bits(w2.detach(), w.detach())) << kind;
  }
}

TEST(RpropAsgdTest, BadHyperparametersNameThemselves) {
  Tensor w = zeros({2}).set_requires_grad();
  expect_error<ValueError>([&] { Rprop({{"w", w}}, {.etas = {1.5, 1.2}}); }, {"Rprop", "etas"});
  expect_error<ValueError>([&] { Rprop({{"w", w}}, {.lr = -1}); }, {"Rprop", "lr"});
  expect_error<ValueError>([&] { ASGD({{"w", w}}, {.weight_decay = -0.1}); }, {"ASGD", "weight_decay"});
}
