#include "ember/distributed/rendezvous.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "ember/core/error.h"
#include "ember/distributed/error.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;

const std::string kPrefix = "rendezvous/";

std::string this_host() {
  char name[256] = {0};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// What a rank publishes: "world_size=<n> pid=<p> host=<h>".
struct RankInfo {
  int world_size = -1;
  std::string process;  // "pid <p> on <host>"
};

RankInfo parse(const std::string& value) {
  RankInfo info;
  std::istringstream in(value);
  std::string field, pid = "?", host = "?";
  while (in >> field) {
    size_t eq = field.find('=');
    if (eq == std::string::npos) continue;
    std::string k = field.substr(0, eq), v = field.substr(eq + 1);
    if (k == "world_size") info.world_size = std::atoi(v.c_str());
    if (k == "pid") pid = v;
    if (k == "host") host = v;
  }
  info.process = "pid " + pid + " on " + host;
  return info;
}

// "1, 2, 3" (at most `limit` of them, then how many more).
std::string rank_list(const std::vector<int>& ranks, size_t limit = 16) {
  std::string out;
  for (size_t i = 0; i < ranks.size() && i < limit; ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > limit) out += ::ember::detail::str(" and ", ranks.size() - limit, " more");
  return out;
}

class Meeting {
 public:
  Meeting(Store& store, int rank, int world_size, Milliseconds timeout)
      : store_(store), rank_(rank), size_(world_size), timeout_(timeout),
        deadline_(Clock::now() + timeout) {}

  void run() {
    try {
      meet();
    } catch (const StoreError& e) {
      if (std::string(e.what()).rfind("init_process_group", 0) == 0) throw;
      throw StoreError(::ember::detail::str(
          "init_process_group: rank ", rank_, " lost the rendezvous store while waiting for the other ranks (a "
          "TCP store leaves with rank 0, which may have failed first: see its error): ", e.what()));
    }
  }

 private:
  void meet() {
    const std::string me = ::ember::detail::str("pid ", ::getpid(), " on ", this_host());
    if (store_.add(key("claim/", rank_), 1) > 1) {
      // The first claimer publishes rank/<r> right after its claim: wait for it a moment.
      std::string other = "another process";
      poll_until([&] { return store_.check({key("rank/", rank_)}); },
                 std::min(deadline_, Clock::now() + std::chrono::seconds(1)), /*fail_on_timeout=*/false);
      if (store_.check({key("rank/", rank_)})) other = parse(store_.get(key("rank/", rank_))).process;
      fail('V', ::ember::detail::str("init_process_group: two processes claim rank ", rank_, " (", other, " and ",
                                     me, "); give each process its own RANK"));
    }
    store_.set(key("rank/", rank_), ::ember::detail::str("world_size=", size_, " pid=", ::getpid(),
                                                         " host=", this_host()));
    if (rank_ != 0) {
      poll_until([&] { return store_.check({key("rank/", 0)}); }, deadline_);
      RankInfo root = parse(store_.get(key("rank/", 0)));
      if (root.world_size != size_)
        fail('V', ::ember::detail::str("init_process_group: the ranks disagree on WORLD_SIZE: rank ", rank_,
                                       " says WORLD_SIZE=", size_, ", rank 0 says ", root.world_size));
    }
    store_.add(kPrefix + "joined", 1);
    poll_until([&] { return store_.add(kPrefix + "joined", 0) >= size_; }, deadline_);
  }

  std::string key(const char* what, int r) const { return kPrefix + what + std::to_string(r); }

  // Publishes `message` for the ranks waiting and throws it here: kind 'V' a ValueError (the ranks
  // disagree), 'S' a StoreError (a timeout).
  [[noreturn]] void fail(char kind, const std::string& message) {
    store_.set(kPrefix + "abort", kind + message);
    // NB: the others poll at least every 50 ms: time to read it before this rank leaves (and takes
    // a TCP store with it, when it is rank 0).
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    throw_as(kind, message);
  }

  [[noreturn]] static void throw_as(char kind, const std::string& message) {
    if (kind == 'S') throw StoreError(message);
    throw ValueError(message);
  }

  // Polls `done` (and the abort key) with a growing pause until `deadline`; then throws the
  // timeout unless told not to (and returns).
  template <typename Done>
  void poll_until(Done done, Clock::time_point deadline, bool fail_on_timeout = true) {
    auto pause = std::chrono::microseconds(500);
    for (;;) {
      if (store_.check({kPrefix + "abort"})) {
        std::string abort = store_.get(kPrefix + "abort");
        throw_as(abort.empty() ? 'V' : abort[0], abort.substr(std::min<size_t>(1, abort.size())));
      }
      if (done()) return;
      if (Clock::now() >= deadline) {
        if (fail_on_timeout) timed_out();
        return;
      }
      std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - Clock::now()));
      pause = std::min(pause * 2, std::chrono::microseconds(50000));
    }
  }

  [[noreturn]] void timed_out() {
    std::vector<int> missing;
    for (int r = 0; r < size_; ++r)
      if (!store_.check({key("claim/", r)})) missing.push_back(r);
    fail('S', ::ember::detail::str(
        "init_process_group: timed out after ", timeout_.count(),
        " ms waiting for the ranks to join: ", size_ - static_cast<int>(missing.size()), " of ", size_,
        " joined; missing: ", missing.empty() ? "none (a rank is stuck joining)"
                                                  : (missing.size() == 1 ? "rank " : "ranks ") + rank_list(missing),
        ". Is every rank started, with the same init_method (MASTER_ADDR, MASTER_PORT) and WORLD_SIZE? "
        "(init_process_group's timeout sets how long to wait)"));
  }

  Store& store_;
  int rank_, size_;
  Milliseconds timeout_;
  Clock::time_point deadline_;
};

}  // namespace

void rendezvous(Store& store, int rank, int world_size, Milliseconds timeout) {
  EMBER_CHECK_VALUE(world_size >= 1 && rank >= 0 && rank < world_size, "rendezvous: rank ", rank,
                    " is not in [0, ", world_size, ")");
  Meeting(store, rank, world_size, timeout).run();
}

}  // namespace ember::distributed
