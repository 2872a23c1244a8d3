#pragma once
// Runs a helper program in a child process for the io tests: posix_spawn (fork + exec at once, so
// the gtest process never keeps running Ember in a forked copy; a forked copy has none of the parent's threads), with
// the child's stdout read through a pipe.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

extern char** environ;

namespace ember::testing {

/// A started child whose stdout the parent reads.
struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;
};

/// Starts `argv[0]` with `argv`; its stdout goes to a pipe, stderr stays the test's.
inline Child spawn_child(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return {};
  }
  return {pid, fds[0]};
}

/// Reads the child's stdout to its end (the child has exited or will).
inline std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

/// Waits for the child; its exit status, or 128 + signal when a signal ended it.
inline int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

/// The result of running a program to its end.
struct RunResult {
  int exit_code = -1;
  std::string out;
};

/// Runs `argv` to its end and returns its exit code and stdout.
inline RunResult run_program(const std::vector<std::string>& argv) {
  Child c = spawn_child(argv);
  if (c.pid < 0) return {-1, "cannot start " + argv[0]};
  RunResult r;
  r.out = read_all(c.stdout_fd);
  ::close(c.stdout_fd);
  r.exit_code = wait_child(c.pid);
  return r;
}

}  // namespace ember::testing
