#include "ember/distributed/peers.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ember/core/error.h"
#include "ember/distributed/error.h"

namespace ember::distributed::detail {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// What /proc says of a process: its state letter ('\0' when there is no such process) and start.
struct ProcState {
  char state = '\0';
  uint64_t start = 0;
};

ProcState proc_state(int64_t pid) {
  ProcState st;
  std::string line = first_line("/proc/" + std::to_string(pid) + "/stat");
  size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return st;
  std::istringstream in(line.substr(close + 1));
  std::string field;
  in >> st.state;
  for (int i = 4; i < 22 && in >> field; ++i) {
  }
  in >> st.start;  // field 22: starttime
  return st;
}

// Whether `message` holds `endpoint` as a whole ("[10.0.0.1]:4123" is not in "...:41234").
bool names_endpoint(const std::string& message, const std::string& endpoint) {
  for (size_t at = message.find(endpoint); at != std::string::npos; at = message.find(endpoint, at + 1)) {
    size_t end = at + endpoint.size();
    if (end == message.size() || !std::isdigit(static_cast<unsigned char>(message[end]))) return true;
  }
  return false;
}

bool is_timeout(const std::string& message) {
  std::string lower = message;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("timed out") != std::string::npos || lower.find("timeout") != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

Peers::Peer Peers::self() {
  Peer p;
  p.pid = ::getpid();
  std::string boot = first_line("/proc/sys/kernel/random/boot_id");
  char ns[128] = {0};
  ssize_t n = ::readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
  if (!boot.empty() && n > 0) p.machine = boot + "/" + std::string(ns, static_cast<size_t>(n));
  p.start = proc_state(p.pid).start;
  return p;
}

std::shared_ptr<const Peers> Peers::exchange(Store& store, int rank, int size,
                                             const std::vector<std::vector<std::string>>& ends) {
  // Lines: pid, machine, start, then this rank's ends toward each rank (space-separated).
  Peer me = self();
  std::string value = ::ember::detail::str(me.pid, "\n", me.machine, "\n", me.start, "\n");
  for (int r = 0; r < size; ++r) {
    std::string line;
    if (r < static_cast<int>(ends.size()))
      for (const std::string& e : ends[r]) line += (line.empty() ? "" : " ") + e;
    value += line + "\n";
  }
  store.set("peers/" + std::to_string(rank), value);
  std::vector<Peer> peers(size);
  peers[rank] = me;
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    std::vector<std::string> lines = lines_of(store.get("peers/" + std::to_string(r)));
    Peer& p = peers[r];
    if (lines.size() < 3) continue;
    p.pid = std::atoll(lines[0].c_str());
    p.machine = lines[1];
    p.start = std::strtoull(lines[2].c_str(), nullptr, 10);
    if (lines.size() > static_cast<size_t>(3 + rank)) {
      std::istringstream in(lines[3 + rank]);
      for (std::string e; in >> e;) p.endpoints.push_back(e);
    }
  }
  return std::make_shared<const Peers>(rank, std::move(peers));
}

std::string Peers::suspects(const std::string& message, bool timed_out) const {
  const Peer& me = peers_[rank_];
  std::vector<std::string> clauses;
  std::vector<bool> named(peers_.size(), false);
  for (size_t r = 0; r < peers_.size(); ++r) {
    const Peer& p = peers_[r];
    if (static_cast<int>(r) == rank_ || p.pid <= 0 || p.machine.empty() || p.machine != me.machine ||
        p.pid == me.pid)
      continue;
    ProcState st = proc_state(p.pid);
    if (st.state == '\0' || st.state == 'Z' || st.state == 'X' || (p.start && st.start != p.start)) {
      clauses.push_back(::ember::detail::str("rank ", r, " (pid ", p.pid, ") has exited"));
      named[r] = true;
    } else if (st.state == 'T' || st.state == 't') {
      clauses.push_back(::ember::detail::str("rank ", r, " (pid ", p.pid, ") is stopped (SIGSTOP, or a debugger)"));
      named[r] = true;
    }
  }
  for (size_t r = 0; r < peers_.size(); ++r) {
    if (static_cast<int>(r) == rank_) continue;
    for (const std::string& e : peers_[r].endpoints) {
      if (!names_endpoint(message, e)) continue;
      clauses.push_back(::ember::detail::str("lost the connection to rank ", r, " (", e, ")"));
      break;
    }
  }
  if (clauses.empty() && timed_out) {
    std::vector<int> others;
    for (size_t r = 0; r < peers_.size(); ++r)
      if (static_cast<int>(r) != rank_) others.push_back(static_cast<int>(r));
    if (others.size() == 1)
      clauses.push_back(::ember::detail::str("rank ", others[0], " did not answer (stopped, hung, or busy elsewhere)"));
    else if (!others.empty()) {
      std::string list;
      for (size_t i = 0; i < others.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(others[i]);
      if (others.size() > 8) list += ::ember::detail::str(" and ", others.size() - 8, " more");
      clauses.push_back("one of ranks " + list + " did not answer (stopped, hung, or busy elsewhere)");
    }
  }
  std::string out;
  for (const std::string& c : clauses) out += (out.empty() ? "" : "; ") + c;
  return out;
}

std::string Peers::explain(const std::string& what, const std::string& message, const std::string& backend) const {
  std::string who = suspects(message, is_timeout(message));
  return what + ": " + (who.empty() ? "" : who + " ") + "(" + backend + ": " + message + ")";
}

}  // namespace ember::distributed::detail
