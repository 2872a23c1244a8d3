// optim::GradScaler: scale and unscale, a step skipped on an inf or NaN gradient with the scale backed
// off, growth after growth_interval clean steps, PyTorch's errors for calls out of order, the state
// of a disabled scaler (tests/io/grad_scaler_resume_test.cpp: through a checkpoint).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/io/optim_io.h"
#include "ember/optim/optim.h"
#include "optim/tiny_sgd_model.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool same(const Tensor& a, const Tensor& b) { return a.to_vector<double>() == b.to_vector<double>(); }

using Tiny = ember::testing::TinySgdModel;

}  // namespace

TEST(GradScalerTest, ScalesTheLossAndUnscalesTheGradientsExactly) {
  Tiny plain, scaled;
  plain.loss().backward();
  GradScaler scaler;
  Tensor l = scaler.scale(scaled.loss());
  EXPECT_EQ(l.dtype(), kFloat32);
  EXPECT_EQ(l.item<float>(), plain.loss().item<float>() * 65536.0f);
  l.backward();
  EXPECT_EQ(scaled.w.grad().to_vector<float>()[0], plain.w.grad().to_vector<float>()[0] * 65536.0f);
  scaler.unscale_(scaled.sgd);
  EXPECT_TRUE(same(scaled.w.grad(), plain.w.grad()));
  EXPECT_TRUE(same(scaled.b.grad(), plain.b.grad()));
  EXPECT_TRUE(scaler.step(scaled.sgd));  // already unscaled: steps on the true gradients
  plain.sgd.step();
  EXPECT_TRUE(same(scaled.w, plain.w));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 1);
}

TEST(GradScalerTest, AnInfOrNanGradientSkipsTheStepAndBacksOff) {
  for (double bad : {kInf, -kInf, std::nan("")}) {
    Tiny t;
    GradScaler scaler({.init_scale = 1024.0, .growth_interval = 3});
    scaler.scale(t.loss()).backward();
    t.b.grad().narrow(0, 1, 1).fill_(bad);
    Tensor w_before = t.w.clone();
    EXPECT_FALSE(scaler.step(t.sgd));
    EXPECT_TRUE(same(t.w, w_before));
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 512.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
    // every gradient was still divided by the scale (PyTorch's unscale does not stop at the bad one)
    EXPECT_EQ(t.b.grad().to_vector<float>()[0], 2.0f);
  }
}

TEST(GradScalerTest, GrowsAfterGrowthIntervalCleanStepsButNotPastFloat32) {
  Tiny t;
  GradScaler scaler({.init_scale = 8.0, .growth_factor = 4.0, .growth_interval = 3});
  for (int i = 0; i < 3; ++i) {
    t.sgd.zero_grad();
    scaler.scale(t.loss()).backward();
    EXPECT_TRUE(scaler.step(t.sgd));
    scaler.update();
  }
  EXPECT_EQ(scaler.get_scale(), 32.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
  GradScaler huge({.init_scale = 2e38, .growth_interval = 1});
  t.sgd.zero_grad();
  huge.scale(t.loss() * 0.0).backward();
  huge.step(t.sgd);
  huge.update();
  EXPECT_EQ(huge.get_scale(), static_cast<double>(2e38f));  // 4e38 is not a float32: kept
  huge.update(3.0);
  EXPECT_EQ(huge.get_scale(), 3.0);
}

TEST(GradScalerTest, NonContiguousAndFloat64GradientsAreUnscaledInPlace) {
  Tensor p = zeros({3, 2}, kFloat64).set_requires_grad();
  SGD sgd({{"p", p}}, {.lr = 1.0});
  p.set_grad(tensor(std::vector<double>{2, 4, 6, 8, 10, 12}, {2, 3}).t());
  GradScaler scaler({.init_scale = 2.0});
  scaler.unscale_(sgd);
  EXPECT_EQ(p.grad().to_vector<double>(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(GradScalerTest, CallsOutOfOrderAreErrorsAsInPyTorch) {
  Tiny t;
  GradScaler scaler;
  scaler.scale(t.loss()).backward();
  expect_error([&] { scaler.update(); }, {"No inf checks were recorded prior to update."});
  scaler.unscale_(t.sgd);
  expect_error([&] { scaler.unscale_(t.sgd); },
               {"unscale_() has already been called on this optimizer since the last update()."});
  scaler.step(t.sgd);
  expect_error([&] { scaler.unscale_(t.sgd); }, {"unscale_() is being called after step()."});
  expect_error([&] { scaler.step(t.sgd); }, {"step() has already been called since the last update()."});
  scaler.update();
  Tensor lone = zeros({2}, kFloat32).set_requires_grad();
  SGD no_grads({{"lone", lone}}, {.lr = 0.1});
  expect_error([&] { scaler.step(no_grads); }, {"No inf checks were recorded for this optimizer."});
  expect_error<ValueError>([] { GradScaler({.growth_factor = 1.0}); }, {"growth_factor should be > 1, got 1"});
  expect_error<ValueError>([] { GradScaler({.backoff_factor = 1.0}); }, {"backoff_factor should be in (0, 1)"});
  expect_error<ValueError>([] { GradScaler({.growth_interval = 0}); }, {"growth_interval should be > 0"});
}

TEST(GradScalerTest, DisabledPassesThroughAndHasNoState) {
  Tiny t;
  GradScaler off({.enabled = false});
  Tensor loss = t.loss();
  EXPECT_TRUE(off.scale(loss).is_same(loss));
  loss.backward();
  Tensor g = t.w.grad().clone();
  off.unscale_(t.sgd);
  EXPECT_TRUE(same(t.w.grad(), g));
  EXPECT_TRUE(off.step(t.sgd));
  off.update();
  EXPECT_EQ(off.get_scale(), 1.0);
  EXPECT_FALSE(off.state_dict().has_value());
  GradScaler on;
  expect_error([&] { on.load_state_dict(off.state_dict()); },
               {"The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."});
  expect_error([&] { io::load_into(on, io::to_value(off)); }, {"saved from a disabled instance"});
  off.load_state_dict(on.state_dict());  // a disabled scaler ignores a state
}

