// Crashes during a distributed save, in real processes under ember-run: a rank SIGKILLed at each
// point of a save, a rank SIGSTOPped, a damaged shard. The other ranks raise (at once, or after
// the group's 3 s timeout), nothing hangs, and the job resumes from the previous checkpoint with
// its checksum valid.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/fault_report.h"

namespace {

namespace fs = std::filesystem;

struct RunResult {
  int code;
  std::string output;
  double seconds;
};

// ember-run --nproc N dcp_worker ARGS, with stdout and stderr together.
RunResult ember_run(int nproc, const std::string& args, const std::string& flags = "") {
  std::string cmd = std::string(EMBER_RUN_PATH) + " --nproc " + std::to_string(nproc) + " --grace 1 " + flags + " " +
                    EMBER_DCP_WORKER + " " + args + " 2>&1";
  auto t0 = std::chrono::steady_clock::now();
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = ::pclose(p);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, s};
}

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("ember_failure_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p;
}

class KillDuringSave : public ::testing::TestWithParam<const char*> {};

TEST_P(KillDuringSave, OthersRaiseAndTheJobResumesFromThePreviousStep) {
  std::string spec = GetParam();  // "<rank>:<point>"
  fs::path dir = scratch(spec.substr(2));
  RunResult crash = ember_run(2, dir.string() + " 3 kill:" + spec + " 2");
  EXPECT_NE(crash.code, 0) << crash.output;
  EXPECT_NE(crash.output.find("saved step 1"), std::string::npos) << crash.output;
  EXPECT_EQ(crash.output.find("saved step 2"), std::string::npos) << crash.output;
  EXPECT_NE(crash.output.find("killed by signal 9"), std::string::npos) << crash.output;
  EXPECT_LT(crash.seconds, 30) << crash.output;
  // Resumed on 2 ranks: step 1 is the newest committed, and checksums hold; leftovers go.
  RunResult resume = ember_run(2, dir.string() + " 3");
  EXPECT_EQ(resume.code, 0) << resume.output;
  EXPECT_NE(resume.output.find("[rank0]: restored step 1: checksum ok"), std::string::npos) << resume.output;
  EXPECT_NE(resume.output.find("saved step 3"), std::string::npos) << resume.output;
  for (auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().extension(), "") << e.path();
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Points, KillDuringSave,
                         ::testing::Values("1:before_write", "1:mid_file", "0:before_index", "0:before_rename"),
                         [](const auto& info) {
                           std::string s = info.param;
                           return "Rank" + s.substr(0, 1) + "_" + s.substr(2);
                         });

TEST(MaxRestarts, RestartsTheJobWhichResumesFromTheNewestCheckpoint) {
  fs::path dir = scratch("restart");
  RunResult run = ember_run(2, dir.string() + " 3 kill:1:mid_file 2", "--max-restarts 1");
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("ember-run: restarting the job (restart 1 of 1)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[rank1]: restored step 1: checksum ok"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[rank0]: saved step 3"), std::string::npos) << run.output;
  fs::remove_all(dir);
}

TEST(StoppedRank, OthersRaiseAfterTheTimeout) {
  fs::path dir = scratch("stop");
  RunResult run = ember_run(2, dir.string() + " 2 stop:1 2");
  EXPECT_NE(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("[rank0]: DistributedError"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, 30) << run.output;
  fs::remove_all(dir);
}

TEST(DamagedShard, IsSkippedWithAWarning) {
  fs::path dir = scratch("damaged");
  ASSERT_EQ(ember_run(2, dir.string() + " 2").code, 0);
  fs::path shard = dir / "step-000000000002" / "rank-00001.ember";
  {
    std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-8, std::ios::end);
    f.write("garbage!", 8);
  }
  RunResult run = ember_run(2, dir.string() + " 2");
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("skipping checkpoint"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("rank-00001.ember"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("restored step 1: checksum ok"), std::string::npos) << run.output;
  fs::remove_all(dir);
}

// Every file call of a sharded save, on either rank, is where a SIGKILL lands once (the
// io/fault_injection.h plan set in that rank's process): the job then resumes from the newest
// committed checkpoint (step 1, or step 2 when the kill came after its commit, in the pruning)
// with its checksum valid, and finishes.
int io_calls(int rank) {
  fs::path dir = scratch("count" + std::to_string(rank));
  RunResult run = ember_run(2, dir.string() + " 2 iocount:" + std::to_string(rank) + " 2");
  fs::remove_all(dir);
  size_t at = run.output.find("[rank" + std::to_string(rank) + "]: io calls ");
  EXPECT_NE(at, std::string::npos) << run.output;
  return at == std::string::npos ? 0 : std::atoi(run.output.c_str() + run.output.find("io calls ", at) + 9);
}

class KillAtEveryFileCall : public ::testing::TestWithParam<int> {};

TEST_P(KillAtEveryFileCall, TheJobResumesFromTheNewestCommittedCheckpoint) {
  const int rank = GetParam();
  const int n = io_calls(rank);
  ASSERT_GT(n, 5);
  for (int k = 1; k <= n; ++k) {
    fs::path dir = scratch("iokill" + std::to_string(rank) + "_" + std::to_string(k));
    RunResult crash = ember_run(2, dir.string() + " 3 iokill:" + std::to_string(rank) + ":" + std::to_string(k) + " 2");
    EXPECT_NE(crash.code, 0) << "call " << k << ": " << crash.output;
    EXPECT_NE(crash.output.find("killed by signal 9"), std::string::npos) << "call " << k << ": " << crash.output;
    RunResult resume = ember_run(2, dir.string() + " 3");
    EXPECT_EQ(resume.code, 0) << "call " << k << ": " << resume.output;
    const bool from1 = resume.output.find("[rank0]: restored step 1: checksum ok") != std::string::npos;
    const bool from2 = resume.output.find("[rank0]: restored step 2: checksum ok") != std::string::npos;
    EXPECT_TRUE(from1 || from2) << "call " << k << ": " << resume.output;
    EXPECT_NE(resume.output.find("saved step 3"), std::string::npos) << "call " << k << ": " << resume.output;
    fs::remove_all(dir);
  }
  ember::testing::report_fault_points("sharded save, rank " + std::to_string(rank) + " killed in its process", n, n);
}

INSTANTIATE_TEST_SUITE_P(Ranks, KillAtEveryFileCall, ::testing::Values(0, 1),
                         [](const auto& info) { return "Rank" + std::to_string(info.param); });

}  // namespace
