#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/softmax.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values_near;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// softmax (or log_softmax) of t along dim, element by element in double, row-major result.
std::vector<double> reference(const Tensor& t, int64_t dim, bool log) {
  std::vector<double> x = t.contiguous().to_vector<double>();
  int64_t outer = 1, n = t.size(dim), inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= t.size(d);
  for (int64_t d = dim + 1; d < t.dim(); ++d) inner *= t.size(d);
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t r) { return static_cast<size_t>((o * n + r) * inner + i); };
      double m = -kInf, s = 0;
      for (int64_t r = 0; r < n; ++r) m = std::max(m, x[at(r)]);
      for (int64_t r = 0; r < n; ++r) s += std::exp(x[at(r)] - m);
      for (int64_t r = 0; r < n; ++r) out[at(r)] = log ? x[at(r)] - m - std::log(s) : std::exp(x[at(r)] - m) / s;
    }
  return out;
}

}  // namespace

TEST(SoftmaxTest, Values) {
  // PyTorch: softmax([1, 2, 3]) = [0.0900306, 0.2447285, 0.6652410].
  Tensor x = tensor({1.0, 2.0, 3.0});
  expect_values_near(softmax(x, 0), {0.09003057317038046, 0.24472847105479764, 0.6652409557748219},
                     1e-12, 1e-12);
  expect_values_near(log_softmax(x, -1),
                     {-2.4076059644443806, -1.4076059644443804, -0.4076059644443803}, 1e-12, 1e-12);
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor m = tensor({1.0, 5.0, -2.0, 0.5, 3.0, 3.0}).reshape({2, 3}).to(dtype);
    EXPECT_EQ(softmax(m, 1).dtype(), dtype);
    for (int64_t dim : {0, 1}) {
      expect_values_near(softmax(m, dim), reference(m, dim, false));
      expect_values_near(m.log_softmax(dim), reference(m, dim, true));
      expect_values_near(m.softmax(dim - 2), reference(m, dim, false));
    }
  }
}

TEST(SoftmaxTest, LargeAndInfiniteInputsAreStable) {
  Tensor x = tensor({1000.0, 1001.0, -kInf});
  expect_values_near(softmax(x, 0), {1 / (1 + std::exp(1.0)), 1 / (1 + std::exp(-1.0)), 0}, 1e-12, 1e-12);
  expect_values_near(log_softmax(x, 0), {-std::log1p(std::exp(1.0)), -std::log1p(std::exp(-1.0)), -kInf},
                     1e-12, 1e-12);
  expect_values_near(softmax(tensor({-1000.0, -1000.0}), 0), {0.5, 0.5});
  Tensor f = tensor({100.0f, 0.0f});
  expect_values_near(log_softmax(f, 0), {0, -100}, 1e-6, 1e-6);  // no exp underflow to log(0)
  // As in PyTorch: a row of -inf is all NaN, and a NaN spreads over its row.
  expect_values_near(softmax(tensor({-kInf, -kInf}), 0), {kNaN, kNaN});
  expect_values_near(softmax(tensor({1.0, kNaN, 2.0, 0.0, 1.0, 2.0}).reshape({2, 3}), 1),
                     {kNaN, kNaN, kNaN, 0.09003057317038046, 0.24472847105479764, 0.6652409557748219});
}

TEST(SoftmaxTest, ZeroDimAndEmptyInputs) {
  Tensor s = scalar_tensor(3.0, kFloat64);
  expect_values_near(softmax(s, 0), {1});
  expect_values_near(log_softmax(s, -1), {0});
  EXPECT_EQ(softmax(s, 0).dim(), 0);
  EXPECT_EQ(softmax(zeros({0, 3}), 1).numel(), 0);
  EXPECT_EQ(softmax(zeros({3, 0}), 1).numel(), 0);
}

TEST(SoftmaxTest, EveryLayoutMatchesAReference) {
  Generator gen(9);
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim;
  };
  std::vector<Case> cases = {{{300, 257}, 1}, {{300, 257}, 0}, {{4, 3000, 5}, 1}, {{2, 70, 600}, 1},
                             {{1, 40, 2000}, 1}, {{6, 7}, -1}, {{64}, 0}};
  for (const Case& c : cases) {
    Tensor x = randn(c.shape, kFloat64, &gen) * 3.0;
    int64_t d = c.dim < 0 ? c.dim + x.dim() : c.dim;
    for (bool log : {false, true}) {
      expect_values_near(log ? log_softmax(x, c.dim) : softmax(x, c.dim), reference(x, d, log), 1e-12, 1e-12);
      expect_values_near(log ? log_softmax(x.to(kFloat32), c.dim) : softmax(x.to(kFloat32), c.dim),
                         reference(x, d, log), 1e-5, 1e-5);
    }
  }
  // Non-contiguous input.
  Tensor a = randn({20, 30}, kFloat64, &gen);
  expect_values_near(softmax(a.t(), 1), reference(a.t().contiguous(), 1, false), 1e-12, 1e-12);
  expect_values_near(log_softmax(a.slice(1, 0, 30, 2), 0),
                     reference(a.slice(1, 0, 30, 2).contiguous(), 0, true), 1e-12, 1e-12);
}

TEST(SoftmaxTest, Gradcheck) {
  Generator gen(4);
  auto draw = [&](IntArrayRef shape) { return (randn(shape, kFloat64, &gen) * 2.0).set_requires_grad(); };
  for (bool log : {false, true}) {
    auto f = [log](const Tensor& x, int64_t dim) { return log ? log_softmax(x, dim) : softmax(x, dim); };
    gradcheck([&](const TensorList& in) { return f(in[0], 1); }, {draw({3, 4})});
    gradcheck([&](const TensorList& in) { return f(in[0], 0); }, {draw({3, 4})});
    gradcheck([&](const TensorList& in) { return f(in[0], -2); }, {draw({2, 3, 2})});
    gradcheck([&](const TensorList& in) { return f(in[0].t(), 1); }, {draw({4, 3})});
    gradcheck([&](const TensorList& in) { return f(in[0], 0); }, {draw({})});
    // The gradient arrives expanded (stride 0) from the sum.
    gradcheck([&](const TensorList& in) { return (f(in[0], 1) * in[0]).sum(); }, {draw({2, 5})});
  }
}

TEST(SoftmaxTest, Gradgradcheck) {
  Generator gen(6);
  Tensor x = (randn({3, 4}, kFloat64, &gen) * 2.0).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return softmax(in[0], 1); }, {x});
  gradgradcheck([](const TensorList& in) { return softmax(in[0], 0); }, {x});
  gradgradcheck([](const TensorList& in) { return log_softmax(in[0], 1); }, {x});
  gradgradcheck([](const TensorList& in) { return log_softmax(in[0].t(), 1); }, {x});
}

TEST(SoftmaxTest, FusedGradientMatchesTheDifferentiableFormula) {
  Generator gen(8);
  for (bool log : {false, true})
    for (int64_t dim : {0, 1, 2}) {
      Tensor x = randn({5, 6, 7}, kFloat64, &gen).set_requires_grad();
      Tensor g = randn({5, 6, 7}, kFloat64, &gen);
      auto f = [&] { return log ? log_softmax(x, dim) : softmax(x, dim); };
      Tensor fused = autograd::grad({f()}, {x}, {g})[0];
      Tensor composite = autograd::grad({f()}, {x}, {g}, true, /*create_graph=*/true)[0];
      EXPECT_TRUE(composite.requires_grad());
      expect_values_near(fused, composite.detach().to_vector<double>(), 1e-12, 1e-12);
    }
}

TEST(SoftmaxTest, ErrorsNameTheOpAndArgument) {
  expect_error([] { softmax(ones({2, 3}), 2); }, {"softmax", "dimension 2 out of range", "[-2, 1]"});
  expect_error([] { log_softmax(ones({2}), -2); }, {"log_softmax", "out of range", "[-1, 0]"});
  expect_error([] { softmax(tensor<int64_t>({1, 2}), 0); }, {"softmax", "int64"});
  expect_error([] { log_softmax(ones({2}, kInt8), 0); }, {"log_softmax", "int8"});
}

TEST(SoftmaxTest, SavedOutputModifiedInPlaceIsAnError) {
  Tensor x = ones({2, 2}).set_requires_grad();
  Tensor y = softmax(x, 1);
  y.mul_(2.0);
  expect_error([&] { y.sum().backward(); }, {"modified by an in-place operation", "SoftmaxBackward"});
}

// A -inf mask (attention's) gives masked positions exactly zero weight and zero gradient, in both
// float dtypes and at every row length (vectorised lanes and scalar tails alike).
TEST(SoftmaxTest, MinusInfinityMaskGetsExactlyZeroWeight) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {kFloat32, kFloat64}) {
    for (int64_t n : {2, 3, 8, 17, 33}) {
      Tensor x = randn({3, n}, dtype);
      Tensor mask = ge(arange(n).reshape({1, n}), n / 2).expand({3, n});
      Tensor masked = where(mask, full({}, -inf, dtype), x).set_requires_grad();
      Tensor p = softmax(masked, 1);
      std::vector<double> values = p.to_vector<double>();
      std::vector<bool> m = mask.contiguous().to_vector<bool>();
      for (size_t i = 0; i < values.size(); ++i)
        if (m[i]) ASSERT_EQ(values[i], 0.0) << dtype << ", n " << n << ", element " << i;
      (p * randn({3, n}, dtype)).sum().backward();
      std::vector<double> g = masked.grad().to_vector<double>();
      for (size_t i = 0; i < g.size(); ++i)
        if (m[i]) ASSERT_EQ(g[i], 0.0) << dtype << ", n " << n << ", element " << i;
    }
    EXPECT_EQ(logsumexp(full({5}, -inf, dtype), {0}).item<double>(), -inf);
  }
}
