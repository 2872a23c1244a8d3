// The plan by which the CUDA matmul hands a row-major product to column-major cuBLAS
// (cuda/shared/gemm_plan.h): for operands of every layout, a reference column-major GEMM that
// reads memory exactly as cuBLAS would under the plan (op, leading dimension, operand order) gives
// the CPU's matmul; operands it cannot read in place are flagged for a copy. The batch flattening is
// checked against the row-major offsets.
#include <gtest/gtest.h>

#include <vector>

#include "ember/cuda/shared/gemm_plan.h"
#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using cuda::MatrixView;
using ember::testing::expect_values_near;

namespace {

MatrixView view_of(const Tensor& t) { return {t.size(0), t.size(1), t.stride(0), t.stride(1)}; }

// BLAS's column-major C (rows x cols, ldc) = op(A) op(B), with op(X) = X or X^T read at ld.
void reference_gemm(bool ta, bool tb, int64_t rows, int64_t cols, int64_t k, const double* A, int64_t lda,
                    const double* B, int64_t ldb, double* C, int64_t ldc) {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double a = ta ? A[p + i * lda] : A[i + p * lda];
        const double b = tb ? B[j + p * ldb] : B[p + j * ldb];
        acc += a * b;
      }
      C[i + j * ldc] = acc;
    }
}

// A [rows, cols] float64 matrix in one of several layouts.
Tensor matrix(int64_t rows, int64_t cols, int layout, Generator& gen) {
  switch (layout) {
    case 0: return randn({rows, cols}, kFloat64, &gen);                                      // row-major
    case 1: return randn({cols, rows}, kFloat64, &gen).t();                                  // column-major
    case 2: return randn({rows, cols + 3}, kFloat64, &gen).slice(1, 1, cols + 1);            // padded rows
    case 3: return randn({cols + 2, rows}, kFloat64, &gen).slice(0, 2, cols + 2).t();        // padded columns
    case 4: return randn({rows, 2 * cols}, kFloat64, &gen).slice(1, 0, 2 * cols, 2);         // stepped: copy
    default: return randn({1, cols}, kFloat64, &gen).expand({rows, cols});                  // broadcast rows
  }
}

}  // namespace

TEST(GemmPlanTest, PlansReadTheOperandsInPlaceAndGiveTheCpuProduct) {
  Generator gen(8);
  int planned = 0, copied = 0;
  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{3, 4, 5}, {1, 4, 5}, {3, 1, 5}, {3, 4, 1}, {1, 1, 1}, {6, 2, 7}})
    for (int la = 0; la < 6; ++la)
      for (int lb = 0; lb < 6; ++lb) {
        Tensor a = matrix(m, k, la, gen), b = matrix(k, n, lb, gen);
        const Tensor want = matmul(a, b);
        cuda::GemmPlan plan = cuda::plan_gemm(view_of(a), view_of(b));
        // An operand cuBLAS cannot read in place is copied dense first, which it can read.
        if (!plan.first.usable || !plan.second.usable) {
          ++copied;
          if (!plan.first.usable) b = b.contiguous();
          if (!plan.second.usable) a = a.contiguous();
          plan = cuda::plan_gemm(view_of(a), view_of(b));
          ASSERT_TRUE(plan.first.usable && plan.second.usable);
        } else {
          ++planned;
        }
        EXPECT_EQ(plan.m, m);
        EXPECT_EQ(plan.n, n);
        EXPECT_EQ(plan.k, k);
        std::vector<double> out(static_cast<size_t>(m * n));
        // gemm(first.transpose, second.transpose, n, m, k, b, first.ld, a, second.ld, out, n)
        reference_gemm(plan.first.transpose, plan.second.transpose, n, m, k, b.data_ptr<double>(), plan.first.ld,
                       a.data_ptr<double>(), plan.second.ld, out.data(), n);
        expect_values_near(tensor(out, {m, n}, kFloat64), want.to_vector<double>(), 1e-12, 1e-12);
        // cuBLAS's own rule: a leading dimension is at least the stored matrix's row count.
        EXPECT_GE(plan.first.ld, std::max<int64_t>(1, plan.first.transpose ? k : n)) << la << " " << lb;
        EXPECT_GE(plan.second.ld, std::max<int64_t>(1, plan.second.transpose ? m : k)) << la << " " << lb;
      }
  EXPECT_GT(planned, 0);
  EXPECT_GT(copied, 0);  // the stepped and broadcast layouts
}

TEST(GemmPlanTest, BatchDimsFlattenWhenTheyStepAsOneIndex) {
  int64_t stride = -1;
  const int64_t sizes[3] = {2, 3, 4};
  const int64_t dense[3] = {12 * 20, 4 * 20, 20};  // contiguous batches of 20-element matrices
  ASSERT_TRUE(cuda::flatten_batch(3, sizes, dense, stride));
  EXPECT_EQ(stride, 20);
  const int64_t broadcast[3] = {0, 0, 0};
  ASSERT_TRUE(cuda::flatten_batch(3, sizes, broadcast, stride));
  EXPECT_EQ(stride, 0);
  const int64_t partly[3] = {0, 4 * 20, 20};  // broadcast over the first dim only: not one index
  EXPECT_FALSE(cuda::flatten_batch(3, sizes, partly, stride));
  EXPECT_TRUE(cuda::flatten_batch(2, sizes + 1, partly + 1, stride));  // its last two dims do
  EXPECT_EQ(stride, 20);
  const int64_t ones[3] = {1, 1, 4};
  const int64_t odd[3] = {7, 99, 20};  // size-1 dims may have any stride
  ASSERT_TRUE(cuda::flatten_batch(3, ones, odd, stride));
  EXPECT_EQ(stride, 20);
  ASSERT_TRUE(cuda::flatten_batch(0, sizes, dense, stride));  // no batch dims
  EXPECT_EQ(stride, 0);
}
