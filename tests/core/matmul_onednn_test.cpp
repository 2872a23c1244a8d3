// oneDNN's matmul path for 16-bit products (core/cpu/matmul_onednn.h). Some of this project's
// machines have no bfloat16 instructions (AVX2 only), and there the bfloat16 path does not run; its
// code is checked here through float32 too, which takes the same path on any machine: each layout gemm()
// accepts (row-major, column-major, wide leading dimensions, size-1 dims with free strides) and the
// thread split, against gemm(). Where the machine has the instructions, bfloat16 products are
// checked against the widened ones.
#include <gtest/gtest.h>

#include <vector>

#include "ember/core/cpu/matmul_onednn.h"
#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_close;

namespace {

struct Layout {
  bool row_major;
  int64_t pad;  // extra leading-dimension elements
};

// A rows x cols matrix with `layout` in `storage`, values from `seed`.
cpu::MatrixRef<float> make(int64_t rows, int64_t cols, Layout layout, std::vector<float>& storage, uint64_t seed) {
  const int64_t ld = (layout.row_major ? cols : rows) + layout.pad;
  const int64_t outer = layout.row_major ? rows : cols;
  storage.assign(static_cast<size_t>(std::max<int64_t>(outer * ld, 1)), 0.0f);
  Generator gen(seed);
  Tensor values = randn({static_cast<int64_t>(storage.size())}, kFloat32, &gen);
  std::copy_n(values.data_ptr<float>(), storage.size(), storage.begin());
  return layout.row_major ? cpu::MatrixRef<float>{storage.data(), rows, cols, ld, 1}
                          : cpu::MatrixRef<float>{storage.data(), rows, cols, 1, ld};
}

}  // namespace

TEST(OnednnMatmulTest, Float32TakesThePathAndMatchesGemmInEveryLayout) {
  ASSERT_TRUE(cpu::onednn_matmul_native(kFloat32));
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1}, {3, 5, 7}, {17, 1, 33}, {1, 9, 4},
                                                      {64, 48, 80}, {300, 40, 20}, {20, 40, 300}, {250, 128, 70}};
  int checked = 0, declined = 0;
  for (const auto& [m, k, n] : shapes)
    for (bool a_rows : {true, false})
      for (bool b_rows : {true, false})
        for (int64_t pad : {0, 3}) {
          std::vector<float> as, bs;
          auto a = make(m, k, {a_rows, pad}, as, 1), b = make(k, n, {b_rows, pad}, bs, 2);
          const int64_t ldc = n + pad;
          std::vector<float> got(static_cast<size_t>(m * ldc), -1.0f), want(got);
          if (!cpu::onednn_matmul(kFloat32, {a.data, m, k, a.row_stride, a.col_stride},
                                         {b.data, k, n, b.row_stride, b.col_stride}, got.data(), ldc)) {
            // oneDNN's optimised kernels decline some vector-shaped operands with padded strides; the
            // caller widens those, so only they may be declined
            EXPECT_TRUE(m == 1 || k == 1 || n == 1) << "declined " << m << "x" << k << "x" << n;
            ++declined;
            continue;
          }
          cpu::gemm<float>(a, b, want.data(), ldc, false);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < ldc; ++j) {
              const float w = want[static_cast<size_t>(i * ldc + j)], g = got[static_cast<size_t>(i * ldc + j)];
              if (j >= n) {
                EXPECT_EQ(g, -1.0f) << "wrote past the row at " << i << ", " << j;
                continue;
              }
              EXPECT_NEAR(g, w, 1e-5f * (1.0f + std::abs(w))) << m << "x" << k << "x" << n << " at " << i << ", " << j;
            }
          ++checked;
        }
  EXPECT_EQ(checked + declined, 64);
  EXPECT_GE(checked, 56);
}

TEST(OnednnMatmulTest, Bfloat16ProductsAgreeWithWidenedOnesWhereTheMachineHasThem) {
  Generator gen(3);
  Tensor a = randn({2, 37, 64}, kFloat32, &gen).to(kBFloat16), b = randn({64, 50}, kFloat32, &gen).to(kBFloat16);
  Tensor got = matmul(a, b);
  Tensor want = matmul(a.to(kFloat32), b.to(kFloat32));
  EXPECT_EQ(got.dtype(), kBFloat16);
  // the float32 sums round once either way; their order may move a result to the next bfloat16
  expect_close(got.to(kFloat32), want, 1.0 / 128, 1e-2, cpu::onednn_matmul_native(kBFloat16) ? "oneDNN" : "widened");
  if (!cpu::onednn_matmul_native(kBFloat16)) GTEST_SKIP() << "no bfloat16 instructions here: the widened path ran";
}

// The blocks of one product run the same primitive on several threads at once. oneDNN's own
// scratchpad is one buffer per primitive, where its bfloat16 kernels accumulate: at 2 threads these
// products came out wrong by more than their magnitude, differently each run (AVX512_BF16, Zen 4).
TEST(OnednnMatmulTest, Bfloat16ProductsSplitOverThreadsMatchTheOneThreadProduct) {
  const int before = get_num_threads();
  Generator gen(5);
  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{64, 128, 384}, {1024, 128, 512}, {2048, 128, 64}}) {
    Tensor a = randn({m, k}, kFloat32, &gen).to(kBFloat16), b = randn({k, n}, kFloat32, &gen).to(kBFloat16);
    set_num_threads(1);
    Tensor alone = matmul(a, b);
    set_num_threads(2);
    for (int run = 0; run < 4; ++run) {
      Tensor split = matmul(a, b);
      // the same blocks' sums in the same order: the same bits
      ASSERT_TRUE(ember::testing::same_bits(split, alone)) << m << "x" << k << "x" << n << ", run " << run;
    }
    expect_close(alone.to(kFloat32), matmul(a.to(kFloat32), b.to(kFloat32)), 1.0 / 128, 1e-2,
                 std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
  }
  set_num_threads(before);
}
