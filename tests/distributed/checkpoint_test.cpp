// Distributed checkpoints on threads: saved on 2 ranks, read on 1, 2 and 4 (rows of a sharded
// tensor and ZeRO's optimizer state land where the new partition wants them); a failing rank
// fails the save on every rank and leaves the previous checkpoint whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "dist_test_util.h"
#include "ember/core/factory.h"
#include "ember/distributed/checkpoint.h"
#include "ember/distributed/checkpoint_manager.h"
#include "ember/distributed/error.h"
#include "ember/distributed/zero_redundancy_optimizer.h"
#include "ember/io/io.h"
#include "ember/nn/nn.h"
#include "ember/ops/ops.h"
#include "ember/optim/adam.h"
#include "support/expect.h"

namespace ember {
namespace {

using namespace distributed;
using testing::run_ranks;
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("ember_dcp_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Rows [begin, end) of a 13 x 3 tensor split as evenly as possible over `world` ranks.
std::pair<int64_t, int64_t> rows_of(int rank, int world, int64_t n = 13) {
  int64_t per = n / world, extra = n % world;
  int64_t begin = rank * per + std::min<int64_t>(rank, extra);
  return {begin, begin + per + (rank < extra ? 1 : 0)};
}
Tensor global_rows() { return arange(0, 39, 1, TensorOptions(kFloat64)).view({13, 3}); }

std::shared_ptr<nn::Module> make_model() {
  manual_seed(3);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::Linear>(8, 3), std::make_shared<nn::Linear>(3, 2)});
}

std::unique_ptr<ZeroRedundancyOptimizer> make_zero(nn::Module& m, std::shared_ptr<ProcessGroup> g) {
  return std::make_unique<ZeroRedundancyOptimizer>(m.named_parameters(), [](optim::NamedParameters p) {
    return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions{.lr = 0.01});
  }, g);
}

// Two Adam steps on a fixed batch (gradients the same on every rank, as DDP leaves them).
void train(nn::Module& m, ZeroRedundancyOptimizer& zero) {
  Generator g(9);
  Tensor x = randn({5, 4}, {}, &g);
  for (int s = 0; s < 2; ++s) {
    zero.zero_grad();
    m.forward(x).pow(2).mean().backward();
    zero.step();
  }
}

TEST(DistributedCheckpointTest, SavedOnTwoRanksLoadsOnOneTwoAndFour) {
  fs::path dir = scratch("reshard") / "step-1";
  std::mutex mutex;
  std::map<std::string, std::vector<double>> saved_state;  // "state/<p>/<k>" -> values
  run_ranks(2, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> g(&pg, [](ProcessGroup*) {});
    auto model = make_model();
    auto zero = make_zero(*model, g);
    train(*model, *zero);
    CheckpointState st;
    st.replicated = io::Value::dict({{"model", io::to_value(*model)}, {"step", 2}});
    st.per_rank = io::Value::dict({{"rank", pg.rank()}});
    st.shards = zero->state_shards();
    auto [b, e] = rows_of(pg.rank(), 2);
    st.shards.push_back({"rows", global_rows().slice(0, b, e).clone(), {13, 3}, {b, 0}});
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (const Shard& s : zero->state_shards()) saved_state[s.name] = s.local.to(kFloat64).contiguous().to_vector<double>();
    }
    save_checkpoint(pg, st, dir.string());
  });
  ASSERT_TRUE(fs::exists(dir / "index.json"));
  ASSERT_FALSE(fs::exists(dir.string() + ".tmp"));
  for (int world : {1, 2, 4}) {
    run_ranks(world, [&](ProcessGroup& pg) {
      std::shared_ptr<ProcessGroup> g(&pg, [](ProcessGroup*) {});
      CheckpointReader reader(dir.string());
      EXPECT_EQ(reader.world_size(), 2);
      EXPECT_EQ(reader.replicated().at("step").as_int(), 2);
      auto mine = reader.per_rank(pg.rank());
      EXPECT_EQ(mine.has_value(), pg.rank() < 2);
      if (mine) EXPECT_EQ(mine->at("rank").as_int(), pg.rank());
      // This rank's rows under the new partition.
      auto [b, e] = rows_of(pg.rank(), world);
      Tensor rows = reader.read("rows", {b, 0}, {e - b, 3});
      EXPECT_EQ(rows.to_vector<double>(), global_rows().slice(0, b, e).contiguous().to_vector<double>());
      // ZeRO state of the parameters this rank owns now, from whichever file holds it.
      auto model = make_model();
      auto zero = make_zero(*model, g);
      zero->load_state_shards(reader);
      size_t found = 0;
      for (auto& [name, p] : model->named_parameters()) {
        bool owned = zero->owner(name) == pg.rank();
        EXPECT_EQ(zero->local().state().count(name) > 0, owned) << name;
        if (!owned) continue;
        for (auto& [key, t] : zero->local().state().at(name)) {
          std::lock_guard<std::mutex> lock(mutex);
          EXPECT_EQ(t.to(kFloat64).contiguous().to_vector<double>(), saved_state.at("state/" + name + "/" + key));
          ++found;
        }
      }
      std::vector<Tensor> counts = {zeros({1}, TensorOptions(kInt64))};
      Tensor total = full({1}, static_cast<int64_t>(found), TensorOptions(kInt64));
      pg.allreduce(total)->wait();
      EXPECT_EQ(total.to_vector<int64_t>()[0], static_cast<int64_t>(saved_state.size()));  // every entry, once
    });
  }
  CheckpointReader reader(dir.string());
  reader.verify();
  testing::expect_error<IndexError>([&] { reader.read("rows", {10, 0}, {4, 3}); }, {"rows", "dim 0"});
  testing::expect_error<KeyError>([&] { reader.read("nope"); }, {"no sharded tensor 'nope'"});
}

TEST(DistributedCheckpointTest, AFailingRankFailsTheSaveEverywhereAndKeepsThePrevious) {
  fs::path dir = scratch("fail") / "ckpt";
  auto save = [&](ProcessGroup& pg, int value, bool fail_rank1) {
    CheckpointState st;
    st.replicated = io::Value::dict({{"value", value}});
    st.per_rank = io::Value::dict({});
    Tensor t = full({2}, value, TensorOptions(kInt64));
    st.shards.push_back({"t", t, {4}, {pg.rank() * 2}});
    if (fail_rank1 && pg.rank() == 1) st.shards.push_back({"bad", t, {1}, {0}});  // does not fit
    save_checkpoint(pg, st, dir.string());
  };
  run_ranks(2, [&](ProcessGroup& pg) {
    save(pg, 1, false);
    testing::expect_error<DistributedError>([&] { save(pg, 2, true); },
                                            {"save_checkpoint", "not written", "rank 1", "'bad'"});
  });
  EXPECT_FALSE(fs::exists(dir.string() + ".tmp"));
  CheckpointReader reader(dir.string());
  EXPECT_EQ(reader.replicated().at("value").as_int(), 1);
  EXPECT_EQ(reader.read("t").to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 1, 1}));
  testing::expect_error<FileNotFoundError>([&] { CheckpointReader((dir.parent_path() / "none").string()); },
                                           {"not a committed checkpoint", "index.json"});
}

// ---- save_async: the write runs on a group of its own while training's collectives go on

CheckpointState async_state(ProcessGroup& pg, double value) {
  CheckpointState st;
  st.replicated = io::Value::dict({{"w", full({1000}, value)}, {"step", static_cast<int64_t>(value)}});
  st.per_rank = io::Value::dict({{"seed", full({3}, value + pg.rank(), TensorOptions(kInt64))}});
  st.shards.push_back({"rows", full({2, 3}, value + pg.rank(), TensorOptions(kFloat64)), {4, 3},
                       {pg.rank() * 2, 0}});
  return st;
}

// Overwrites every tensor of the state in place, as the next training step would.
void scribble(const CheckpointState& st) {
  NoGradGuard no_grad;
  st.replicated.at("w").as_tensor().fill_(-1.0);
  st.per_rank.at("seed").as_tensor().fill_(-1.0);
  for (const Shard& s : st.shards) s.local.fill_(-1.0);
}

TEST(DistributedCheckpointTest, SaveAsyncWritesTheStateAsItWasWhileTrainingGoesOn) {
  fs::path dir = scratch("async");
  testing::run_ranks_with_groups(2, 2, [&](testing::Groups& groups) {
    ProcessGroup& pg = *groups[0];
    DistributedCheckpointManager manager(dir.string(), 2, groups[0]);
    manager.set_async_group(groups[1]);
    for (int step = 1; step <= 3; ++step) {
      CheckpointState st = async_state(pg, step);
      manager.save_async(st, step);
      scribble(st);
      // training's collectives on the manager's group while the write's run on the other
      Tensor g = full({100}, 1.0);
      pg.allreduce(g)->wait();
      EXPECT_EQ(g.sum().item<double>(), 200.0);
    }
    manager.wait();
  });
  std::vector<std::string> steps;
  for (const auto& e : fs::directory_iterator(dir)) steps.push_back(e.path().filename().string());
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<std::string>{"step-000000000002", "step-000000000003"}));
  CheckpointReader reader((dir / "step-000000000003").string());
  reader.verify();
  EXPECT_EQ(reader.replicated().at("step").as_int(), 3);
  testing::expect_values(reader.replicated().at("w").as_tensor(), std::vector<double>(1000, 3.0));
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(reader.per_rank(r)->at("seed").as_tensor().to_vector<int64_t>(),
              (std::vector<int64_t>(3, 3 + r)));
  EXPECT_EQ(reader.read("rows").to_vector<double>(),
            (std::vector<double>{3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4}));
}

TEST(DistributedCheckpointTest, AFailedBackgroundSaveIsThrownByWaitOnEveryRank) {
  fs::path dir = scratch("async_fail");
  testing::run_ranks_with_groups(2, 2, [&](testing::Groups& groups) {
    DistributedCheckpointManager manager(dir.string(), 3, groups[0]);
    manager.set_async_group(groups[1]);
    manager.save_async(async_state(*groups[0], 1), 1);
    CheckpointState bad = async_state(*groups[0], 2);
    if (groups[0]->rank() == 1) bad.shards.push_back({"bad", full({2}, 1.0), {1}, {0}});  // does not fit
    manager.save_async(bad, 2);
    testing::expect_error<DistributedError>([&] { manager.wait(); }, {"save_checkpoint", "rank 1", "'bad'"});
    manager.wait();  // reported once
  });
  std::vector<std::string> steps;
  for (const auto& e : fs::directory_iterator(dir)) steps.push_back(e.path().filename().string());
  EXPECT_EQ(steps, (std::vector<std::string>{"step-000000000001"})) << "the failed save left something";
  CheckpointReader((dir / "step-000000000001").string()).verify();
}

TEST(DistributedCheckpointTest, TheBackgroundWritesNeedAGroupOfTheirOwn) {
  fs::path dir = scratch("async_group");
  testing::run_ranks_with_groups(2, 1, [&](testing::Groups& groups) {
    DistributedCheckpointManager manager(dir.string(), 1, groups[0]);
    testing::expect_error<ValueError>([&] { manager.set_async_group(groups[0]); },
                                      {"set_async_group", "a group of their own"});
    testing::expect_error<ValueError>([&] { manager.set_async_group(nullptr); },
                                      {"set_async_group", "no group"});
  });
}

}  // namespace
}  // namespace ember
