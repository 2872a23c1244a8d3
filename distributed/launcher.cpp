#include "ember/distributed/launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "ember/core/error.h"
#include "ember/distributed/error.h"
#include "ember/distributed/tcp_store.h"

extern char** environ;

namespace ember::distributed {
namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) { g_signal = sig; }

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);  // free on every address, the master's among them
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

// "ember-run: " or, on one of several nodes, "ember-run (node <r>): ".
std::string g_say_prefix = "ember-run: ";

void say(const std::string& msg) {
  std::string line = g_say_prefix + msg + "\n";
  (void)!::write(2, line.data(), line.size());
}

using Clock = std::chrono::steady_clock;

Milliseconds seconds(double s) { return Milliseconds(static_cast<int64_t>(s * 1000)); }

// The launchers of a job on several nodes and the store they meet in, which node 0's serves. Keys:
// a<k>/joined/<node>, a<k>/port (the ranks' MASTER_PORT), a<k>/failures (a counter: the first
// failure of an attempt is the one named), a<k>/failed (what failed) and a<k>/code, a<k>/done/<node>,
// beat/<node> (a counter each launcher bumps) and left/<node>.
class Nodes {
 public:
  explicit Nodes(const LaunchOptions& o) : o_(o) {
    std::string host = o.master_addr;
    int port = o.master_port;
    if (!o.rdzv_endpoint.empty()) {
      const size_t colon = o.rdzv_endpoint.rfind(':');
      EMBER_CHECK_VALUE(colon != std::string::npos && colon > 0, "ember-run: --rdzv-endpoint is host:port, got '",
                        o.rdzv_endpoint, "'");
      host = o.rdzv_endpoint.substr(0, colon);
      port = std::atoi(o.rdzv_endpoint.c_str() + colon + 1);
    }
    EMBER_CHECK_VALUE(port > 0, "ember-run: with --nnodes ", o.nnodes,
                      " every node must be told where the launchers meet: --master-port (or --rdzv-endpoint "
                      "host:port) names a port, got ",
                      port);
    endpoint_ = host + ":" + std::to_string(port);
    try {
      store_ = std::make_unique<TCPStore>(host, port, o.node_rank == 0, seconds(o.join_timeout_seconds));
    } catch (const Error& e) {
      throw DistributedError(::ember::detail::str("ember-run (node ", o.node_rank, "): cannot ",
                                                  o.node_rank == 0 ? "serve" : "reach", " the launchers' store at ",
                                                  endpoint_, ": ", e.what()));
    }
    for (int n = 0; n < o.nnodes; ++n) seen_[n] = {-1, Clock::now()};
  }

  // Waits until every node has joined attempt k; the ranks' MASTER_PORT, which node 0 picks.
  int join(int attempt) {
    const std::string a = "a" + std::to_string(attempt) + "/";
    store_->set(a + "joined/" + std::to_string(o_.node_rank), "1");
    std::vector<std::string> keys;
    for (int n = 0; n < o_.nnodes; ++n) keys.push_back(a + "joined/" + std::to_string(n));
    const auto deadline = Clock::now() + seconds(o_.join_timeout_seconds);
    while (!store_->check(keys)) {
      if (Clock::now() >= deadline) {
        std::string missing;
        for (int n = 0; n < o_.nnodes; ++n)
          if (!store_->check({keys[n]})) missing += (missing.empty() ? "" : ", ") + std::to_string(n);
        throw DistributedError(::ember::detail::str(g_say_prefix, "node(s) ", missing, " did not join attempt ",
                                                    attempt, " at ", endpoint_, " within ", o_.join_timeout_seconds,
                                                    " s (--join-timeout)"));
      }
      std::this_thread::sleep_for(Milliseconds(50));
    }
    for (auto& [n, s] : seen_) s.second = Clock::now();  // heartbeats count from here
    if (o_.node_rank == 0) store_->set(a + "port", std::to_string(free_port()));
    store_->wait({a + "port"}, seconds(o_.join_timeout_seconds));
    return std::stoi(store_->get(a + "port"));
  }

  // This node's failure of attempt k; the first one any node reports is the one every node names.
  void report(int attempt, const std::string& why, int code) {
    const std::string a = "a" + std::to_string(attempt) + "/";
    try {
      if (store_->add(a + "failures", 1) == 1) {
        store_->set(a + "code", std::to_string(code));
        store_->set(a + "failed", ::ember::detail::str("node ", o_.node_rank, ": ", why));
      }
    } catch (const Error&) {
      // The store is gone (node 0 died): the other nodes see that themselves.
    }
  }

  // Whether another node failed attempt k, or stopped answering, or the store went away: what
  // failed and the exit code; also beats this node's heart. At most every 200 ms, unless at_once.
  std::optional<std::pair<std::string, int>> poll(int attempt, bool at_once = false) {
    const auto now = Clock::now();
    if (now < next_poll_ && !at_once) return std::nullopt;
    next_poll_ = now + Milliseconds(200);
    const std::string a = "a" + std::to_string(attempt) + "/";
    try {
      store_->add("beat/" + std::to_string(o_.node_rank), 1);
      std::string failed;
      if (store_->check({a + "failed"}))
        return std::make_pair(store_->get(a + "failed"), std::stoi(store_->get(a + "code")));
      for (auto& [n, s] : seen_) {
        if (n == o_.node_rank) continue;
        const int64_t beat = store_->add("beat/" + std::to_string(n), 0);
        if (beat != s.first) {
          s = {beat, now};
        } else if (now - s.second > seconds(o_.node_timeout_seconds)) {
          const std::string why = ::ember::detail::str("node ", n, "'s launcher stopped answering (no heartbeat for ",
                                                       o_.node_timeout_seconds, " s)");
          report(attempt, why, 1);
          return std::make_pair(why, 1);
        }
      }
    } catch (const Error& e) {
      return std::make_pair(
          ::ember::detail::str("lost the launchers' store at ", endpoint_, " (node 0 gone?): ", e.what()), 1);
    }
    return std::nullopt;
  }

  // Every rank of this node succeeded in attempt k: waits until every node's did (0) or one
  // failed (its code, after saying what).
  int finish(int attempt) {
    const std::string a = "a" + std::to_string(attempt) + "/";
    try {
      store_->set(a + "done/" + std::to_string(o_.node_rank), "1");
    } catch (const Error&) {
    }
    std::vector<std::string> keys;
    for (int n = 0; n < o_.nnodes; ++n) keys.push_back(a + "done/" + std::to_string(n));
    for (;;) {
      try {
        if (store_->check(keys)) return 0;
      } catch (const Error&) {
      }
      if (auto failed = poll(attempt)) {
        say(failed->first);
        return failed->second;
      }
      std::this_thread::sleep_for(Milliseconds(50));
    }
  }

  // Node 0's store outlives the job on every node: it waits for each launcher to leave.
  void leave() {
    try {
      store_->set("left/" + std::to_string(o_.node_rank), "1");
      if (o_.node_rank != 0) return;
      std::vector<std::string> keys;
      for (int n = 0; n < o_.nnodes; ++n) keys.push_back("left/" + std::to_string(n));
      const auto deadline = Clock::now() + seconds(o_.node_timeout_seconds);
      while (!store_->check(keys) && Clock::now() < deadline) std::this_thread::sleep_for(Milliseconds(50));
    } catch (const Error&) {
    }
  }

 private:
  const LaunchOptions& o_;
  std::string endpoint_;
  std::unique_ptr<TCPStore> store_;
  std::map<int, std::pair<int64_t, Clock::time_point>> seen_;  // node -> last heartbeat count, when it changed
  Clock::time_point next_poll_{};
};

// Starts local rank `local` of an attempt.
Rank start(const LaunchOptions& o, int local, int port, int attempt) {
  const int r = o.node_rank * o.nproc + local;
  int out[2], err[2];
  EMBER_CHECK(::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0, "ember-run: pipe failed: ",
              std::strerror(errno));
  std::vector<std::string> env_strings;
  auto skip = [](const char* e) {
    for (const char* k : {"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "LOCAL_WORLD_SIZE=", "GROUP_RANK=",
                          "GROUP_WORLD_SIZE=", "ROLE_RANK=", "ROLE_WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT=",
                          "EMBER_RESTART_COUNT=", "TORCHELASTIC_RESTART_COUNT=", "TORCHELASTIC_MAX_RESTARTS="})
      if (std::strncmp(e, k, std::strlen(k)) == 0) return true;
    return false;
  };
  for (char** e = environ; *e; ++e)
    if (!skip(*e)) env_strings.push_back(*e);
  const std::string world = std::to_string(o.nnodes * o.nproc);
  env_strings.push_back("RANK=" + std::to_string(r));
  env_strings.push_back("LOCAL_RANK=" + std::to_string(local));
  env_strings.push_back("WORLD_SIZE=" + world);
  env_strings.push_back("LOCAL_WORLD_SIZE=" + std::to_string(o.nproc));
  env_strings.push_back("GROUP_RANK=" + std::to_string(o.node_rank));
  env_strings.push_back("GROUP_WORLD_SIZE=" + std::to_string(o.nnodes));
  env_strings.push_back("ROLE_RANK=" + std::to_string(r));
  env_strings.push_back("ROLE_WORLD_SIZE=" + world);
  env_strings.push_back("MASTER_ADDR=" + o.master_addr);
  env_strings.push_back("MASTER_PORT=" + std::to_string(port));
  env_strings.push_back("EMBER_RESTART_COUNT=" + std::to_string(attempt));
  env_strings.push_back("TORCHELASTIC_RESTART_COUNT=" + std::to_string(attempt));
  env_strings.push_back("TORCHELASTIC_MAX_RESTARTS=" + std::to_string(o.max_restarts));
  if (!o.local_addr.empty()) {
    std::erase_if(env_strings, [](const std::string& e) { return e.rfind("EMBER_GLOO_HOSTNAME=", 0) == 0; });
    env_strings.push_back("EMBER_GLOO_HOSTNAME=" + o.local_addr);
  }
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = o.command;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  EMBER_CHECK(pid >= 0, "ember-run: fork failed: ", std::strerror(errno));
  if (pid == 0) {
    // A rank dies with its launcher (killed, or its node lost): none is left to hang in a collective.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != launcher) ::_exit(1);
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

// Runs one attempt; returns 0 or the first failure's code (on several nodes: any node's).
int run_attempt(const LaunchOptions& o, int attempt, Nodes* nodes) {
  int port = nodes ? nodes->join(attempt) : o.master_port > 0 ? o.master_port : free_port();
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
    say(why + (nodes ? "; stopping this node's ranks" : "; stopping the other ranks"));
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
      std::string prefix =
          o.prefix_output ? "[rank" + std::to_string(o.node_rank * o.nproc + owner[i].first) + "]: " : "";
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
      const std::string why = ::ember::detail::str("received signal ", sig);
      if (nodes && !stopping) nodes->report(attempt, "its launcher " + why, first_failure);
      stop_others(why);
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
      // On several nodes the cause may be on another one: its launcher reports it within the
      // same window, and that report is named instead.
      constexpr auto kSettle = std::chrono::milliseconds(300);
      auto by_signal = [&](int r) { return WIFSIGNALED(ranks[r].status); };
      auto now = std::chrono::steady_clock::now();
      if (settle_deadline == std::chrono::steady_clock::time_point::max()) settle_deadline = now + kSettle;
      const bool signalled = std::any_of(failed.begin(), failed.end(), by_signal);
      if (nodes && !signalled)
        if (auto remote = nodes->poll(attempt, /*now=*/true)) {
          first_failure = remote->second;
          failed.clear();
          stop_others(remote->first);
        }
      if (!stopping && (signalled || (!any_running && !nodes) || now >= settle_deadline)) {
        std::stable_partition(failed.begin(), failed.end(), by_signal);
        first_failure = exit_code(ranks[failed[0]].status);
        std::string why;
        for (int r : failed)
          why += ::ember::detail::str(why.empty() ? "" : "; ", "rank ", o.node_rank * o.nproc + r, " (pid ",
                                      ranks[r].pid, ") failed with ", describe(ranks[r].status));
        failed.clear();
        if (nodes) nodes->report(attempt, why, first_failure);
        stop_others(why);
      }
    }
    if (nodes && !stopping)
      if (auto remote = nodes->poll(attempt)) {
        first_failure = remote->second;
        stop_others(remote->first);
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
  if (nodes && first_failure == 0) return nodes->finish(attempt);
  return first_failure;
}

}  // namespace

int launch(const LaunchOptions& o) {
  EMBER_CHECK_VALUE(o.nproc >= 1, "ember-run: --nproc must be at least 1, got ", o.nproc);
  EMBER_CHECK_VALUE(o.nnodes >= 1 && o.node_rank >= 0 && o.node_rank < o.nnodes, "ember-run: --node-rank ", o.node_rank,
                    " is not a node of --nnodes ", o.nnodes);
  EMBER_CHECK_VALUE(!o.command.empty(), "ember-run: no program to run");
  EMBER_CHECK_VALUE(o.max_restarts >= 0, "ember-run: --max-restarts must be non-negative, got ",
                    o.max_restarts);
  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_signal;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  g_say_prefix = o.nnodes > 1 ? "ember-run (node " + std::to_string(o.node_rank) + "): " : "ember-run: ";
  int code = 0;
  try {
    std::unique_ptr<Nodes> nodes = o.nnodes > 1 ? std::make_unique<Nodes>(o) : nullptr;
    for (int attempt = 0;; ++attempt) {
      code = run_attempt(o, attempt, nodes.get());
      if (code == 0 || attempt >= o.max_restarts || code == 128 + SIGINT) break;
      say(::ember::detail::str("restarting the job (restart ", attempt + 1, " of ", o.max_restarts, ")"));
    }
    if (nodes) nodes->leave();
  } catch (...) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
    throw;
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return code;
}

}  // namespace ember::distributed
