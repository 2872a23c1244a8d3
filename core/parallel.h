#pragma once
// Ember's CPU threads: parallel_for splits a range over a process-wide pool of get_num_threads()
// threads, the caller being one of them. Small ranges run inline.
//
// The pool is built for machines that other work shares (a build, a data loader, a second job):
// tasks are claimed one at a time, so the caller runs every task that no worker has taken yet and
// never waits for a thread the OS has not scheduled; a worker spins only briefly after a job (the
// next op usually follows within microseconds) and then sleeps on a futex; a caller waiting for a
// worker's task yields its core. Nested calls (from inside a task) run inline.
//
//   ember::parallel_for(0, n, 32768, [&](int64_t lo, int64_t hi) { ... });
#include <algorithm>
#include <cstdint>

namespace ember {

/// Threads parallel_for uses, the caller included (default: OMP_NUM_THREADS if set, else the CPUs
/// this process may run on).
int get_num_threads();
/// Sets that number (at least 1); takes effect for the next parallel_for.
void set_num_threads(int threads);
/// True inside a parallel_for task (where nested calls run inline).
bool in_parallel_region();

namespace detail {
/// A non-owning reference to a callable taking the task index.
struct TaskRef {
  void* object;
  void (*call)(void*, int64_t);
  void operator()(int64_t task) const { call(object, task); }
};
/// Runs task(0) ... task(tasks - 1), each once, on the pool and the caller; returns when all are
/// done, rethrowing the first exception a task threw.
void run_tasks(int64_t tasks, TaskRef task);
}  // namespace detail

/// Calls f(lo, hi) on disjoint chunks covering [begin, end), in parallel when the range is at least
/// `grain` long (each chunk then at least about `grain`), there is more than one thread and the
/// caller is not itself inside a task.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
  const int64_t n = end - begin;
  const int threads = get_num_threads();
  if (n < grain || threads <= 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  const int64_t by_grain = grain > 0 ? (n + grain - 1) / grain : n;
  const int64_t chunks = std::clamp<int64_t>(by_grain, 2, threads);
  auto run = [&](int64_t c) {
    const int64_t lo = begin + n * c / chunks, hi = begin + n * (c + 1) / chunks;
    if (lo < hi) f(lo, hi);
  };
  detail::run_tasks(chunks, {const_cast<void*>(static_cast<const void*>(&run)),
                             [](void* o, int64_t c) { (*static_cast<decltype(run)*>(o))(c); }});
}

}  // namespace ember
