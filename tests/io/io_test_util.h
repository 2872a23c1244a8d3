#pragma once
// Shared by the io tests: a scratch directory removed at the end of each test, whole-file reads
// and writes, and a bitwise tensor comparison.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::testing {

/// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// path() / name, as a string.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// The whole file as bytes ("" when it cannot be read).
std::string read_file(const std::string& path);
/// Replaces the file with `bytes`.
void write_file(const std::string& path, const std::string& bytes);

/// What a command-line tool did: its exit code and its stdout and stderr together.
struct ToolRun {
  int status = -1;
  std::string output;
};
/// Runs `program` with `args` (each quoted for the shell) as a user would.
ToolRun run_tool(const std::string& program, const std::vector<std::string>& args);

/// Same dtype, shape and bytes.
::testing::AssertionResult bitwise_equal(const Tensor& a, const Tensor& b);

}  // namespace ember::testing
