#include "ember/distributed/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/core/error.h"
#include "ember/distributed/error.h"

namespace ember::distributed {

namespace fs = std::filesystem;

FileStore::FileStore(std::string dir, Milliseconds timeout) : Store(timeout), dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  EMBER_CHECK(fs::is_directory(dir_), "FileStore: cannot use directory '", dir_, "'",
              ec ? ": " + ec.message() : "");
}

std::string FileStore::path_of(const std::string& key) const {
  static const char* hex = "0123456789abcdef";
  std::string name = "k";
  for (unsigned char c : key) {
    name += hex[c >> 4];
    name += hex[c & 15];
  }
  return dir_ + "/" + name;
}

void FileStore::set(const std::string& key, const std::string& value) {
  static std::atomic<uint64_t> counter{0};
  std::string path = path_of(key);
  std::string temp = dir_ + "/.tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(value.data(), static_cast<std::streamsize>(value.size()));
    if (!out.flush())
      throw DistributedError(::ember::detail::str("FileStore: cannot write '", temp, "'"));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    throw DistributedError(::ember::detail::str("FileStore: cannot rename into '", path, "': ",
                                                std::strerror(err)));
  }
}

bool FileStore::try_get(const std::string& key, std::string& value) {
  std::ifstream in(path_of(key), std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  value = s.str();
  return true;
}

int64_t FileStore::add(const std::string& key, int64_t amount) {
  std::string lock_path = dir_ + "/lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw DistributedError(::ember::detail::str("FileStore: cannot open '", lock_path, "': ",
                                                std::strerror(errno)));
  while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  int64_t current = 0;
  std::string value;
  try {
    if (try_get(key, value)) current = std::stoll(value);
    current += amount;
    set(key, std::to_string(current));
  } catch (...) {
    ::close(fd);  // releases the lock
    throw;
  }
  ::close(fd);
  return current;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  for (const std::string& k : keys)
    if (::access(path_of(k).c_str(), F_OK) != 0) return false;
  return true;
}

}  // namespace ember::distributed
