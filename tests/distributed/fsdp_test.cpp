// distributed::FSDP on threads: training at 1, 2 and 3 ranks (3 pads every parameter) matches one
// process on the global batch; shards hold ceil(numel / W) elements under the model's names; a tie
// across units goes to the unit above both; an unused parameter gets a zero gradient, not a hang;
// two backward passes accumulate; frozen and empty parameters and buffers go along;
// clip_grad_norm_ sees the whole gradient; a sharded checkpoint of 3 ranks loads at 2 and into the
// unwrapped model, its AdamW state included, and bad state is an error naming it.
#include "ember/distributed/fsdp.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "dist_test_util.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/distributed/fsdp_state.h"
#include "ember/nn/nn.h"
#include "ember/ops/ops.h"
#include "ember/optim/adam.h"
#include "ember/optim/sgd.h"
#include "support/expect.h"

namespace ember {
namespace {

using distributed::FSDP;
using distributed::FSDPOptions;
using distributed::ProcessGroup;
using distributed::ShardedParam;
using testing::run_ranks;
namespace F = nn::functional;

constexpr int64_t kRows = 6;  // the global batch: divisible by 1, 2 and 3

std::shared_ptr<nn::Sequential> make_model(bool tied = false) {
  static std::mutex mutex;  // ranks are threads: one seeded construction at a time
  std::lock_guard<std::mutex> lock(mutex);
  manual_seed(7);
  auto block = [](int64_t in, int64_t out) {
    return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(in, out), std::make_shared<nn::Tanh>()});
  };
  auto model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      block(5, 7), block(7, 7), block(7, 7), std::make_shared<nn::Linear>(7, 3)});
  if (tied) {  // the second block's weight is the third's: a tie across two units
    auto w = model->child("1")->child("0")->parameter("weight");
    model->child("2")->child("0")->replace_parameter("weight", w);
  }
  return model;
}

std::pair<Tensor, Tensor> batch(int step) {
  Generator g(500 + step);
  return {randn({kRows, 5}, {}, &g), randn({kRows, 3}, {}, &g)};
}

Tensor rows(const Tensor& t, int rank, int world) { return t.narrow(0, rank * (kRows / world), kRows / world); }

nn::StateDict clone_of(const nn::StateDict& s) {
  nn::StateDict out;
  for (const auto& [k, v] : s) out.insert(k, v.detach().clone());
  return out;
}

// SGD with momentum, not Adam: Adam's step does not change when every gradient is scaled, and a
// sum where the average belongs would pass unseen.
nn::StateDict train_single(int steps, bool tied = false) {
  auto model = make_model(tied);
  optim::SGD opt(model->named_parameters(), {.lr = 0.1, .momentum = 0.9});
  for (int s = 0; s < steps; ++s) {
    auto [x, y] = batch(s);
    opt.zero_grad();
    F::mse_loss((*model)(x), y).backward();
    opt.step();
  }
  return clone_of(model->state_dict());
}

FSDPOptions by_blocks() {
  FSDPOptions o;
  o.auto_wrap_policy = distributed::wrap_module_types({"Linear"});
  return o;
}

std::shared_ptr<ProcessGroup> borrowed(ProcessGroup& pg) {
  return {&pg, [](ProcessGroup*) {}};
}

// Trains `steps` steps at `world` ranks; rank 0's gathered state.
nn::StateDict train_fsdp(int world, int steps, FSDPOptions o, bool tied = false) {
  std::mutex mutex;
  nn::StateDict out;
  run_ranks(world, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(tied), o, borrowed(pg));
    optim::SGD opt(fsdp.named_parameters(), {.lr = 0.1, .momentum = 0.9});
    for (int s = 0; s < steps; ++s) {
      auto [x, y] = batch(s);
      opt.zero_grad();
      F::mse_loss(fsdp(rows(x, pg.rank(), world)), rows(y, pg.rank(), world)).backward();
      opt.step();
    }
    nn::StateDict full = distributed::fsdp_full_state_dict(fsdp);
    if (pg.rank() == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      out = clone_of(full);
    }
  });
  return out;
}

class FSDPTest : public ::testing::TestWithParam<int> {};

TEST_P(FSDPTest, TrainsAsOneProcessOnTheGlobalBatch) {
  const nn::StateDict want = train_single(5);
  const nn::StateDict got = train_fsdp(GetParam(), 5, by_blocks());
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [k, v] : want) testing::expect_close(got.at(k), v, 1e-4, 1e-5, k);
}

TEST_P(FSDPTest, RootOnlyAndNoPrefetchTrainAlike) {
  FSDPOptions o;  // one unit, the root
  o.prefetch = false;
  const nn::StateDict want = train_single(3);
  const nn::StateDict got = train_fsdp(GetParam(), 3, o);
  for (const auto& [k, v] : want) testing::expect_close(got.at(k), v, 1e-4, 1e-5, k);
}

TEST_P(FSDPTest, ATieAcrossUnitsIsOneParameterOfTheUnitAboveBoth) {
  const nn::StateDict want = train_single(4, /*tied=*/true);
  const nn::StateDict got = train_fsdp(GetParam(), 4, by_blocks(), /*tied=*/true);
  for (const auto& [k, v] : want) testing::expect_close(got.at(k), v, 1e-4, 1e-5, k);
  EXPECT_TRUE(got.at("1.0.weight").equal(got.at("2.0.weight")));
}

TEST_P(FSDPTest, Bfloat16ParametersOverFloat32ShardsTrainClose) {
  FSDPOptions o = by_blocks();
  o.param_dtype = kBFloat16;
  std::mutex mutex;
  nn::StateDict got;
  run_ranks(GetParam(), [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), o, borrowed(pg));
    optim::SGD opt(fsdp.named_parameters(), {.lr = 0.1, .momentum = 0.9});
    for (int s = 0; s < 3; ++s) {
      auto [x, y] = batch(s);
      opt.zero_grad();
      const Tensor out = fsdp(rows(x, pg.rank(), GetParam()));  // x cast to bf16 at the root
      EXPECT_EQ(out.dtype(), kBFloat16);
      F::mse_loss(out.to(kFloat32), rows(y, pg.rank(), GetParam())).backward();
      opt.step();
    }
    for (auto& [k, p] : fsdp.named_parameters()) EXPECT_EQ(p.dtype(), kFloat32) << k;
    nn::StateDict full = distributed::fsdp_full_state_dict(fsdp);
    if (pg.rank() == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      got = clone_of(full);
    }
  });
  for (const auto& [k, v] : train_single(3)) testing::expect_close(got.at(k), v, 3e-2, 3e-2, k);
}

INSTANTIATE_TEST_SUITE_P(WorldSize, FSDPTest, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return "World" + std::to_string(info.param); });

TEST(FSDPShardsTest, EachRankHoldsCeilNumelOverWorldUnderTheModelsNames) {
  run_ranks(3, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), by_blocks(), borrowed(pg));
    EXPECT_EQ(fsdp.num_units(), 5u);  // the root and four Linears
    EXPECT_EQ(fsdp.unit(1).name(), "0.0");
    auto named = fsdp.named_parameters();
    ASSERT_EQ(named.size(), 8u);
    EXPECT_EQ(named[0].first, "0.0.weight");
    EXPECT_EQ(named[0].second.sizes(), IntArrayRef({12}));  // 35 elements over 3 ranks
    EXPECT_EQ(named[7].second.sizes(), IntArrayRef({1}));   // 3.bias: 3 elements
    // The last rank's share of 0.0.weight is 35 - 24 = 11 elements and a zero.
    if (pg.rank() == 2) EXPECT_EQ(named[0].second.select(0, 11).item<float>(), 0.0f);
  });
}

TEST(FSDPShardsTest, TheSizePolicyWrapsBottomUpByWhatIsLeft) {
  run_ranks(1, [&](ProcessGroup& pg) {
    // Linear(5, 7) holds 42 elements, Linear(7, 7) 56, Linear(7, 3) 24: at 50 only the two 7x7
    // blocks' Linears wrap, and nothing above them has 50 left.
    FSDPOptions o;
    o.auto_wrap_policy = distributed::wrap_by_size(50);
    FSDP fsdp(make_model(), o, borrowed(pg));
    std::vector<std::string> names;
    for (size_t u = 0; u < fsdp.num_units(); ++u) names.push_back(fsdp.unit(u).name());
    EXPECT_EQ(names, (std::vector<std::string>{"", "1.0", "2.0"}));
    // At 40, the first Linear's 42 too, and its block (42, all of it in the Linear's unit) not.
    o.auto_wrap_policy = distributed::wrap_by_size(40);
    FSDP smaller(make_model(), o, borrowed(pg));
    EXPECT_EQ(smaller.num_units(), 4u);
    EXPECT_EQ(smaller.unit(1).name(), "0.0");
  });
}

TEST(FSDPGradTest, AnUnusedParameterGetsAZeroGradientAndClipSeesTheWholeGradient) {
  // Single process reference: the norm of the whole gradient.
  auto model = make_model();
  auto [x, y] = batch(0);
  F::mse_loss((*model)(x), y).backward();
  double want = 0;
  for (auto& [k, p] : model->named_parameters()) want += p.grad().pow(2).sum().item<double>();
  want = std::sqrt(want);
  run_ranks(2, [&](ProcessGroup& pg) {
    auto m = make_model();
    m->child("3")->register_parameter("unused", zeros({4}));
    FSDP fsdp(m, by_blocks(), borrowed(pg));
    F::mse_loss(fsdp(rows(x, pg.rank(), 2)), rows(y, pg.rank(), 2)).backward();
    for (auto& [k, p] : fsdp.named_parameters()) {
      ASSERT_TRUE(p.grad().defined()) << k;
      if (k == "3.unused") EXPECT_EQ(p.grad().abs().sum().item<float>(), 0.0f);
    }
    const double norm = fsdp.clip_grad_norm_(0.5);
    EXPECT_NEAR(norm, want, 1e-5 * want);
    double after = 0;
    for (auto& [k, p] : fsdp.named_parameters()) after += p.grad().pow(2).sum().item<double>();
    Tensor total = full({1}, after, TensorOptions(kFloat64));
    pg.allreduce(total)->wait();
    EXPECT_NEAR(std::sqrt(total.item<double>()), 0.5, 1e-5);
  });
}

// The gradients of one process that runs both halves of batch `step` through backward.
std::map<std::string, Tensor> two_half_gradients(nn::Module& reference, int step) {
  auto [x, y] = batch(step);
  for (int half = 0; half < 2; ++half)
    F::mse_loss(reference(x.narrow(0, 3 * half, 3)), y.narrow(0, 3 * half, 3)).backward();
  std::map<std::string, Tensor> out;
  for (auto& [name, q] : reference.named_parameters()) out[name] = q.grad();
  return out;
}

// The whole gradient of parameter `name`, gathered from every rank's shard gradient.
Tensor whole_gradient(const FSDP& fsdp, ProcessGroup& pg, const std::string& name, const Tensor& shard) {
  const auto at = fsdp.find_param(name);
  EMBER_CHECK(at.has_value(), "no FSDP parameter ", name);
  const ShardedParam& sp = fsdp.unit(at->first).params()[at->second];
  std::vector<Tensor> parts;
  for (int r = 0; r < pg.size(); ++r) parts.push_back(zeros({sp.shard_numel}));
  pg.allgather(parts, shard.grad())->wait();
  return cat(parts, 0).narrow(0, 0, sp.numel).reshape(sp.shape);
}

TEST(FSDPGradTest, TwoBackwardsAccumulateAndFrozenEmptyAndBufferedModulesTrain) {
  // Reference: one process, both halves of the batch through backward, the first layer frozen.
  auto reference = make_model();
  reference->child("0")->child("0")->parameter("weight").set_requires_grad(false);
  const std::map<std::string, Tensor> want = two_half_gradients(*reference, 0);
  auto [x, y] = batch(0);
  run_ranks(3, [&](ProcessGroup& pg) {
    auto m = make_model();
    m->child("0")->child("0")->parameter("weight").set_requires_grad(false);
    m->child("1")->register_parameter("empty", zeros({0}));
    m->child("2")->register_buffer("count", zeros({2}));
    FSDP fsdp(m, by_blocks(), borrowed(pg));
    for (int half = 0; half < 2; ++half) {  // each rank: its row of each half
      const Tensor xs = x.narrow(0, 3 * half, 3), ys = y.narrow(0, 3 * half, 3);
      F::mse_loss(fsdp(xs.narrow(0, pg.rank(), 1)), ys.narrow(0, pg.rank(), 1)).backward();
    }
    for (auto& [k, p] : fsdp.named_parameters()) {
      if (k == "0.0.weight") {  // frozen: no gradient
        EXPECT_FALSE(p.grad().defined()) << k;
        continue;
      }
      if (k == "1.empty") {  // unused and empty: an empty gradient, and no collective hangs
        EXPECT_EQ(p.grad().numel(), 0);
        continue;
      }
      testing::expect_close(whole_gradient(fsdp, pg, k, p), want.at(k), 1e-5, 1e-6, k);
    }
    EXPECT_TRUE(distributed::fsdp_full_state_dict(fsdp, false).contains("2.count"));
  });
}

TEST(FSDPGradTest, NoSyncSumsWholeGradientsUntilASyncedPassReducesThem) {
  const std::map<std::string, Tensor> want = two_half_gradients(*make_model(), 1);
  auto [x, y] = batch(1);
  run_ranks(3, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), by_blocks(), borrowed(pg));
    for (int half = 0; half < 2; ++half) {
      fsdp.set_sync(half == 1);
      const Tensor xs = x.narrow(0, 3 * half, 3), ys = y.narrow(0, 3 * half, 3);
      F::mse_loss(fsdp(xs.narrow(0, pg.rank(), 1)), ys.narrow(0, pg.rank(), 1)).backward();
      if (half == 0)
        for (auto& [k, p] : fsdp.named_parameters()) EXPECT_FALSE(p.grad().defined()) << k;
    }
    // summon_full_params: whole parameters in the modules, and the whole gradients' reference.
    fsdp.summon_full_params();
    for (auto& [k, p] : fsdp.module().named_parameters()) EXPECT_EQ(p.sizes(), want.at(k).sizes()) << k;
    fsdp.end_full_params(/*writeback=*/false);
    for (auto& [k, p] : fsdp.named_parameters())
      testing::expect_close(whole_gradient(fsdp, pg, k, p), want.at(k), 1e-5, 1e-6, k);
  });
}

TEST(FSDPStateTest, SummonedParametersWrittenBackReachTheShards) {
  run_ranks(2, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), by_blocks(), borrowed(pg));
    fsdp.summon_full_params();
    {
      NoGradGuard no_grad;
      fsdp.module().child("3")->parameter("weight").fill_(0.5);
    }
    fsdp.end_full_params();
    nn::StateDict full = distributed::fsdp_full_state_dict(fsdp, false);
    EXPECT_TRUE(full.at("3.weight").equal(full_like(full.at("3.weight"), 0.5)));
    EXPECT_EQ(fsdp.module().child("3")->parameter("weight").dim(), 1);  // the shard again
  });
}

TEST(FSDPCheckpointTest, ShardsOfThreeRanksLoadAtTwoAndIntoThePlainModel) {
  const auto dir = std::filesystem::temp_directory_path() / ("ember-fsdp-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::mutex mutex;
  nn::StateDict saved, after3;
  run_ranks(3, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), by_blocks(), borrowed(pg));
    optim::AdamW opt(fsdp.named_parameters(), {.lr = 0.05});
    auto train = [&](int s) {
      auto [x, y] = batch(s);
      opt.zero_grad();
      F::mse_loss(fsdp(rows(x, pg.rank(), 3)), rows(y, pg.rank(), 3)).backward();
      opt.step();
    };
    for (int s = 0; s < 3; ++s) train(s);
    std::vector<distributed::Shard> shards = distributed::fsdp_shards(fsdp, "model/");
    for (auto& s : distributed::fsdp_optimizer_shards(fsdp, opt, "optim/")) shards.push_back(s);
    distributed::save_checkpoint(pg, {{}, {}, shards}, dir.string());
    nn::StateDict full = distributed::fsdp_full_state_dict(fsdp);
    for (int s = 3; s < 5; ++s) train(s);
    nn::StateDict later = distributed::fsdp_full_state_dict(fsdp);
    if (pg.rank() == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      saved = clone_of(full);
      after3 = clone_of(later);
    }
  });
  distributed::CheckpointReader reader(dir.string());
  run_ranks(2, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), by_blocks(), borrowed(pg));
    optim::AdamW opt(fsdp.named_parameters(), {.lr = 0.05});
    distributed::load_fsdp_shards(fsdp, reader, "model/");
    distributed::load_fsdp_optimizer_shards(fsdp, opt, reader, "optim/");
    nn::StateDict loaded = distributed::fsdp_full_state_dict(fsdp);
    if (pg.rank() == 0)
      for (const auto& [k, v] : saved) EXPECT_TRUE(testing::same_bits(loaded.at(k), v)) << k;
    for (int s = 3; s < 5; ++s) {
      auto [x, y] = batch(s);
      opt.zero_grad();
      F::mse_loss(fsdp(rows(x, pg.rank(), 2)), rows(y, pg.rank(), 2)).backward();
      opt.step();
    }
    nn::StateDict resumed = distributed::fsdp_full_state_dict(fsdp);
    if (pg.rank() == 0)
      for (const auto& [k, v] : after3) testing::expect_close(resumed.at(k), v, 1e-4, 1e-5, k);
  });
  auto plain = make_model();
  EXPECT_TRUE(distributed::load_sharded_into(*plain, reader, "model/").ok());
  for (const auto& [k, v] : saved) EXPECT_TRUE(testing::same_bits(plain->state_dict().at(k), v)) << k;

  // Errors name the thing: a full state of the wrong shape, a checkpoint without a parameter.
  run_ranks(1, [&](ProcessGroup& pg) {
    FSDP fsdp(make_model(), by_blocks(), borrowed(pg));
    nn::StateDict bad = clone_of(saved);
    bad.set("0.0.weight", zeros({5, 7}));
    testing::expect_error<ValueError>([&] { distributed::fsdp_load_full_state_dict(fsdp, bad); },
                                      {"0.0.weight", "[5, 7]", "[7, 5]"});
    testing::expect_error<KeyError>([&] { distributed::load_fsdp_shards(fsdp, reader, "nothing/"); },
                                    {"nothing/0.0.weight"});
  });
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ember
