#include "ember/distributed/checkpoint_manager.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/distributed/init.h"
#include "ember/io/retention.h"

namespace ember::distributed {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view kPrefix = "step-";

std::optional<int64_t> step_of(const std::string& name) {
  if (name.size() <= kPrefix.size() || name.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::string digits = name.substr(kPrefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 18)
    return std::nullopt;
  return std::stoll(digits);
}

// Loads every file of the checkpoint at `path` with every checksum verified; throws otherwise.
void verify_checkpoint(const std::string& path) { CheckpointReader(path).verify(); }

// Rank 0 removes the committed checkpoints of `dir` older than the newest keep_last that verify;
// never `just_written`.
void prune(const DistributedCheckpointManager& manager, const ProcessGroup& group, io::detail::VerifyCache& cache,
           const std::string& just_written) {
  if (group.rank() != 0) return;
  std::vector<DistributedCheckpointManager::Entry> all = manager.checkpoints();
  std::optional<size_t> written;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].path == just_written) written = i;
  std::vector<size_t> doomed = io::detail::checkpoints_to_prune(
      all.size(), static_cast<size_t>(manager.keep_last()), written, [&](size_t i) {
        std::string reason;
        bool ok = cache.verifies(all[i].path, [&] { verify_checkpoint(all[i].path); }, &reason);
        if (!ok)
          warn(::ember::detail::str("DistributedCheckpointManager: checkpoint '", all[i].path, "' (step ", all[i].step,
                                    ") does not load, so it does not count toward keep_last=", manager.keep_last(),
                                    " (kept): ", reason));
        return ok;
      });
  for (size_t i : doomed) {
    std::error_code ec;
    fs::remove_all(all[i].path, ec);
  }
}

// A CheckpointState as one tree (so that io::Snapshot copies it in one pass, ties across its
// parts kept) and back.
io::Value to_tree(const CheckpointState& state) {
  std::vector<io::Value> locals;
  for (const Shard& s : state.shards) locals.emplace_back(s.local);
  return io::Value::tuple({state.replicated, state.per_rank, io::Value::tuple(std::move(locals))});
}

CheckpointState from_tree(const io::Value& tree, const std::vector<Shard>& shards) {
  CheckpointState state{tree[0], tree[1], shards};
  for (size_t i = 0; i < shards.size(); ++i) state.shards[i].local = tree[2][i].as_tensor();
  return state;
}
}  // namespace

DistributedCheckpointManager::DistributedCheckpointManager(std::string dir, int64_t keep_last,
                                                           std::shared_ptr<ProcessGroup> group)
    : dir_(std::move(dir)), keep_last_(keep_last), group_(group ? std::move(group) : default_group_ptr()) {
  EMBER_CHECK_VALUE(keep_last_ >= 1, "DistributedCheckpointManager: keep_last must be at least 1, got ", keep_last_);
  if (group_->rank() == 0) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind(kPrefix, 0) == 0 && (name.ends_with(".tmp") || name.ends_with(".old"))) {
        std::error_code rm;
        fs::remove_all(it->path(), rm);
      }
    }
  }
  group_->barrier()->wait();
  EMBER_CHECK(fs::is_directory(dir_), "DistributedCheckpointManager: '", dir_, "' is not a directory");
}

std::string DistributedCheckpointManager::path_for(int64_t step) const {
  char name[48];
  std::snprintf(name, sizeof name, "step-%012lld", static_cast<long long>(step));
  return (fs::path(dir_) / name).string();
}

std::vector<DistributedCheckpointManager::Entry> DistributedCheckpointManager::checkpoints() const {
  std::vector<Entry> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<int64_t> step = step_of(it->path().filename().string());
    if (step && fs::exists(it->path() / "index.json")) out.push_back({*step, it->path().string()});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.step < b.step; });
  return out;
}

std::optional<DistributedCheckpointManager::Entry> DistributedCheckpointManager::latest(bool allow_fresh_start) const {
  std::vector<Entry> all = checkpoints();
  std::vector<io::detail::Checkpoint> committed;
  for (const Entry& e : all) committed.push_back({e.step, e.path});
  std::optional<size_t> i = io::detail::newest_that_loads(
      committed, [&](size_t j) { verify_checkpoint(all[j].path); }, allow_fresh_start,
      "DistributedCheckpointManager", dir_);
  if (!i) return std::nullopt;
  return all[*i];
}

std::string DistributedCheckpointManager::save(const CheckpointState& state, int64_t step) {
  EMBER_CHECK_VALUE(step >= 0, "DistributedCheckpointManager.save: step must be non-negative, got ", step);
  saver_->wait();
  std::string path = path_for(step);
  save_checkpoint(*group_, state, path);
  if (group_->rank() == 0) verified_->trust(path);
  prune(*this, *group_, *verified_, path);
  return path;
}

std::string DistributedCheckpointManager::save_async(const CheckpointState& state, int64_t step) {
  EMBER_CHECK_VALUE(step >= 0, "DistributedCheckpointManager.save_async: step must be non-negative, got ",
                    step);
  if (!async_group_) set_async_group(new_group());
  std::string path = path_for(step);
  std::vector<Shard> shards = state.shards;  // names and offsets; the tensors travel in the copy
  for (Shard& s : shards) s.local = Tensor();
  // NB: the write holds what it needs, not `this`: the manager may be destroyed while it runs
  // (its saver, shared, waits for it), and not the manager's saver, which would then own itself.
  DistributedCheckpointManager view = *this;
  view.saver_ = nullptr;
  view.group_ = async_group_;
  saver_->submit(to_tree(state), [view, shards = std::move(shards), path](const io::Value& copy) {
    save_checkpoint(*view.group_, from_tree(copy, shards), path);
    if (view.group_->rank() == 0) view.verified_->trust(path);
    prune(view, *view.group_, *view.verified_, path);
  });
  return path;
}

void DistributedCheckpointManager::wait() { saver_->wait(); }

void DistributedCheckpointManager::set_async_group(std::shared_ptr<ProcessGroup> group) {
  EMBER_CHECK_VALUE(group != nullptr, "DistributedCheckpointManager.set_async_group: no group given");
  EMBER_CHECK_VALUE(group != group_, "DistributedCheckpointManager.set_async_group: the background "
                    "writes need a group of their own, not the manager's");
  EMBER_CHECK_VALUE(group->rank() == group_->rank() && group->size() == group_->size(),
                    "DistributedCheckpointManager.set_async_group: the group has rank ", group->rank(),
                    " of ", group->size(), ", the manager's rank ", group_->rank(), " of ", group_->size());
  saver_->wait();
  async_group_ = std::move(group);
}

}  // namespace ember::distributed
