#include "ember/io/file_ops.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "ember/core/error.h"
#include "ember/io/fault_injection.h"

namespace ember::io {

namespace {

struct PlanState {
  std::atomic<bool> active{false};
  std::atomic<int64_t> count{0};
  std::atomic<bool> fired{false};
  std::mutex mutex;  // guards plan
  testing::FaultPlan plan;
};

PlanState& state() {
  static PlanState s;
  return s;
}

enum class Outcome { Proceed, Fail, Short };

// Counts the call and says what to do with it: proceed, fail (errno set) or do half.
Outcome fault_point(detail::FileOp op) {
  PlanState& s = state();
  if (!s.active.load(std::memory_order_relaxed)) [[likely]] return Outcome::Proceed;
  testing::FaultPlan plan;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    plan = s.plan;
  }
  if (plan.only && *plan.only != op) return Outcome::Proceed;
  int64_t n = s.count.fetch_add(1) + 1;
  if (plan.at == 0 || n != plan.at) return Outcome::Proceed;
  s.fired = true;
  switch (plan.fault) {
    case testing::Fault::Kill: ::kill(::getpid(), SIGKILL); return Outcome::Proceed;
    case testing::Fault::ShortWrite: return Outcome::Short;
    case testing::Fault::Error: errno = plan.error; return Outcome::Fail;
  }
  return Outcome::Proceed;
}

// A short write or read does half (at least one byte) of what was asked.
size_t shortened(size_t n) { return n > 1 ? n / 2 : n; }

}  // namespace

namespace testing {

void set_fault_plan(const FaultPlan& plan) {
  PlanState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.plan = plan;
  s.count = 0;
  s.fired = false;
  s.active = true;
}

void clear_fault_plan() {
  PlanState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.active = false;
  s.plan = FaultPlan{};
}

int64_t fault_points() { return state().count.load(); }
bool fault_fired() { return state().fired.load(); }

}  // namespace testing

namespace detail {

const char* file_op_name(FileOp op) {
  switch (op) {
    case FileOp::Open: return "open";
    case FileOp::Stat: return "stat";
    case FileOp::Read: return "read";
    case FileOp::Write: return "write";
    case FileOp::Fsync: return "fsync";
    case FileOp::Rename: return "rename";
    case FileOp::FsyncDir: return "fsync_dir";
    case FileOp::Unlink: return "unlink";
    case FileOp::Map: return "mmap";
    case FileOp::Close: return "close";
  }
  return "?";
}

int fs_open(const char* path, int flags, mode_t mode) {
  if (fault_point(FileOp::Open) == Outcome::Fail) return -1;
  return ::open(path, flags, mode);
}

int fs_stat(const char* path, struct stat* st) {
  if (fault_point(FileOp::Stat) == Outcome::Fail) return -1;
  return ::stat(path, st);
}

int fs_fstat(int fd, struct stat* st) {
  if (fault_point(FileOp::Stat) == Outcome::Fail) return -1;
  return ::fstat(fd, st);
}

ssize_t fs_pread(int fd, void* buf, size_t n, uint64_t offset) {
  Outcome o = fault_point(FileOp::Read);
  if (o == Outcome::Fail) return -1;
  return ::pread(fd, buf, o == Outcome::Short ? shortened(n) : n, static_cast<off_t>(offset));
}

ssize_t fs_write(int fd, const void* buf, size_t n) {
  Outcome o = fault_point(FileOp::Write);
  if (o == Outcome::Fail) return -1;
  return ::write(fd, buf, o == Outcome::Short ? shortened(n) : n);
}

ssize_t fs_pwrite(int fd, const void* buf, size_t n, uint64_t offset) {
  Outcome o = fault_point(FileOp::Write);
  if (o == Outcome::Fail) return -1;
  return ::pwrite(fd, buf, o == Outcome::Short ? shortened(n) : n, static_cast<off_t>(offset));
}

int fs_fsync(int fd) {
  if (fault_point(FileOp::Fsync) == Outcome::Fail) return -1;
  return ::fsync(fd);
}

int fs_rename(const char* from, const char* to, bool exchange) {
  if (fault_point(FileOp::Rename) == Outcome::Fail) return -1;
  return exchange ? ::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) : ::rename(from, to);
}

int fs_unlink(const char* path) {
  if (fault_point(FileOp::Unlink) == Outcome::Fail) return -1;
  return ::unlink(path);
}

void* fs_map(size_t size, int fd) {
  if (fault_point(FileOp::Map) == Outcome::Fail) return MAP_FAILED;
  return ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
}

int fs_close(int fd) {
  if (fault_point(FileOp::Close) == Outcome::Fail) {
    // NB: a failed close(2) still releases the descriptor on Linux; so does this one.
    int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  return ::close(fd);
}

int fs_fsync_dir(const std::string& dir) {
  if (fault_point(FileOp::FsyncDir) == Outcome::Fail) return -1;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  errno = err;
  return rc;
}

void read_exactly(int fd, void* buf, size_t n, uint64_t offset, const std::string& path) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t got = fs_pread(fd, p, n, offset);
    if (got < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      throw OSError(::ember::detail::str("io: cannot read '", path, "': ", std::strerror(err)), err, path);
    }
    if (got == 0)
      throw ValueError(::ember::detail::str("io: '", path, "' ends at byte ", offset, ", before the ", n,
                                            " bytes still to read: it was truncated"));
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

}  // namespace detail

}  // namespace ember::io
