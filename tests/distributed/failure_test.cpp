// Crashes during a distributed save, in real processes under ember-run: a rank SIGKILLed at each
// point of a save, a rank SIGSTOPped, a damaged shard. The other ranks raise (at once, or after
// the group's 3 s timeout), nothing hangs, and the job resumes from the previous checkpoint with
// its checksum valid.
// Then jobs that go wrong before or between collectives, their ranks started one by one
// (fault_worker): a WORLD_SIZE that differs, a world that never fills, a rank killed or stopped.
// The error names the rank, within the timeout; each rank is killed if it outlives a guard.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "support/fault_report.h"
#include "support/held_port.h"
#include "support/run_command.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

using RunResult = ember::testing::CommandResult;

// ember-run --nproc N dcp_worker ARGS, with stdout and stderr together.
RunResult ember_run(int nproc, const std::string& args, const std::string& flags = "") {
  return ember::testing::run_command(std::string(EMBER_RUN_PATH) + " --nproc " + std::to_string(nproc) + " --grace 1 " +
                                     flags + " " + EMBER_DCP_WORKER + " " + args);
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

// ---- fault_worker's ranks, each started with its own RANK and WORLD_SIZE.

// Free when asked; a rank 0 started soon after binds it.
int free_port() { return ember::testing::HeldPort().port(); }

struct Rank {
  pid_t pid = -1;
  fs::path out;  // its stdout and stderr
  int status = 0;
  bool reaped = false;
  std::string output() const {
    std::ifstream in(out);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The milliseconds it printed from the start of the failing step to its error (-1: none).
  long long after_ms() const {
    std::string o = output();
    size_t at = o.find("after ");
    return at == std::string::npos ? -1 : std::atoll(o.c_str() + at + 6);
  }
  // Waits for it to exit; past `seconds` (a hang) it is killed and its exit code reads -1.
  int finish(double seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    bool hung = false;
    while (!reaped && ::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid, SIGCONT);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        hung = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    reaped = true;
    if (hung) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

// The ranks of one job of fault_worker, each started by hand with its own RANK and WORLD_SIZE, on
// a free MASTER_PORT; any still running at the end (a stopped one) is killed, and their output
// removed.
class Job {
 public:
  explicit Job(std::string name, int port = free_port()) : name_(std::move(name)), port_(port) {}
  ~Job() {
    for (Rank& r : ranks_) {
      if (!r.reaped) {
        ::kill(r.pid, SIGCONT);
        ::kill(r.pid, SIGKILL);
        r.finish(5);
      }
      fs::remove(r.out);
    }
  }
  int port() const { return port_; }

  // `fault_worker ARGS` as rank `rank` of `world` (everything the child needs is built before fork).
  Rank& start(int rank, int world, const std::vector<std::string>& args) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      std::string v = *e;
      bool ours = false;
      for (const char* k : {"RANK=", "WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT=", "LOCAL_RANK="})
        ours = ours || v.rfind(k, 0) == 0;
      if (!ours) env.push_back(v);
    }
    env.push_back("RANK=" + std::to_string(rank));
    env.push_back("WORLD_SIZE=" + std::to_string(world));
    env.push_back("MASTER_ADDR=127.0.0.1");
    env.push_back("MASTER_PORT=" + std::to_string(port_));
    std::vector<std::string> argv_s{EMBER_FAULT_WORKER};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> envp, argv;
    for (auto& v : env) envp.push_back(v.data());
    envp.push_back(nullptr);
    for (auto& v : argv_s) argv.push_back(v.data());
    argv.push_back(nullptr);
    Rank& r = ranks_.emplace_back();
    r.out = scratch(name_ + "_" + std::to_string(ranks_.size()) + ".txt");
    int fd = ::open(r.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    r.pid = ::fork();
    if (r.pid == 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(fd);
    return r;
  }

 private:
  std::string name_;
  int port_;
  std::deque<Rank> ranks_;  // NB: a deque: start() hands out references that must stay valid
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(InitProcessGroup, WorldSizeThatDiffersIsExplainedOnEveryRank) {
  // The job: rank 0 told WORLD_SIZE=2, rank 1 told 4 (Gloo said "136 vs 272").
  Job job("world");
  Rank &r0 = job.start(0, 2, {"20000"}), &r1 = job.start(1, 4, {"20000"});
  EXPECT_EQ(r0.finish(15), 3) << r0.output();
  EXPECT_EQ(r1.finish(15), 3) << r1.output();
  for (const Rank* r : {&r0, &r1}) {
    EXPECT_TRUE(has(r->output(), "ValueError: init_process_group: the ranks disagree on WORLD_SIZE: rank 1 says "
                                 "WORLD_SIZE=4, rank 0 says 2")) << r->output();
    EXPECT_LT(r->after_ms(), 5000) << r->output();  // at once, not after the 20 s timeout
  }
}

TEST(InitProcessGroup, MissingRankIsNamedWithinTheTimeout) {
  // Two of three ranks start; both name rank 2 after the 1.5 s rendezvous timeout.
  Job job("missing");
  Rank &r0 = job.start(0, 3, {"1500"}), &r1 = job.start(1, 3, {"1500"});
  EXPECT_EQ(r0.finish(15), 3) << r0.output();
  EXPECT_EQ(r1.finish(15), 3) << r1.output();
  for (const Rank* r : {&r0, &r1}) {
    EXPECT_TRUE(has(r->output(), "StoreError: init_process_group: timed out after 1500 ms waiting for the ranks "
                                 "to join: 2 of 3 joined; missing: rank 2.")) << r->output();
    EXPECT_GE(r->after_ms(), 1400) << r->output();
    EXPECT_LT(r->after_ms(), 4500) << r->output();
  }
}

TEST(InitProcessGroup, RankWithoutRankZeroNamesItsStoreWithinTheTimeout) {
  // The port stays held for the whole test: a closed probe let a concurrent test's store be given
  // it, and rank 1 found that store (a CI failure).
  ember::testing::HeldPort no_store;
  Job job("norank0", no_store.port());
  Rank& r1 = job.start(1, 2, {"1000"});
  EXPECT_EQ(r1.finish(15), 3) << r1.output();
  EXPECT_TRUE(has(r1.output(), "StoreError: init_process_group: rank 1 of 2 could not reach the store that rank 0 "
                               "serves at 127.0.0.1:" + std::to_string(job.port()) + " within 1000 ms"))
      << r1.output();
  EXPECT_LT(r1.after_ms(), 4000) << r1.output();
}

TEST(PeerFailure, KilledRankIsNamedAtOnce) {
  // Rank 2 of 3 dies before an allreduce: rank 0 names rank 2 (and no other) long before its 10 s
  // timeout; rank 1 names rank 2 as well.
  Job job("kill");
  Rank &r0 = job.start(0, 3, {"10000", "kill:2"}), &r1 = job.start(1, 3, {"10000", "kill:2"}),
       &r2 = job.start(2, 3, {"10000", "kill:2"});
  EXPECT_EQ(r0.finish(20), 3) << r0.output();
  EXPECT_EQ(r1.finish(20), 3) << r1.output();
  EXPECT_EQ(r2.finish(5), 128 + SIGKILL) << r2.output();
  std::string out0 = r0.output();
  EXPECT_TRUE(has(out0, "DistributedError: allreduce: ")) << out0;
  EXPECT_TRUE(has(out0, "rank 2")) << out0;
  EXPECT_FALSE(has(out0, "rank 1")) << out0;
  EXPECT_LT(r0.after_ms(), 5000) << out0;
  EXPECT_TRUE(has(r1.output(), "rank 2")) << r1.output();
}

TEST(PeerFailure, StoppedRankIsNamedAfterTheTimeout) {
  // Rank 1 stops (SIGSTOP) before an allreduce: its sockets stay open, so rank 0 raises after its
  // 2 s timeout, naming it (the job then kills rank 1).
  Job job("stop");
  Rank &r0 = job.start(0, 2, {"2000", "stop:1"}), &r1 = job.start(1, 2, {"2000", "stop:1"});
  EXPECT_EQ(r0.finish(15), 3) << r0.output();
  std::string out = r0.output();
  // NB: Gloo's timeout or wait()'s, whichever comes first; both name the stopped rank.
  EXPECT_TRUE(has(out, "DistributedError: allreduce: ")) << out;
  EXPECT_TRUE(has(out, "rank 1 (pid " + std::to_string(r1.pid) + ") is stopped (SIGSTOP, or a debugger)")) << out;
  EXPECT_GE(r0.after_ms(), 1900) << out;
  EXPECT_LT(r0.after_ms(), 4500) << out;
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
