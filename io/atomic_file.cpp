#include "ember/io/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <unordered_set>

#include "ember/core/error.h"
#include "ember/io/file_ops.h"

namespace ember::io::detail {

namespace fs = std::filesystem;

namespace {

// The file a save to `path` replaces: `path` itself, or what a symlink there (or a chain of them)
// names, so that the link keeps pointing at the new file.
std::string resolve_target(const std::string& path) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p.string();
    fs::path next = fs::read_symlink(p, ec);
    if (ec) return p.string();
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  throw OSError(::ember::detail::str("io: cannot save to '", path, "': too many levels of symbolic links"), ELOOP, path);
}

// The temporaries this process is writing now: those of its own that are not among them were
// left by an earlier save that could not remove them (a failed unlink) and are stale too.
std::mutex g_live_mutex;
std::unordered_set<std::string> g_live;

void set_live(const std::string& temp, bool live) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  if (live) g_live.insert(fs::path(temp).filename().string());
  else g_live.erase(fs::path(temp).filename().string());
}

bool is_live(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  return g_live.count(name) > 0;
}

}  // namespace

std::optional<std::pair<std::string_view, pid_t>> temporary_writer(std::string_view file) {
  if (!file.starts_with(".")) return std::nullopt;
  size_t tmp = file.rfind(".tmp.");
  if (tmp == std::string_view::npos || tmp <= 1) return std::nullopt;
  std::string_view rest = file.substr(tmp + 5);  // "<pid>.<n>"
  long long pid = 0, n = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (ec != std::errc() || end == rest.data() + rest.size() || *end != '.' || pid <= 0) return std::nullopt;
  auto [end2, ec2] = std::from_chars(end + 1, rest.data() + rest.size(), n);
  if (ec2 != std::errc() || end2 != rest.data() + rest.size()) return std::nullopt;
  return std::pair{file.substr(1, tmp - 1), static_cast<pid_t>(pid)};
}

void remove_stale_temporaries(const std::string& dir, const std::function<bool(std::string_view)>& ours) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string file = it->path().filename().string();
    auto writer = temporary_writer(file);
    // NB: only a temporary whose writer is gone is stale: another process (or thread) saving
    // into the same directory right now must keep its own.
    if (!writer || !ours(writer->first)) continue;
    const bool stale = writer->second == ::getpid() ? !is_live(file)
                                                    : ::kill(writer->second, 0) != 0 && errno == ESRCH;
    if (!stale) continue;
    fs_unlink(it->path().c_str());
  }
}

AtomicFile::AtomicFile(std::string path, bool durable) : path_(std::move(path)), durable_(durable) {
  static std::atomic<uint64_t> counter{0};
  EMBER_CHECK_VALUE(!fs::path(path_).filename().empty(), "io: cannot save to '", path_, "': not a file name");
  target_ = resolve_target(path_);
  struct stat st {};
  if (fs_stat(target_.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      throw OSError(::ember::detail::str("io: cannot save to '", path_, "': it is ", file_kind(st.st_mode),
                                         "; a checkpoint is written only as a regular file"),
                    S_ISDIR(st.st_mode) ? EISDIR : EINVAL, path_);
  } else if (errno != ENOENT) {
    fail("cannot inspect the target", errno);
  }
  fs::path target(target_);
  std::string name = target.filename().string();
  remove_stale_temporaries(directory_of(target_), [&](std::string_view target) { return target == name; });
  // Hidden, in the same directory (rename is atomic only within one file system), unique per
  // process and call so that concurrent saves never share a temporary.
  temp_path_ = (target.parent_path() / ("." + name + ".tmp." + std::to_string(::getpid()) + "." +
                                        std::to_string(counter++))).string();
  set_live(temp_path_, true);
  fd_ = fs_open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    int err = errno;
    set_live(temp_path_, false);
    fail(("cannot create '" + temp_path_ + "'").c_str(), err);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
  set_live(temp_path_, false);
}

void AtomicFile::fail(const char* what, int err) const {
  throw OSError(::ember::detail::str("io: cannot save to '", path_, "': ", what, ": ", std::strerror(err)), err, path_);
}

void AtomicFile::write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // Linux writes at most ~2 GiB per call; loop for the rest and for short writes.
    ssize_t done = fs_write(fd_, p, n);
    if (done < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += done;
    n -= static_cast<size_t>(done);
  }
}

void AtomicFile::write_at(const void* data, size_t n, uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t done = fs_pwrite(fd_, p, n, offset);
    if (done < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += done;
    n -= static_cast<size_t>(done);
    offset += static_cast<uint64_t>(done);
  }
}

void AtomicFile::commit() {
  EMBER_INTERNAL_ASSERT(fd_ >= 0, "AtomicFile committed twice");
  if (durable_ && fs_fsync(fd_) != 0) fail("fsync failed", errno);
  int fd = fd_;
  fd_ = -1;
  if (fs_close(fd) != 0) {
    int err = errno;
    ::unlink(temp_path_.c_str());
    fail("close failed", err);
  }
  // NB: the target is checked again just before the rename: a directory made there meanwhile
  // must not be replaced (rename(2) would refuse only a non-empty one).
  struct stat st {};
  if (::lstat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    ::unlink(temp_path_.c_str());
    throw OSError(::ember::detail::str("io: cannot save to '", path_, "': it became ", file_kind(st.st_mode),
                                       " while the file was written"), EINVAL, path_);
  }
  if (!durable_ && fs_rename(temp_path_.c_str(), target_.c_str(), /*exchange=*/true) == 0) {
    // NB: renaming over an existing file makes ext4 (auto_da_alloc) flush the new file's data
    // before the rename returns: a non-durable save would pay most of an fsync. Exchanging the
    // two names is just as atomic and flushes nothing; the old file, now under the temporary
    // name, is then removed.
    fs_unlink(temp_path_.c_str());
  } else if (fs_rename(temp_path_.c_str(), target_.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_path_.c_str());
    fail("rename failed", err);
  }
  // The rename is durable only once the directory itself is flushed. NB: the file is in place
  // by now; a failure here means it may not survive a power loss, which the caller must hear.
  if (durable_ && fs_fsync_dir(directory_of(target_)) != 0) fail("fsync of its directory failed", errno);
}

}  // namespace ember::io::detail
