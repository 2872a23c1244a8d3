#include "ember/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/core/error.h"

namespace ember::io::detail {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, bool populate) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    EMBER_CHECK_AS(FileNotFoundError, err != ENOENT, "io: cannot open '", path, "': ", std::strerror(err));
    EMBER_CHECK(false, "io: cannot open '", path, "': ", std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int err = errno;
    ::close(fd);
    EMBER_CHECK(false, "io: '", path, "' is not a regular file",
                err ? std::string(": ") + std::strerror(err) : std::string());
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    // Mapped read-only first: populating a writable private mapping would copy every page.
    int flags = MAP_PRIVATE | (populate ? MAP_POPULATE : 0);
    data = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
    // Then made writable: an in-place edit of a loaded tensor copies only the page it touches,
    // never the file.
    if (data != MAP_FAILED && ::mprotect(data, size, PROT_READ | PROT_WRITE) != 0) {
      ::munmap(data, size);
      data = MAP_FAILED;
    }
    if (data == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      EMBER_CHECK(false, "io: cannot map '", path, "': ", std::strerror(err));
    }
  }
  ::close(fd);  // the mapping keeps the file alive
  return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<uint8_t*>(data), size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace ember::io::detail
