// Fault injection at every I/O call of a save and a load, as SQLite tests its I/O: each path is
// run once to count its calls, then once per call with that call failing (EIO, ENOSPC, EACCES),
// cut short (a short write or read), or the process killed just before it (in a child). After
// each, the previous checkpoint loads exactly, no partial file is taken for a checkpoint, and an
// error names the file and the errno. The sharded save's harness is in
// tests/distributed/checkpoint_fault_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include "ember/core/warning.h"
#include "ember/ember.h"
#include "ember/io/checkpoint_manager.h"
#include "ember/io/fault_injection.h"
#include "io/io_test_util.h"
#include "io/programs/checkpoint_state.h"
#include "support/capture_warnings.h"
#include "support/fault_report.h"

namespace ember::io {
namespace {

namespace fs = std::filesystem;
using ember::testing::crash_test_state;
using ember::testing::TempDir;
using ::testing::HasSubstr;
using testing::Fault;
using testing::FaultPlan;
using testing::FaultScope;

// The faults tried at each call.
struct Injected {
  const char* name;
  Fault fault;
  int error;
};
constexpr Injected kFaults[] = {{"EIO", Fault::Error, EIO},
                                {"ENOSPC", Fault::Error, ENOSPC},
                                {"EACCES", Fault::Error, EACCES},
                                {"short", Fault::ShortWrite, 0},
                                {"kill", Fault::Kill, 0}};

// How many calls `body` makes through io/'s file layer.
int64_t count_calls(const std::function<void()>& body) {
  FaultScope scope(FaultPlan{});
  body();
  return testing::fault_points();
}

// The hidden temporaries in `dir`.
std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

// Runs `body` with call `k` faulted by `f`: in this process for an error or a short call (the
// error, if any, is returned), in a forked child for a kill (true when it was killed there).
struct Outcome {
  bool threw = false;
  std::string message;
  int error = 0;
  bool killed = false;
};
Outcome run_faulted(int64_t k, const Injected& f, const std::function<void()>& body) {
  Outcome out;
  FaultPlan plan{.at = k, .fault = f.fault, .error = f.error};
  if (f.fault == Fault::Kill) {
    std::cout.flush();
    pid_t pid = ::fork();
    if (pid == 0) {
      set_num_threads(1);  // NB: the pool's workers are not in the child
      testing::set_fault_plan(plan);
      try {
        body();
      } catch (...) {
        ::_exit(3);
      }
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    out.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    EXPECT_TRUE(out.killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) << "call " << k << ": status " << status;
    return out;
  }
  FaultScope scope(plan);
  try {
    body();
  } catch (const OSError& e) {
    out = {true, e.what(), e.error()};
  } catch (const std::exception& e) {
    out = {true, e.what(), -1};
  }
  return out;
}

// An error a fault caused names the file and the errno, as an OSError with that errno.
void expect_names_file_and_errno(const Outcome& o, const Injected& f, const std::string& file, int64_t k) {
  if (!o.threw || f.fault != Fault::Error) return;
  EXPECT_EQ(o.error, f.error) << "call " << k << " (" << f.name << "): " << o.message;
  EXPECT_THAT(o.message, HasSubstr(file)) << "call " << k << " (" << f.name << ")";
  EXPECT_THAT(o.message, HasSubstr(std::strerror(f.error))) << "call " << k << " (" << f.name << ")";
}

// Every fault at every call of `save` (which writes `next` over the checkpoint at `path` that
// holds `previous`): the file holds exactly one of the two afterwards, the one before whenever
// the save failed before its rename, and nothing is left that the next save does not clean up.
void fault_every_call_of_a_save(const std::string& path, const Value& previous, const Value& next,
                                const std::function<void()>& save) {
  ember::testing::CaptureWarnings quiet;
  const std::string dir = fs::path(path).parent_path().string();
  io::save(previous, path);
  const int64_t n = count_calls(save);
  ASSERT_GT(n, 3);
  int64_t points = 0;
  for (int64_t k = 1; k <= n; ++k) {
    for (const Injected& f : kFaults) {
      io::save(previous, path);
      Outcome o = run_faulted(k, f, save);
      ++points;
      Value now = io::load(path);
      EXPECT_TRUE(now.equals(previous) || now.equals(next)) << "call " << k << " (" << f.name << ")";
      if (o.threw) EXPECT_TRUE(now.equals(previous) || o.message.find("fsync of its directory") != std::string::npos)
          << "call " << k << " (" << f.name << "): " << o.message;
      if (f.fault == Fault::ShortWrite) EXPECT_FALSE(o.threw) << "call " << k << ": " << o.message;
      expect_names_file_and_errno(o, f, path, k);
      // A killed save's temporary is cleaned up by the next save of the file.
      io::save(previous, path);
      EXPECT_THAT(temporaries(dir), ::testing::IsEmpty()) << "call " << k << " (" << f.name << ")";
    }
  }
  ember::testing::report_fault_points(path.ends_with("scratch.ember") ? "non-durable save" : "save", n, points);
}

TEST(FaultInjectionTest, EveryCallOfASaveLeavesTheOldOrTheNewFileWhole) {
  TempDir dir;
  const std::string path = dir.file("model.ember");
  Value previous = crash_test_state(1, 3000), next = crash_test_state(2, 3000);
  fault_every_call_of_a_save(path, previous, next, [&] { io::save(next, path); });
}

TEST(FaultInjectionTest, EveryCallOfANonDurableSaveLeavesTheOldOrTheNewFileWhole) {
  TempDir dir;
  const std::string path = dir.file("scratch.ember");
  Value previous = crash_test_state(1, 100), next = crash_test_state(2, 100);
  fault_every_call_of_a_save(path, previous, next, [&] { io::save(next, path, {.durable = false}); });
}

// The manager's save and prune (and its background save): the earlier checkpoints that must stay
// (the newest keep_last that verify) load exactly after any fault, and none is deleted when the
// new one was not written.
void fault_every_call_of_a_manager_save(bool async) {
  ember::testing::CaptureWarnings quiet;
  TempDir dir;
  const std::string run = dir.file("run");
  auto fresh = [&] {
    fs::remove_all(run);
    CheckpointManager m(run, 2);
    for (int64_t step : {1, 2, 3}) m.save(crash_test_state(step, 500), step);  // keeps 2 and 3
  };
  auto save = [&] {
    CheckpointManager m(run, 2);
    if (async) {
      m.save_async(crash_test_state(4, 500), 4);
      m.wait();
    } else {
      m.save(crash_test_state(4, 500), 4);
    }
  };
  fresh();
  const int64_t n = count_calls(save);
  int64_t points = 0;
  for (int64_t k = 1; k <= n; ++k) {
    for (const Injected& f : kFaults) {
      fresh();
      Outcome o = run_faulted(k, f, save);
      ++points;
      CheckpointManager m(run, 2);
      std::vector<int64_t> steps;
      for (const auto& e : m.checkpoints()) steps.push_back(e.step);
      // Step 3 stays whatever happened (it is among the newest 2 that verify with or without 4).
      ASSERT_TRUE(std::find(steps.begin(), steps.end(), 3) != steps.end()) << "call " << k << " (" << f.name << ")";
      EXPECT_TRUE(io::load(m.path_for(3)).equals(crash_test_state(3, 500)));
      if (std::find(steps.begin(), steps.end(), 4) == steps.end()) {
        // No step 4: step 2 was not pruned either.
        ASSERT_TRUE(std::find(steps.begin(), steps.end(), 2) != steps.end()) << "call " << k << " (" << f.name << ")";
        EXPECT_TRUE(io::load(m.path_for(2)).equals(crash_test_state(2, 500)));
      } else {
        EXPECT_TRUE(io::load(m.path_for(4)).equals(crash_test_state(4, 500))) << "call " << k << " (" << f.name << ")";
      }
      std::optional<CheckpointManager::Restored> r = m.restore();
      ASSERT_TRUE(r.has_value());
      EXPECT_TRUE(r->state.equals(crash_test_state(r->step, 500)));
      if (f.fault == Fault::Error && o.threw)
        EXPECT_THAT(o.message, HasSubstr(std::strerror(f.error))) << "call " << k << " (" << f.name << ")";
    }
  }
  ember::testing::report_fault_points(async ? "manager save_async and prune" : "manager save and prune", n, points);
}

TEST(FaultInjectionTest, EveryCallOfAManagerSaveAndPruneKeepsTheCheckpointsThatMustStay) {
  fault_every_call_of_a_manager_save(/*async=*/false);
}

TEST(FaultInjectionTest, EveryCallOfABackgroundManagerSaveKeepsTheCheckpointsThatMustStay) {
  fault_every_call_of_a_manager_save(/*async=*/true);
}

// Every call of a load, in both modes, failing: a clear error naming the file (and the errno for
// a failed call), never a wrong value, and the file still loads afterwards.
TEST(FaultInjectionTest, EveryCallOfALoadFailsCleanlyOrReadsExactly) {
  TempDir dir;
  const std::string path = dir.file("model.ember");
  Value state = crash_test_state(7, 3000);
  io::save(state, path);
  int64_t calls = 0, points = 0;
  for (bool mmap : {false, true}) {
    auto load = [&] { EXPECT_TRUE(io::load(path, {.mmap = mmap}).equals(state)); };
    auto load_one = [&] { EXPECT_TRUE(ember::testing::bitwise_equal(io::load_tensor(path, "weights", {.mmap = mmap}),
                                                                  state.at("weights").as_tensor())); };
    for (const auto& body : {std::function<void()>(load), std::function<void()>(load_one)}) {
      const int64_t n = count_calls(body);
      ASSERT_GT(n, 2);
      calls += n;
      for (int64_t k = 1; k <= n; ++k) {
        for (const Injected& f : kFaults) {
          if (f.fault == Fault::Kill) continue;  // a reader killed changes no file
          ember::testing::CaptureWarnings quiet;
          Outcome o = run_faulted(k, f, body);
          ++points;
          if (o.threw) {
            EXPECT_THAT(o.message, HasSubstr(path)) << "call " << k << " (" << f.name << ")";
            expect_names_file_and_errno(o, f, path, k);
          }
          body();
        }
      }
    }
  }
  ember::testing::report_fault_points("load and load_tensor, read and mapped", calls, points);
}

}  // namespace
}  // namespace ember::io
