// The Philox stream the CUDA dropout kernel draws from (core/philox.h): draw d of philox_u32 is
// the generator's d-th 32-bit draw, and the mask of element i, from draw counter + i, is the CPU
// kernel's mask bit for bit, at any starting counter (mid-block included).
#include <gtest/gtest.h>

#include "ember/core/kernels/dropout.h"
#include "ember/core/philox.h"
#include "ember/ember.h"

using namespace ember;

TEST(PhiloxTest, DrawNumberDIsTheGeneratorsDthDraw) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{42}, uint64_t{0x853c49e6748fea9b}, ~uint64_t{0}})
    for (uint64_t start : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{4}, uint64_t{1} << 32, (uint64_t{1} << 34) - 2}) {
      Generator g(seed);
      g.set_state({seed, start});
      for (uint64_t d = start; d < start + 37; ++d) ASSERT_EQ(philox_u32(seed, d), g.next_u32()) << seed << " " << d;
    }
}

TEST(PhiloxTest, UniformFloatIsTheGeneratorsUniformFloat) {
  Generator g(7);
  g.set_state({7, 5});
  for (uint64_t d = 5; d < 1000; ++d) ASSERT_EQ(philox_uniform_float(7, d), g.uniform_float()) << d;
}

TEST(PhiloxTest, DropoutMaskFromDrawCounterPlusIIsTheCpuKernelsBitForBit) {
  for (DType t : {kFloat32, kFloat64})
    for (uint64_t counter : {uint64_t{0}, uint64_t{6}, uint64_t{123457}}) {
      const double p = 0.3;
      const int64_t n = 5000;  // past the CPU kernel's parallel grain: several chunks
      Generator gen(99);
      gen.set_state({99, counter});
      const Tensor in = ones({n}, t), out = empty({n}, t), mask = empty({n}, t);
      dropout_stub(DeviceType::CPU, out, mask, in, p, gen);
      EXPECT_EQ(gen.get_state().counter, counter + static_cast<uint64_t>(n));  // one draw per element
      const std::vector<double> m = mask.to_vector<double>();
      const float keep = static_cast<float>(1.0 - p);
      const double scale = t == kFloat32 ? static_cast<double>(static_cast<float>(1.0 / (1.0 - p))) : 1.0 / (1.0 - p);
      for (int64_t i = 0; i < n; ++i) {
        // The CUDA kernel's rule (cuda/kernels/pointwise.cu): draw counter + i below keep.
        const double want = philox_uniform_float(99, counter + static_cast<uint64_t>(i)) < keep ? scale : 0.0;
        ASSERT_EQ(m[static_cast<size_t>(i)], want) << "element " << i << " from counter " << counter;
      }
    }
}
