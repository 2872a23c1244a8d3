// io::TrainingState: one value that holds a whole run (model, optimizer, scheduler, generators,
// counters, extras) and restores it strictly; and exact resume across processes: a run stopped
// and resumed from its checkpoint ends bit for bit where the uninterrupted run does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "ember/ember.h"
#include "ember/io/optim_io.h"
#include "ember/io/training_state.h"
#include "io/io_test_util.h"
#include "io/programs/process.h"
#include "support/expect.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::expect_error;
using ember::testing::TempDir;
using ::testing::HasSubstr;

// A run's objects, built from `seed`.
struct SmallRun {
  explicit SmallRun(uint64_t seed)
      : data(seed + 1),
        model(std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
            std::make_shared<nn::Linear>(nn::LinearOptions{4, 8}), std::make_shared<nn::Dropout>(0.5),
            std::make_shared<nn::Linear>(nn::LinearOptions{8, 2})})),
        adam(model->named_parameters(), {.lr = 0.01}),
        sched(adam, 2, 0.5) {
    ts.model = model.get();
    ts.optimizer = &adam;
    ts.scheduler = &sched;
    ts.generators["data"] = &data;
  }
  void train(int steps) {
    for (int i = 0; i < steps; ++i, ++ts.step) {
      Tensor x = randn({6, 4}, {}, &data);
      Tensor loss = (*model)(x).pow(2).mean();
      adam.zero_grad();
      loss.backward();
      adam.step();
      sched.step();
    }
  }
  Generator data;
  std::shared_ptr<nn::Sequential> model;
  optim::Adam adam;
  optim::StepLR sched;
  TrainingState ts;
};

TEST(TrainingStateTest, RoundTripsEveryPartThroughAFile) {
  TempDir dir;
  manual_seed(1);
  SmallRun a(1);
  a.train(5);
  a.ts.epoch = 2;
  a.ts.extras.set("best_loss", 0.25);
  a.ts.extras.set("order", arange(6));
  save(a.ts.to_value(), dir.file("ts.ember"));
  const Generator::State default_state = default_generator().get_state();

  manual_seed(77);  // everything different before the load
  SmallRun b(77);
  b.ts.load(load(dir.file("ts.ember")));
  EXPECT_EQ(b.ts.step, 5);
  EXPECT_EQ(b.ts.epoch, 2);
  EXPECT_EQ(b.ts.extras.at("best_loss").as_float(), 0.25);
  EXPECT_TRUE(bitwise_equal(b.ts.extras.at("order").as_tensor(), arange(6)));
  EXPECT_EQ(default_generator().get_state(), default_state);
  EXPECT_EQ(b.data.get_state(), a.data.get_state());
  EXPECT_EQ(b.sched.get_last_lr(), a.sched.get_last_lr());
  EXPECT_EQ(b.sched.last_epoch(), a.sched.last_epoch());
  auto pa = a.model->named_parameters(), pb = b.model->named_parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(bitwise_equal(pb[i].second, pa[i].second)) << pa[i].first;
  for (const auto& [name, state] : a.adam.state())
    for (const auto& [key, t] : state) EXPECT_TRUE(bitwise_equal(b.adam.state().at(name).at(key), t)) << name;

  // And both continue identically (dropout draws from the restored default generator).
  default_generator().set_state(default_state);
  a.train(3);
  Generator::State after_a = default_generator().get_state();
  default_generator().set_state(default_state);
  b.train(3);
  EXPECT_EQ(default_generator().get_state(), after_a);
  pa = a.model->named_parameters(), pb = b.model->named_parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(bitwise_equal(pb[i].second, pa[i].second)) << pa[i].first;
}

TEST(TrainingStateTest, MissingOrExtraPartsAreErrorsAndChangeNothing) {
  manual_seed(2);
  SmallRun a(2);
  a.train(2);
  const Value good = a.ts.to_value();
  SmallRun b(3);
  Tensor w_before = b.model->named_parameters()[0].second.clone();

  Value no_sched = Value::dict();
  for (size_t i = 0; i < good.size(); ++i)
    if (good.keys()[i] != "scheduler") no_sched.set(good.keys()[i], good.items()[i]);
  expect_error<KeyError>([&] { b.ts.load(no_sched); }, {"io::TrainingState::load: 'scheduler' is missing"});

  TrainingState no_scheduler_here = b.ts;
  no_scheduler_here.scheduler = nullptr;
  expect_error<ValueError>([&] { no_scheduler_here.load(good); },
                           {"io::TrainingState::load: the checkpoint has a 'scheduler' but this training "
                            "state has none"});

  TrainingState more_generators = b.ts;
  Generator aug(5);
  more_generators.generators["augment"] = &aug;
  expect_error<KeyError>([&] { more_generators.load(good); },
                         {"io::TrainingState::load: 'generators/augment' is missing"});

  TrainingState fewer_generators = b.ts;
  fewer_generators.generators.erase("data");
  expect_error<ValueError>([&] { fewer_generators.load(good); },
                           {"io::TrainingState::load: the checkpoint has generator 'data'"});

  // An optimizer that does not have a saved parameter, or has one the checkpoint does not name.
  Value renamed = good;
  Value& names = renamed.at("optimizer").at("param_groups")[0].at("params");
  names[0] = Value("old.weight");
  expect_error<ValueError>([&] { b.ts.load(renamed); },
                           {"io::TrainingState::load: the checkpoint's optimizer does not name '0.weight'"});

  Value bad_step = good;
  bad_step.set("step", 2.0);
  expect_error<TypeError>([&] { b.ts.load(bad_step); },
                          {"io::TrainingState::load: 'step' is of type float, expected an int"});

  Value bad_model = good;
  bad_model.at("model").set("0.bias", "zeros");
  expect_error<TypeError>([&] { b.ts.load(bad_model); },
                          {"io::TrainingState::load: 'model/0.bias' is of type str, expected a Tensor"});

  EXPECT_TRUE(bitwise_equal(b.model->named_parameters()[0].second, w_before));
  EXPECT_EQ(b.ts.step, 0);
}

// ---- exact resume across processes

TEST(TrainingStateResumeTest, ResumedRunMatchesTheUninterruptedRunBitForBit) {
  TempDir dir;
  using ember::testing::run_program;
  const std::string trainer = EMBER_RESUME_TRAINER;
  constexpr int kSteps = 8;  // resumes mid-epoch: 5 batches per epoch

  auto straight = run_program({trainer, dir.file("straight"), std::to_string(2 * kSteps), dir.file("straight.ember")});
  ASSERT_EQ(straight.exit_code, 0) << straight.out;
  EXPECT_THAT(straight.out, HasSubstr("fresh"));

  auto first = run_program({trainer, dir.file("split"), std::to_string(kSteps), dir.file("first.ember")});
  ASSERT_EQ(first.exit_code, 0) << first.out;
  EXPECT_THAT(first.out, HasSubstr("fresh"));
  EXPECT_THAT(first.out, HasSubstr("stopped 8"));

  auto second = run_program({trainer, dir.file("split"), std::to_string(2 * kSteps), dir.file("resumed.ember")});
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_THAT(second.out, HasSubstr("resumed 8"));
  EXPECT_THAT(second.out, HasSubstr("stopped 16"));

  Value a = load(dir.file("straight.ember"));
  Value b = load(dir.file("resumed.ember"));
  Value half = load(dir.file("first.ember"));
  // Every parameter and every optimizer state tensor, by name.
  const Value& ma = a.at("model");
  for (size_t i = 0; i < ma.size(); ++i) {
    const std::string& name = ma.keys()[i].as_string();
    EXPECT_TRUE(bitwise_equal(b.at("model").at(name).as_tensor(), ma.items()[i].as_tensor())) << name;
    EXPECT_FALSE(bitwise_equal(half.at("model").at(name).as_tensor(), ma.items()[i].as_tensor()))
        << name << " did not change in the second half: the comparison would prove nothing";
  }
  const Value& sa = a.at("optimizer").at("state");
  ASSERT_EQ(sa.size(), 4u);
  for (size_t i = 0; i < sa.size(); ++i) {
    const Value& entries = sa.items()[i];
    for (size_t j = 0; j < entries.size(); ++j)
      EXPECT_TRUE(bitwise_equal(b.at("optimizer").at("state").at(sa.keys()[i]).at(entries.keys()[j]).as_tensor(),
                                entries.items()[j].as_tensor()))
          << sa.keys()[i] << "/" << entries.keys()[j];
  }
  // And the rest: hyperparameters, schedule, generators, counters, the epoch's data order.
  EXPECT_TRUE(b.equals(a)) << "straight: " << a.str() << "\nresumed: " << b.str();
}

// A step-based run over a shuffled loader saved whole in the training state: resumed at any step
// (mid-epoch, at an epoch's last batch, before the first), the batches that follow are those of
// the uninterrupted run, and the epochs roll over by themselves.
TEST(TrainingStateTest, LoadersResumeStepBasedRunsAtTheSameBatch) {
  const Tensor inputs = arange(0, 10, 1, TensorOptions(kInt64)), targets = arange(0, 10, 1, TensorOptions(kInt64)) * 10;
  const data::DataLoaderOptions options{.batch_size = 3, .shuffle = true, .seed = 5};  // 4 batches per epoch
  auto first_of = [](const data::DataLoader::Batch& b) {  // the batch's samples, in order, as one number
    int64_t key = 0;
    const int64_t* p = b.inputs.data_ptr<int64_t>();
    for (int64_t i = 0; i < b.inputs.numel(); ++i) key = key * 11 + p[i] + 1;
    return key;
  };
  data::DataLoader straight(inputs.reshape({10, 1}), targets.reshape({10, 1}), options);
  std::vector<int64_t> want;
  for (int i = 0; i < 14; ++i) want.push_back(first_of(straight.next_batch()));
  EXPECT_EQ(straight.epochs(), 4);
  TempDir dir;
  for (int stop : {0, 2, 4, 5, 8, 13}) {
    SCOPED_TRACE("saved after step " + std::to_string(stop));
    data::DataLoader loader(inputs.reshape({10, 1}), targets.reshape({10, 1}), options);
    TrainingState ts;
    ts.loaders["train"] = &loader;
    for (int i = 0; i < stop; ++i) loader.next_batch();
    save(ts.to_value(), dir.file("s.ember"));

    data::DataLoader fresh(inputs.reshape({10, 1}), targets.reshape({10, 1}), options);
    TrainingState back;
    back.loaders["train"] = &fresh;
    back.load(load(dir.file("s.ember")));
    EXPECT_EQ(fresh.progress().epochs, loader.progress().epochs);
    for (int i = stop; i < 14; ++i) EXPECT_EQ(first_of(fresh.next_batch()), want[static_cast<size_t>(i)]) << i;
  }
  // the epoch loop and the step loop draw the same orders
  data::DataLoader by_epoch(inputs.reshape({10, 1}), targets.reshape({10, 1}), options);
  std::vector<int64_t> got;
  for (int e = 0; e < 4; ++e) {
    by_epoch.start_epoch();
    while (auto b = by_epoch.next()) got.push_back(first_of(*b));
  }
  EXPECT_EQ(std::vector<int64_t>(got.begin(), got.begin() + 14), want);
}

TEST(TrainingStateTest, LoadersMissingExtraOrOfAnotherSizeAreErrors) {
  const Tensor x = zeros({10, 2});
  data::DataLoader loader(x, x, {.batch_size = 2});
  loader.next_batch();
  TrainingState ts;
  ts.loaders["train"] = &loader;
  const Value saved = ts.to_value();
  TrainingState none;
  expect_error<ValueError>([&] { none.load(saved); }, {"the checkpoint has loader 'train'"});
  data::DataLoader other(x, x, {.batch_size = 2});
  TrainingState renamed;
  renamed.loaders["valid"] = &other;
  expect_error<ValueError>([&] { renamed.load(saved); }, {"the checkpoint has loader 'train'", "does not list"});
  expect_error<ValueError>([&] { renamed.load(TrainingState{}.to_value()); }, {"has no 'loaders'", "'valid'"});
  data::DataLoader small(zeros({2, 2}), zeros({2, 2}), {.batch_size = 2});
  loader.next_batch();
  loader.next_batch();  // at batch 3 of 5
  TrainingState smaller;
  smaller.loaders["train"] = &small;
  expect_error<ValueError>([&] { smaller.load(ts.to_value()); }, {"saved at batch 3", "has 1 batches per epoch"});
  EXPECT_EQ(small.progress().epochs, 0);  // nothing changed
  data::DataLoader empty_epoch(zeros({1, 2}), zeros({1, 2}), {.batch_size = 2, .drop_last = true});
  expect_error<ValueError>([&] { empty_epoch.next_batch(); }, {"an epoch has no batch", "1 samples", "batch_size 2"});
}

}  // namespace
}  // namespace ember::io
