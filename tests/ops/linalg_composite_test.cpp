// pinv, matrix_rank, lstsq and matrix_power (ops/linalg_composite.h) through the C++ API: the
// Penrose conditions, the rank of built rank-deficient matrices, lstsq against the normal
// equations, matrix_power against repeated products, and pinv's gradient (PyTorch's formula) and
// its gradient against finite differences. tests/python/test_linalg*.py compares with torch.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::seeded_randn;

namespace {
Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }
}  // namespace

TEST(LinalgCompositeTest, PinvMeetsThePenroseConditions) {
  for (bool hermitian : {false, true}) {
    Tensor A = seeded_randn({3, 4, hermitian ? 4 : 6}, 1);
    if (hermitian) A = A + mT(A);
    Tensor P = linalg_pinv(A, {}, hermitian);
    expect_close(matmul(matmul(A, P), A), A, 1e-10, 1e-10);
    expect_close(matmul(matmul(P, A), P), P, 1e-10, 1e-10);
    expect_close(mT(matmul(A, P)), matmul(A, P), 1e-10, 1e-10);
    expect_close(mT(matmul(P, A)), matmul(P, A), 1e-10, 1e-10);
  }
  // a rank-1 matrix: the cut-off drops the zero singular values
  Tensor u = seeded_randn({5, 1}, 2), v = seeded_randn({1, 3}, 3);
  Tensor R = matmul(u, v);
  expect_close(linalg_pinv(R), matmul(mT(v), mT(u)) / (sum(u * u) * sum(v * v)), 1e-10, 1e-10);
  EXPECT_EQ(linalg_pinv(zeros({2, 0, 3}, kFloat64)).sizes(), IntArrayRef({2, 3, 0}));
}

TEST(LinalgCompositeTest, MatrixRankCountsTheSingularValuesAboveTheCutoff) {
  Tensor a = seeded_randn({6, 2}, 4), b = seeded_randn({2, 5}, 5);
  EXPECT_EQ(linalg_matrix_rank(matmul(a, b)).item<int64_t>(), 2);
  EXPECT_EQ(linalg_matrix_rank(eye(4, std::nullopt, kFloat64)).item<int64_t>(), 4);
  // an absolute tolerance above every singular value: rank 0
  EXPECT_EQ(linalg_matrix_rank(eye(3, std::nullopt, kFloat64), {.atol = scalar_tensor(2.0)}).item<int64_t>(), 0);
  EXPECT_EQ(linalg_matrix_rank(zeros({2, 3, 0}, kFloat64)).sizes(), IntArrayRef({2}));
  expect_error<Error>([] { linalg_matrix_rank(ones({3})); }, {"linalg.matrix_rank", "at least 2 dimensions"});
}

TEST(LinalgCompositeTest, LstsqSolvesTheNormalEquations) {
  Tensor A = seeded_randn({2, 7, 3}, 6), B = seeded_randn({2, 7, 2}, 7);
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"}) {
    LstsqResult r = linalg_lstsq(A, B, std::nullopt, driver);
    expect_close(matmul(mT(A), matmul(A, r.solution)), matmul(mT(A), B), 1e-10, 1e-10);
    EXPECT_EQ(r.rank.numel(), std::string(driver) == "gels" ? 0 : 2);
    EXPECT_EQ(r.singular_values.numel(), std::string(driver) == "gelsd" || std::string(driver) == "gelss" ? 6 : 0);
    // residuals where m > n, A has full rank and the driver is not gelsy
    EXPECT_EQ(r.residuals.numel(), std::string(driver) == "gelsy" ? 0 : 4);
  }
  // a vector right-hand side
  Tensor b = seeded_randn({7}, 8);
  Tensor x = linalg_lstsq(A.select(0, 0), b).solution;
  EXPECT_EQ(x.sizes(), IntArrayRef({3}));
  expect_error<Error>([&] { linalg_lstsq(A, B, std::nullopt, "qr"); }, {"driver", "gels, gelsy, gelsd, gelss"});
}

TEST(LinalgCompositeTest, MatrixPowerIsRepeatedProducts) {
  Tensor A = seeded_randn({2, 3, 3}, 9) / 2.0;
  expect_close(linalg_matrix_power(A, 5), matmul(matmul(matmul(matmul(A, A), A), A), A), 1e-12, 1e-12);
  expect_close(linalg_matrix_power(A, -2), linalg_inv(matmul(A, A)), 1e-9, 1e-9);
  expect_close(linalg_matrix_power(A, 0), eye(3, std::nullopt, kFloat64).expand({2, 3, 3}), 0, 0);
  EXPECT_FALSE(linalg_matrix_power(A, 1).is_same(A));  // a new tensor, as PyTorch's
  expect_error<Error>([] { linalg_matrix_power(ones({2, 3}), 2); }, {"square matrices", "2 by 3"});
}

TEST(LinalgCompositeTest, PinvGradientsMatchFiniteDifferences) {
  Tensor A = seeded_randn({4, 3}, 10).set_requires_grad();
  gradcheck([](const autograd::TensorList& in) { return linalg_pinv(in[0]); }, {A});
  gradgradcheck([](const autograd::TensorList& in) { return linalg_pinv(in[0]); }, {A});
  Tensor S = seeded_randn({3, 3}, 11);
  Tensor H = (S + mT(S)).detach().set_requires_grad();
  gradcheck([](const autograd::TensorList& in) { return linalg_pinv(in[0] + mT(in[0]), {}, true); }, {H});
}
