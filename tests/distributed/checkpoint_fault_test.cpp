// Distributed checkpoints under faults and damage: every call of a 2-rank sharded save through a
// DistributedCheckpointManager failing (EIO, ENOSPC) or cut short, with the previous checkpoints
// loading exactly afterwards; every single-byte change of index.json refused; the manager's
// pruning and latest() counting only checkpoints that verify. Ranks run as threads, so a planned
// fault hits whichever rank makes that call (kills are covered by checkpoint_crash_test.cpp's
// processes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "dist_test_util.h"
#include "ember/core/factory.h"
#include "ember/core/warning.h"
#include "ember/distributed/checkpoint.h"
#include "ember/distributed/checkpoint_manager.h"
#include "ember/distributed/error.h"
#include "ember/io/fault_injection.h"
#include "ember/io/io.h"
#include "support/capture_warnings.h"
#include "support/expect.h"
#include "support/fault_report.h"

namespace ember {
namespace {

using namespace distributed;
using testing::run_ranks;
using ::testing::ElementsAre;
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("ember_dcpf_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CheckpointState state_of(ProcessGroup& pg, int64_t step) {
  CheckpointState st;
  st.replicated = io::Value::dict({{"w", full({64}, static_cast<double>(step))}, {"step", step}});
  st.per_rank = io::Value::dict({{"rank", pg.rank()}});
  st.shards.push_back({"exp_avg", full({2, 3}, step + pg.rank(), TensorOptions(kFloat32)), {4, 3}, {pg.rank() * 2, 0}});
  st.shards.push_back({"exp_avg_sq", full({2, 3}, -step - pg.rank(), TensorOptions(kFloat32)), {4, 3}, {pg.rank() * 2, 0}});
  return st;
}

// The checkpoint of `step` holds exactly what state_of wrote.
void expect_exact(const std::string& path, int64_t step) {
  CheckpointReader r(path);
  EXPECT_TRUE(r.replicated().equals(io::Value::dict({{"w", full({64}, static_cast<double>(step))}, {"step", step}})));
  std::vector<float> avg(6, static_cast<float>(step));
  avg.insert(avg.end(), 6, static_cast<float>(step + 1));  // rank 1's rows
  EXPECT_EQ(r.read("exp_avg").to_vector<float>(), avg);
  EXPECT_EQ(r.read("exp_avg_sq").to_vector<float>()[0], static_cast<float>(-step));
  EXPECT_EQ(r.per_rank(1)->at("rank").as_int(), 1);
}

TEST(DistributedCheckpointFaultTest, EveryCallOfAShardedSaveFailingKeepsThePreviousCheckpoints) {
  testing::CaptureWarnings quiet;
  const fs::path run = scratch("faults") / "run", pristine = scratch("faults_pristine") / "run";
  run_ranks(2, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> g(&pg, [](ProcessGroup*) {});
    DistributedCheckpointManager m(pristine.string(), 2, g);
    for (int64_t step : {1, 2, 3}) m.save(state_of(pg, step), step);  // keeps 2 and 3
  });
  auto fresh = [&] {
    fs::remove_all(run);
    fs::copy(pristine, run, fs::copy_options::recursive);
  };
  // The committed checkpoints' steps (a directory with its index.json).
  auto committed = [&] {
    std::vector<int64_t> steps;
    for (int64_t step = 1; step <= 4; ++step)
      if (fs::exists(run / ("step-00000000000" + std::to_string(step)) / "index.json")) steps.push_back(step);
    return steps;
  };
  auto save = [&] {
    run_ranks(2, [&](ProcessGroup& pg) {
      std::shared_ptr<ProcessGroup> g(&pg, [](ProcessGroup*) {});
      DistributedCheckpointManager m(run.string(), 2, g);
      try {
        m.save(state_of(pg, 4), 4);
      } catch (const DistributedError&) {
        // a faulted save fails on every rank; what it left is checked below
      }
    });
  };
  fresh();
  int64_t n = 0;
  {
    io::testing::FaultScope count(io::testing::FaultPlan{});
    save();
    n = io::testing::fault_points();
  }
  ASSERT_GT(n, 10);
  int64_t points = 0;
  for (int64_t k = 1; k <= n; ++k) {
    for (auto [fault, error] : {std::pair{io::testing::Fault::Error, EIO}, std::pair{io::testing::Fault::Error, ENOSPC},
                                std::pair{io::testing::Fault::ShortWrite, 0}}) {
      fresh();
      {
        io::testing::FaultScope scope({.at = k, .fault = fault, .error = error});
        save();
      }
      ++points;
      std::vector<int64_t> steps = committed();
      const bool has4 = std::find(steps.begin(), steps.end(), 4) != steps.end();
      ASSERT_TRUE(std::find(steps.begin(), steps.end(), 3) != steps.end()) << "call " << k;
      expect_exact((run / "step-000000000003").string(), 3);
      if (has4) {
        expect_exact((run / "step-000000000004").string(), 4);
      } else {
        ASSERT_TRUE(std::find(steps.begin(), steps.end(), 2) != steps.end()) << "call " << k;
        expect_exact((run / "step-000000000002").string(), 2);
      }
    }
  }
  ember::testing::report_fault_points("sharded save and prune (2 ranks as threads)", n, points);
}

TEST(DistributedCheckpointIntegrityTest, EverySingleByteChangeOfTheIndexIsRefused) {
  const fs::path dir = scratch("index") / "ckpt";
  run_ranks(2, [&](ProcessGroup& pg) { save_checkpoint(pg, state_of(pg, 5), dir.string()); });
  const fs::path index = dir / "index.json";
  std::string bytes = read_text(index);
  ASSERT_GT(bytes.size(), 200u);
  size_t tried = 0, refused = 0;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (unsigned char to : {static_cast<unsigned char>(bytes[pos] ^ 0x01), static_cast<unsigned char>(bytes[pos] ^ 0x80),
                             static_cast<unsigned char>(' '), static_cast<unsigned char>('1')}) {
      if (to == static_cast<unsigned char>(bytes[pos])) continue;
      std::string damaged = bytes;
      damaged[pos] = static_cast<char>(to);
      std::ofstream(index, std::ios::binary | std::ios::trunc) << damaged;
      ++tried;
      try {
        CheckpointReader r(dir.string());
        ADD_FAILURE() << "index byte " << pos << " changed to " << int(to) << " was accepted";
      } catch (const Error&) {
        ++refused;
      }
    }
  }
  EXPECT_EQ(refused, tried);
  std::cout << "integrity: index.json: " << bytes.size() << " byte positions, " << tried << " changes, all refused\n";
  std::ofstream(index, std::ios::binary | std::ios::trunc) << bytes;
  expect_exact(dir.string(), 5);
}

TEST(DistributedCheckpointIntegrityTest, AChunkKeyEditedToAnotherTensorsIsRefused) {
  // Issue 26: "shards/0" -> "shards/1" made exp_avg load exp_avg_sq's values.
  const fs::path dir = scratch("swap") / "ckpt";
  run_ranks(2, [&](ProcessGroup& pg) { save_checkpoint(pg, state_of(pg, 5), dir.string()); });
  const fs::path index = dir / "index.json";
  std::string text = read_text(index);
  size_t at = text.find("shards/0");
  ASSERT_NE(at, std::string::npos);
  text[at + 7] = '1';
  std::ofstream(index, std::ios::binary | std::ios::trunc) << text;
  testing::expect_error<ValueError>([&] { CheckpointReader r(dir.string()); },
                                    {"index.json", "checksum does not match", "damaged"});
}

TEST(DistributedCheckpointManagerTest, PruningCountsOnlyCheckpointsThatVerifyAndLatestTellsNoneFromDamaged) {
  testing::CaptureWarnings warnings;
  const fs::path run = scratch("prune") / "run";
  auto damage = [&](int64_t step) {
    fs::path f = run / ("step-00000000000" + std::to_string(step)) / "rank-00001.ember";
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(-5, std::ios::end);
    io.put('\x55');
  };
  run_ranks(2, [&](ProcessGroup& pg) {
    std::shared_ptr<ProcessGroup> g(&pg, [](ProcessGroup*) {});
    DistributedCheckpointManager m(run.string(), 2, g);
    EXPECT_FALSE(m.latest().has_value());  // none yet
    for (int64_t step : {5, 6}) m.save(state_of(pg, step), step);
    pg.barrier()->wait();
    if (pg.rank() == 0) {
      damage(5);
      damage(6);
    }
    pg.barrier()->wait();
    testing::expect_error<Error>([&] { m.latest(); }, {"holds 2 checkpoints but none loads", "allow_fresh_start"});
    EXPECT_FALSE(m.latest(/*allow_fresh_start=*/true).has_value());
    pg.barrier()->wait();
    for (int64_t step : {1, 2, 3}) m.save(state_of(pg, step), step);
    pg.barrier()->wait();  // rank 0 prunes after its save returns
    std::vector<int64_t> steps;
    for (const auto& e : m.checkpoints()) steps.push_back(e.step);
    EXPECT_THAT(steps, ElementsAre(2, 3, 5, 6));
    EXPECT_EQ(m.latest()->step, 3);
  });
}

}  // namespace
}  // namespace ember
