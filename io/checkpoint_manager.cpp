#include "ember/io/checkpoint_manager.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/io/serialize.h"

namespace ember::io {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "ckpt-";
constexpr std::string_view kSuffix = ".ember";

// The step of a checkpoint file name "ckpt-<digits>.ember", or nullopt for any other name.
std::optional<int64_t> step_of(std::string_view name) {
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix))
    return std::nullopt;
  std::string_view digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int64_t step = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return step;
}

// The pid of the process that writes a temporary ".<checkpoint name>.tmp.<pid>.<n>" (the name
// AtomicFile gives it), or nullopt for any other name.
std::optional<pid_t> temporary_writer(std::string_view name) {
  if (!name.starts_with(".")) return std::nullopt;
  size_t tmp = name.find(".tmp.");
  if (tmp == std::string_view::npos || !step_of(name.substr(1, tmp - 1))) return std::nullopt;
  std::string_view rest = name.substr(tmp + 5);
  long long pid = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (ec != std::errc() || end == rest.data() + rest.size() || *end != '.' || pid <= 0)
    return std::nullopt;
  return static_cast<pid_t>(pid);
}

// Loads `path` with every checksum verified; nullopt (and a warning naming the file and the
// reason) when it does not load.
std::optional<Value> try_load(const CheckpointManager::Entry& e) {
  try {
    return load(e.path);
  } catch (const std::exception& err) {
    warn(::ember::detail::str("CheckpointManager: skipping checkpoint '", e.path, "' (step ", e.step,
                              "), it does not load: ", err.what()));
    return std::nullopt;
  }
}

}  // namespace

CheckpointManager::CheckpointManager(std::string dir, int64_t keep_last)
    : dir_(std::move(dir)), keep_last_(keep_last) {
  EMBER_CHECK_VALUE(keep_last_ >= 1, "CheckpointManager: keep_last must be at least 1, got ",
                    keep_last_);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  EMBER_CHECK(!ec, "CheckpointManager: cannot create directory '", dir_, "': ", ec.message());
  EMBER_CHECK(fs::is_directory(dir_), "CheckpointManager: '", dir_, "' is not a directory");
  remove_stale_temporaries();
}

std::string CheckpointManager::path_for(int64_t step) const {
  char name[48];
  std::snprintf(name, sizeof name, "ckpt-%012lld.ember", static_cast<long long>(step));
  return (fs::path(dir_) / name).string();
}

std::vector<CheckpointManager::Entry> CheckpointManager::checkpoints() const {
  std::vector<Entry> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<int64_t> step = step_of(it->path().filename().string());
    std::error_code type_ec;
    if (step && it->is_regular_file(type_ec)) out.push_back({*step, it->path().string()});
  }
  EMBER_CHECK(!ec, "CheckpointManager: cannot list '", dir_, "': ", ec.message());
  // Two names for one step ("ckpt-7" and "ckpt-000000000007") sort by name as a tie-break.
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.step != b.step ? a.step < b.step : a.path < b.path;
  });
  return out;
}

void CheckpointManager::remove_stale_temporaries() const {
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<pid_t> pid = temporary_writer(it->path().filename().string());
    // NB: only a temporary whose writer is gone is stale: another process (or thread) saving
    // into the same directory right now must keep its own.
    if (!pid || *pid == ::getpid() || !(::kill(*pid, 0) != 0 && errno == ESRCH)) continue;
    std::error_code rm;
    fs::remove(it->path(), rm);
  }
}

void CheckpointManager::prune() const {
  std::vector<Entry> all = checkpoints();
  const size_t keep = static_cast<size_t>(keep_last_);
  for (size_t i = 0; i + keep < all.size(); ++i) {
    std::error_code ec;
    if (!fs::remove(all[i].path, ec) && ec)
      warn(::ember::detail::str("CheckpointManager: cannot remove old checkpoint '", all[i].path,
                                "': ", ec.message()));
  }
}

std::string CheckpointManager::save(const Value& state, int64_t step) {
  EMBER_CHECK_VALUE(step >= 0, "CheckpointManager.save: step must be non-negative, got ", step);
  saver_->wait();
  remove_stale_temporaries();
  std::string path = path_for(step);
  io::save(state, path);
  prune();
  return path;
}

std::string CheckpointManager::save_async(const Value& state, int64_t step) {
  EMBER_CHECK_VALUE(step >= 0, "CheckpointManager.save_async: step must be non-negative, got ", step);
  std::string path = path_for(step);
  // NB: the write holds the directory's settings, not `this` (a manager may be moved or destroyed
  // while it runs) nor a copy of the manager (whose saver would then own itself).
  saver_->submit(state, [dir = dir_, keep_last = keep_last_, path](const Value& copy) {
    try {
      CheckpointManager writer(dir, keep_last);  // removes stale temporaries
      io::save(copy, path);
      writer.prune();
    } catch (const std::exception& e) {
      // NB: thrown by a later wait() or save, so it says which save it was.
      EMBER_CHECK(false, "CheckpointManager.save_async: checkpoint '", path, "' was not written: ", e.what());
    }
  });
  return path;
}

void CheckpointManager::wait() { saver_->wait(); }

std::optional<CheckpointManager::Entry> CheckpointManager::latest() const {
  std::vector<Entry> all = checkpoints();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (try_load(*it)) return *it;
  return std::nullopt;
}

std::optional<CheckpointManager::Restored> CheckpointManager::restore() const {
  std::vector<Entry> all = checkpoints();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (std::optional<Value> v = try_load(*it)) return Restored{it->step, it->path, std::move(*v)};
  return std::nullopt;
}

}  // namespace ember::io
