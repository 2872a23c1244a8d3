#include "ember/io/checkpoint_manager.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/io/atomic_file.h"
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

// Every checkpoint file in `dir`, oldest step first (not verified); none when `dir` is absent.
std::vector<CheckpointManager::Entry> list_checkpoints(const std::string& dir, const char* who) {
  std::vector<CheckpointManager::Entry> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<int64_t> step = step_of(it->path().filename().string());
    std::error_code type_ec;
    if (step && it->is_regular_file(type_ec)) out.push_back({*step, it->path().string()});
  }
  EMBER_CHECK(!ec, who, ": cannot list '", dir, "': ", ec.message());
  // Two names for one step ("ckpt-7" and "ckpt-000000000007") sort by name as a tie-break.
  std::sort(out.begin(), out.end(), [](const CheckpointManager::Entry& a, const CheckpointManager::Entry& b) {
    return a.step != b.step ? a.step < b.step : a.path < b.path;
  });
  return out;
}

// The newest of `all` that loads, read (newest_that_loads() for what else happens).
std::optional<CheckpointManager::Restored> restore_newest(const std::string& dir,
                                                          const std::vector<CheckpointManager::Entry>& all,
                                                          bool allow_fresh_start, const char* who) {
  std::vector<detail::Checkpoint> checkpoints;
  for (const auto& e : all) checkpoints.push_back({e.step, e.path});
  Value state;
  std::optional<size_t> i = detail::newest_that_loads(
      checkpoints, [&](size_t j) { state = load(all[j].path); }, allow_fresh_start, who, dir);
  if (!i) return std::nullopt;
  return CheckpointManager::Restored{all[*i].step, all[*i].path, std::move(state)};
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
  detail::remove_stale_temporaries(dir_, [](std::string_view name) { return step_of(name).has_value(); });
}

std::string CheckpointManager::path_for(int64_t step) const {
  char name[48];
  std::snprintf(name, sizeof name, "ckpt-%012lld.ember", static_cast<long long>(step));
  return (fs::path(dir_) / name).string();
}

std::vector<CheckpointManager::Entry> CheckpointManager::checkpoints() const {
  return list_checkpoints(dir_, "CheckpointManager");
}

void CheckpointManager::prune(const std::string& just_written) const {
  std::vector<Entry> all = checkpoints();
  std::optional<size_t> written;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].path == just_written) written = i;
  std::vector<size_t> doomed = detail::checkpoints_to_prune(
      all.size(), static_cast<size_t>(keep_last_), written, [&](size_t i) {
        std::string reason;
        bool ok = verified_->verifies(all[i].path, [&] { load(all[i].path); }, &reason);
        if (!ok)
          warn(::ember::detail::str("CheckpointManager: checkpoint '", all[i].path, "' (step ", all[i].step,
                                    ") does not load, so it does not count toward keep_last=", keep_last_,
                                    " (kept): ", reason));
        return ok;
      });
  for (size_t i : doomed) {
    std::error_code ec;
    if (!fs::remove(all[i].path, ec) && ec)
      warn(::ember::detail::str("CheckpointManager: cannot remove old checkpoint '", all[i].path,
                                "': ", ec.message()));
  }
}

std::string CheckpointManager::save(const Value& state, int64_t step) {
  EMBER_CHECK_VALUE(step >= 0, "CheckpointManager.save: step must be non-negative, got ", step);
  saver_->wait();
  std::string path = path_for(step);
  io::save(state, path);  // removes the stale temporaries of this file name
  verified_->trust(path);
  prune(path);
  return path;
}

std::string CheckpointManager::save_async(const Value& state, int64_t step) {
  EMBER_CHECK_VALUE(step >= 0, "CheckpointManager.save_async: step must be non-negative, got ", step);
  std::string path = path_for(step);
  // NB: the write holds the directory's settings, not `this` (a manager may be moved or destroyed
  // while it runs) nor a copy of the manager (whose saver would then own itself).
  saver_->submit(state, [dir = dir_, keep_last = keep_last_, verified = verified_, path](const Value& copy) {
    try {
      CheckpointManager writer(dir, keep_last);  // removes stale temporaries
      writer.verified_ = verified;
      io::save(copy, path);
      verified->trust(path);
      writer.prune(path);
    } catch (const std::exception& e) {
      // NB: thrown by a later wait() or save, so it says which save it was.
      EMBER_CHECK(false, "CheckpointManager.save_async: checkpoint '", path, "' was not written: ", e.what());
    }
  });
  return path;
}

void CheckpointManager::wait() { saver_->wait(); }

std::optional<CheckpointManager::Entry> CheckpointManager::latest(bool allow_fresh_start) const {
  std::optional<Restored> r = restore(allow_fresh_start);
  if (!r) return std::nullopt;
  return Entry{r->step, r->path};
}

std::optional<CheckpointManager::Restored> CheckpointManager::restore(bool allow_fresh_start) const {
  return restore_newest(dir_, checkpoints(), allow_fresh_start, "CheckpointManager");
}

std::optional<CheckpointManager::Restored> load_latest(const std::string& dir, bool allow_fresh_start) {
  std::error_code ec;
  EMBER_CHECK_AS(OSError, !fs::exists(dir, ec) || fs::is_directory(dir, ec),
                 "io::load_latest: '", dir, "' is not a directory");
  return restore_newest(dir, list_checkpoints(dir, "io::load_latest"), allow_fresh_start, "io::load_latest");
}

}  // namespace ember::io
