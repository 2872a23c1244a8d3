// io::to_value / io::load_into for optimizers, LR schedulers and generators, through files: state
// comes back bit for bit and by parameter name, so training continues exactly; malformed values
// are errors naming the path inside the tree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "ember/ember.h"
#include "ember/io/optim_io.h"
#include "io/io_test_util.h"
#include "support/expect.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::expect_error;
using ember::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Value through_file(const Value& v, const TempDir& dir) {
  std::string path = dir.file("state.ember");
  save(v, path);
  return load(path);
}

optim::NamedParameters make_params(uint64_t seed) {
  Generator g(seed);
  return {{"fc1.weight", randn({4, 3}, {}, &g).set_requires_grad()},
          {"fc1.bias", randn({4}, {}, &g).set_requires_grad()},
          {"fc2.weight", randn({2, 4}, {}, &g).set_requires_grad()}};
}

// Independent copies of the parameters' current values, under the same names.
optim::NamedParameters copy_params(const optim::NamedParameters& params) {
  optim::NamedParameters out;
  for (const auto& [n, p] : params) out.emplace_back(n, p.detach().clone().set_requires_grad());
  return out;
}

// The same gradient for a parameter name at a given step, whichever optimizer asks.
void set_grads(const optim::NamedParameters& params, int step) {
  for (size_t i = 0; i < params.size(); ++i) {
    Generator g(1000 * static_cast<uint64_t>(step) + i);
    params[i].second.set_grad(randn(params[i].second.sizes(), {}, &g));
  }
}

void train(optim::Optimizer& opt, const optim::NamedParameters& params, int from, int to) {
  for (int s = from; s < to; ++s) {
    set_grads(params, s);
    opt.step();
  }
}

struct OptimizerCase {
  const char* name;
  std::function<std::unique_ptr<optim::Optimizer>(optim::NamedParameters)> make;
};

class OptimizerRoundTrip : public ::testing::TestWithParam<OptimizerCase> {};

TEST_P(OptimizerRoundTrip, StateRoundTripsThroughAFileAndTrainingContinuesExactly) {
  TempDir dir;
  optim::NamedParameters params = make_params(1);
  std::unique_ptr<optim::Optimizer> opt = GetParam().make(params);
  train(*opt, params, 0, 3);
  opt->param_groups()[0].options.set("lr", 0.0123);  // a changed hyperparameter comes back too

  Value back = through_file(to_value(*opt), dir);
  EXPECT_EQ(back.at("type").as_string(), opt->name());
  EXPECT_THAT(back.at("param_groups")[0].at("params").size(), 3u);

  optim::NamedParameters params2 = copy_params(params);
  std::unique_ptr<optim::Optimizer> opt2 = GetParam().make(params2);
  optim::OptimizerLoadReport report = load_into(*opt2, back, /*strict=*/true);
  EXPECT_TRUE(report.ok()) << report.str();
  EXPECT_EQ(opt2->param_groups()[0].options, opt->param_groups()[0].options);
  ASSERT_EQ(opt2->state().size(), opt->state().size());
  for (const auto& [name, state] : opt->state()) {
    const optim::ParamState& loaded = opt2->state().at(name);
    ASSERT_EQ(loaded.size(), state.size()) << name;
    for (const auto& [key, t] : state) EXPECT_TRUE(bitwise_equal(loaded.at(key), t)) << name << "/" << key;
  }
  // The loaded state is a copy: it does not share memory with the file or the first optimizer.
  train(*opt, params, 3, 6);
  train(*opt2, params2, 3, 6);
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_TRUE(bitwise_equal(params2[i].second, params[i].second)) << params[i].first;
}

INSTANTIATE_TEST_SUITE_P(
    OptimIoTest, OptimizerRoundTrip,
    ::testing::Values(
        OptimizerCase{"SGDMomentum",
                      [](optim::NamedParameters p) -> std::unique_ptr<optim::Optimizer> {
                        return std::make_unique<optim::SGD>(std::move(p), optim::SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true});
                      }},
        OptimizerCase{"Adam",
                      [](optim::NamedParameters p) -> std::unique_ptr<optim::Optimizer> {
                        return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions{.lr = 0.01, .amsgrad = true});
                      }},
        OptimizerCase{"AdamW",
                      [](optim::NamedParameters p) -> std::unique_ptr<optim::Optimizer> {
                        return std::make_unique<optim::AdamW>(std::move(p), optim::AdamWOptions{.lr = 0.01, .weight_decay = 0.1});
                      }},
        OptimizerCase{"RMSprop",
                      [](optim::NamedParameters p) -> std::unique_ptr<optim::Optimizer> {
                        return std::make_unique<optim::RMSprop>(std::move(p), optim::RMSpropOptions{.momentum = 0.5, .centered = true});
                      }},
        OptimizerCase{"Adagrad",
                      [](optim::NamedParameters p) -> std::unique_ptr<optim::Optimizer> {
                        return std::make_unique<optim::Adagrad>(std::move(p), optim::AdagradOptions{.lr = 0.1});
                      }}),
    [](const ::testing::TestParamInfo<OptimizerCase>& info) { return std::string(info.param.name); });

TEST(OptimIoTest, StateLandsOnItsParameterByNameAfterReorderingAndAddingParameters) {
  TempDir dir;
  Generator g(3);
  // Same shapes everywhere, so a state placed by position would load without complaint.
  optim::NamedParameters params = {{"a", randn({5}, {}, &g).set_requires_grad()},
                                   {"b", randn({5}, {}, &g).set_requires_grad()},
                                   {"c", randn({5}, {}, &g).set_requires_grad()}};
  optim::Adam opt(params, {.lr = 0.01});
  train(opt, params, 0, 4);
  Value back = through_file(to_value(opt), dir);

  optim::NamedParameters copies = copy_params(params);
  optim::NamedParameters reordered = {{"c", copies[2].second}, {"b", copies[1].second},
                                      {"a", copies[0].second},
                                      {"d", randn({5}, {}, &g).set_requires_grad()}};
  optim::Adam opt2(reordered, {.lr = 0.01});
  optim::OptimizerLoadReport report = load_into(opt2, back);
  EXPECT_THAT(report.missing, ElementsAre("d"));
  EXPECT_TRUE(report.unexpected.empty()) << report.str();
  EXPECT_FALSE(opt2.state().contains("d"));  // a new parameter starts fresh
  for (const char* name : {"a", "b", "c"}) {
    for (const char* key : {"step", "exp_avg", "exp_avg_sq"})
      EXPECT_TRUE(bitwise_equal(opt2.state().at(name).at(key), opt.state().at(name).at(key)))
          << name << "/" << key;
  }
  // Distinct moments per parameter, so the check above would catch a misplaced one.
  EXPECT_FALSE(bitwise_equal(opt.state().at("a").at("exp_avg"), opt.state().at("c").at("exp_avg")));
}

TEST(OptimIoTest, HyperparametersTheCheckpointChangesAreReportedAndCanBeKept) {
  TempDir dir;
  Generator g(4);
  optim::NamedParameters params = {{"w", randn({3}, {}, &g).set_requires_grad()}};
  optim::Adam saved(params, {.lr = 3.75e-4, .weight_decay = 0.01});
  train(saved, params, 0, 2);
  Value back = through_file(to_value(saved), dir);

  optim::Adam taken(copy_params(params), {.lr = 1e-3, .weight_decay = 0.01});
  optim::OptimizerLoadReport report = load_into(taken, back);
  EXPECT_THAT(report.overridden, ElementsAre("group 0 lr: 0.001 -> 0.000375"));  // weight_decay agrees
  EXPECT_TRUE(report.ok()) << "hyperparameters taken from a checkpoint are not a missing or unexpected name";
  EXPECT_THAT(report.str(), HasSubstr("hyperparameters taken from the checkpoint: 'group 0 lr: 0.001 -> 0.000375'"));
  EXPECT_EQ(taken.param_groups()[0].get("lr"), 3.75e-4);  // PyTorch's behaviour, now said

  optim::Adam kept(copy_params(params), {.lr = 1e-3, .weight_decay = 0.01});
  report = load_into(kept, back, /*strict=*/false, /*keep_hyperparameters=*/true);
  EXPECT_EQ(kept.param_groups()[0].get("lr"), 1e-3);
  EXPECT_THAT(report.str(), HasSubstr("hyperparameters kept (the checkpoint's differ): 'group 0 lr"));
  EXPECT_TRUE(bitwise_equal(kept.state().at("w").at("exp_avg"), saved.state().at("w").at("exp_avg")));

  optim::Adam same(copy_params(params), {.lr = 3.75e-4, .weight_decay = 0.01});
  EXPECT_TRUE(load_into(same, back).overridden.empty());
}

TEST(OptimIoTest, StrictLoadRejectsStateForParametersTheOptimizerLacks) {
  optim::NamedParameters params = make_params(5);
  optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9});
  train(opt, params, 0, 1);
  Value v = to_value(opt);
  optim::SGD fewer({params[0], params[1]}, {.lr = 0.1, .momentum = 0.9});
  try {
    load_into(fewer, v, /*strict=*/true);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'fc2.weight'"));
  }
  optim::OptimizerLoadReport report = load_into(fewer, v);  // not strict: reported, dropped
  EXPECT_THAT(report.unexpected, ElementsAre("fc2.weight"));
}

TEST(OptimIoTest, MalformedOptimizerValuesAreErrorsNamingThePath) {
  optim::NamedParameters params = make_params(6);
  optim::Adam adam(params);
  train(adam, params, 0, 1);
  const Value good = to_value(adam);

  optim::SGD sgd(copy_params(params), {.lr = 0.1});
  expect_error<ValueError>([&] { load_into(sgd, good); },
                           {"io::load_into(SGD): the value holds the state of a 'Adam', not of a 'SGD'"});

  Value no_state = Value::dict({{"type", "Adam"}, {"param_groups", good.at("param_groups")}});
  expect_error<KeyError>([&] { load_into(adam, no_state); }, {"io::load_into(Adam): 'state' is missing"});

  Value bad_name = good;
  bad_name.at("param_groups")[0].at("params")[1] = Value(int64_t{7});
  expect_error<TypeError>([&] { load_into(adam, bad_name); },
                          {"io::load_into(Adam): 'param_groups/0/params/1' is of type int, expected a str"});

  Value bad_lr = good;
  bad_lr.at("param_groups")[0].set("lr", "fast");
  expect_error<TypeError>([&] { load_into(adam, bad_lr); },
                          {"io::load_into(Adam): 'param_groups/0/lr' is of type str, expected a number, a bool or a pair of numbers"});

  Value bad_state = good;
  bad_state.at("state").at("fc1.bias").set("exp_avg", 1.5);
  expect_error<TypeError>([&] { load_into(adam, bad_state); },
                          {"io::load_into(Adam): 'state/fc1.bias/exp_avg' is of type float, expected a "
                           "Tensor"});

  // PyTorch's state, keyed by position, loaded as if it were Ember's: refused, with the way out.
  Value positional = good;
  Value by_position = Value::dict();
  for (size_t i = 0; i < good.at("state").size(); ++i) by_position.set(int64_t(i), good.at("state").items()[i]);
  positional.set("state", by_position);
  expect_error<TypeError>([&] { load_into(adam, positional); },
                          {"io::load_into(Adam): 'state' is keyed by the int 0, expected a name",
                           "io::import_torch_optimizer maps it to names"});
}

TEST(OptimIoTest, FailedLoadLeavesTheOptimizerUnchanged) {
  optim::NamedParameters params = make_params(8);
  optim::Adam adam(params, {.lr = 0.01});
  train(adam, params, 0, 2);
  Value v = to_value(adam);
  v.at("state").at("fc1.weight").set("exp_avg", zeros({9}));  // wrong shape
  v.at("param_groups")[0].set("lr", 5.0);
  Tensor before = adam.state().at("fc1.weight").at("exp_avg").clone();
  expect_error<ValueError>([&] { load_into(adam, v); },
                           {"Adam.load_state_dict: shape mismatch for 'fc1.weight': checkpoint 'exp_avg' "
                            "[9], parameter [4, 3]"});
  EXPECT_EQ(adam.param_groups()[0].get("lr"), 0.01);
  EXPECT_TRUE(bitwise_equal(adam.state().at("fc1.weight").at("exp_avg"), before));
}

// ---- schedulers

template <typename MakeScheduler>
void check_scheduler_round_trip(const MakeScheduler& make, int before, int after) {
  TempDir dir;
  optim::NamedParameters params = make_params(9);
  optim::SGD opt(params, {.lr = 0.5, .momentum = 0.9});
  auto sched = make(opt);
  for (int i = 0; i < before; ++i) {
    opt.step();
    sched->step();
  }
  Value back = through_file(Value::dict({{"optimizer", to_value(opt)}, {"scheduler", to_value(*sched)}}), dir);

  optim::SGD opt2(copy_params(params), {.lr = 0.5, .momentum = 0.9});
  auto sched2 = make(opt2);
  load_into(opt2, back.at("optimizer"));
  load_into(*sched2, back.at("scheduler"));
  EXPECT_EQ(sched2->last_epoch(), sched->last_epoch());
  EXPECT_EQ(sched2->get_last_lr(), sched->get_last_lr());
  EXPECT_EQ(sched2->base_lrs(), sched->base_lrs());
  for (int i = 0; i < after; ++i) {
    sched->step();
    sched2->step();
    ASSERT_EQ(sched2->get_last_lr(), sched->get_last_lr()) << "step " << i;  // exactly
  }
}

TEST(OptimIoTest, StepLRRoundTripsAndContinuesItsSchedule) {
  check_scheduler_round_trip([](optim::Optimizer& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); }, 7, 10);
}

TEST(OptimIoTest, WarmupCosineLRRoundTripsAndContinuesItsSchedule) {
  check_scheduler_round_trip(
      [](optim::Optimizer& o) { return std::make_unique<optim::WarmupCosineLR>(o, 4, 30, 1e-4); }, 6, 30);
}

TEST(OptimIoTest, CosineAnnealingLRRoundTripsAndContinuesItsSchedule) {
  check_scheduler_round_trip(
      [](optim::Optimizer& o) { return std::make_unique<optim::CosineAnnealingLR>(o, 10, 0.01); }, 5, 20);
}

TEST(OptimIoTest, ReduceLROnPlateauRoundTripsItsCounters) {
  TempDir dir;
  optim::NamedParameters params = make_params(10);
  optim::SGD opt(params, {.lr = 1.0});
  optim::ReduceLROnPlateau sched(opt, {.patience = 1});
  for (double metric : {5.0, 4.0, 4.5, 4.6, 4.7}) sched.step(metric);
  Value back = through_file(to_value(sched), dir);
  EXPECT_EQ(back.at("type").as_string(), "ReduceLROnPlateau");

  optim::SGD opt2(copy_params(params), {.lr = 1.0});
  optim::ReduceLROnPlateau sched2(opt2, {.patience = 1});
  load_into(sched2, back);
  EXPECT_EQ(sched2.best(), 4.0);
  EXPECT_EQ(sched2.num_bad_epochs(), sched.num_bad_epochs());
  EXPECT_EQ(sched2.last_epoch(), sched.last_epoch());
  EXPECT_EQ(sched2.get_last_lr(), sched.get_last_lr());
}

TEST(OptimIoTest, SchedulerOfAnotherTypeOrWithBadFieldsIsRejected) {
  optim::NamedParameters params = make_params(11);
  optim::SGD opt(params, {.lr = 0.5});
  optim::StepLR step_lr(opt, 3);
  optim::ExponentialLR exp_lr(opt, 0.9);
  expect_error<ValueError>([&] { load_into(exp_lr, to_value(step_lr)); },
                           {"io::load_into(ExponentialLR): the value holds the state of a 'StepLR', not "
                            "of a 'ExponentialLR'"});
  Value bad = to_value(step_lr);
  bad.set("last_epoch", "three");
  expect_error<TypeError>([&] { load_into(step_lr, bad); },
                          {"io::load_into(StepLR): 'last_epoch' is of type str"});
  Value missing = Value::dict({{"type", "StepLR"}, {"step_count", 1.0}});
  expect_error<KeyError>([&] { load_into(step_lr, missing); },
                         {"StepLR.load_state_dict: the state has no 'last_epoch'"});
}

// ---- generators

TEST(OptimIoTest, GeneratorRoundTripsSeedAndCounterAboveInt64Max) {
  TempDir dir;
  Generator g(0xFEDCBA9876543210ULL);
  g.set_state({0xFEDCBA9876543210ULL, 0xFFFFFFFFFFFFFF00ULL});
  for (int i = 0; i < 5; ++i) g.next_u32();
  Value back = through_file(to_value(g), dir);
  EXPECT_EQ(back.at("seed").as_string(), "18364758544493064720");
  Generator h;
  load_into(h, back);
  EXPECT_EQ(h.get_state(), g.get_state());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(h.next_u64(), g.next_u64());
}

TEST(OptimIoTest, GeneratorTakesNonNegativeIntsAndRejectsBadNumbers) {
  Generator g;
  load_into(g, Value::dict({{"type", "Generator"}, {"seed", int64_t{42}}, {"counter", int64_t{8}}}));
  EXPECT_EQ(g.get_state(), (Generator::State{42, 8}));
  auto load = [&](Value seed, Value counter) {
    load_into(g, Value::dict({{"type", "Generator"}, {"seed", seed}, {"counter", counter}}));
  };
  expect_error<ValueError>([&] { load("12x", "0"); },
                           {"io::load_into(Generator): 'seed' is \"12x\", expected an unsigned 64-bit "
                            "integer"});
  expect_error<ValueError>([&] { load("1", "18446744073709551616"); },
                           {"io::load_into(Generator): 'counter' is \"18446744073709551616\", expected an "
                            "unsigned 64-bit integer"});
  expect_error<ValueError>([&] { load(int64_t{-1}, "0"); },
                           {"io::load_into(Generator): 'seed' is -1, expected a non-negative integer"});
  expect_error<KeyError>([&] { load_into(g, Value::dict({{"type", "Generator"}, {"seed", "1"}})); },
                         {"io::load_into(Generator): 'counter' is missing"});
  EXPECT_EQ(g.get_state(), (Generator::State{42, 8}));  // failed loads changed nothing
}

// The checkpoint keeps each hyperparameter's type: flags are bools, Adam's betas a tuple.
TEST(OptimIoTest, HyperparametersKeepTheirTypesInTheFile) {
  TempDir dir;
  Tensor w = ones({2}).set_requires_grad();
  optim::Adam adam({{"w", w}}, {.betas = {0.8, 0.95}, .amsgrad = true});
  Value loaded = through_file(to_value(adam), dir);
  const Value& g = loaded.at("param_groups")[0];
  ASSERT_TRUE(g.at("amsgrad").is_bool());
  EXPECT_TRUE(g.at("amsgrad").as_bool());
  ASSERT_TRUE(g.at("betas").is_tuple());
  EXPECT_EQ(g.at("betas")[0].as_float(), 0.8);
  EXPECT_EQ(g.at("betas")[1].as_float(), 0.95);
  optim::Adam back({{"w", ones({2}).set_requires_grad()}});
  load_into(back, loaded);
  EXPECT_EQ(back.param_groups()[0].options.pair("betas"), (optim::Betas{0.8, 0.95}));
}

}  // namespace
}  // namespace ember::io
