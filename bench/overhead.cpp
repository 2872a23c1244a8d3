// Per-op overhead of the autograd tape on tiny tensors, and the 1024x1024 matmul, for Ember or
// (built with -DBENCH_TORCH) libtorch: the same loops through a thin adapter, so both sides do the
// same work. Prints "name value unit" lines that bench/run.sh turns into a ratio table.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef BENCH_TORCH
#include <torch/torch.h>
namespace lib {
using Tensor = torch::Tensor;
inline Tensor leaf(std::vector<int64_t> shape) { return torch::rand(shape).requires_grad_(true); }
inline Tensor data(std::vector<int64_t> shape) { return torch::rand(shape); }
using NoGrad = torch::NoGradGuard;
inline void set_threads(int n) { torch::set_num_threads(n); }
constexpr const char* kName = "libtorch";
}  // namespace lib
#else
#include <omp.h>

#include <ember/ember.h>
namespace lib {
using Tensor = ember::Tensor;
inline Tensor leaf(std::vector<int64_t> shape) { return ember::rand(shape).set_requires_grad(); }
inline Tensor data(std::vector<int64_t> shape) { return ember::rand(shape); }
using NoGrad = ember::NoGradGuard;
inline void set_threads(int n) { omp_set_num_threads(n); }
constexpr const char* kName = "ember";
}  // namespace lib
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs f repeatedly for about `budget` seconds (after a warm-up) and returns seconds per call,
// the best of 5 rounds.
template <typename F>
double time_per_call(F&& f, double budget = 0.3) {
  for (int i = 0; i < 3; ++i) f();
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    int64_t calls = 0;
    auto t0 = Clock::now();
    while (seconds_since(t0) < budget / 5) {
      f();
      ++calls;
    }
    best = std::min(best, seconds_since(t0) / static_cast<double>(calls));
  }
  return best;
}

void report(const char* name, double value, const char* unit) {
  std::printf("%s %s %.4g %s\n", lib::kName, name, value, unit);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  lib::set_threads(threads);
  std::printf("%s threads %d\n", lib::kName, threads);

  // Forward only: one multiply of two [4] tensors that require grad (records a node).
  {
    lib::Tensor a = lib::leaf({4}), b = lib::leaf({4});
    constexpr int kOps = 100;
    double t = time_per_call([&] {
      for (int i = 0; i < kOps; ++i) {
        lib::Tensor c = a * b;
      }
    });
    report("op_forward", t / kOps * 1e6, "us/op");
  }
  // Forward + backward: a chain of 64 multiplies, then sum and backward.
  {
    lib::Tensor x = lib::leaf({4}), w = lib::leaf({4});
    constexpr int kOps = 64;
    double t = time_per_call([&] {
      lib::Tensor y = x;
      for (int i = 0; i < kOps; ++i) y = y * w;
      y.sum().backward();
    });
    report("op_forward_backward", t / (kOps + 1) * 1e6, "us/op");
  }
  // A 100,000-op chain: backward time per op (the forward is not timed).
  {
    lib::Tensor x = lib::leaf({1});
    lib::Tensor s = lib::data({1});
    constexpr int kOps = 100000;
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
      lib::Tensor y = x;
      for (int i = 0; i < kOps; ++i) y = y * s;
      lib::Tensor loss = y.sum();
      auto t0 = Clock::now();
      loss.backward();
      best = std::min(best, seconds_since(t0));
    }
    report("chain100k_backward", best / kOps * 1e6, "us/op");
  }
#ifndef BENCH_NO_MATMUL
  // 1024 x 1024 float32 matmul.
  {
    lib::NoGrad no_grad;
    lib::Tensor a = lib::data({1024, 1024}), b = lib::data({1024, 1024});
    double t = time_per_call([&] { lib::Tensor c = a.matmul(b); }, 1.5);
    report("matmul1024", 2.0 * 1024 * 1024 * 1024 / t / 1e9, "GFLOP/s");
  }
#endif
  return 0;
}
