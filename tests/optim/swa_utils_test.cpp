// swa_utils: AveragedModel's running mean and moving averages (by hand), SWALR's lrs against
// torch.optim.swa_utils.SWALR (values printed by PyTorch 2.15), update_bn against the batch
// statistics computed directly, and the errors.
#include "ember/optim/swa_utils.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ember/ember.h"
#include "ember/optim/optim.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;

namespace {

// One parameter w and one buffer s, set by the test.
struct Pair : nn::Module {
  Pair() : Module("Pair") {
    register_parameter("w", zeros({2}));
    register_buffer("s", zeros({2}));
  }
  void set(std::vector<double> w, std::vector<double> s) const {
    NoGradGuard no_grad;
    Tensor(parameter("w")).copy_(tensor(w).to(kFloat32));
    Tensor(buffer("s")).copy_(tensor(s).to(kFloat32));
  }
  Tensor forward(const Tensor& x) override { return x * parameter("w"); }
};

// Pair's parameter with a wider buffer.
struct WideBuffer : nn::Module {
  WideBuffer() : Module("WideBuffer") {
    register_parameter("w", ones({2}));
    register_buffer("s", zeros({3}));
  }
};

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

TEST(AveragedModel, RunningMeanOfTheParametersWhileTheBuffersFollowTheModel) {
  auto model = std::make_shared<Pair>();
  AveragedModel swa(std::make_shared<Pair>());
  EXPECT_EQ(swa.n_averaged(), 0);
  model->set({1, 2}, {5, 5});
  swa.update_parameters(*model);  // the first copies
  EXPECT_EQ(values(swa.module().parameter("w")), (std::vector<float>{1, 2}));
  model->set({3, 6}, {7, 8});
  swa.update_parameters(*model);
  model->set({8, -2}, {9, 9});
  swa.update_parameters(*model);
  EXPECT_EQ(swa.n_averaged(), 3);
  EXPECT_EQ(values(swa.module().parameter("w")), (std::vector<float>{4, 2}));  // (1+3+8)/3, (2+6-2)/3
  EXPECT_EQ(values(swa.module().buffer("s")), (std::vector<float>{9, 9}));     // the model's, not averaged
  // forward runs the averaged module; the state holds n_averaged, so a checkpoint resumes it.
  EXPECT_EQ(values(swa(ones({2}))), (std::vector<float>{4, 2}));
  auto state = swa.state_dict();
  EXPECT_TRUE(state.contains("n_averaged"));
  EXPECT_TRUE(state.contains("module.w"));
  EXPECT_TRUE(state.contains("module.s"));
}

TEST(AveragedModel, MovingAveragesOfParametersAndBuffers) {
  auto model = std::make_shared<Pair>();
  AveragedModel ema(std::make_shared<Pair>(), {.multi_avg_fn = get_ema_multi_avg_fn(0.75)});
  AveragedModel ema_one(std::make_shared<Pair>(), {.avg_fn = get_ema_avg_fn(0.5), .use_buffers = true});
  model->set({4, 8}, {2, 0});
  ema.update_parameters(*model);
  ema_one.update_parameters(*model);
  model->set({0, 0}, {4, 4});
  ema.update_parameters(*model);
  ema_one.update_parameters(*model);
  EXPECT_EQ(values(ema.module().parameter("w")), (std::vector<float>{3, 6}));  // 0.75 * old + 0.25 * new
  EXPECT_EQ(values(ema.module().buffer("s")), (std::vector<float>{4, 4}));
  EXPECT_EQ(values(ema_one.module().parameter("w")), (std::vector<float>{2, 4}));
  EXPECT_EQ(values(ema_one.module().buffer("s")), (std::vector<float>{3, 2}));  // averaged too
}

TEST(AveragedModel, TheFunctionsAreTorchs) {
  Tensor a = tensor(std::vector<double>{1, 2}).to(kFloat32), b = tensor(std::vector<double>{3, 6}).to(kFloat32);
  Tensor n = full({}, 1, kInt64);
  EXPECT_EQ(values(get_swa_avg_fn()(a, b, n)), (std::vector<float>{2, 4}));
  EXPECT_EQ(values(get_ema_avg_fn(0.5)(a, b, n)), (std::vector<float>{2, 4}));
  Tensor c = a.clone();
  get_swa_multi_avg_fn()({c}, {b}, n);
  EXPECT_EQ(values(c), (std::vector<float>{2, 4}));
  Tensor ints = tensor(std::vector<int64_t>{2, 4}), more = tensor(std::vector<int64_t>{4, 8});
  get_swa_multi_avg_fn()({ints}, {more}, n);
  EXPECT_EQ(ints.to_vector<int64_t>(), (std::vector<int64_t>{3, 6}));
}

TEST(AveragedModel, BadArgumentsAreNamed) {
  expect_error<ValueError>([] { get_ema_multi_avg_fn(1.5); }, {"Invalid decay value 1.5", "[0,1]"});
  expect_error<ValueError>([] { get_ema_avg_fn(-0.1); }, {"Invalid decay value -0.1"});
  expect_error<ValueError>(
      [] {
        AveragedModel(std::make_shared<Pair>(), {.avg_fn = get_ema_avg_fn(), .multi_avg_fn = get_ema_multi_avg_fn()});
      },
      {"Only one of avg_fn and multi_avg_fn"});
  AveragedModel swa(std::make_shared<Pair>());
  nn::Linear other(2, 2);
  expect_error<ValueError>([&] { swa.update_parameters(other); },
                           {"AveragedModel.update_parameters", "the model has 2 parameters", "averaged model 1"});
  nn::Sequential wrong;
  wrong.push_back(std::make_shared<nn::Linear>(3, 1, false));
  expect_error<ValueError>([&] { swa.update_parameters(wrong); },
                           {"'0.weight' of shape [1, 3] in the model", "'w' of shape [2]"});
  EXPECT_EQ(swa.n_averaged(), 0);  // nothing folded in
  auto pair = std::make_shared<Pair>();
  pair->set({1, 2}, {0, 0});
  swa.update_parameters(*pair);
  WideBuffer wide;  // the parameters match, a buffer does not: refused before anything is written
  expect_error<ValueError>([&] { swa.update_parameters(wide); },
                           {"buffers 0 is 's' of shape [3] in the model, 's' of shape [2] in the averaged model"});
  EXPECT_EQ(swa.n_averaged(), 1);
  EXPECT_EQ(values(swa.module().parameter("w")), (std::vector<float>{1, 2}));
}

// ---- SWALR: two groups at lr 0.1 and 0.02, as the fixtures' optimizer.

std::vector<std::vector<double>> swalr_lrs(const std::function<std::unique_ptr<SWALR>(Optimizer&)>& make) {
  Tensor p0 = zeros({2}), p1 = zeros({3});
  SGD opt({ParamGroup({{"p0", p0}}), ParamGroup({{"p1", p1}}, {{"lr", 0.02}})}, SGDOptions{.lr = 0.1, .momentum = 0.9});
  auto s = make(opt);
  std::vector<std::vector<double>> out{s->get_last_lr()};
  for (int i = 0; i < 5; ++i) {
    s->step();
    out.push_back(s->get_last_lr());
  }
  EXPECT_EQ(opt.param_groups()[1].get("swa_lr"), out.back()[1]);  // stored in the group, as torch's
  return out;
}

void expect_lrs(const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    for (size_t g = 0; g < 2; ++g) EXPECT_NEAR(got[i][g], want[i][g], 1e-15) << "step " << i << " group " << g;
}

TEST(SWALR, AnnealsAsTorchsCosineAndLinear) {
  expect_lrs(swalr_lrs([](Optimizer& o) { return std::make_unique<SWALR>(o, 0.05, 3); }),
             {{0.1, 0.02},
              {0.08750000000000001, 0.027499999999999997},
              {0.06250000000000001, 0.0425},
              {0.05, 0.05},
              {0.05, 0.05},
              {0.05, 0.05}});
  expect_lrs(swalr_lrs([](Optimizer& o) {
               return std::make_unique<SWALR>(o, std::vector<double>{0.01, 0.03}, 3, AnnealStrategy::Linear);
             }),
             {{0.1, 0.02},
              {0.07, 0.023333333333333334},
              {0.04000000000000001, 0.026666666666666665},
              {0.01, 0.03},
              {0.01, 0.03},
              {0.01, 0.03}});
  expect_lrs(swalr_lrs([](Optimizer& o) { return std::make_unique<SWALR>(o, 0.05, 0); }),
             std::vector<std::vector<double>>(6, {0.05, 0.05}));
}

TEST(SWALR, StateRoundTripsAndBadArgumentsAreNamed) {
  Tensor p = zeros({2});
  SGD opt({{"p", p}}, SGDOptions{.lr = 0.1});
  SWALR a(opt, 0.05, 4);
  a.step();
  a.step();
  SGD opt2({{"p", p}}, SGDOptions{.lr = 0.1});
  SWALR b(opt2, 0.05, 4);
  opt2.load_state_dict(opt.state_dict());
  b.load_state_dict(a.state_dict());
  a.step();
  b.step();
  EXPECT_EQ(a.get_last_lr(), b.get_last_lr());
  expect_error<ValueError>(
      [&] {
        SWALR(opt, std::vector<double>{0.1, 0.2});
      },
      {"swa_lr has 2 values, param_groups has 1"});
  expect_error<ValueError>([&] { SWALR(opt, 0.1, -1); }, {"anneal_epochs must be equal or greater than 0, got -1"});
}

// ---- update_bn

TEST(UpdateBn, RunningStatisticsBecomeTheAveragesOfTheBatchStatistics) {
  auto bn = std::make_shared<nn::BatchNorm1d>(nn::BatchNormOptions{2, 1e-5, 0.3});
  nn::Sequential model;
  model.push_back(std::make_shared<nn::Linear>(2, 2));
  model.push_back(bn);
  model.eval();
  std::vector<Tensor> batches{randn({4, 2}), randn({3, 2}), randn({5, 2})};
  update_bn(batches, model);
  Tensor mean = zeros({2}), var = zeros({2});
  {
    NoGradGuard no_grad;
    for (const Tensor& x : batches) {
      Tensor h = (*model[0])(x);
      mean = mean + h.mean({0});
      var = var + h.var({0});  // unbiased, as the running variance is
    }
  }
  EXPECT_TRUE(allclose(bn->buffer("running_mean"), mean / 3, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(bn->buffer("running_var"), var / 3, 1e-5, 1e-6));
  EXPECT_EQ(bn->options().momentum, 0.3);  // restored, as the mode
  EXPECT_FALSE(model.is_training());
  // A pass that throws still restores them.
  EXPECT_THROW(update_bn(model, [] { throw ValueError("bad batch"); }), ValueError);
  EXPECT_EQ(bn->options().momentum, 0.3);
  EXPECT_FALSE(model.is_training());
}

}  // namespace
