#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "ember/ops/matmul.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed, DType dtype = kFloat64) {
  Generator gen(seed);
  return randn(shape, dtype, &gen);
}

// PyTorch's matmul by its definition, one output element at a time, in double: 1-D operands get
// a dim of size 1 added (and removed from the result), batch dims broadcast.
Tensor reference_matmul(const Tensor& a, const Tensor& b) {
  std::vector<int64_t> as = a.sizes().std_vec(), bs = b.sizes().std_vec();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  std::vector<int64_t> ba(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t nb = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), nb - ba.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  std::vector<int64_t> batch(nb);
  for (size_t d = 0; d < nb; ++d) batch[d] = std::max(ba[d], bb[d]);
  std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>(), out;
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  for (int64_t i = 0; i < count; ++i) {
    int64_t a_mat = 0, b_mat = 0, rem = i, a_scale = 1, b_scale = 1;
    for (size_t d = nb; d-- > 0;) {
      int64_t idx = rem % batch[d];
      rem /= batch[d];
      a_mat += (ba[d] == 1 ? 0 : idx) * a_scale;
      b_mat += (bb[d] == 1 ? 0 : idx) * b_scale;
      a_scale *= ba[d];
      b_scale *= bb[d];
    }
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += x[static_cast<size_t>(a_mat * m * k + r * k + p)] * y[static_cast<size_t>(b_mat * k * n + p * n + c)];
        out.push_back(acc);
      }
  }
  std::vector<int64_t> shape = batch;
  if (!a_vec) shape.push_back(m);
  if (!b_vec) shape.push_back(n);
  return tensor(out, shape);
}

void expect_matches_reference(const Tensor& got, const Tensor& a, const Tensor& b, double tol) {
  Tensor want = reference_matmul(a, b);
  ASSERT_EQ(got.sizes(), want.sizes()) << a.sizes() << " @ " << b.sizes();
  std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], w[i], tol * (1 + std::fabs(w[i]))) << a.sizes() << " @ " << b.sizes() << " element " << i;
}

// Pairs of shapes covering every rank combination and broadcast pattern.
const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> kShapes = {
    {{3}, {3}},             // dot
    {{2, 3}, {3}},          // matrix-vector
    {{3}, {3, 4}},          // vector-matrix
    {{2, 3}, {3, 4}},       // matrix-matrix
    {{2, 2, 3}, {3, 4}},    // batched x matrix (rows fold into one product)
    {{2, 3}, {2, 3, 4}},    // matrix x batched
    {{3}, {2, 3, 4}},       // vector x batched
    {{2, 2, 3}, {3}},       // batched x vector
    {{4, 2, 3}, {4, 3, 2}}, // batched x batched
    {{2, 1, 3, 4}, {5, 4, 6}},  // broadcast batch dims
    {{1, 2, 3}, {3, 1, 3, 2}},  // broadcast both ways
};

}  // namespace

TEST(MatmulTest, EveryRankCombinationMatchesNaiveReference) {
  uint64_t seed = 1;
  for (const auto& [as, bs] : kShapes) {
    for (DType dtype : {kFloat32, kFloat64}) {
      Tensor a = draw(as, seed++, dtype), b = draw(bs, seed++, dtype);
      Tensor c = matmul(a, b);
      EXPECT_EQ(c.dtype(), dtype);
      expect_matches_reference(c, a, b, dtype == kFloat32 ? 1e-5 : 1e-12);
    }
  }
}

TEST(MatmulTest, ShapesFollowPyTorch) {
  EXPECT_EQ(matmul(ones({3}), ones({3})).dim(), 0);
  EXPECT_EQ(matmul(ones({2, 1, 3, 4}), ones({5, 4, 6})).sizes(), IntArrayRef({2, 5, 3, 6}));
  EXPECT_EQ(matmul(ones({3}), ones({7, 3, 4})).sizes(), IntArrayRef({7, 4}));
  EXPECT_EQ(matmul(ones({7, 2, 3}), ones({3})).sizes(), IntArrayRef({7, 2}));
  EXPECT_EQ(matmul(ones({2, 3}), ones({3})).sizes(), IntArrayRef({2}));
  EXPECT_EQ(ones({2, 3}).matmul(ones({3, 5})).sizes(), IntArrayRef({2, 5}));
}

TEST(MatmulTest, KnownValues) {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor(std::vector<float>{7, 8, 9, 10, 11, 12}, {3, 2});
  EXPECT_EQ(matmul(a, b).to_vector<float>(), (std::vector<float>{58, 64, 139, 154}));
  EXPECT_EQ(matmul(tensor({1.0, 2.0, 3.0}), tensor({4.0, 5.0, 6.0})).item(), 32.0);
}

TEST(MatmulTest, TransposedSlicedAndExpandedOperands) {
  Tensor a = draw({5, 4}, 3), b = draw({6, 5}, 4), c = draw({3, 6, 5}, 5);
  // Column-major operands (transposed views) go to the GEMM as they are.
  expect_matches_reference(matmul(a.t(), b.t()), a.t(), b.t(), 1e-12);
  expect_matches_reference(matmul(b, a), b, a, 1e-12);
  expect_matches_reference(matmul(c.transpose(-1, -2), b), c.transpose(-1, -2), b, 1e-12);
  expect_matches_reference(matmul(b.t(), c), b.t(), c, 1e-12);
  // Every other column: neither row- nor column-major, so copied first.
  Tensor s = b.slice(1, 0, std::nullopt, 2);
  expect_matches_reference(matmul(s, draw({3, 2}, 6)), s, draw({3, 2}, 6), 1e-12);
  // A broadcast batch (stride 0) with a sliced matrix inside.
  Tensor e = s.unsqueeze(0).expand({4, 6, 3});
  Tensor r = draw({4, 3, 2}, 7);
  expect_matches_reference(matmul(e, r), e, r, 1e-12);
  // A row-major matrix with a padded leading dimension (a column slice).
  Tensor w = draw({5, 8}, 8).narrow(1, 1, 4);
  expect_matches_reference(matmul(w, a.t()), w, a.t(), 1e-12);
}

TEST(MatmulTest, LargeProductMatchesReference) {
  // Big enough for oneDNN's sgemm split over threads; odd sizes exercise the edge blocks.
  Tensor a = draw({70, 131}, 9, kFloat32), b = draw({131, 93}, 10, kFloat32);
  expect_matches_reference(matmul(a, b), a, b, 1e-4);
  expect_matches_reference(matmul(b.t(), a.t()), b.t(), a.t(), 1e-4);
}

// float products past the small-product cutoff go to oneDNN (core/cpu/gemm.cpp): every pairing of
// row- and column-major operands, padded leading dimensions, at 1, 2 and 3 threads, against a
// float64 reference; the same product gives the same bits every time at a given thread count.
TEST(MatmulTest, LargeFloatProductsInEveryLayoutMatchReferenceAndRepeatBitForBit) {
  const int saved = get_num_threads();
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    uint64_t seed = 60;
    // NB: the last two have k long enough that, on AVX2, a transposed left operand is copied row-major
    // (m >= n) or the product taken transposed (m < n) before oneDNN sees it (core/cpu/gemm.cpp)
    for (auto [m, k, n] : {std::array<int64_t, 3>{97, 131, 83}, {256, 64, 300}, {33, 517, 17}, {97, 1031, 66},
                           {66, 1031, 97}}) {
      Tensor a = draw({m, k + 3}, seed++, kFloat32).narrow(1, 1, k);  // row-major, padded
      Tensor at = draw({k, m + 5}, seed++, kFloat32).narrow(1, 2, m).t();  // column-major, padded
      Tensor b = draw({k, n}, seed++, kFloat32), bt = draw({n, k}, seed++, kFloat32).t();
      for (const Tensor& x : {a, at})
        for (const Tensor& y : {b, bt}) {
          Tensor got = matmul(x, y);
          expect_matches_reference(got, x, y, 1e-4);
          EXPECT_EQ(matmul(x, y).to_vector<float>(), got.to_vector<float>()) << threads << " threads";
        }
    }
  }
  set_num_threads(saved);
}

// A weight gradient's shape, g^T @ x with the result tall and narrow, is taken on AVX-512 as its
// transpose a block of 512 rows at a time where every thread gets a block (core/cpu/gemm.cpp): a last
// partial block and a padded leading dimension at 1 and 2 threads, the direct product at 3; each
// repeats bit for bit.
TEST(MatmulTest, TallNarrowProductsOfATransposedOperandMatchReferenceAndRepeatBitForBit) {
  const int saved = get_num_threads();
  Tensor g = draw({520, 1100 + 7}, 80, kFloat32).narrow(1, 3, 1100), x = draw({520, 40}, 81, kFloat32);
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    Tensor got = matmul(g.t(), x);
    expect_matches_reference(got, g.t(), x, 1e-4);
    EXPECT_EQ(matmul(g.t(), x).to_vector<float>(), got.to_vector<float>()) << threads << " threads";
  }
  set_num_threads(saved);
}

// Debian's oneDNN is built on OpenMP; Ember runs it single-threaded inside its own pool, so a product
// starts no thread beyond the pool's.
TEST(MatmulTest, FloatProductsStartNoThreadsOfTheirOwn) {
  auto threads_now = [] {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) n += entry.exists();
    return n;
  };
  const int saved = get_num_threads();
  set_num_threads(2);
  Tensor a = draw({512, 512}, 70, kFloat32), b = draw({512, 512}, 71, kFloat32);
  matmul(a, b);  // starts the pool's worker if it is not running yet
  const int before = threads_now();
  for (int i = 0; i < 5; ++i) matmul(a, b.t());
  EXPECT_EQ(threads_now(), before);
  set_num_threads(saved);
}

TEST(MatmulTest, ManySmallBatchedProductsMatchReference) {
  Tensor a = draw({300, 4, 5}, 11), b = draw({300, 5, 3}, 12);
  expect_matches_reference(matmul(a, b), a, b, 1e-12);
  Tensor w = draw({5, 3}, 13);
  expect_matches_reference(matmul(a.transpose(0, 1), w), a.transpose(0, 1), w, 1e-12);
}

TEST(MatmulTest, EmptyDimensions) {
  EXPECT_EQ(matmul(ones({0, 3}), ones({3, 4})).sizes(), IntArrayRef({0, 4}));
  Tensor z = matmul(ones({2, 0}), ones({0, 3}));
  EXPECT_EQ(z.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(matmul(ones({0}), ones({0})).item(), 0.0);
  EXPECT_EQ(matmul(ones({2, 0, 3}), ones({3, 4})).sizes(), IntArrayRef({2, 0, 4}));
}

TEST(MatmulTest, IntegerOperandsStayInteger) {
  Tensor a = tensor(std::vector<int64_t>{1, 2, 3, 4}, {2, 2});
  Tensor b = tensor(std::vector<int64_t>{5, 6, 7, 8}, {2, 2});
  Tensor c = matmul(a, b.t());
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{17, 23, 39, 53}));
  Tensor i32 = tensor(std::vector<int32_t>{1, 2, 3}, {3});
  EXPECT_EQ(matmul(i32, i32).item<int32_t>(), 14);
}

TEST(MatmulTest, GradientsMatchFiniteDifferences) {
  uint64_t seed = 20;
  auto fn = [](const TensorList& in) { return matmul(in[0], in[1]); };
  for (const auto& [as, bs] : kShapes) {
    Tensor a = draw(as, seed++).set_requires_grad(), b = draw(bs, seed++).set_requires_grad();
    gradcheck(fn, {a, b});
  }
}

TEST(MatmulTest, GradientsThroughTransposedAndSlicedOperands) {
  auto t_both = [](const TensorList& in) { return matmul(in[0].t(), in[1].transpose(-1, -2)); };
  gradcheck(t_both, {draw({3, 2}, 30).set_requires_grad(), draw({2, 4, 3}, 31).set_requires_grad()});
  auto sliced = [](const TensorList& in) { return matmul(in[0].slice(1, 0, std::nullopt, 2), in[1]); };
  gradcheck(sliced, {draw({2, 6}, 32).set_requires_grad(), draw({3, 2}, 33).set_requires_grad()});
  // Only one operand requires grad.
  gradcheck([](const TensorList& in) { return matmul(in[0], in[1]); },
            {draw({2, 3, 4}, 34), draw({4, 2}, 35).set_requires_grad()});
}

// A transposed operand (a linear layer's weight.t()) gets its gradient in its own layout, so the
// weight's gradient arrives contiguous and is kept rather than copied; values as by definition.
TEST(MatmulTest, GradientOfATransposedOperandArrivesContiguous) {
  Tensor x = draw({5, 3}, 50).set_requires_grad(), w = draw({4, 3}, 51).set_requires_grad();
  Tensor g = draw({5, 4}, 52);
  matmul(x, w.t()).backward(g);
  ASSERT_TRUE(w.grad().is_contiguous());
  EXPECT_EQ(w.grad().to_vector<double>(), matmul(g.t(), x.detach()).to_vector<double>());
  Tensor v = draw({3, 5}, 53).set_requires_grad();  // the same on the left operand
  matmul(v.t(), w.detach().t()).backward(g);
  ASSERT_TRUE(v.grad().is_contiguous());
  EXPECT_EQ(v.grad().to_vector<double>(), matmul(g, w.detach()).t().contiguous().to_vector<double>());
}

// [B..., m, k] @ [k, n] whose batch dims do not merge with its rows (a seq-first transformer's
// transposed activations, an expanded input) is copied and taken as one product, as PyTorch folds
// it; values and both gradients as by definition.
TEST(MatmulTest, StacksOfRowsThatDoNotFoldAreOneProduct) {
  // Leaves viewed as stacks whose batch dims do not merge with the rows.
  const std::vector<std::pair<std::vector<int64_t>, std::function<Tensor(const Tensor&)>>> views = {
      {{3, 4, 5}, [](const Tensor& t) { return t.transpose(0, 1); }},
      {{1, 3, 5}, [](const Tensor& t) { return t.expand({4, 3, 5}); }},
      {{2, 3, 4, 5}, [](const Tensor& t) { return t.permute({2, 0, 1, 3}); }}};
  uint64_t seed = 60;
  for (const auto& [shape, view] : views) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    Tensor x = draw(shape, seed++).set_requires_grad(), w = draw({5, 6}, seed++).set_requires_grad();
    const std::vector<double> got = matmul(view(x), w).to_vector<double>();
    const std::vector<double> want = reference_matmul(view(x.detach()), w.detach()).to_vector<double>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
    gradcheck([&](const TensorList& in) { return matmul(view(in[0]), in[1]); }, {x, w});
  }
}

TEST(MatmulTest, SecondDerivatives) {
  auto fn = [](const TensorList& in) { return matmul(in[0], in[1]); };
  gradgradcheck(fn, {draw({2, 3}, 40).set_requires_grad(), draw({3, 2}, 41).set_requires_grad()});
  gradgradcheck(fn, {draw({2, 1, 2, 3}, 42).set_requires_grad(), draw({3, 3, 2}, 43).set_requires_grad()});
  gradgradcheck(fn, {draw({3}, 44).set_requires_grad(), draw({3}, 45).set_requires_grad()});
}

TEST(MatmulTest, BroadcastBatchGradientsAreSummed) {
  Tensor a = ones({2, 3}, TensorOptions(kFloat64).requires_grad(true));
  Tensor b = ones({4, 3, 5}, TensorOptions(kFloat64).requires_grad(true));
  matmul(a, b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 3}));
  // Each a[i][p] meets 4 batches x 5 columns of ones.
  EXPECT_EQ(a.grad().to_vector<double>(), std::vector<double>(6, 20.0));
  EXPECT_EQ(b.grad().to_vector<double>(), std::vector<double>(60, 2.0));
}

TEST(MatmulTest, ErrorsNameBothShapes) {
  expect_error([] { matmul(ones({2, 3}), ones({4, 5})); }, {"matmul: cannot multiply [2, 3] by [4, 5]"});
  expect_error([] { matmul(ones({3}), ones({4})); }, {"matmul: cannot multiply [3] by [4]"});
  expect_error([] { matmul(ones({2, 2, 3}), ones({3, 3, 4})); },
               {"matmul: cannot multiply [2, 2, 3] by [3, 3, 4]", "batch"});
  expect_error([] { matmul(ones({}), ones({3})); }, {"matmul", "at least 1 dimension", "[]", "[3]"});
  expect_error([] { matmul(ones({2, 2}), ones({2, 2}, kFloat64)); }, {"matmul", "float32", "float64"});
  expect_error<TypeError>([] { matmul(ones({2, 2}, kBool), ones({2, 2}, kBool)); },
                          {"matmul: not supported for bool tensors"});
  expect_error<TypeError>([] { matmul(ones({0}, kBool), ones({0}, kBool)); }, {"matmul: not supported for bool tensors"});
  // As PyTorch, a bool product with nothing to add up is returned: empty, or all false.
  EXPECT_EQ(matmul(ones({0, 2, 2}, kBool), ones({2}, kBool)).sizes(), IntArrayRef({0, 2}));
  EXPECT_FALSE(matmul(ones({2, 0}, kBool), ones({0, 3}, kBool)).any().item<bool>());
  expect_error<ValueError>([] { matmul(ones({2, 3}), ones({4, 5})); },
                           {"matmul: cannot multiply [2, 3] by [4, 5]"});
}

// Regression: batch dims with an empty inner dim failed in reshape ("[-1, 0] is invalid").
TEST(MatmulTest, EmptyInnerDimWithBatchDimsGivesZeros) {
  Tensor a = ones({2, 3, 0}).set_requires_grad(), b = ones({0, 4}).set_requires_grad();
  Tensor y = matmul(a, b);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(y.sum().item(), 0.0);
  y.sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 3, 0}));
  EXPECT_EQ(b.grad().sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(nn::functional::linear(ones({1, 1, 0}), ones({2, 0})).sizes(), IntArrayRef({1, 1, 2}));
}

TEST(MatmulTest, MmAndBmmTakeOnlyTheirRanks) {
  Generator gen(3);
  Tensor a = randn({2, 3}, kFloat64, &gen), b = randn({3, 4}, kFloat64, &gen);
  EXPECT_EQ(mm(a, b).to_vector<double>(), matmul(a, b).to_vector<double>());
  Tensor ba = randn({5, 2, 3}, kFloat64, &gen), bb = randn({5, 3, 4}, kFloat64, &gen);
  EXPECT_EQ(ba.bmm(bb).to_vector<double>(), matmul(ba, bb).to_vector<double>());
  expect_error([&] { mm(ba, b); }, {"mm: expected 2-D tensors, got [5, 2, 3] and [3, 4]"});
  expect_error([&] { bmm(a, b); }, {"bmm: expected 3-D tensors, got [2, 3] and [3, 4]"});
  expect_error([&] { bmm(ba, randn({1, 3, 4})); }, {"bmm: batch sizes differ: [5, 2, 3] and [1, 3, 4]"});
}

namespace {

// addend + a @ b by its definition: the reference product, the addend broadcast, in double.
std::vector<double> reference_matmul_add(const Tensor& addend, const Tensor& a, const Tensor& b) {
  const Tensor product = reference_matmul(a.to(kFloat64), b.to(kFloat64));
  return (product + addend.to(kFloat64)).to_vector<double>();
}

}  // namespace

TEST(MatmulAddTest, EveryAddendShapeAndLayoutMatchesTheDefinition) {
  const Tensor a = draw({5, 7}, 80), b = draw({7, 4}, 81);
  const std::vector<Tensor> addends = {draw({4}, 82), draw({1, 4}, 83), draw({5, 1}, 84), draw({5, 4}, 85),
                                       draw({}, 86), draw({4, 5}, 87).t()};
  for (const Tensor& addend : addends) {
    SCOPED_TRACE(::testing::PrintToString(addend.sizes()));
    for (const auto& [x, y] : {std::pair{a, b}, std::pair{a.t().contiguous().t(), b.t().contiguous().t()}}) {
      const std::vector<double> got = matmul_add(addend, x, y).to_vector<double>();
      const std::vector<double> want = reference_matmul_add(addend, x, y);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
    }
  }
}

TEST(MatmulAddTest, FloatSumsAreRoundedOnceInEveryDtype) {
  // Large enough for oneDNN's sgemm, which then accumulates onto the addend (beta = 1).
  const Tensor a = draw({70, 40}, 90, kFloat32), b = draw({40, 50}, 91, kFloat32), bias = draw({50}, 92, kFloat32);
  const std::vector<double> want = reference_matmul_add(bias, a, b);
  const std::vector<double> got = matmul_add(bias, a, b).to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])));
  for (DType half : {kBFloat16, kFloat16}) {
    SCOPED_TRACE(::testing::PrintToString(half));
    const Tensor ah = a.to(half), bh = b.to(half), biash = bias.to(half);
    const Tensor sum = matmul_add(biash, ah, bh);
    EXPECT_EQ(sum.dtype(), half);
    // Computed in float32 on the 16-bit values and rounded once: the float32 result of the same
    // 16-bit inputs, rounded, is the answer to within one 16-bit rounding.
    const std::vector<double> wide =
        matmul_add(biash.to(kFloat32), ah.to(kFloat32), bh.to(kFloat32)).to(half).to_vector<double>();
    const std::vector<double> narrow = sum.to_vector<double>();
    for (size_t i = 0; i < narrow.size(); ++i) EXPECT_NEAR(narrow[i], wide[i], 1e-2 * (1 + std::abs(wide[i])));
  }
}

// A linear layer's bias row goes into oneDNN's matmul epilogue on the shapes where that pays (64 rows
// or more, no wider than tall); every shape, layout and thread count keeps the definition.
TEST(MatmulAddTest, BiasRowsInTheProductEpilogueMatchTheDefinitionAtEveryThreadCount) {
  const int threads = get_num_threads();
  uint64_t seed = 200;
  for (int t : {1, 2}) {
    set_num_threads(t);
    for (auto [m, k, n] : {std::array<int64_t, 3>{64, 128, 10},
                           {256, 64, 96},
                           {300, 33, 17},
                           {8, 512, 100},
                           {65, 7, 64},
                           {70, 300, 90}}) {
      SCOPED_TRACE(::testing::PrintToString(std::array<int64_t, 3>{m, k, n}) + " at " + std::to_string(t));
      const Tensor x = draw({m, k}, seed++, kFloat32), xt = draw({k, m}, seed++, kFloat32).t();
      const Tensor w = draw({n, k}, seed++, kFloat32), bias = draw({n}, seed++, kFloat32);
      for (const Tensor& a : {x, xt})
        for (const Tensor& b : {w.t(), w.t().contiguous()}) {
          const std::vector<double> want = reference_matmul_add(bias, a, b);
          const std::vector<double> scale = reference_matmul_add(abs(bias), abs(a), abs(b));
          const std::vector<double> got = matmul_add(bias, a, b).to_vector<double>();
          ASSERT_EQ(got.size(), want.size());
          for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-6 * scale[i]) << i;
          // bfloat16 (oneDNN's native kernel where the machine has one): within a rounding of the
          // float32 sum of the same bfloat16 values
          const Tensor ah = a.to(kBFloat16), bh = b.to(kBFloat16), biash = bias.to(kBFloat16);
          const std::vector<double> wide =
              matmul_add(biash.to(kFloat32), ah.to(kFloat32), bh.to(kFloat32)).to(kBFloat16).to_vector<double>();
          const std::vector<double> narrow = matmul_add(biash, ah, bh).to_vector<double>();
          for (size_t i = 0; i < narrow.size(); ++i) ASSERT_NEAR(narrow[i], wide[i], 1e-2 * (1 + std::abs(wide[i])));
        }
    }
  }
  set_num_threads(threads);
}

TEST(MatmulAddTest, LongProductsOfATransposedOperandAccumulateOntoTheAddend) {
  // The shapes gemm takes through a row-major copy of the left operand (m >= n), and the one it
  // leaves as it is when accumulating (m < n), on AVX2; both on AVX-512.
  uint64_t seed = 120;
  for (auto [m, k, n] : {std::array<int64_t, 3>{97, 1031, 66}, {66, 1031, 97}}) {
    const Tensor at = draw({k, m}, seed++, kFloat32).t(), b = draw({k, n}, seed++, kFloat32);
    const Tensor bias = draw({n}, seed++, kFloat32);
    const std::vector<double> want = reference_matmul_add(bias, at, b);
    const std::vector<double> got = matmul_add(bias, at, b).to_vector<double>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3 * (1 + std::abs(want[i])));
  }
}

TEST(MatmulAddTest, EmptyInnerSizeGivesTheAddendAndOtherDtypesPromote) {
  const Tensor bias = draw({3}, 93);
  const Tensor sum = matmul_add(bias, zeros({2, 0}, kFloat64), zeros({0, 3}, kFloat64));
  EXPECT_EQ(sum.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(sum.to_vector<double>(), bias.expand({2, 3}).contiguous().to_vector<double>());
  EXPECT_EQ(matmul_add(bias, zeros({0, 4}, kFloat64), zeros({4, 3}, kFloat64)).sizes(), IntArrayRef({0, 3}));
  // An integer addend on float operands is added as add() would (promoted), not accumulated.
  const Tensor ints = arange(3);
  const Tensor mixed = matmul_add(ints, ones({2, 4}, kFloat32), ones({4, 3}, kFloat32));
  EXPECT_EQ(mixed.dtype(), kFloat32);
  EXPECT_EQ(mixed.to_vector<double>(), (std::vector<double>{4, 5, 6, 4, 5, 6}));
  expect_error([] { matmul_add(ones({5}), ones({2, 4}), ones({4, 3})); }, {"matmul_add", "[5]", "[2, 3]"});
  expect_error([] { matmul_add(ones({3}), ones({2, 4}), ones({5, 3})); }, {"cannot multiply [2, 4] by [5, 3]"});
}

TEST(MatmulAddTest, GradientsMatchFiniteDifferences) {
  auto fn = [](const TensorList& in) { return matmul_add(in[0], in[1], in[2]); };
  gradcheck(fn, {draw({4}, 94).set_requires_grad(), draw({3, 5}, 95).set_requires_grad(),
                 draw({5, 4}, 96).set_requires_grad()});
  gradcheck(fn, {draw({3, 1}, 97).set_requires_grad(), draw({5, 3}, 98).t().set_requires_grad(),
                 draw({5, 4}, 99).set_requires_grad()});
  gradgradcheck(fn, {draw({4}, 100).set_requires_grad(), draw({3, 5}, 101).set_requires_grad(),
                     draw({5, 4}, 102).set_requires_grad()});
  // Only the addend needs a gradient: it is the incoming gradient summed over the rows.
  Tensor bias = zeros({4}, TensorOptions(kFloat64).requires_grad(true));
  matmul_add(bias, draw({3, 5}, 103), draw({5, 4}, 104)).sum().backward();
  EXPECT_EQ(bias.grad().to_vector<double>(), std::vector<double>(4, 3.0));
}

TEST(MatmulAddTest, LinearWithABiasIsTheSameSumForEveryInputRank) {
  const Tensor w = draw({6, 5}, 110).set_requires_grad(), bias = draw({6}, 111).set_requires_grad();
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{5}, {3, 5}, {2, 3, 5}, {2, 1, 3, 5}, {0, 5}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const Tensor x = draw(shape, 112).set_requires_grad();
    const Tensor y = nn::functional::linear(x, w, bias);
    const Tensor want = matmul(x.detach(), w.detach().t()) + bias.detach();
    ASSERT_EQ(y.sizes(), want.sizes());
    const std::vector<double> got = y.to_vector<double>(), expect = want.to_vector<double>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expect[i], 1e-12);
    if (x.numel() > 0)
      gradcheck([](const TensorList& in) { return nn::functional::linear(in[0], in[1], in[2]); }, {x, w, bias});
  }
  // A transposed (non-folding) input and a [1, out] bias, which broadcasts as PyTorch's does.
  const Tensor xt = draw({3, 2, 5}, 113).transpose(0, 1);
  const Tensor wide_bias = draw({1, 6}, 114);
  const std::vector<double> got = nn::functional::linear(xt, w.detach(), wide_bias).to_vector<double>();
  const std::vector<double> want = (matmul(xt, w.detach().t()) + wide_bias).to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
}
