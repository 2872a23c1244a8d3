// io::CheckpointManager: numbered checkpoints, pruning to the last K, resuming from the newest one
// that loads (skipping damaged ones with a warning), and crash safety under SIGKILL at random
// moments of a save, with the writer in a separate process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ember/core/warning.h"
#include "ember/ember.h"
#include "ember/io/atomic_file.h"
#include "ember/io/checkpoint_manager.h"
#include "io/io_test_util.h"
#include "io/programs/checkpoint_state.h"
#include "io/programs/process.h"
#include "support/capture_warnings.h"
#include "support/expect.h"

namespace ember::io {
namespace {

namespace fs = std::filesystem;
using ember::testing::CaptureWarnings;
using ember::testing::crash_test_state;
using ember::testing::expect_error;
using ember::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// The channel the manager warns through.
TEST(WarningTest, HandlerReceivesWarningsAndCanBeRestored) {
  std::vector<std::string> seen;
  WarningHandler previous = set_warning_handler([&](const std::string& m) { seen.push_back(m); });
  warn("first");
  warn("second");
  WarningHandler mine = set_warning_handler(previous);
  EXPECT_THAT(seen, ElementsAre("first", "second"));
  EXPECT_TRUE(static_cast<bool>(mine));
  ::testing::internal::CaptureStderr();
  set_warning_handler(nullptr);  // the default
  warn("to stderr");
  set_warning_handler(previous);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("ember warning: to stderr"));
}

std::vector<int64_t> steps_of(const std::vector<CheckpointManager::Entry>& entries) {
  std::vector<int64_t> out;
  for (const auto& e : entries) out.push_back(e.step);
  return out;
}

std::vector<std::string> hidden_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with(".")) out.push_back(e.path().filename().string());
  return out;
}

TEST(CheckpointManagerTest, EmptyDirectoryRestoresNothing) {
  TempDir dir;
  CaptureWarnings warnings;
  CheckpointManager manager(dir.file("run"), 3);
  EXPECT_TRUE(fs::is_directory(dir.file("run")));  // created
  EXPECT_FALSE(manager.latest().has_value());
  EXPECT_FALSE(manager.restore().has_value());
  EXPECT_THAT(warnings.messages, IsEmpty());
}

TEST(CheckpointManagerTest, KeepsTheLastKCheckpointsAndRestoresTheNewest) {
  TempDir dir;
  std::ofstream(dir.file("notes.txt")) << "not a checkpoint";
  CheckpointManager manager(dir.path().string(), 3);
  for (int64_t step = 10; step <= 60; step += 10) {
    std::string path = manager.save(crash_test_state(step, 100), step);
    EXPECT_EQ(path, manager.path_for(step));
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_THAT(steps_of(manager.checkpoints()), ElementsAre(40, 50, 60));
  EXPECT_EQ(fs::path(manager.path_for(60)).filename(), "ckpt-000000000060.ember");
  EXPECT_TRUE(fs::exists(dir.file("notes.txt")));  // other files are left alone
  std::optional<CheckpointManager::Restored> r = manager.restore();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->step, 60);
  EXPECT_EQ(r->path, manager.path_for(60));
  EXPECT_TRUE(r->state.equals(crash_test_state(60, 100))) << r->state.str();
  EXPECT_EQ(manager.latest()->step, 60);
}

void flip_byte(const std::string& path, std::streamoff from_end) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(-from_end, std::ios::end);
  char c;
  f.get(c);
  f.seekp(-from_end, std::ios::end);
  f.put(static_cast<char>(c ^ 0x5a));
}

TEST(CheckpointManagerTest, SkipsADamagedNewestCheckpointWithAWarningNamingIt) {
  TempDir dir;
  CheckpointManager manager(dir.path().string(), 3);
  for (int64_t step : {1, 2, 3}) manager.save(crash_test_state(step, 1000), step);
  // The tensor bytes come last in the file: this byte is inside "weights".
  flip_byte(manager.path_for(3), 17);
  CaptureWarnings warnings;
  std::optional<CheckpointManager::Restored> r = manager.restore();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->step, 2);
  EXPECT_TRUE(r->state.equals(crash_test_state(2, 1000)));
  ASSERT_THAT(warnings.messages, SizeIs(1));
  EXPECT_THAT(warnings.messages[0], HasSubstr("skipping checkpoint '" + manager.path_for(3) + "'"));
  EXPECT_THAT(warnings.messages[0], HasSubstr("checksum mismatch for tensor 'weights'"));
  EXPECT_EQ(manager.latest()->step, 2);
}

TEST(CheckpointManagerTest, SkipsATruncatedNewestCheckpointWithAWarningNamingIt) {
  TempDir dir;
  CheckpointManager manager(dir.path().string(), 3);
  for (int64_t step : {1, 2, 3}) manager.save(crash_test_state(step, 1000), step);
  fs::resize_file(manager.path_for(3), fs::file_size(manager.path_for(3)) / 2);
  CaptureWarnings warnings;
  std::optional<CheckpointManager::Restored> r = manager.restore();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->step, 2);
  ASSERT_THAT(warnings.messages, SizeIs(1));
  EXPECT_THAT(warnings.messages[0], HasSubstr("skipping checkpoint '" + manager.path_for(3) + "' (step 3)"));
  EXPECT_THAT(warnings.messages[0], HasSubstr("does not load"));
}

TEST(CheckpointManagerTest, NoLoadableCheckpointIsAnErrorNamingEachUnlessAFreshStartIsAllowed) {
  TempDir dir;
  CheckpointManager manager(dir.path().string(), 3);
  for (int64_t step : {1, 2}) manager.save(crash_test_state(step, 1000), step);
  std::ofstream(manager.path_for(5)) << "garbage";  // a newer file that is not a checkpoint at all
  flip_byte(manager.path_for(2), 3);
  fs::resize_file(manager.path_for(1), 7);
  CaptureWarnings warnings;
  // "Checkpoints exist but none loads" is not "no checkpoint yet": the job must not silently
  // start over from step 0.
  expect_error<Error>([&] { manager.restore(); },
                      {"'" + dir.path().string() + "' holds 3 checkpoints but none loads", manager.path_for(5),
                       manager.path_for(2), manager.path_for(1), "allow_fresh_start"});
  expect_error<Error>([&] { manager.latest(); }, {"none loads"});
  warnings.messages.clear();
  EXPECT_FALSE(manager.restore(/*allow_fresh_start=*/true).has_value());
  ASSERT_THAT(warnings.messages, SizeIs(4));
  EXPECT_THAT(warnings.messages[0], HasSubstr(manager.path_for(5)));
  EXPECT_THAT(warnings.messages[1], HasSubstr(manager.path_for(2)));
  EXPECT_THAT(warnings.messages[2], HasSubstr(manager.path_for(1)));
  EXPECT_THAT(warnings.messages[3], HasSubstr("Starting over from scratch"));
}

// Issue 26, item 1: damaged checkpoints with higher steps counted toward keep_last, so the
// manager deleted each checkpoint it had just written.
TEST(CheckpointManagerTest, PruningNeverDeletesTheCheckpointJustWrittenNorCountsDamagedOnes) {
  TempDir dir;
  CaptureWarnings warnings;
  CheckpointManager manager(dir.path().string(), 2);
  for (int64_t step : {5, 6}) manager.save(crash_test_state(step, 1000), step);
  flip_byte(manager.path_for(5), 9);
  flip_byte(manager.path_for(6), 9);
  EXPECT_FALSE(manager.restore(/*allow_fresh_start=*/true).has_value());  // the job starts over
  for (int64_t step : {1, 2, 3}) {
    std::string path = manager.save(crash_test_state(step, 1000), step);
    EXPECT_TRUE(fs::exists(path)) << "step " << step;
  }
  // The newest 2 that verify, and the damaged ones newer than them (not counted, not deleted).
  EXPECT_THAT(steps_of(manager.checkpoints()), ElementsAre(2, 3, 5, 6));
  std::optional<CheckpointManager::Restored> r = manager.restore();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->step, 3);
  EXPECT_TRUE(r->state.equals(crash_test_state(3, 1000)));
}

// A checkpoint damaged after it was verified is verified again (the manager remembers results by
// the file's identity and times, which a write changes).
TEST(CheckpointManagerTest, ACheckpointDamagedAfterItWasCountedIsCountedNoMore) {
  TempDir dir;
  CaptureWarnings warnings;
  CheckpointManager manager(dir.path().string(), 2);
  for (int64_t step : {1, 2, 3}) manager.save(crash_test_state(step, 1000), step);
  flip_byte(manager.path_for(3), 9);
  manager.save(crash_test_state(4, 1000), 4);
  EXPECT_THAT(steps_of(manager.checkpoints()), ElementsAre(2, 3, 4));  // 3 does not count
  EXPECT_THAT(warnings.messages, ::testing::Contains(HasSubstr("'" + manager.path_for(3) + "' (step 3) does not load")));
}

TEST(CheckpointManagerTest, LoadLatestReadsARunWithoutCreatingOrChangingIt) {
  TempDir dir;
  const std::string run = dir.file("run");
  EXPECT_FALSE(load_latest(run).has_value());
  EXPECT_FALSE(fs::exists(run));  // not created
  {
    CheckpointManager manager(run, 2);
    for (int64_t step : {1, 2}) manager.save(crash_test_state(step, 100), step);
  }
  std::optional<CheckpointManager::Restored> r = load_latest(run);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->step, 2);
  EXPECT_TRUE(r->state.equals(crash_test_state(2, 100)));
  CaptureWarnings warnings;
  flip_byte(r->path, 9);
  EXPECT_EQ(load_latest(run)->step, 1);
  flip_byte(CheckpointManager(run, 2).path_for(1), 9);
  expect_error<Error>([&] { load_latest(run); }, {"io::load_latest: '" + run + "' holds 2 checkpoints but none loads"});
  EXPECT_FALSE(load_latest(run, /*allow_fresh_start=*/true).has_value());
  std::ofstream(dir.file("file")) << "x";
  expect_error<OSError>([&] { load_latest(dir.file("file")); }, {"is not a directory"});
}

TEST(CheckpointManagerTest, RemovesTemporariesOfDeadWritersOnly) {
  TempDir dir;
  // A pid that is certainly gone: a child that has exited and been reaped.
  ember::testing::Child c = ember::testing::spawn_child({"/bin/true"});
  ASSERT_GT(c.pid, 0);
  ember::testing::wait_child(c.pid);
  ::close(c.stdout_fd);
  const std::string dead = ".ckpt-000000000007.ember.tmp." + std::to_string(c.pid) + ".0";
  const std::string left = ".ckpt-000000000009.ember.tmp." + std::to_string(::getpid()) + ".999999";
  const std::string other = ".notes.txt.tmp." + std::to_string(c.pid) + ".0";
  for (const std::string& name : {dead, left, other}) std::ofstream(dir.file(name)) << "partial";
  detail::AtomicFile in_progress(dir.file("ckpt-000000000008.ember"));  // a save in progress here
  CheckpointManager manager(dir.path().string(), 2);
  EXPECT_FALSE(fs::exists(dir.file(dead)));
  EXPECT_FALSE(fs::exists(dir.file(left)));  // this process's, but no save is writing it
  EXPECT_THAT(hidden_files(dir.path().string()), ::testing::Contains(HasSubstr(".ckpt-000000000008.ember.tmp.")));
  EXPECT_TRUE(fs::exists(dir.file(other)));  // not a checkpoint's temporary
  EXPECT_THAT(manager.checkpoints(), IsEmpty());
}

TEST(CheckpointManagerTest, RejectsBadSettingsAndSteps) {
  TempDir dir;
  expect_error<ValueError>([&] { CheckpointManager(dir.path().string(), 0); },
                           {"CheckpointManager: keep_last must be at least 1, got 0"});
  CheckpointManager manager(dir.path().string(), 1);
  expect_error<ValueError>([&] { manager.save(Value::dict(), -1); },
                           {"CheckpointManager.save: step must be non-negative, got -1"});
}

// ---- crash safety

// The child's last "saved <step>" line: the newest save that had returned when it was killed.
int64_t last_saved(const std::string& out) {
  std::istringstream in(out);
  std::string word;
  int64_t step = 0, last = 0;
  while (in >> word >> step)
    if (word == "saved") last = step;
  return last;
}

// Kills a writer (save, or save_async with the state scribbled over after each call) at random
// moments, 20 times, and checks what each kill left.
void kill_writer_at_random_moments(bool async) {
  TempDir dir;
  const std::string ckpt_dir = dir.file("run");
  constexpr int64_t kNumel = 6'000'000;  // 24 MB of float32 per checkpoint
  constexpr int kKills = 20;
  std::mt19937 rng(20240607);  // fixed: the same kill times on every run
  std::uniform_int_distribution<int> delay_ms(30, 600);
  const auto start = std::chrono::steady_clock::now();
  int64_t acknowledged = 0;  // newest step whose save had returned before some kill
  int killed_mid_save = 0;   // kills that left a temporary behind
  for (int kill = 0; kill < kKills; ++kill) {
    ember::testing::Child child =
        ember::testing::spawn_child({EMBER_CHECKPOINT_WRITER, ckpt_dir, "2", std::to_string(kNumel),
                                     async ? "async" : "sync"});
    ASSERT_GT(child.pid, 0) << "cannot start " << EMBER_CHECKPOINT_WRITER;
    ::usleep(static_cast<useconds_t>(delay_ms(rng)) * 1000);
    ::kill(child.pid, SIGKILL);
    const int code = ember::testing::wait_child(child.pid);
    const std::string out = ember::testing::read_all(child.stdout_fd);
    ::close(child.stdout_fd);
    ASSERT_EQ(code, 128 + SIGKILL) << "the writer stopped by itself:\n" << out;
    acknowledged = std::max(acknowledged, last_saved(out));
    if (fs::exists(ckpt_dir) && !hidden_files(ckpt_dir).empty()) ++killed_mid_save;

    CaptureWarnings warnings;
    CheckpointManager manager(ckpt_dir, 2);
    EXPECT_THAT(hidden_files(ckpt_dir), IsEmpty()) << "a dead writer's temporary was not removed";
    // keep_last, plus one for each writer killed before its pruning ended (a new writer verifies
    // the older checkpoints before it counts them, which a kill can cut short again).
    EXPECT_LE(manager.checkpoints().size(), 3u + static_cast<size_t>(kill));
    std::optional<CheckpointManager::Restored> r = manager.restore();
    EXPECT_THAT(warnings.messages, IsEmpty()) << "an atomic save left a damaged checkpoint";
    if (acknowledged == 0 && !r) continue;  // killed before its first save ever returned
    ASSERT_TRUE(r.has_value()) << "kill " << kill << ": no loadable checkpoint";
    EXPECT_GE(r->step, acknowledged) << "a checkpoint whose save had returned is gone";
    File file = File::open(r->path);
    for (const TensorInfo& info : file.tensors()) EXPECT_TRUE(file.verify(info.key)) << info.key;
    ASSERT_TRUE(r->state.equals(crash_test_state(r->step, kNumel)))
        << "kill " << kill << ": step " << r->step << " holds another state: " << r->state.str();
  }
  {
    // The next save that completes prunes what killed ones left: keep_last remain.
    CheckpointManager manager(ckpt_dir, 2);
    manager.save(crash_test_state(acknowledged + 1000, 10), acknowledged + 1000);
    EXPECT_EQ(manager.checkpoints().size(), 2u);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ info ] %d kills in %.1f s; newest acknowledged step %lld; %d kills mid-save\n", kKills,
              seconds, static_cast<long long>(acknowledged), killed_mid_save);
  EXPECT_GT(acknowledged, 0) << "the writer never completed a save";
  // Saving is most of what the writer does, so with 20 kills at least one lands inside a save.
  EXPECT_GE(killed_mid_save, 1);
}

TEST(CheckpointManagerCrashTest, SigkillAtRandomMomentsAlwaysLeavesALoadableCheckpoint) {
  kill_writer_at_random_moments(/*async=*/false);
}

// The background write of save_async, killed at random moments, leaves the previous checkpoint
// whole, and what it wrote is the state as it was when save_async returned.
TEST(CheckpointManagerCrashTest, SigkillDuringBackgroundSavesAlwaysLeavesALoadableCheckpoint) {
  kill_writer_at_random_moments(/*async=*/true);
}

}  // namespace
}  // namespace ember::io
