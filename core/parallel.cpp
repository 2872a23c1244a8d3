// The pool behind parallel_for (core/parallel.h).
//
// One job at a time: the caller that publishes it holds `submit_`. The job's tasks are claimed
// from `state_`, which packs the job's id with the next task index, by compare-and-swap, so a
// worker that wakes late (its job long finished, a newer one published) can never take a task of a
// job whose function it did not read. The caller claims tasks like the workers, so tasks nobody
// else has started run on the caller, and it waits only for tasks that workers are running.
#include "ember/core/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "ember/core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EMBER_CPU_RELAX() _mm_pause()
#else
#define EMBER_CPU_RELAX() ((void)0)
#endif

namespace ember {
namespace {

thread_local bool t_in_task = false;

// Marks the current thread as running a task (nested parallel_for calls then run inline) for
// the guard's lifetime, exceptions included.
class InTask {
 public:
  InTask() : outer_(t_in_task) { t_in_task = true; }
  ~InTask() { t_in_task = outer_; }
  InTask(const InTask&) = delete;
  InTask& operator=(const InTask&) = delete;

 private:
  bool outer_;
};

int default_threads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n >= 1) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// How long an idle worker polls for the next job before it sleeps: of the order of a sleep and
// wake-up's cost, so polling never costs much more than sleeping at once would have. Longer polls
// buy nothing on a quiet machine (a training step's jobs follow each other within microseconds)
// and cost on a busy one, where every microsecond polled comes out of this process's share of the
// cores (bench/README.md, 2026-11-27: with 500 us, the contended CNN step was 11-30% slower).
constexpr auto kWorkerSpin = std::chrono::microseconds(50);
// A caller that waits this long for a worker's task, and longer than its own share of the job
// took, has met a worker the OS descheduled (other processes hold the cores): jobs then run on the
// caller alone for a while, first kBackoffMin, doubling up to kBackoffMax while stalls recur; a job
// without a stall resets it. (Without the second condition, jobs of a few milliseconds whose
// tasks differ by a millisecond, as a ResNet's convolutions, ran alone on a quiet machine.)
constexpr auto kStall = std::chrono::microseconds(1000);
constexpr auto kBackoffMin = std::chrono::milliseconds(10);
constexpr auto kBackoffMax = std::chrono::milliseconds(1000);

class Pool {
 public:
  static Pool& get() {
    // NB: never destroyed: workers may still be parked when static destructors run at exit.
    static Pool* pool = new Pool();
    return *pool;
  }

  int threads() const { return threads_.load(std::memory_order_relaxed); }
  void set_threads(int n) { threads_.store(n, std::memory_order_relaxed); }

  void run(int64_t tasks, detail::TaskRef task) {
    // Another thread's job is running (a data loader thread, a second model): run this one inline
    // rather than wait for the pool.
    std::unique_lock<std::mutex> lock(submit_, std::try_to_lock);
    if (!lock.owns_lock() || Clock::now() < serial_until_) {
      run_inline(tasks, task);
      return;
    }
    ensure_workers(static_cast<int>(std::min<int64_t>(tasks, threads())) - 1);
    // Publish: the function first, then the state that makes its tasks claimable.
    const uint64_t id = (state_.load(std::memory_order_relaxed) >> 32) + 1;
    object_.store(task.object, std::memory_order_relaxed);
    call_.store(task.call, std::memory_order_relaxed);
    tasks_.store(tasks, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    state_.store(id << 32, std::memory_order_release);
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) epoch_.notify_all();

    const Clock::time_point started = Clock::now();
    work_on(id);
    const Clock::duration own = Clock::now() - started;
    // Wait for the tasks workers took; yield so that a descheduled worker can finish.
    Clock::time_point waited_from{};
    for (int spins = 0; finished_.load(std::memory_order_acquire) < tasks; ++spins) {
      if (spins < 64) {
        EMBER_CPU_RELAX();
      } else {
        if (spins == 64) waited_from = Clock::now();
        sched_yield();
      }
    }
    if (waited_from != Clock::time_point{} && Clock::now() - waited_from > std::max<Clock::duration>(kStall, own)) {
      backoff_ = std::clamp<Clock::duration>(2 * backoff_, kBackoffMin, kBackoffMax);
      serial_until_ = Clock::now() + backoff_;
    } else {
      backoff_ = Clock::duration::zero();
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Pool() : threads_(default_threads()) {}

  void ensure_workers(int wanted) {
    for (; workers_ < wanted; ++workers_) std::thread([this] { worker_loop(); }).detach();
  }

  static void run_inline(int64_t tasks, detail::TaskRef task) {
    InTask in_task;
    for (int64_t i = 0; i < tasks; ++i) task(i);
  }

  // Claims and runs tasks of job `id` until none is left to claim.
  void work_on(uint64_t id) {
    for (;;) {
      uint64_t s = state_.load(std::memory_order_acquire);
      if ((s >> 32) != id) return;
      // Read under the id just checked; the CAS below fails if the job changed meanwhile.
      const detail::TaskRef task{object_.load(std::memory_order_relaxed), call_.load(std::memory_order_relaxed)};
      const int64_t tasks = tasks_.load(std::memory_order_relaxed);
      const int64_t index = static_cast<int64_t>(s & 0xffffffffu);
      if (index >= tasks) return;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) continue;
      try {
        InTask in_task;
        task(index);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      finished_.fetch_add(1, std::memory_order_release);
    }
  }

  void worker_loop() {
    uint32_t seen = epoch_.load(std::memory_order_acquire);
    for (;;) {
      auto until = std::chrono::steady_clock::now() + kWorkerSpin;
      uint32_t now = seen;
      for (int i = 0; (now = epoch_.load(std::memory_order_acquire)) == seen; ++i) {
        EMBER_CPU_RELAX();
        if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) {
          sleepers_.fetch_add(1, std::memory_order_seq_cst);
          epoch_.wait(seen, std::memory_order_seq_cst);
          sleepers_.fetch_sub(1, std::memory_order_seq_cst);
          until = std::chrono::steady_clock::now() + kWorkerSpin;
        }
      }
      seen = now;
      work_on(state_.load(std::memory_order_acquire) >> 32);
    }
  }

  using Clock = std::chrono::steady_clock;
  std::atomic<int> threads_;
  std::mutex submit_;  // one job at a time
  // Contention backoff (see kStall); read and written under submit_.
  Clock::time_point serial_until_{};
  Clock::duration backoff_{};
  int workers_ = 0;  // detached threads, parked in worker_loop
  // The current job: written only by the submitting thread, before its tasks are claimable.
  std::atomic<void*> object_{nullptr};
  std::atomic<void (*)(void*, int64_t)> call_{nullptr};
  std::atomic<int64_t> tasks_{0};
  std::exception_ptr error_;
  std::mutex error_mutex_;
  std::atomic<uint64_t> state_{0};  // job id << 32 | next task index
  std::atomic<int64_t> finished_{0};
  std::atomic<uint32_t> epoch_{0};   // bumped per job; idle workers wait on it
  std::atomic<int> sleepers_{0};
};

}  // namespace

int get_num_threads() { return Pool::get().threads(); }

void set_num_threads(int threads) {
  EMBER_CHECK_VALUE(threads >= 1, "set_num_threads: expected at least 1 thread, got ", threads);
  Pool::get().set_threads(threads);
}

bool in_parallel_region() { return t_in_task; }

namespace detail {
void run_tasks(int64_t tasks, TaskRef task) {
  EMBER_CHECK_VALUE(tasks < (int64_t{1} << 31), "parallel_for: ", tasks, " tasks are more than a job can hold");
  Pool::get().run(tasks, task);
}
}  // namespace detail

}  // namespace ember
