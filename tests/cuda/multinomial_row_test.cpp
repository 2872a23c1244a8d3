// Multinomial sampling as a CUDA thread draws one row (cuda/shared/multinomial_row.h), against the
// CPU kernel (core/cpu/sampling_kernel.cpp): the same samples for the same generator state, with
// and without replacement, with zero weights, past the positive weights, and from a state in the
// middle of a Philox block; and philox_uniform_double is the generator's uniform_double.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_util.h"
#include "ember/core/kernels/sampling.h"
#include "ember/core/philox.h"
#include "ember/cuda/shared/multinomial_row.h"

using namespace ember;

TEST(MultinomialRowTest, PhiloxUniformDoubleIsTheGeneratorsUniformDouble) {
  for (uint64_t start : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{6}}) {
    Generator g(11);
    g.set_state({11, start});
    for (uint64_t d = start; d < start + 200; d += 2) ASSERT_EQ(philox_uniform_double(11, d), g.uniform_double()) << d;
  }
}

TEST(MultinomialRowTest, EveryRowDrawsTheCpuKernelsSamples) {
  // Rows: uniform weights, zeros among them, one positive weight only, and skewed ones.
  const std::vector<double> w = {1, 1, 1, 1, 1, 1,  //
                                 0, 2, 0, 5, 0, 1,  //
                                 0, 0, 0, 3, 0, 0,  //
                                 1e-9, 1, 1e3, 0, 7, 2};
  const int64_t rows = 4, n = 6;
  const Tensor weights = tensor(w, {rows, n});
  for (bool replacement : {true, false})
    for (int64_t k : {int64_t{1}, int64_t{4}, int64_t{6}})
      for (uint64_t counter : {uint64_t{0}, uint64_t{3}, uint64_t{1001}}) {
        SCOPED_TRACE(std::string(replacement ? "with" : "without") + " replacement, k " + std::to_string(k) +
                     ", counter " + std::to_string(counter));
        Generator gen(77);
        gen.set_state({77, counter});
        const Tensor want = empty({rows, k}, kInt64);
        multinomial_stub(DeviceType::CPU, want, weights, k, replacement, gen);
        EXPECT_EQ(gen.get_state().counter, counter + 2 * static_cast<uint64_t>(rows * k));  // the CUDA kernel's step
        std::vector<int64_t> got(static_cast<size_t>(rows * k), -1);
        std::vector<double> cdf(static_cast<size_t>(n));
        std::vector<uint8_t> used(static_cast<size_t>(n));
        for (int64_t r = 0; r < rows; ++r)
          cuda::multinomial_row(w.data() + r * n, n, k, replacement, 77, counter + 2 * static_cast<uint64_t>(r * k),
                                cdf.data(), used.data(), got.data() + r * k);
        EXPECT_EQ(got, want.to_vector<int64_t>());
      }
}
