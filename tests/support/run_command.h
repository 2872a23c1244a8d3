// A shell command run to its end, its stdout and stderr together: what the launcher tests read.
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace ember::testing {

struct CommandResult {
  int code;  // the exit status; -1 when killed by a signal
  std::string output;
  double seconds;
};

inline CommandResult run_command(const std::string& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

}  // namespace ember::testing
