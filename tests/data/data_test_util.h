#pragma once
// Shared by the data tests: a scratch directory removed at the end of each test, idx files built
// byte by byte, and the Fashion-MNIST fixture's directory.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ember::testing {

/// tests/fixtures/data: the first 100 Fashion-MNIST test samples as gzipped idx files
/// (make_fashion_mnist_fixture.py).
inline std::string data_fixture_dir() { return std::string(EMBER_FIXTURES_DIR) + "/data"; }

/// A fresh directory under the system temp dir, removed with everything in it.
class DataTempDir {
 public:
  DataTempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ember_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~DataTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  DataTempDir(const DataTempDir&) = delete;
  DataTempDir& operator=(const DataTempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

/// An idx header: 0, 0, type, ndim, then the dims big-endian.
inline std::string idx_header(uint8_t type, const std::vector<uint32_t>& dims) {
  std::string out{'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((d >> shift) & 0xff));
  return out;
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace ember::testing
