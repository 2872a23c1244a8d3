// DistributedDataParallel on threads: replicas start from rank 0's weights, stay bitwise equal
// (checked by checksums), and train as one process on the whole batch would; buckets, no_sync and
// unused parameters.
#include <gtest/gtest.h>

#include <mutex>

#include "dist_test_util.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/distributed/distributed_data_parallel.h"
#include "ember/io/checksum.h"
#include "ember/nn/nn.h"
#include "ember/ops/ops.h"
#include "ember/optim/sgd.h"
#include "support/expect.h"

namespace ember {
namespace {

using distributed::DistributedDataParallel;
using distributed::DistributedDataParallelOptions;
using distributed::ProcessGroup;
using testing::run_ranks;
namespace F = nn::functional;

std::shared_ptr<nn::Module> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(5, 16), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(16, 3)});
}

// A batch of rank r at step s, drawn from its own generator.
std::pair<Tensor, Tensor> batch(int r, int step, int64_t rows = 4) {
  Generator g(1000 * step + r);
  return {randn({rows, 5}, {}, &g), randn({rows, 3}, {}, &g)};
}

// XXH3 of every parameter's bytes, in order.
uint64_t checksum_of(nn::Module& m) {
  io::detail::Hasher sum;
  for (auto& [name, p] : m.named_parameters()) sum.update(p.contiguous().data_ptr(), p.nbytes());
  return sum.digest();
}

// The checksums of every rank's parameters, gathered on each.
std::vector<int64_t> gather_checksums(ProcessGroup& pg, nn::Module& m) {
  Tensor mine = full({1}, static_cast<int64_t>(checksum_of(m)), TensorOptions(kInt64));
  std::vector<Tensor> all;
  for (int r = 0; r < pg.size(); ++r) all.push_back(zeros({1}, TensorOptions(kInt64)));
  pg.allgather(all, mine)->wait();
  std::vector<int64_t> out;
  for (const Tensor& t : all) out.push_back(t.to_vector<int64_t>()[0]);
  return out;
}

// Trains `steps` SGD steps with DDP at `world`; returns rank 0's initial state and final state.
std::pair<nn::StateDict, nn::StateDict> train_ddp(int world, int steps, DistributedDataParallelOptions o = {}) {
  std::mutex mutex;
  nn::StateDict initial, final_state;
  run_ranks(world, [&](ProcessGroup& pg) {
    auto model = make_mlp();  // a different initialisation on each rank...
    std::shared_ptr<ProcessGroup> group(&pg, [](ProcessGroup*) {});
    auto ddp = std::make_shared<DistributedDataParallel>(model, o, group);
    std::vector<int64_t> sums = gather_checksums(pg, *model);  // ...until rank 0's is broadcast
    for (int64_t s : sums) ASSERT_EQ(s, sums[0]);
    if (pg.rank() == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto& [k, v] : model->state_dict()) initial.insert(k, v.clone());
    }
    optim::SGD opt(ddp->named_parameters(), {.lr = 0.1, .momentum = 0.9});
    for (int step = 0; step < steps; ++step) {
      auto [x, y] = batch(pg.rank(), step);
      opt.zero_grad();
      F::mse_loss((*ddp)(x), y).backward();
      opt.step();
    }
    sums = gather_checksums(pg, *model);
    for (int64_t s : sums) ASSERT_EQ(s, sums[0]) << "replicas differ after " << steps << " steps";
    if (pg.rank() == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto& [k, v] : model->state_dict()) final_state.insert(k, v.clone());
    }
  });
  return {initial, final_state};
}

// One process on the concatenation of every rank's batch, from `initial`.
nn::StateDict train_single(const nn::StateDict& initial, int world, int steps) {
  auto model = make_mlp();
  model->load_state_dict(initial);
  optim::SGD opt(model->named_parameters(), {.lr = 0.1, .momentum = 0.9});
  for (int step = 0; step < steps; ++step) {
    std::vector<Tensor> xs, ys;
    for (int r = 0; r < world; ++r) {
      auto [x, y] = batch(r, step);
      xs.push_back(x);
      ys.push_back(y);
    }
    opt.zero_grad();
    F::mse_loss(model->forward(cat(xs, 0)), cat(ys, 0)).backward();
    opt.step();
  }
  return model->state_dict();
}

class DDPTest : public ::testing::TestWithParam<int> {};

TEST_P(DDPTest, ReplicasStayBitwiseEqualAndMatchOneProcessOnTheGlobalBatch) {
  int world = GetParam();
  auto [initial, trained] = train_ddp(world, 6);
  nn::StateDict reference = train_single(initial, world, 6);
  for (auto& [k, v] : reference) testing::expect_close(*trained.find(k), v, 1e-5, 1e-6, k);
}

TEST_P(DDPTest, ManySmallBucketsTrainAsOne) {
  int world = GetParam();
  DistributedDataParallelOptions tiny;
  tiny.bucket_cap_mb = 100.0 / (1024 * 1024);  // 100 bytes: about one parameter per bucket
  auto [i2, many] = train_ddp(world, 3, tiny);
  for (auto& [k, v] : train_single(i2, world, 3)) testing::expect_close(*many.find(k), v, 1e-5, 1e-6, k);
}

INSTANTIATE_TEST_SUITE_P(WorldSize, DDPTest, ::testing::Values(1, 2, 4),
                         [](const auto& info) { return "World" + std::to_string(info.param); });

TEST(DDPBucketsTest, BucketsFollowReverseRegistrationOrderAndTheCap) {
  run_ranks(1, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> group(&pg, [](ProcessGroup*) {});
    DistributedDataParallelOptions o;
    o.bucket_cap_mb = 100.0 / (1024 * 1024);
    DistributedDataParallel ddp(make_mlp(), o, group);
    // 0.weight [16,5] 320 B, 0.bias 64 B, 2.weight [3,16] 192 B, 2.bias 12 B.
    std::vector<std::vector<std::string>> want = {{"2.bias", "2.weight"}, {"0.bias", "0.weight"}};
    EXPECT_EQ(ddp.reducer().bucket_names(), want);
    DistributedDataParallel big(make_mlp(), {}, group);
    EXPECT_EQ(big.reducer().bucket_names().size(), 1u);
    EXPECT_EQ(big.named_parameters()[0].first, "module.0.weight");
  });
}

TEST(DDPNoSyncTest, AccumulatesLocallyThenAveragesTheSums) {
  run_ranks(2, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> group(&pg, [](ProcessGroup*) {});
    auto model = make_mlp();
    DistributedDataParallel ddp(model, {}, group);
    auto [x0, y0] = batch(pg.rank(), 0);
    auto [x1, y1] = batch(pg.rank(), 1);
    {
      auto guard = ddp.no_sync();
      F::mse_loss(ddp(x0), y0).backward();
    }
    Tensor local = model->named_parameters()[0].second.grad().clone();
    F::mse_loss(ddp(x1), y1).backward();
    // The same accumulation with both micro-batches, averaged by hand.
    auto ref = make_mlp();
    ref->load_state_dict(model->state_dict());
    for (int r = 0; r < 2; ++r)
      for (int s = 0; s < 2; ++s) {
        auto [x, y] = batch(r, s);
        F::mse_loss(ref->forward(x), y).backward();
      }
    for (size_t i = 0; i < ref->named_parameters().size(); ++i) {
      Tensor want = ref->named_parameters()[i].second.grad() / 2.0;
      testing::expect_close(model->named_parameters()[i].second.grad(), want, 1e-5, 1e-6, "grad");
    }
    // Under no_sync the gradient was this rank's alone.
    auto solo = make_mlp();
    solo->load_state_dict(model->state_dict());
    F::mse_loss(solo->forward(x0), y0).backward();
    testing::expect_close(local, solo->named_parameters()[0].second.grad(), 1e-6, 1e-7, "local");
  });
}

// Two heads; forward uses the second only on rank 0 (or never).
struct TwoHeads : nn::Module {
  std::shared_ptr<nn::Linear> a, b;
  bool use_b;
  explicit TwoHeads(bool use_b) : Module("TwoHeads"), use_b(use_b) {
    a = register_module("a", std::make_shared<nn::Linear>(5, 3));
    b = register_module("b", std::make_shared<nn::Linear>(5, 3));
  }
  Tensor forward(const Tensor& x) override { return use_b ? a->forward(x) + b->forward(x) : a->forward(x); }
};

TEST(DDPUnusedTest, AParameterWithoutGradientIsAnErrorNamingIt) {
  run_ranks(2, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> group(&pg, [](ProcessGroup*) {});
    DistributedDataParallel ddp(std::make_shared<TwoHeads>(false), {}, group);
    auto [x, y] = batch(pg.rank(), 0);
    testing::expect_error<ValueError>([&] { F::mse_loss(ddp(x), y).backward(); },
                                      {"DistributedDataParallel", "'b.weight', 'b.bias'",
                                       "find_unused_parameters"});
    // The reducer is ready for the next pass.
    ddp.module().named_parameters()[2].second.set_requires_grad(false);
    ddp.module().named_parameters()[3].second.set_requires_grad(false);
  });
}

TEST(DDPUnusedTest, FindUnusedParametersAveragesWhatSomeRankUsed) {
  run_ranks(2, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> group(&pg, [](ProcessGroup*) {});
    auto model = std::make_shared<TwoHeads>(pg.rank() == 0);
    auto never = std::make_shared<TwoHeads>(false);
    DistributedDataParallelOptions o;
    o.find_unused_parameters = true;
    DistributedDataParallel ddp(model, o, group), ddp_never(never, o, group);
    auto [x, y] = batch(pg.rank(), 0);
    F::mse_loss(ddp(x), y).backward();
    // b: rank 0's gradient over 2 on both ranks; bitwise the same.
    Tensor gb = model->b->named_parameters()[0].second.grad();
    ASSERT_TRUE(gb.defined());
    std::vector<Tensor> both = {zeros_like(gb), zeros_like(gb)};
    pg.allgather(both, gb)->wait();
    EXPECT_EQ(both[0].to_vector<float>(), both[1].to_vector<float>());
    F::mse_loss(ddp_never(x), y).backward();
    EXPECT_FALSE(never->b->named_parameters()[0].second.grad().defined());  // no rank used it
    EXPECT_TRUE(never->a->named_parameters()[0].second.grad().defined());
  });
}

}  // namespace
}  // namespace ember
