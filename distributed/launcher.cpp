#include "ember/distributed/launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "ember/core/error.h"

extern char** environ;

namespace ember::distributed {
namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) { g_signal = sig; }

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  EMBER_CHECK(port > 0, "ember-run: cannot find a free port: ", std::strerror(errno));
  return port;
}

struct Rank {
  pid_t pid = -1;
  int out = -1, err = -1;       // read ends of its stdout and stderr
  std::string out_line, err_line;  // a line not yet ended
  bool running = false;
  int status = 0;
};

// Writes complete lines of `data` (appended to `pending`) to `fd`, each after `prefix`.
void emit(std::string& pending, const char* data, size_t n, int fd, const std::string& prefix, bool flush) {
  pending.append(data, n);
  size_t start = 0;
  for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = prefix + pending.substr(start, nl - start + 1);
    (void)!::write(fd, line.data(), line.size());
  }
  pending.erase(0, start);
  if (flush && !pending.empty()) {
    std::string line = prefix + pending + "\n";
    (void)!::write(fd, line.data(), line.size());
    pending.clear();
  }
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return ::ember::detail::str("killed by signal ", WTERMSIG(status), " (",
                                                       strsignal(WTERMSIG(status)), ")");
  return ::ember::detail::str("exit code ", exit_code(status));
}

void say(const std::string& msg) {
  std::string line = "ember-run: " + msg + "\n";
  (void)!::write(2, line.data(), line.size());
}

// Starts rank r of an attempt.
Rank start(const LaunchOptions& o, int r, int port, int attempt) {
  int out[2], err[2];
  EMBER_CHECK(::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0, "ember-run: pipe failed: ",
              std::strerror(errno));
  std::vector<std::string> env_strings;
  auto skip = [](const char* e) {
    for (const char* k : {"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "LOCAL_WORLD_SIZE=", "MASTER_ADDR=",
                          "MASTER_PORT=", "EMBER_RESTART_COUNT="})
      if (std::strncmp(e, k, std::strlen(k)) == 0) return true;
    return false;
  };
  for (char** e = environ; *e; ++e)
    if (!skip(*e)) env_strings.push_back(*e);
  env_strings.push_back("RANK=" + std::to_string(r));
  env_strings.push_back("LOCAL_RANK=" + std::to_string(r));
  env_strings.push_back("WORLD_SIZE=" + std::to_string(o.nproc));
  env_strings.push_back("LOCAL_WORLD_SIZE=" + std::to_string(o.nproc));
  env_strings.push_back("MASTER_ADDR=" + o.master_addr);
  env_strings.push_back("MASTER_PORT=" + std::to_string(port));
  env_strings.push_back("EMBER_RESTART_COUNT=" + std::to_string(attempt));
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = o.command;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  EMBER_CHECK(pid >= 0, "ember-run: fork failed: ", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::string msg = "ember-run: cannot run '" + args[0] + "': " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // NB: both sides, so no signal can arrive before the group exists
  ::close(out[1]);
  ::close(err[1]);
  Rank rank;
  rank.pid = pid;
  rank.out = out[0];
  rank.err = err[0];
  rank.running = true;
  return rank;
}

// Runs one attempt; returns 0 or the first failure's code.
int run_attempt(const LaunchOptions& o, int attempt) {
  int port = o.master_port > 0 ? o.master_port : free_port();
  std::vector<Rank> ranks;
  for (int r = 0; r < o.nproc; ++r) ranks.push_back(start(o, r, port, attempt));
  int first_failure = 0;
  bool stopping = false;
  std::vector<int> failed;  // ranks found failed, not yet reported
  auto settle_deadline = std::chrono::steady_clock::time_point::max();
  auto stop_deadline = std::chrono::steady_clock::time_point::max();
  auto stop_others = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    say(why + "; stopping the other ranks");
    for (Rank& k : ranks)
      if (k.running) {
        ::kill(-k.pid, SIGTERM);
        ::kill(-k.pid, SIGCONT);  // a stopped rank must run to see SIGTERM
      }
    stop_deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(o.grace_seconds * 1000));
  };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<int, bool>> owner;  // rank, is stderr
    for (int r = 0; r < o.nproc; ++r) {
      if (ranks[r].out >= 0) fds.push_back({ranks[r].out, POLLIN, 0}), owner.push_back({r, false});
      if (ranks[r].err >= 0) fds.push_back({ranks[r].err, POLLIN, 0}), owner.push_back({r, true});
    }
    if (!fds.empty()) ::poll(fds.data(), fds.size(), 50);
    else std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      Rank& k = ranks[owner[i].first];
      bool is_err = owner[i].second;
      char buf[65536];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      std::string prefix = o.prefix_output ? "[rank" + std::to_string(owner[i].first) + "]: " : "";
      std::string& pending = is_err ? k.err_line : k.out_line;
      if (n > 0) {
        emit(pending, buf, static_cast<size_t>(n), is_err ? 2 : 1, prefix, false);
      } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        emit(pending, nullptr, 0, is_err ? 2 : 1, prefix, true);
        ::close(fds[i].fd);
        (is_err ? k.err : k.out) = -1;
      }
    }
    if (int sig = g_signal.exchange(0)) {
      if (!first_failure) first_failure = 128 + sig;
      stop_others(::ember::detail::str("received signal ", sig));
    }
    bool any_running = false;
    for (int r = 0; r < o.nproc; ++r) {
      Rank& k = ranks[r];
      if (!k.running) continue;
      int status = 0;
      pid_t got = ::waitpid(k.pid, &status, WNOHANG);
      if (got == k.pid) {
        k.running = false;
        k.status = status;
        ::kill(-k.pid, SIGKILL);  // whatever the rank left behind in its group
        if (!stopping && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) failed.push_back(r);
      } else {
        any_running = true;
      }
    }
    if (!failed.empty() && !stopping) {
      // NB: a killed rank makes its peers fail on their next collective, and a peer may exit before
      // the killed rank's own exit can be reaped (its sockets close before it becomes a zombie). So
      // a failure without a signal waits kSettle for another rank's signal: that one is the cause
      // and is named first.
      constexpr auto kSettle = std::chrono::milliseconds(300);
      auto by_signal = [&](int r) { return WIFSIGNALED(ranks[r].status); };
      auto now = std::chrono::steady_clock::now();
      if (settle_deadline == std::chrono::steady_clock::time_point::max()) settle_deadline = now + kSettle;
      if (std::any_of(failed.begin(), failed.end(), by_signal) || !any_running || now >= settle_deadline) {
        std::stable_partition(failed.begin(), failed.end(), by_signal);
        first_failure = exit_code(ranks[failed[0]].status);
        std::string why;
        for (int r : failed)
          why += ::ember::detail::str(why.empty() ? "" : "; ", "rank ", r, " (pid ", ranks[r].pid, ") failed with ",
                                      describe(ranks[r].status));
        failed.clear();
        stop_others(why);
      }
    }
    if (stopping && std::chrono::steady_clock::now() >= stop_deadline) {
      for (Rank& k : ranks)
        if (k.running) ::kill(-k.pid, SIGKILL);
      stop_deadline = std::chrono::steady_clock::time_point::max();
    }
    bool any_open = false;
    for (Rank& k : ranks) any_open = any_open || k.out >= 0 || k.err >= 0;
    if (!any_running && !any_open) break;
    if (!any_running && stopping) {
      // Grandchildren may hold the pipes open: they were killed with the group; stop reading.
      for (Rank& k : ranks) {
        if (k.out >= 0) ::close(k.out), k.out = -1;
        if (k.err >= 0) ::close(k.err), k.err = -1;
      }
      break;
    }
  }
  return first_failure;
}

}  // namespace

int launch(const LaunchOptions& o) {
  EMBER_CHECK_VALUE(o.nproc >= 1, "ember-run: --nproc must be at least 1, got ", o.nproc);
  EMBER_CHECK_VALUE(!o.command.empty(), "ember-run: no program to run");
  EMBER_CHECK_VALUE(o.max_restarts >= 0, "ember-run: --max-restarts must be non-negative, got ",
                    o.max_restarts);
  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_signal;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  int code = 0;
  for (int attempt = 0;; ++attempt) {
    code = run_attempt(o, attempt);
    if (code == 0 || attempt >= o.max_restarts || code == 128 + SIGINT) break;
    say(::ember::detail::str("restarting the job (restart ", attempt + 1, " of ", o.max_restarts, ")"));
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return code;
}

}  // namespace ember::distributed
