#pragma once
// What the *_CUDA suites share: the differential check in the style of ggml's test-backend-ops.
// A case builds its inputs from leaves through views (transposes, steps, expansion), runs the op on
// the CPU and on cuda:0 from the same leaf values, and compares the outputs and then the gradients
// that one upstream gradient gives every leaf. The suites run only where a GPU is present
// (tests/test_main.cpp filters out *_CUDA tests otherwise; EMBER_REQUIRE_CUDA=1 makes that a failure).
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

namespace ember::cuda_test {

using Inputs = std::vector<Tensor>;

struct Case {
  std::string name;
  Inputs leaves;                                         // CPU leaves; floating ones get gradients
  std::function<Inputs(const Inputs&)> views = nullptr;  // leaves -> op inputs, on either device
  std::function<Tensor(const Inputs&)> op;
  double rtol = 1e-10, atol = 1e-10;
  bool backward = true;
};

inline const Device kGpu = Device::cuda(0);

/// Runs `c` on both devices and compares outputs and leaf gradients.
inline void check(const Case& c, uint64_t seed = 1) {
  SCOPED_TRACE(c.name);
  auto leaves_on = [&](Device d) {
    Inputs out;
    for (const Tensor& l : c.leaves) {
      Tensor t = l.to(d).detach();
      if (d.is_cpu()) t = t.clone().detach();
      if (c.backward && t.is_floating_point()) t.set_requires_grad();
      out.push_back(t);
    }
    return out;
  };
  const Inputs cpu = leaves_on(Device::cpu()), gpu = leaves_on(kGpu);
  const Tensor want = c.op(c.views ? c.views(cpu) : cpu);
  const Tensor got = c.op(c.views ? c.views(gpu) : gpu);
  ASSERT_TRUE(got.device() == kGpu) << "the output is on " << got.device();
  testing::expect_close(got.to(Device::cpu()), want, c.rtol, c.atol, "forward");
  if (!c.backward || !want.is_floating_point() || !want.requires_grad()) return;
  Generator gen(seed);
  const Tensor g = randn(want.sizes(), want.dtype(), &gen);
  want.backward(g);
  got.backward(g.to(kGpu));
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (!cpu[i].requires_grad()) continue;
    const Tensor& gc = cpu[i].grad();
    const Tensor& gg = gpu[i].grad();
    ASSERT_EQ(gc.defined(), gg.defined()) << "gradient of leaf " << i;
    if (!gc.defined()) continue;
    EXPECT_TRUE(gg.device() == kGpu) << "gradient of leaf " << i << " is on " << gg.device();
    testing::expect_close(gg.to(Device::cpu()), gc, c.rtol, c.atol, "gradient of leaf " + std::to_string(i));
  }
}

/// Uniform values in [lo, hi) of `shape` (float64 unless told).
inline Tensor uniform(IntArrayRef shape, double lo, double hi, uint64_t seed, DType dtype = kFloat64) {
  Generator gen(seed);
  return (rand(shape, kFloat64, &gen) * (hi - lo) + lo).to(dtype);
}

/// The layouts every elementwise family is run on: name, leaf shape, the view of it the op gets.
struct Layout {
  std::string name;
  DimVector leaf;
  std::function<Tensor(const Tensor&)> view;
};
inline std::vector<Layout> layouts() {
  return {
      {"contiguous", {3, 7}, [](const Tensor& t) { return t; }},
      {"transposed", {7, 3}, [](const Tensor& t) { return t.t(); }},
      {"stepped", {3, 14}, [](const Tensor& t) { return t.slice(1, 0, 14, 2); }},
      {"expanded", {1, 7}, [](const Tensor& t) { return t.expand({3, 7}); }},
      {"permuted 4-d", {2, 3, 4, 5}, [](const Tensor& t) { return t.permute({2, 0, 3, 1}); }},
      {"0-d", {}, [](const Tensor& t) { return t; }},
      {"empty", {0, 5}, [](const Tensor& t) { return t; }},
      {"large", {70001}, [](const Tensor& t) { return t; }},  // many blocks: the grid-stride loop
  };
}

}  // namespace ember::cuda_test
