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
using ember::testing::expect_values;
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

TEST(LinalgCompositeTest, MatrixNormsAgainstTheirDefinitions) {
  const Tensor A = tensor(std::vector<double>{1, -2, 3, 4, 0, -6}, {2, 3});
  expect_close(linalg_matrix_norm(A), sqrt(sum(A * A)), 1e-12, 0);
  expect_values(linalg_matrix_norm(A, 1.0), {9});  // the largest column sum of |A|: 3 + 6
  expect_values(linalg_matrix_norm(A, -1.0), {2});
  expect_values(linalg_matrix_norm(A, INFINITY), {10});  // the largest row sum: 4 + 0 + 6
  expect_values(linalg_matrix_norm(A, -INFINITY), {6});
  const Tensor S = linalg_svdvals(A);
  expect_close(linalg_matrix_norm(A, 2.0), S.narrow(0, 0, 1).squeeze(0), 1e-12, 0);
  expect_close(linalg_matrix_norm(A, -2.0), S.narrow(0, 1, 1).squeeze(0), 1e-12, 0);
  expect_close(linalg_matrix_norm(A, "nuc"), sum(S), 1e-12, 0);
  // over other dims, kept
  const Tensor B = seeded_randn({3, 2, 4}, 12);
  EXPECT_EQ(linalg_matrix_norm(B, 1.0, {0, 2}, true).sizes(), IntArrayRef({1, 2, 1}));
  expect_close(linalg_matrix_norm(B, "fro", {0, 2}), sqrt(sum(B * B, {0, 2})), 1e-12, 0);
  expect_error<Error>([&] { linalg_matrix_norm(A, 3.0); }, {"linalg.matrix_norm", "Order 3 not supported"});
  expect_error<Error>([&] { linalg_matrix_norm(A, 1.0, {0, 0}); }, {"dims must be different"});
  expect_error<Error>([&] { linalg_matrix_norm(A, "max"); }, {"Order max not supported"});
  for (double ord : {1.0, 2.0, -HUGE_VAL}) {
    gradcheck([ord](const autograd::TensorList& in) { return linalg_matrix_norm(in[0], ord); },
              {seeded_randn({3, 4}, 13).set_requires_grad()});
  }
}

TEST(LinalgCompositeTest, VectorNormAndNormDispatch) {
  const Tensor x = tensor(std::vector<double>{3, -4, 0, 12}, {2, 2});
  expect_values(linalg_vector_norm(x), {13});
  expect_values(linalg_vector_norm(x, 1, {1}), {7, 12});
  expect_values(linalg_vector_norm(x, INFINITY), {12});
  expect_values(linalg_vector_norm(x, 0), {3});
  expect_error<NotImplementedError>([] { linalg_vector_norm(ones({2}, kInt64)); }, {"vector_norm", "Long"});
  EXPECT_EQ(linalg_vector_norm(ones({2}, kInt64), 2, {}, false, kFloat64).dtype(), kFloat64);
  // linalg.norm: one dim a vector norm, two a matrix norm, neither the 2-norm of every entry
  expect_values(linalg_norm(x, std::nullopt, std::vector<int64_t>{0}), {3, std::sqrt(160.0)});
  expect_values(linalg_norm(x, 1.0), {16});  // a 2-D input with ord alone: the matrix norm
  expect_values(linalg_norm(x), {13});
  expect_close(linalg_norm(x, "nuc"), sum(linalg_svdvals(x)), 1e-12, 0);
  expect_error<Error>([] { linalg_norm(zeros({2, 2, 2}), 2.0); }, {"linalg.norm", "1D or 2D", "3D"});
}

TEST(LinalgCompositeTest, CondIsTheNormOfAAndOfItsInverse) {
  const Tensor A = tensor(std::vector<double>{4, 1, 2, 3}, {2, 2});
  const Tensor S = linalg_svdvals(A);
  expect_close(linalg_cond(A), S.narrow(0, 0, 1).squeeze(0) / S.narrow(0, 1, 1).squeeze(0), 1e-12, 0);
  expect_close(linalg_cond(A, -2.0), S.narrow(0, 1, 1).squeeze(0) / S.narrow(0, 0, 1).squeeze(0), 1e-12, 0);
  for (double p : {1.0, -1.0, HUGE_VAL})
    expect_close(linalg_cond(A, p), linalg_matrix_norm(A, p) * linalg_matrix_norm(linalg_inv(A), p), 1e-12, 0);
  expect_close(linalg_cond(A, "fro"), linalg_matrix_norm(A) * linalg_matrix_norm(linalg_inv(A)), 1e-12, 0);
  // a singular matrix: inf, not an error, as PyTorch's; one batch entry does not spoil the other
  const Tensor batch = stack({A, tensor(std::vector<double>{1, 2, 2, 4}, {2, 2})});
  const Tensor c = linalg_cond(batch, 1.0);
  EXPECT_TRUE(std::isfinite(c.select(0, 0).item<double>()));
  EXPECT_TRUE(std::isinf(c.select(0, 1).item<double>()));
  EXPECT_EQ(linalg_cond(zeros({3, 0, 0}, kFloat64), "fro").sizes(), IntArrayRef({3}));
  expect_error<Error>([&] { linalg_cond(zeros({2, 3}, kFloat64), 1.0); }, {"linalg.cond(ord=1)", "2 by 3"});
  expect_error<Error>([&] { linalg_cond(A, 3.0); }, {"invalid norm type"});
  gradcheck([](const autograd::TensorList& in) { return linalg_cond(in[0], "fro"); },
            {(seeded_randn({3, 3}, 14) + eye(3, std::nullopt, kFloat64) * 3).detach().set_requires_grad()});
}
