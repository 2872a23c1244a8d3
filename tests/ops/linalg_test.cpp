// The matrix factorisations (ops/linalg.cpp): linalg_svd, linalg_svdvals, linalg_eigh,
// linalg_eigvalsh, linalg_qr and linalg_solve_triangular. Values against closed forms and against
// each other (the singular values squared are the eigenvalues of A^T A, by another algorithm),
// the defining identities (reconstruction, orthonormal factors, triangles), PyTorch's shapes for
// empty and batched inputs, first and second derivatives against finite differences, and the
// errors, each naming the op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;
using ember::testing::expect_values_near;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor random(std::vector<int64_t> shape, uint64_t seed, bool requires_grad = false) {
  Generator gen(seed);
  Tensor t = randn(shape, TensorOptions(kFloat64), &gen);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

double max_abs(const Tensor& t) { return t.numel() == 0 ? 0.0 : t.abs().max().item<double>(); }

// |Q^T Q - I| for Q [..., m, k].
double orthonormality_error(const Tensor& q) {
  return max_abs(matmul(q.transpose(-2, -1), q) - eye(q.size(-1), q.size(-1), q.options()));
}

}  // namespace

TEST(LinalgTest, SvdOfAKnownMatrix) {
  // [[3, 0], [4, 5]]: A^T A = [[25, 20], [20, 25]], eigenvalues 45 and 5
  const Tensor a = tensor({3.0, 0.0, 4.0, 5.0}).reshape({2, 2});
  expect_values_near(linalg_svdvals(a), {std::sqrt(45.0), std::sqrt(5.0)}, 1e-15, 0);
  auto [u, s, vh] = linalg_svd(a, false);
  EXPECT_LT(max_abs(matmul(u * s.unsqueeze(-2), vh) - a), 1e-14);
}

TEST(LinalgTest, SvdFactorsAreOrthonormalAndRebuildTheMatrix) {
  for (auto shape : std::vector<std::vector<int64_t>>{{5, 3}, {3, 5}, {4, 4}, {2, 3, 7, 2}, {1, 1}, {40, 24}}) {
    for (bool full : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "shape " << IntArrayRef(shape) << " full " << full);
      const Tensor a = random(shape, 1);
      auto [u, s, vh] = linalg_svd(a, full);
      const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
      EXPECT_EQ(u.size(-1), full ? m : k);
      EXPECT_EQ(vh.size(-2), full ? n : k);
      EXPECT_LT(orthonormality_error(u), 1e-13);
      EXPECT_LT(orthonormality_error(vh.transpose(-2, -1)), 1e-13);
      Tensor rebuilt = matmul(u.narrow(-1, 0, k) * s.unsqueeze(-2), vh.narrow(-2, 0, k));
      EXPECT_LT(max_abs(rebuilt - a), 1e-13);
      // descending and non-negative
      EXPECT_TRUE((s.narrow(-1, 0, k - 1) >= s.narrow(-1, 1, k - 1)).all().item<bool>());
      EXPECT_TRUE((s >= 0).all().item<bool>());
      // the singular values squared are the eigenvalues of A^T A (a symmetric eigensolver)
      Tensor gram = m >= n ? matmul(a.transpose(-2, -1), a) : matmul(a, a.transpose(-2, -1));
      Tensor eig = flip(linalg_eigvalsh(gram, "L"), {-1});
      EXPECT_LT(max_abs(s * s - eig), 1e-11);
    }
  }
}

TEST(LinalgTest, Float32FactorsMatchFloat64) {
  const Tensor a = random({3, 6, 4}, 2);
  const Tensor a32 = a.to(kFloat32);
  EXPECT_EQ(linalg_svdvals(a32).dtype(), kFloat32);
  EXPECT_LT(max_abs(linalg_svdvals(a32).to(kFloat64) - linalg_svdvals(a)), 1e-5);
  Tensor sym = a.narrow(-1, 0, 4).narrow(-2, 0, 4);
  sym = sym + sym.transpose(-2, -1);
  EXPECT_LT(max_abs(linalg_eigvalsh(sym.to(kFloat32), "L").to(kFloat64) - linalg_eigvalsh(sym, "L")), 1e-5);
  auto [q, r] = linalg_qr(a32, "reduced");
  EXPECT_EQ(q.dtype(), kFloat32);
  EXPECT_LT(max_abs(matmul(q, r).to(kFloat64) - a), 1e-5);
}

TEST(LinalgTest, EighDiagonalisesAndReadsOnlyTheNamedTriangle) {
  Tensor a = random({2, 5, 5}, 3);
  const Tensor sym = a + a.transpose(-2, -1);
  auto [l, v] = linalg_eigh(sym, "L");
  EXPECT_LT(orthonormality_error(v), 1e-13);
  EXPECT_LT(max_abs(matmul(v * l.unsqueeze(-2), v.transpose(-2, -1)) - sym), 1e-13);
  EXPECT_TRUE((l.narrow(-1, 0, 4) <= l.narrow(-1, 1, 4)).all().item<bool>());
  // NaN above the diagonal is never read with "L", nor below it with "U"
  const Tensor upper_nan = where(triu(ones_like(sym), 1) > 0, full_like(sym, kNaN), sym);
  EXPECT_LT(max_abs(linalg_eigvalsh(upper_nan, "L") - l), 1e-13);
  const Tensor lower_nan = where(tril(ones_like(sym), -1) > 0, full_like(sym, kNaN), sym);
  EXPECT_LT(max_abs(linalg_eigvalsh(lower_nan, "U") - l), 1e-13);
  // a diagonal matrix's eigenvalues, sorted
  expect_values_near(linalg_eigvalsh(diag(tensor({3.0, -1.0, 2.0})), "L"), {-1, 2, 3}, 1e-15, 0);
}

TEST(LinalgTest, QrIsOrthonormalTimesUpperTriangular) {
  for (auto shape : std::vector<std::vector<int64_t>>{{6, 4}, {4, 6}, {5, 5}, {3, 2, 7, 3}}) {
    for (std::string mode : {"reduced", "complete"}) {
      SCOPED_TRACE(::testing::Message() << "shape " << IntArrayRef(shape) << " " << mode);
      const Tensor a = random(shape, 4);
      auto [q, r] = linalg_qr(a, mode);
      const int64_t m = shape[shape.size() - 2], n = shape.back();
      const int64_t kq = mode == "complete" ? m : std::min(m, n);
      EXPECT_EQ(q.size(-1), kq);
      EXPECT_EQ(r.size(-2), kq);
      EXPECT_LT(orthonormality_error(q), 1e-13);
      EXPECT_EQ(max_abs(tril(r, -1)), 0.0);
      EXPECT_LT(max_abs(matmul(q, r) - a), 1e-13);
    }
  }
  auto [q, r] = linalg_qr(random({4, 3}, 5), "r");
  EXPECT_EQ(q.numel(), 0);
  EXPECT_EQ(r.sizes(), IntArrayRef({3, 3}));
}

TEST(LinalgTest, SolveTriangularSolvesOnEitherSideWithBroadcastBatches) {
  const Tensor raw = random({2, 1, 4, 4}, 6);
  const Tensor b = random({3, 4, 2}, 7);
  for (bool upper : {false, true}) {
    for (bool unit : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "upper " << upper << " unit " << unit);
      // well conditioned: a dominant diagonal; junk in the triangle that is not read
      Tensor tri = raw + eye(4, 4, raw.options()) * 4;
      Tensor used = upper ? triu(tri, unit ? 1 : 0) : tril(tri, unit ? -1 : 0);
      if (unit) used = used + eye(4, 4, raw.options());
      Tensor x = linalg_solve_triangular(tri, b, upper, /*left=*/true, unit);
      EXPECT_EQ(x.sizes(), IntArrayRef({2, 3, 4, 2}));
      EXPECT_LT(max_abs(matmul(used, x) - b), 1e-13);
      Tensor bt = b.transpose(-2, -1);
      Tensor y = linalg_solve_triangular(tri, bt, upper, /*left=*/false, unit);
      EXPECT_LT(max_abs(matmul(y, used) - bt), 1e-13);
    }
  }
  // a zero on the diagonal gives inf/NaN, not an error, as PyTorch's
  Tensor singular = tensor({1.0, 0.0, 0.0, 0.0}).reshape({2, 2});
  Tensor x = linalg_solve_triangular(singular, ones({2, 1}, TensorOptions(kFloat64)), true, true, false);
  EXPECT_FALSE(std::isfinite(x.to_vector<double>()[1]));
}

TEST(LinalgTest, EmptyInputsGivePyTorchsShapes) {
  auto [u, s, vh] = linalg_svd(zeros({2, 0, 3}, TensorOptions(kFloat64)), true);
  EXPECT_EQ(u.sizes(), IntArrayRef({2, 0, 0}));
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(vh.sizes(), IntArrayRef({2, 3, 3}));
  EXPECT_EQ(max_abs(vh - eye(3, 3, vh.options())), 0.0);  // the identity, as PyTorch's
  auto [l, v] = linalg_eigh(zeros({0, 3, 3}, TensorOptions(kFloat32)), "L");
  EXPECT_EQ(l.sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(v.sizes(), IntArrayRef({0, 3, 3}));
  auto [q, r] = linalg_qr(zeros({4, 0}, TensorOptions(kFloat64)), "complete");
  EXPECT_EQ(q.sizes(), IntArrayRef({4, 4}));
  EXPECT_EQ(r.sizes(), IntArrayRef({4, 0}));
  EXPECT_EQ(linalg_solve_triangular(eye(3, 3, TensorOptions(kFloat64)), zeros({0, 3, 2}, TensorOptions(kFloat64)), true,
                                    true, false)
                .sizes(),
            IntArrayRef({0, 3, 2}));
}

TEST(LinalgTest, ResultsDoNotDependOnTheThreadCount) {
  const Tensor a = random({16, 9, 7}, 8);
  const int threads = get_num_threads();
  set_num_threads(1);
  auto [u1, s1, vh1] = linalg_svd(a, false);
  set_num_threads(2);
  auto [u2, s2, vh2] = linalg_svd(a, false);
  set_num_threads(threads);
  EXPECT_TRUE(ember::testing::same_bits(u1, u2) && ember::testing::same_bits(s1, s2) &&
              ember::testing::same_bits(vh1, vh2));
}

TEST(LinalgTest, GradientsMatchFiniteDifferences) {
  for (auto shape : std::vector<std::vector<int64_t>>{{4, 3}, {3, 4}, {3, 3}, {2, 4, 2}, {1, 1}}) {
    SCOPED_TRACE(::testing::Message() << "shape " << IntArrayRef(shape));
    const Tensor a = random(shape, 9, true);
    auto svd_parts = [](const TensorList& in) {
      auto [u, s, vh] = linalg_svd(in[0], false);
      // sign-invariant functions of the vectors
      return cat({(u * u).reshape({-1}), (vh * vh).reshape({-1}), s.reshape({-1}),
                  matmul(u * s.unsqueeze(-2), vh).reshape({-1})},
                 0);
    };
    gradcheck(svd_parts, {a});
    gradgradcheck(svd_parts, {a});
    gradgradcheck([](const TensorList& in) { return linalg_svdvals(in[0]); }, {a});
    auto full_svd = [](const TensorList& in) {
      auto [u, s, vh] = linalg_svd(in[0], true);
      return matmul(u.narrow(-1, 0, 1), vh.narrow(-2, 0, 1));
    };
    gradcheck(full_svd, {a});
    auto qr_parts = [](const TensorList& in) {
      auto [q, r] = linalg_qr(in[0], "reduced");
      return cat({q.reshape({-1}), r.reshape({-1})}, 0);
    };
    gradcheck(qr_parts, {a});
    gradgradcheck(qr_parts, {a});
  }
  for (auto shape : std::vector<std::vector<int64_t>>{{4, 4}, {2, 3, 3}, {1, 1}}) {
    SCOPED_TRACE(::testing::Message() << "eigh shape " << IntArrayRef(shape));
    const Tensor a = random(shape, 10, true);
    for (std::string uplo : {"L", "U"}) {
      auto eigh_parts = [uplo](const TensorList& in) {
        auto [l, v] = linalg_eigh(in[0] + in[0].transpose(-2, -1), uplo);
        return cat({l.reshape({-1}), (v * v).reshape({-1})}, 0);
      };
      gradcheck(eigh_parts, {a});
      gradgradcheck(eigh_parts, {a});
    }
  }
}

TEST(LinalgTest, SolveTriangularGradientsMatchFiniteDifferences) {
  const Tensor a = random({2, 3, 3}, 11, true);
  const Tensor b = random({3, 2}, 12, true);
  const Tensor shift = eye(3, 3, TensorOptions(kFloat64)) * 3;
  for (bool upper : {false, true})
    for (bool left : {false, true})
      for (bool unit : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "upper " << upper << " left " << left << " unit " << unit);
        auto fn = [&](const TensorList& in) {
          Tensor rhs = left ? in[1] : in[1].transpose(-2, -1);
          return linalg_solve_triangular(in[0] + shift, rhs, upper, left, unit);
        };
        gradcheck(fn, {a, b});
        gradgradcheck(fn, {a, b});
      }
}

TEST(LinalgTest, ErrorsNameTheOpAndTheMatrix) {
  Tensor bad = random({3, 4, 4}, 13);
  bad.index_put_({tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{2}), tensor(std::vector<int64_t>{0})},
                 full({1}, kNaN, TensorOptions(kFloat64)));
  expect_error<LinAlgError>([&] { linalg_svd(bad, false); },
                            {"linalg.svd: (Batch element 1): The algorithm failed to converge because the input matrix "
                             "contained non-finite values."});
  expect_error<LinAlgError>([&] { linalg_eigh(bad.tril(), "L"); },
                            {"linalg.eigh: (Batch element 1): The algorithm failed to converge because the input "
                             "matrix contained non-finite"});
  expect_error<Error>(
      [&] {
        linalg_svdvals(tensor({1.0, 2.0}));
      },
      {"linalg.svdvals: The input tensor A must have at least 2 dimensions."});
  expect_error<NotImplementedError>(
      [&] {
        linalg_qr(ones({2, 2}, TensorOptions(kInt64)), "reduced");
      },
      {"linalg.qr: Expected a floating point or complex tensor as input. Got Long"});
  expect_error<NotImplementedError>(
      [&] {
        linalg_svd(ones({2, 2}, TensorOptions(kFloat16)), true);
      },
      {"linalg.svd: Low precision dtypes not supported. Got Half"});
  expect_error<Error>(
      [&] {
        linalg_eigh(ones({3, 2}, TensorOptions(kFloat64)), "L");
      },
      {"linalg.eigh: A must be batches of square matrices, but they are 3 by 2 matrices"});
  expect_error<Error>([&] { linalg_eigh(eye(2, 2, TensorOptions(kFloat64)), "X"); },
                      {"Expected UPLO argument to be 'L' or 'U', but got X"});
  expect_error<Error>([&] { linalg_qr(eye(2, 2, TensorOptions(kFloat64)), "thin"); },
                      {"qr received unrecognized mode 'thin'"});
  expect_error<Error>(
      [&] {
        linalg_solve_triangular(eye(3, 3, TensorOptions(kFloat64)), ones({2, 2}, TensorOptions(kFloat64)), true, true,
                                false);
      },
      {"linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x2)"});
  expect_error<Error>(
      [&] {
        linalg_solve_triangular(eye(2, 2, TensorOptions(kFloat64)), ones({2, 2}, TensorOptions(kFloat32)), true, true,
                                false);
      },
      {"Expected A and B to have the same dtype, but found A of type Double and B of type Float instead"});
  // the gradients PyTorch refuses, refused when backward reaches them
  const Tensor tall = random({4, 3}, 14, true);
  expect_error<Error>([&] { std::get<0>(linalg_qr(tall, "complete")).sum().backward(); },
                      {"not differentiable when mode='complete' and nrows > ncols"});
  expect_error<Error>([&] { std::get<1>(linalg_qr(tall, "r")).sum().backward(); },
                      {"depends on Q, which is not computed when mode='r'"});
}

TEST(LinalgTest, SolveAndInvSolveWithPivotingAndBroadcasting) {
  // a zero in the corner: only a row swap makes the factorisation possible
  const Tensor swap = tensor({0.0, 2.0, 3.0, 1.0}).reshape({2, 2});
  expect_values_near(linalg_solve(swap, tensor({4.0, 5.0}), true), {1.0, 2.0}, 1e-15, 0);
  expect_values_near(linalg_inv(swap), {-1.0 / 6, 1.0 / 3, 0.5, 0.0}, 1e-15, 1e-16);
  const Tensor a = random({2, 1, 5, 5}, 15) + eye(5, 5, TensorOptions(kFloat64)) * 3;
  const Tensor b = random({3, 5, 2}, 16);
  Tensor x = linalg_solve(a, b, true);
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 3, 5, 2}));
  EXPECT_LT(max_abs(matmul(a, x) - b), 1e-13);
  Tensor y = linalg_solve(a, b.transpose(-2, -1), /*left=*/false);
  EXPECT_LT(max_abs(matmul(y, a) - b.transpose(-2, -1)), 1e-13);
  // B with A's shape but its last dim is a batch of vectors
  Tensor v = linalg_solve(a.squeeze(1), random({2, 5}, 17), true);
  EXPECT_EQ(v.sizes(), IntArrayRef({2, 5}));
  EXPECT_LT(max_abs(matmul(linalg_inv(a), a) - eye(5, 5, a.options())), 1e-13);
  // float32, and the results in A's dtype
  EXPECT_EQ(linalg_inv(a.to(kFloat32)).dtype(), kFloat32);
  EXPECT_LT(max_abs(linalg_inv(a.to(kFloat32)).to(kFloat64) - linalg_inv(a)), 1e-5);
}

TEST(LinalgTest, SingularMatricesNameTheElement) {
  Tensor batch = eye(3, 3, TensorOptions(kFloat64)).expand({2, 3, 3}).contiguous();
  batch.index_put_({tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{1})},
                   zeros({1}, TensorOptions(kFloat64)));
  expect_error<LinAlgError>([&] { linalg_inv(batch); },
                            {"linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not "
                             "be completed because the input matrix is singular."});
  expect_error<LinAlgError>([&] { linalg_solve(batch.select(0, 1), ones({3}, TensorOptions(kFloat64)), true); },
                            {"torch.linalg.solve: The solver failed because the input matrix is singular."});
  expect_error<Error>(
      [&] {
        linalg_solve(batch, ones({2, 4, 1}, TensorOptions(kFloat64)), true);
      },
      {"linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"});
}

TEST(LinalgTest, MatrixExpOfKnownMatrices) {
  // a rotation generator: exp([[0, t], [-t, 0]]) = [[cos t, sin t], [-sin t, cos t]], for t whose
  // norm takes 0 to 6 squarings, in one batch (each matrix gets its own count)
  std::vector<double> ts = {0.1, 1.0, 7.0, 40.0, 300.0};
  std::vector<double> gen, want;
  for (double t : ts) {
    gen.insert(gen.end(), {0.0, t, -t, 0.0});
    want.insert(want.end(), {std::cos(t), std::sin(t), -std::sin(t), std::cos(t)});
  }
  const Tensor a = tensor(gen).reshape({5, 2, 2});
  expect_values_near(linalg_matrix_exp(a), want, 1e-12, 1e-12);
  expect_values_near(linalg_matrix_exp(diag(tensor({0.0, 1.0, -2.0}))),
                     {1, 0, 0, 0, std::exp(1.0), 0, 0, 0, std::exp(-2.0)}, 1e-15, 0);
  // exp(A) exp(-A) = I, for a general matrix
  const Tensor m = random({3, 4, 4}, 18) * 3;
  EXPECT_LT(max_abs(matmul(linalg_matrix_exp(m), linalg_matrix_exp(-m)) - eye(4, 4, m.options())), 1e-9);
  // float32 is rounded once from the float64 result
  const Tensor m32 = m.to(kFloat32);
  EXPECT_TRUE(ember::testing::same_bits(linalg_matrix_exp(m32), linalg_matrix_exp(m32.to(kFloat64)).to(kFloat32)));
  // a matrix with a NaN or an inf gives NaN, its neighbours in the batch do not care
  Tensor bad = m.clone();
  bad.index_put_({tensor(std::vector<int64_t>{2}), tensor(std::vector<int64_t>{0}), tensor(std::vector<int64_t>{3})},
                 full({1}, std::numeric_limits<double>::infinity(), TensorOptions(kFloat64)));
  Tensor e = linalg_matrix_exp(bad);
  EXPECT_TRUE(isnan(e.select(0, 2)).all().item<bool>());
  EXPECT_TRUE(ember::testing::same_bits(e.narrow(0, 0, 2), linalg_matrix_exp(m.narrow(0, 0, 2))));
  EXPECT_EQ(linalg_matrix_exp(zeros({2, 0, 0}, TensorOptions(kFloat64))).sizes(), IntArrayRef({2, 0, 0}));
}

TEST(LinalgTest, GeqrfReflectorsRebuildQ) {
  const Tensor a = random({2, 5, 3}, 19);
  auto [h, tau] = geqrf(a);
  EXPECT_EQ(tau.sizes(), IntArrayRef({2, 3}));
  // Q = H_1 H_2 H_3, H_i = I - tau_i v_i v_i^T, v_i = (0.., 1, h[i+1:, i]): A = Q R
  for (int64_t b = 0; b < 2; ++b) {
    Tensor q = eye(5, 5, a.options());
    for (int64_t i = 2; i >= 0; --i) {
      Tensor v =
          cat({zeros({i}, a.options()), ones({1}, a.options()), h.select(0, b).narrow(0, i + 1, 4 - i).select(1, i)}, 0)
              .unsqueeze(1);
      q = q - tau.select(0, b).select(0, i) * matmul(v, matmul(v.transpose(0, 1), q));
    }
    EXPECT_LT(max_abs(matmul(q.narrow(1, 0, 3), triu(h.select(0, b).narrow(0, 0, 3))) - a.select(0, b)), 1e-13);
  }
}

TEST(LinalgTest, SolveInvAndMatrixExpGradients) {
  const Tensor a = random({2, 3, 3}, 20, true);
  const Tensor b = random({3, 2}, 21, true);
  const Tensor shift = eye(3, 3, TensorOptions(kFloat64)) * 3;
  for (bool left : {true, false}) {
    auto solve = [&](const TensorList& in) {
      return linalg_solve(in[0] + shift, left ? in[1] : in[1].transpose(0, 1), left);
    };
    gradcheck(solve, {a, b});
    gradgradcheck(solve, {a, b});
  }
  auto inv = [&](const TensorList& in) { return linalg_inv(in[0] + shift); };
  gradcheck(inv, {a});
  gradgradcheck(inv, {a});
  for (double scale : {0.5, 8.0}) {  // no squaring, and three
    auto exp = [scale](const TensorList& in) { return linalg_matrix_exp(in[0] * scale); };
    gradcheck(exp, {a});
    gradgradcheck(exp, {a});
  }
}

TEST(LinalgTest, CholeskyFactorsAndNamesTheFailingMinor) {
  const Tensor m = random({2, 4, 4}, 22);
  const Tensor spd = matmul(m, m.transpose(-2, -1)) + eye(4, 4, m.options());
  const Tensor l = linalg_cholesky(spd, false);
  EXPECT_LT(max_abs(matmul(l, l.transpose(-2, -1)) - spd), 1e-13);
  EXPECT_EQ(max_abs(triu(l, 1)), 0.0);
  EXPECT_TRUE((l.diagonal(0, -2, -1) > 0).all().item<bool>());
  EXPECT_TRUE(ember::testing::same_bits(linalg_cholesky(spd, true), l.transpose(-2, -1)));
  // only the lower triangle is read
  const Tensor junk = where(triu(ones_like(spd), 1) > 0, full_like(spd, kNaN), spd);
  EXPECT_TRUE(ember::testing::same_bits(linalg_cholesky(junk, false), l));
  expect_values_near(linalg_cholesky(tensor({4.0, 2.0, 2.0, 5.0}).reshape({2, 2}), false), {2, 0, 1, 2}, 1e-15, 0);
  // diag(1, 1, -1): the third leading minor fails; a NaN fails where it is met
  expect_error<LinAlgError>(
      [&] {
        linalg_cholesky(diag(tensor({1.0, 1.0, -1.0})), false);
      },
      {"linalg.cholesky: The factorization could not be completed because the input is not "
       "positive-definite (the leading minor of order 3 is not positive-definite)."});
  Tensor nan_batch = spd.clone();
  nan_batch.index_put_(
      {tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{1})},
      full({1}, kNaN, TensorOptions(kFloat64)));
  expect_error<LinAlgError>([&] { linalg_cholesky(nan_batch, false); },
                            {"(Batch element 1)", "the leading minor of order 2 is not positive-definite"});
}

TEST(LinalgTest, CholeskyGradientsAreSymmetricAndMatchFiniteDifferences) {
  const Tensor m = random({2, 3, 3}, 23, true);
  for (bool upper : {false, true}) {
    // through a symmetric positive-definite function of m, so that every perturbation stays one
    auto fn = [upper](const TensorList& in) {
      Tensor spd = matmul(in[0], in[0].transpose(-2, -1)) + eye(3, 3, in[0].options());
      return linalg_cholesky(spd, upper);
    };
    gradcheck(fn, {m});
    gradgradcheck(fn, {m});
  }
  Tensor spd = (matmul(m, m.transpose(-2, -1)) + eye(3, 3, m.options())).detach().requires_grad_(true);
  linalg_cholesky(spd, false).sum().backward();
  EXPECT_LT(max_abs(spd.grad() - spd.grad().transpose(-2, -1)), 1e-15);
}

TEST(LinalgTest, DetAndSlogdetWithTheirGradients) {
  // a permutation: det -1, one swap
  const Tensor perm = tensor({0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0}).reshape({3, 3});
  expect_values(linalg_det(perm), {-1});
  const Tensor a = random({2, 4, 4}, 24);
  const Tensor d = linalg_det(a);
  auto [sign, logabs] = linalg_slogdet(a);
  EXPECT_LT(max_abs(sign * exp(logabs) - d), 1e-12 * max_abs(d));
  // det(AB) = det(A) det(B), det(A^-1) = 1 / det(A)
  const Tensor b = random({2, 4, 4}, 25);
  EXPECT_LT(max_abs(linalg_det(matmul(a, b)) - d * linalg_det(b)), 1e-10);
  EXPECT_LT(max_abs(linalg_det(linalg_inv(a)) * d - 1), 1e-12);
  // singular: det 0, sign 0, logabsdet -inf
  const Tensor s = tensor({1.0, 2.0, 2.0, 4.0}).reshape({2, 2});
  expect_values(linalg_det(s), {0});
  auto [s_sign, s_logabs] = linalg_slogdet(s);
  expect_values(s_sign, {0});
  expect_values(s_logabs, {-std::numeric_limits<double>::infinity()});
  expect_values(linalg_det(zeros({3, 0, 0}, TensorOptions(kFloat64))), {1, 1, 1});
  // gradients: det A A^-T away from singular matrices, twice
  const Tensor x = random({2, 3, 3}, 26, true);
  const Tensor shift = eye(3, 3, TensorOptions(kFloat64)) * 2;
  gradcheck([&](const TensorList& in) { return linalg_det(in[0] + shift); }, {x});
  gradgradcheck([&](const TensorList& in) { return linalg_det(in[0] + shift); }, {x});
  gradcheck([&](const TensorList& in) { return std::get<1>(linalg_slogdet(in[0] + shift)); }, {x});
  gradgradcheck([&](const TensorList& in) { return std::get<1>(linalg_slogdet(in[0] + shift)); }, {x});
}

TEST(LinalgTest, DetGradientAtASingularMatrixIsTheCofactorMatrix) {
  // rank 1, rank 1 diagonal, rank 0, and a 3 x 3 of rank 2 (its cofactors: a multiple of u3 v3^T)
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1, 2, 2, 4}, {4, -2, -2, 1}},
      {{1, 0, 0, 0}, {0, 0, 0, 1}},
      {{0, 0, 0, 0}, {0, 0, 0, 0}},
      {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {-3, 6, -3, 6, -12, 6, -3, 6, -3}},
  };
  for (const auto& [values, cofactors] : cases) {
    const int64_t n = values.size() == 4 ? 2 : 3;
    Tensor a = tensor(values).reshape({n, n}).requires_grad_(true);
    linalg_det(a).backward();
    expect_values_near(a.grad(), cofactors, 1e-12, 1e-12);
  }
  // and the gradient of a singular matrix in a batch with an invertible one
  Tensor batch = tensor({1.0, 2.0, 2.0, 4.0, 2.0, 0.0, 0.0, 3.0}).reshape({2, 2, 2}).requires_grad_(true);
  linalg_det(batch).sum().backward();
  expect_values_near(batch.grad(), {4, -2, -2, 1, 3, 0, 0, 2}, 1e-12, 1e-12);
}

TEST(LinalgTest, HouseholderProductIsGeqrfsQ) {
  // Q's first n columns from geqrf's reflectors: orthonormal, Q R = A, batched, float32 in float32.
  const Tensor a = random({2, 5, 3}, 22);
  auto [h, tau] = geqrf(a);
  const Tensor q = linalg_householder_product(h, tau);
  EXPECT_EQ(q.sizes(), IntArrayRef({2, 5, 3}));
  EXPECT_LT(max_abs(matmul(q, triu(h.narrow(1, 0, 3))) - a), 1e-13);
  EXPECT_LT(max_abs(matmul(q.transpose(-2, -1), q) - eye(3, 3, a.options())), 1e-13);
  // fewer reflectors than columns: the last columns stay the identity's, acted on by the others
  const Tensor q2 = linalg_householder_product(h.select(0, 0), tau.select(0, 0).narrow(0, 0, 2));
  EXPECT_LT(max_abs(matmul(q2.transpose(0, 1), q2) - eye(3, 3, a.options())), 1e-13);
  auto [h32, tau32] = geqrf(a.to(kFloat32));
  EXPECT_EQ(linalg_householder_product(h32, tau32).dtype(), kFloat32);
  // differentiable in both arguments (its ops are), to the second order
  const Tensor hg = h.select(0, 1).clone(), tg = tau.select(0, 1).clone();
  hg.set_requires_grad(true);
  tg.set_requires_grad(true);
  auto f = [](const TensorList& in) { return linalg_householder_product(in[0], in[1]); };
  autograd::gradcheck(f, {hg, tg});
  autograd::gradgradcheck(f, {hg, tg});
  ember::testing::expect_error<ValueError>([&] { linalg_householder_product(h.transpose(-2, -1), tau); },
                                           {"input.shape[-2] must be greater than or equal to input.shape[-1]"});
  ember::testing::expect_error<ValueError>([&] { linalg_householder_product(h, tau.select(0, 0)); },
                                           {"Expected tau to have one dimension less than input"});
}
