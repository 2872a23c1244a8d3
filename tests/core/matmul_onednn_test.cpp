// oneDNN's matmul path (core/cpu/matmul_onednn.h): 16-bit products, and the float32 products gemm()
// hands it (a column-major right operand with a long k, on AVX-512). Some of this project's
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

// gemm() hands float products with a column-major right operand and a long k to the matmul
// primitive on AVX-512 machines (oneDNN's sgemm is slow there, gemm.cpp); with accumulate it adds
// onto c (a convolution's weight gradient sums its samples so). Against a float64 sum, in every
// layout of a, with a padded c, both ways, and at 1 and 2 threads.
TEST(OnednnMatmulTest, GemmWithAColumnMajorRightOperandAddsOntoCWhenAsked) {
  const std::vector<std::array<int64_t, 3>> shapes = {
      {16, 1024, 32}, {3, 300, 257}, {64, 512, 64}, {96, 1024, 16}, {40, 256, 2}};
  const int threads = get_num_threads();
  for (int t : {1, 2}) {
    set_num_threads(t);
    for (const auto& [m, k, n] : shapes)
      for (bool a_rows : {true, false})
        for (bool accumulate : {false, true}) {
          std::vector<float> as, bs;
          auto a = make(m, k, {a_rows, 1}, as, 3), b = make(k, n, {false, 2}, bs, 4);
          const int64_t ldc = n + 1;
          std::vector<float> c(static_cast<size_t>(m * ldc));
          for (size_t i = 0; i < c.size(); ++i) c[i] = 0.25f * static_cast<float>(i % 7);
          const std::vector<float> before = c;
          cpu::gemm<float>(a, b, c.data(), ldc, accumulate);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < ldc; ++j) {
              const size_t at = static_cast<size_t>(i * ldc + j);
              if (j >= n) {
                EXPECT_EQ(c[at], before[at]) << "wrote past the row at " << i << ", " << j;
                continue;
              }
              double want = accumulate ? before[at] : 0.0, scale = 0.0;
              for (int64_t p = 0; p < k; ++p) {
                const double x = a.data[i * a.row_stride + p * a.col_stride],
                             y = b.data[p * b.row_stride + j * b.col_stride];
                want += x * y;
                scale += std::abs(x * y);
              }
              EXPECT_NEAR(c[at], want, 1e-6 * (scale + 1.0))
                  << m << "x" << k << "x" << n << (accumulate ? " accumulate" : "") << " at " << i << ", " << j;
            }
        }
  }
  set_num_threads(threads);
}
