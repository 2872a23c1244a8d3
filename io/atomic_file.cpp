#include "ember/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "ember/core/error.h"

namespace ember::io::detail {

namespace {
std::string directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}
}  // namespace

AtomicFile::AtomicFile(std::string path, bool durable) : path_(std::move(path)), durable_(durable) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path target(path_);
  EMBER_CHECK(!target.filename().empty(), "io: cannot save to '", path_, "': not a file name");
  // Hidden, in the same directory (rename is atomic only within one file system), unique per
  // process and call so that concurrent saves never share a temporary.
  std::string name = ".";
  name += target.filename().string();
  name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  temp_path_ = (target.parent_path() / name).string();
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  EMBER_CHECK(fd_ >= 0, "io: cannot save to '", path_, "': cannot create '", temp_path_, "': ",
              std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void AtomicFile::fail(const char* what) const {
  throw Error(::ember::detail::str("io: cannot save to '", path_, "': ", what, ": ",
                                   std::strerror(errno)));
}

void AtomicFile::write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // Linux writes at most ~2 GiB per call; loop for the rest and for short writes.
    ssize_t done = ::write(fd_, p, n);
    if (done < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    p += done;
    n -= static_cast<size_t>(done);
  }
}

void AtomicFile::write_at(const void* data, size_t n, uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t done = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (done < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    p += done;
    n -= static_cast<size_t>(done);
    offset += static_cast<uint64_t>(done);
  }
}

void AtomicFile::commit() {
  EMBER_INTERNAL_ASSERT(fd_ >= 0, "AtomicFile committed twice");
  if (durable_ && ::fsync(fd_) != 0) fail("fsync failed");
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(temp_path_.c_str());
    fail("close failed");
  }
  fd_ = -1;
  if (!durable_ && ::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) == 0) {
    // NB: renaming over an existing file makes ext4 (auto_da_alloc) flush the new file's data
    // before the rename returns: a non-durable save would pay most of an fsync. Exchanging the
    // two names is just as atomic and flushes nothing; the old file, now under the temporary
    // name, is then removed.
    ::unlink(temp_path_.c_str());
  } else if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_path_.c_str());
    errno = err;
    fail("rename failed");
  }
  if (durable_) {
    // The rename is durable only once the directory itself is flushed.
    int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
}

}  // namespace ember::io::detail
