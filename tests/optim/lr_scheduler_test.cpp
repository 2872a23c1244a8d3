// Learning-rate schedulers against torch.optim.lr_scheduler (tests/fixtures/optim.json: an SGD or
// Adam optimizer with two groups, lr 0.1 and 0.02, and the lrs after construction and each of 300
// steps), state round trips, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ember/ember.h"
#include "ember/optim/optim.h"
#include "support/expect.h"
#include "support/fixture.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;
using ember::testing::FixtureCase;
using ember::testing::message_of;

namespace {

constexpr int64_t kSteps = 300;

const std::map<std::string, FixtureCase>& fixture() {
  static const auto cases = ember::testing::load_fixture("optim.json");
  return cases;
}

// The fixtures' optimizer: two groups with lr 0.1 and 0.02.
std::unique_ptr<Optimizer> two_groups(bool adam = false) {
  Tensor p0 = zeros({2}), p1 = zeros({3});
  std::vector<ParamGroup> groups{ParamGroup({{"p0", p0}}),
                                 ParamGroup({{"p1", p1}}, {{"lr", 0.02}})};
  if (adam) return std::make_unique<Adam>(groups, AdamOptions{.lr = 0.1});
  return std::make_unique<SGD>(groups, SGDOptions{.lr = 0.1, .momentum = 0.9});
}

// Builds the scheduler a fixture case describes.
std::unique_ptr<LRScheduler> make_scheduler(const std::string& name, const FixtureCase& c,
                                            Optimizer& opt) {
  auto s = [&](const char* k) { return c.scalar(k); };
  auto i = [&](const char* k) { return static_cast<int64_t>(c.scalar(k)); };
  const std::string kind = c.strings.at("scheduler");
  if (kind == "StepLR") return std::make_unique<StepLR>(opt, i("step_size"), s("gamma"));
  if (kind == "MultiStepLR")
    return std::make_unique<MultiStepLR>(opt, std::vector<int64_t>{20, 50, 50, 200}, s("gamma"));
  if (kind == "ExponentialLR") return std::make_unique<ExponentialLR>(opt, s("gamma"));
  if (kind == "CosineAnnealingLR")
    return std::make_unique<CosineAnnealingLR>(opt, i("T_max"), s("eta_min"));
  if (kind == "LinearLR")
    return std::make_unique<LinearLR>(opt, s("start_factor"), s("end_factor"), i("total_iters"));
  if (kind == "WarmupCosineLR")
    return std::make_unique<WarmupCosineLR>(opt, i("warmup_steps"), i("total_steps"), s("min_lr"));
  if (kind == "NoamDecay") return std::make_unique<NoamDecay>(opt, i("d_model"), i("warmup_steps"));
  if (kind == "LambdaLR") {
    double base = s("base");
    return std::make_unique<LambdaLR>(
        opt, [base](int64_t e) { return std::pow(base, static_cast<double>(e)); });
  }
  if (kind == "MultiplicativeLR")
    return std::make_unique<MultiplicativeLR>(opt, [](int64_t e) { return 0.95 + 0.02 * static_cast<double>(e % 4); });
  if (kind == "ConstantLR") return std::make_unique<ConstantLR>(opt, s("factor"), i("total_iters"));
  if (kind == "OneCycleLR") {
    if (name == "sched_OneCycleLR_group_momentum") {
      OneCycleOptions o;
      o.base_momentums = {0.8, 0.85};
      o.max_momentums = {0.9, 0.99};
      return std::make_unique<OneCycleLR>(opt, std::vector<double>{s("max_lr0"), s("max_lr1")}, i("total_steps"), o);
    }
    if (name == "sched_OneCycleLR")
      return std::make_unique<OneCycleLR>(opt, std::vector<double>{s("max_lr0"), s("max_lr1")},
                                          i("total_steps"));
    OneCycleOptions o{.pct_start = 0.25,
                      .anneal_strategy = OneCycleOptions::Anneal::Linear,
                      .base_momentum = 0.8,
                      .max_momentum = 0.9,
                      .div_factor = 10.0,
                      .final_div_factor = 100.0,
                      .three_phase = true};
    return std::make_unique<OneCycleLR>(opt, std::vector<double>{s("max_lr0")}, i("total_steps"),
                                        o);
  }
  if (kind == "PolynomialLR") return std::make_unique<PolynomialLR>(opt, i("total_iters"), s("power"));
  if (kind == "CosineAnnealingWarmRestarts")
    return std::make_unique<CosineAnnealingWarmRestarts>(opt, i("T_0"), i("T_mult"), s("eta_min"));
  if (kind == "CyclicLR") {
    CyclicOptions o{.step_size_up = i("step_size_up")};
    if (name == "sched_CyclicLR") {
      o.step_size_down = i("step_size_down");
      return std::make_unique<CyclicLR>(opt, std::vector<double>{0.01, 0.002}, std::vector<double>{0.1, 0.05}, o);
    }
    if (name == "sched_CyclicLR_group_momentum") {
      o.base_momentums = {0.8, 0.7};
      o.max_momentums = {0.9, 0.95};
      return std::make_unique<CyclicLR>(opt, std::vector<double>{0.01, 0.002}, std::vector<double>{0.1, 0.05}, o);
    }
    if (name == "sched_CyclicLR_group_betas_adam") {
      o.mode = CyclicOptions::Mode::Triangular2;
      o.base_momentums = {0.85, 0.8};
      o.max_momentums = {0.95, 0.9};
      return std::make_unique<CyclicLR>(opt, std::vector<double>{0.001}, std::vector<double>{0.01}, o);
    }
    if (name == "sched_CyclicLR_triangular2") {
      o.mode = CyclicOptions::Mode::Triangular2;
      return std::make_unique<CyclicLR>(opt, std::vector<double>{0.01}, std::vector<double>{0.1}, o);
    }
    o.mode = CyclicOptions::Mode::ExpRange;
    o.gamma = s("gamma");
    return std::make_unique<CyclicLR>(opt, std::vector<double>{0.001}, std::vector<double>{0.01}, o);
  }
  if (name == "sched_SequentialLR_constant_multiplicative") {
    std::vector<std::shared_ptr<LRScheduler>> parts{
        std::make_shared<ConstantLR>(opt, 0.5, 20), std::make_shared<MultiplicativeLR>(opt, [](int64_t) { return 0.99; })};
    return std::make_unique<SequentialLR>(opt, std::move(parts), std::vector<int64_t>{30});
  }
  if (kind == "SequentialLR") {
    std::vector<std::shared_ptr<LRScheduler>> parts{std::make_shared<LinearLR>(opt, 0.1, 1.0, 10),
                                                    std::make_shared<CosineAnnealingLR>(opt, 100, 0.001),
                                                    std::make_shared<StepLR>(opt, 30, 0.5)};
    return std::make_unique<SequentialLR>(opt, std::move(parts), std::vector<int64_t>{10, 150});
  }
  if (kind == "ChainedScheduler")
    return std::make_unique<ChainedScheduler>(std::vector<std::shared_ptr<LRScheduler>>{
        std::make_shared<LinearLR>(opt, 0.2, 1.0, 25), std::make_shared<ExponentialLR>(opt, 0.99)});
  ADD_FAILURE() << "unknown scheduler " << kind;
  return nullptr;
}

std::vector<double> lrs_of(const Optimizer& opt) {
  std::vector<double> out;
  for (const auto& g : opt.param_groups()) out.push_back(g.get("lr"));
  return out;
}

void expect_lrs(const std::vector<double>& got, const Tensor& want, int64_t row,
                const std::string& what) {
  std::vector<double> w = want.select(0, row).to_vector<double>();
  ASSERT_EQ(got.size(), w.size());
  for (size_t g = 0; g < w.size(); ++g)
    ASSERT_NEAR(got[g], w[g], 1e-12 * std::fabs(w[g]) + 1e-18)
        << what << ": step " << row << ", group " << g;
}

bool is_adam_case(const std::string& name) { return name.find("adam") != std::string::npos; }

}  // namespace

TEST(LRSchedulerTest, SequencesMatchTorch) {
  int checked = 0;
  for (const auto& [name, c] : fixture()) {
    if (name.rfind("sched_", 0) != 0 || c.strings.at("scheduler") == "ReduceLROnPlateau") continue;
    SCOPED_TRACE(name);
    auto opt = two_groups(is_adam_case(name));
    auto sched = make_scheduler(name, c, *opt);
    ASSERT_TRUE(sched);
    const Tensor& want = c.tensor("lrs");
    // Adam cycles the first of its betas, SGD its momentum.
    auto momentum_of = [&](const ParamGroup& g) {
      return is_adam_case(name) ? g.options.pair("betas").first : g.get("momentum");
    };
    for (int64_t t = 0; t <= kSteps; ++t) {
      if (t > 0) {
        opt->step();
        sched->step();
      }
      expect_lrs(lrs_of(*opt), want, t, name);
      expect_lrs(sched->get_last_lr(), want, t, name + " get_last_lr");
      if (c.tensors.contains("momentum")) {
        std::vector<double> m;
        for (const auto& g : opt->param_groups()) m.push_back(momentum_of(g));
        expect_lrs(m, c.tensor("momentum"), t, name + " momentum");
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_EQ(sched->last_epoch(), kSteps);
    ++checked;
  }
  EXPECT_EQ(checked, 24);
}

TEST(LRSchedulerTest, ReduceLROnPlateauMatchesTorch) {
  using O = ReduceLROnPlateauOptions;
  int checked = 0;
  for (const auto& [name, c] : fixture()) {
    if (name.rfind("sched_ReduceLROnPlateau", 0) != 0) continue;
    SCOPED_TRACE(name);
    auto opt = two_groups();
    O o{.mode = c.strings.at("mode") == "min" ? O::Mode::Min : O::Mode::Max,
        .factor = c.scalar("factor"),
        .patience = static_cast<int64_t>(c.scalar("patience")),
        .threshold_mode =
            c.strings.at("threshold_mode") == "rel" ? O::ThresholdMode::Rel : O::ThresholdMode::Abs,
        .threshold = c.scalar("threshold"),
        .cooldown = static_cast<int64_t>(c.scalar("cooldown")),
        .min_lr = c.scalar("min_lr")};
    ReduceLROnPlateau sched(*opt, o);
    std::vector<double> metrics = c.tensor("metrics").to_vector<double>();
    expect_lrs(lrs_of(*opt), c.tensor("lrs"), 0, name);
    for (int64_t t = 0; t < kSteps; ++t) {
      opt->step();
      sched.step(metrics[static_cast<size_t>(t)]);
      expect_lrs(lrs_of(*opt), c.tensor("lrs"), t + 1, name);
      expect_lrs(sched.get_last_lr(), c.tensor("lrs"), t + 1, name);
      if (::testing::Test::HasFatalFailure()) return;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(LRSchedulerTest, ResumeFromStateContinuesTheSequence) {
  for (const auto& [name, c] : fixture()) {
    if (name.rfind("sched_", 0) != 0 || c.strings.at("scheduler") == "ReduceLROnPlateau") continue;
    SCOPED_TRACE(name);
    auto opt = two_groups(is_adam_case(name));
    auto sched = make_scheduler(name, c, *opt);
    for (int t = 0; t < 100; ++t) sched->step();
    OptimizerStateDict opt_state = opt->state_dict();
    SchedulerStateDict sched_state = sched->state_dict();
    EXPECT_EQ(sched_state.scalars.at("last_epoch"), 100);

    // Rebuild as a resumed run would: optimizer, scheduler, then both states.
    auto opt2 = two_groups(is_adam_case(name));
    auto sched2 = make_scheduler(name, c, *opt2);
    opt2->load_state_dict(opt_state);
    sched2->load_state_dict(sched_state);
    EXPECT_EQ(sched2->last_epoch(), 100);
    EXPECT_EQ(sched2->get_last_lr(), sched->get_last_lr());
    for (int64_t t = 101; t <= kSteps; ++t) {
      sched2->step();
      expect_lrs(lrs_of(*opt2), c.tensor("lrs"), t, name + " resumed");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(LRSchedulerTest, ReduceLROnPlateauResumes) {
  const FixtureCase& c = fixture().at("sched_ReduceLROnPlateau_min_rel");
  std::vector<double> metrics = c.tensor("metrics").to_vector<double>();
  ReduceLROnPlateauOptions o{
      .factor = 0.5, .patience = 5, .threshold = 1e-2, .cooldown = 3, .min_lr = 0.004};
  auto opt = two_groups();
  ReduceLROnPlateau sched(*opt, o);
  for (size_t t = 0; t < 70; ++t) sched.step(metrics[t]);
  SchedulerStateDict state = sched.state_dict();
  OptimizerStateDict opt_state = opt->state_dict();
  auto opt2 = two_groups();
  ReduceLROnPlateau sched2(*opt2, o);
  opt2->load_state_dict(opt_state);
  sched2.load_state_dict(state);
  EXPECT_EQ(sched2.best(), sched.best());
  EXPECT_EQ(sched2.num_bad_epochs(), sched.num_bad_epochs());
  for (size_t t = 70; t < static_cast<size_t>(kSteps); ++t) {
    sched2.step(metrics[t]);
    expect_lrs(lrs_of(*opt2), c.tensor("lrs"), static_cast<int64_t>(t) + 1, "resumed plateau");
  }
}

TEST(LRSchedulerTest, SchedulerKeepsInitialLrInTheGroups) {
  auto opt = two_groups();
  StepLR sched(*opt, 2, 0.5);
  EXPECT_EQ(opt->param_groups()[0].get("initial_lr"), 0.1);
  EXPECT_EQ(opt->param_groups()[1].get("initial_lr"), 0.02);
  EXPECT_EQ(sched.base_lrs(), (std::vector<double>{0.1, 0.02}));
  sched.step();
  sched.step();
  // A second scheduler on the same optimizer starts from initial_lr, not the decayed lr.
  ExponentialLR other(*opt, 0.9);
  EXPECT_EQ(other.base_lrs(), (std::vector<double>{0.1, 0.02}));
  EXPECT_EQ(other.get_last_lr(), (std::vector<double>{0.05, 0.01}));
}

TEST(LRSchedulerTest, LambdaLRStateHoldsNoFunction) {
  auto opt = two_groups();
  LambdaLR sched(*opt, [](int64_t e) { return 1.0 / static_cast<double>(e + 1); });
  sched.step();
  sched.step();
  SchedulerStateDict s = sched.state_dict();
  EXPECT_EQ(s.scalars.size(), 2u);  // last_epoch, step_count
  EXPECT_EQ(s.lists.at("base_lrs"), (std::vector<double>{0.1, 0.02}));
  EXPECT_DOUBLE_EQ(sched.get_last_lr()[0], 0.1 / 3);
}

TEST(LRSchedulerTest, LambdaLRPerGroupFunctions) {
  auto opt = two_groups();
  LambdaLR sched(*opt,
                 std::vector<LambdaLR::Fn>{[](int64_t) { return 1.0; },
                                           [](int64_t e) { return 0.5 * static_cast<double>(e); }});
  sched.step();
  EXPECT_EQ(sched.get_last_lr(), (std::vector<double>{0.1, 0.01}));
  EXPECT_EQ(
      message_of([&] { LambdaLR(*opt, std::vector<LambdaLR::Fn>{[](int64_t) { return 1.0; }}); }),
      "LambdaLR: expected 2 functions (one per parameter group), got 1");
}

TEST(LRSchedulerTest, OneCycleRefusesToStepPastTheEnd) {
  auto opt = two_groups();
  OneCycleLR sched(*opt, {1.0}, 10);
  for (int i = 0; i < 10; ++i) sched.step();
  std::vector<double> last = sched.get_last_lr();
  EXPECT_EQ(message_of([&] { sched.step(); }),
            "OneCycleLR: tried to step 11 times; total_steps is 10");
  EXPECT_EQ(sched.last_epoch(), 10);  // unchanged by the failed step
  EXPECT_EQ(sched.get_last_lr(), last);
}

TEST(LRSchedulerTest, OneCycleNeedsMomentumToCycle) {
  Tensor p = zeros({1});
  Adagrad opt({{"p", p}});
  EXPECT_EQ(
      message_of([&] { OneCycleLR(opt, {0.1}, 10); }),
      "OneCycleLR: Adagrad has neither momentum nor betas to cycle; set cycle_momentum = false");
  OneCycleLR ok(opt, {0.1}, 10, OneCycleOptions{.cycle_momentum = false});
  EXPECT_DOUBLE_EQ(ok.get_last_lr()[0], 0.1 / 25);
}

TEST(LRSchedulerTest, WarmupCosineFollowsItsDefinition) {
  auto opt = two_groups();
  WarmupCosineLR sched(*opt, 4, 12, 0.001);
  std::vector<double> seen{sched.get_last_lr()[0]};
  for (int i = 0; i < 14; ++i) {
    sched.step();
    seen.push_back(sched.get_last_lr()[0]);
  }
  EXPECT_DOUBLE_EQ(seen[0], 0.1 / 4);
  EXPECT_DOUBLE_EQ(seen[3], 0.1);
  EXPECT_DOUBLE_EQ(seen[4], 0.1);                            // cosine at progress 0
  EXPECT_NEAR(seen[8], 0.001 + (0.1 - 0.001) * 0.5, 1e-15);  // halfway
  EXPECT_DOUBLE_EQ(seen[12], 0.001);
  EXPECT_DOUBLE_EQ(seen[14], 0.001);
  EXPECT_EQ(
      message_of([&] { WarmupCosineLR(*opt, 5, 5); }),
      "WarmupCosineLR: need 0 <= warmup_steps < total_steps, got warmup_steps 5, total_steps 5");
}

TEST(LRSchedulerTest, NoamPeaksAtWarmup) {
  Tensor p = zeros({1});
  Adam opt({{"p", p}}, {.lr = 1.0});
  NoamDecay sched(opt, 64, 10);
  double best = 0;
  int64_t best_step = -1;
  for (int64_t t = 0; t < 40; ++t) {
    if (t > 0) sched.step();
    if (sched.get_last_lr()[0] > best) best = sched.get_last_lr()[0], best_step = t;
  }
  EXPECT_EQ(best_step, 9);  // s = t + 1 = warmup_steps
  EXPECT_DOUBLE_EQ(best, 1.0 / 8 / std::sqrt(10.0));
}

TEST(LRSchedulerTest, LoadChecksGroupCount) {
  auto opt = two_groups();
  StepLR sched(*opt, 2);
  SchedulerStateDict s = sched.state_dict();
  s.lists["base_lrs"].push_back(1.0);
  EXPECT_EQ(
      message_of([&] { sched.load_state_dict(s); }),
      "StepLR.load_state_dict: 'base_lrs' has 3 values, the optimizer has 2 parameter groups");
  s.scalars.erase("last_epoch");
  expect_error<KeyError>([&] { sched.load_state_dict(s); },
                         {"StepLR.load_state_dict: the state has no 'last_epoch'"});
}

TEST(LRSchedulerTest, StepAfterAddingAGroupIsAnError) {
  auto opt = two_groups();
  CosineAnnealingLR sched(*opt, 10);
  opt->add_param_group(ParamGroup({{"p2", zeros({1})}}));
  EXPECT_EQ(message_of([&] { sched.step(); }),
            "CosineAnnealingLR.step: the optimizer has 3 parameter groups, the scheduler was built "
            "for 2");
}

TEST(LRSchedulerTest, ReduceLROnPlateauRejectsBadSettings) {
  auto opt = two_groups();
  EXPECT_EQ(message_of([&] { ReduceLROnPlateau(*opt, {.factor = 1.0}); }),
            "ReduceLROnPlateau: factor must be < 1, got 1");
  EXPECT_EQ(message_of([&] { ReduceLROnPlateau(*opt, {.min_lrs = {0.1}}); }),
            "ReduceLROnPlateau: expected 2 min_lrs (one per parameter group), got 1");
}

TEST(LRSchedulerTest, PerGroupMomentumListsNeedOneValuePerGroup) {
  auto opt = two_groups();
  CyclicOptions c;
  c.base_momentums = {0.8, 0.7, 0.6};
  expect_error<ValueError>([&] { CyclicLR(*opt, {0.01}, {0.1}, c); },
                           {"CyclicLR: expected 2 values for base_momentum (one per parameter group), got 3"});
  OneCycleOptions o;
  o.max_momentums = {0.9};
  expect_error<ValueError>([&] { OneCycleLR(*opt, {0.1}, 10, o); },
                           {"OneCycleLR: expected 2 values for max_momentum (one per parameter group), got 1"});
  expect_error<ValueError>([&] { ConstantLR(*opt, 1.5); },
                           {"ConstantLR: Constant multiplicative factor expected to be between 0 and 1, got 1.5"});
  expect_error<ValueError>([&] { MultiplicativeLR(*opt, std::vector<MultiplicativeLR::Fn>{[](int64_t) { return 1.0; }}); },
                           {"MultiplicativeLR: expected 2 functions (one per parameter group), got 1"});
}

TEST(LRSchedulerTest, MultiplicativeLRStateHoldsNoFunction) {
  auto opt = two_groups();
  MultiplicativeLR sched(*opt, [](int64_t) { return 0.5; });
  sched.step();
  sched.step();
  EXPECT_NEAR(opt->param_groups()[0].get("lr"), 0.025, 1e-15);
  SchedulerStateDict state = sched.state_dict();
  EXPECT_EQ(state.scalars.at("last_epoch"), 2);
  EXPECT_EQ(state.scalars.size(), 2u);  // last_epoch and step_count: no function
}
