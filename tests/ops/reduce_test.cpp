#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/reduce.h"
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
constexpr double kInf = std::numeric_limits<double>::infinity();

void expect_shape(const Tensor& t, std::vector<int64_t> shape) {
  EXPECT_EQ(t.sizes().std_vec(), shape);
}

// Reference reduction (sum, or max when `is_max`) over `dims` (sorted) with keepdim, element by
// element in double.
std::vector<double> naive_reduce(const Tensor& t, const std::vector<int64_t>& dims, bool is_max = false) {
  std::vector<double> x = t.to_vector<double>();
  DimVector out_shape = reduced_shape(t.sizes(), dims, true);
  std::vector<double> out(static_cast<size_t>(numel_of(out_shape)), is_max ? -kInf : 0.0);
  DimVector out_strides = contiguous_strides(out_shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t rem = i, o = 0;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      int64_t c = rem % t.size(d);
      rem /= t.size(d);
      if (out_shape[static_cast<size_t>(d)] != 1) o += c * out_strides[static_cast<size_t>(d)];
    }
    double& acc = out[static_cast<size_t>(o)];
    acc = is_max ? std::max(acc, x[static_cast<size_t>(i)]) : acc + x[static_cast<size_t>(i)];
  }
  return out;
}
std::vector<double> naive_sum(const Tensor& t, const std::vector<int64_t>& dims) {
  return naive_reduce(t, dims);
}

Tensor draw(IntArrayRef shape, Generator& gen, double scale = 1.0) {
  return (randn(shape, kFloat64, &gen) * scale).set_requires_grad();
}

}  // namespace

TEST(ReduceTest, SumOverDimsWithKeepdimAndNegativeDims) {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).reshape({2, 3});
  expect_values_near(sum(x), {21});
  expect_shape(sum(x), {});
  expect_values_near(sum(x, {0}), {5, 7, 9});
  expect_values_near(sum(x, {1}), {6, 15});
  expect_values_near(sum(x, {-1}), {6, 15});
  expect_shape(sum(x, {-1}, true), {2, 1});
  expect_shape(sum(x, {0, 1}, true), {1, 1});
  expect_values_near(x.sum({1, 0}), {21});
  // 0-d: dim 0 or -1 reduces nothing.
  Tensor s = scalar_tensor(2.5, kFloat64);
  expect_values_near(sum(s), {2.5});
  expect_values_near(sum(s, {-1}, true), {2.5});
  expect_shape(sum(s, {0}, true), {});
  // Empty reductions give 0.
  expect_values_near(sum(zeros({0, 3}), {0}), {0, 0, 0});
  expect_shape(sum(zeros({0, 3}), {1}), {0});
}

TEST(ReduceTest, SumOfIntegersAndBoolsAccumulatesInInt64) {
  Tensor i = tensor<int32_t>({1, 2, 3});
  EXPECT_EQ(sum(i).dtype(), kInt64);
  EXPECT_EQ(sum(i).item<int64_t>(), 6);
  Tensor u = full({300}, 200, kUInt8);
  EXPECT_EQ(sum(u).item<int64_t>(), 60000);  // no uint8 overflow
  Tensor b = tensor(std::vector<bool>{true, false, true});
  EXPECT_EQ(sum(b).dtype(), kInt64);
  EXPECT_EQ(sum(b).item<int64_t>(), 2);
}

// Every layout and splitting strategy of the kernel against an element-by-element reference.
TEST(ReduceTest, SumMatchesAReferenceOnEveryLayout) {
  Generator gen(3);
  struct Case {
    std::vector<int64_t> shape, dims;
  };
  std::vector<Case> cases = {
      {{256, 300}, {0}},          // bias gradient: [1, B, N], split over N
      {{7, 5}, {0}},              // small bias gradient
      {{300, 200}, {1}},          // rows, split over rows
      {{4, 50, 6}, {1}},          // a middle dim in place
      {{4, 50, 6}, {0, 2}},       // [A, O, R]: per-channel, in place
      {{8, 16, 30, 30}, {0, 2, 3}},  // batch-norm statistics, split over channels
      {{64, 3, 400}, {0, 2}},     // few channels: split over R
      {{4, 3, 5, 6}, {0, 2}},     // [A, O, R, I]
      {{3, 4, 5, 6}, {1, 3}},     // kept, reduced, kept, reduced: moved last with a copy
      {{3, 4, 5, 6}, {1, 2}},     // a middle block
      {{150000}, {0}},            // one long run, split over R
      {{40000, 3}, {0}},          // long R with few columns
      {{2, 3, 20000}, {0, 1}},    // leading block, long kept dim
      {{5, 1, 4}, {1}},           // a size-1 reduced dim
  };
  for (const Case& c : cases) {
    Tensor x = randn(c.shape, kFloat64, &gen);
    expect_values_near(sum(x, c.dims, true), naive_sum(x, c.dims), 1e-9, 1e-9);
    Tensor xf = x.to(kFloat32);
    expect_values_near(sum(xf, c.dims, true), naive_sum(x, c.dims), 1e-3, 1e-3);
    expect_values(amax(x, c.dims, true), naive_reduce(x, c.dims, true));
    expect_values(amin(-xf, c.dims, true), (-amax(xf, c.dims, true)).to_vector<double>());
  }
  // Non-contiguous inputs: a transpose (whose permuted view is dense: no copy) and a slice.
  Tensor a = randn({30, 40}, kFloat64, &gen);
  expect_values_near(sum(a.t(), {0}), naive_sum(a.t().contiguous(), {0}), 1e-9, 1e-9);
  expect_values_near(sum(a.t(), {1}), naive_sum(a.t().contiguous(), {1}), 1e-9, 1e-9);
  Tensor p = randn({4, 5, 6}, kFloat64, &gen).permute({2, 0, 1});  // dense, in another order
  for (std::vector<int64_t> dims : {std::vector<int64_t>{0}, {1}, {2}, {1, 2}, {0, 2}}) {
    expect_values_near(sum(p, dims, true), naive_sum(p.contiguous(), dims), 1e-9, 1e-9);
    expect_values(amax(p, dims, true), naive_reduce(p.contiguous(), dims, true));
  }
  Tensor sl = a.slice(1, 1, 40, 3);
  expect_values_near(sum(sl, {0}), naive_sum(sl.contiguous(), {0}), 1e-9, 1e-9);
  expect_values_near(sum(sl), naive_sum(sl.contiguous(), {0, 1}), 1e-9, 1e-9);
}

TEST(ReduceTest, LongFloatSumsStayAccurate) {
  // Blocked accumulation: 2^24 + 2 ones would stick at 2^24 in a naive float loop.
  int64_t n = (int64_t{1} << 24) + 2;
  EXPECT_EQ(sum(ones({n})).item<double>(), static_cast<double>(n));
  // Column sums over more rows than one block.
  Tensor col = sum(full({10000, 3}, 0.1f), {0});
  expect_values_near(col, {1000, 1000, 1000}, 1e-6, 1e-6);
}

TEST(ReduceTest, MeanValues) {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).reshape({2, 3});
  expect_values_near(mean(x), {3.5});
  expect_values_near(mean(x, {0}), {2.5, 3.5, 4.5});
  expect_values_near(x.mean({-1}, true), {2, 5});
  expect_shape(x.mean({-1}, true), {2, 1});
  EXPECT_EQ(mean(x.to(kFloat32)).dtype(), kFloat32);
  expect_values_near(mean(zeros({0})), {kNaN});
}

TEST(ReduceTest, MaxAndMinOverAllElements) {
  Tensor x = tensor({3.0, -1.0, 7.0, 2.0}).reshape({2, 2});
  expect_values_near(max(x), {7});
  expect_values_near(min(x), {-1});
  expect_shape(x.max(), {});
  EXPECT_EQ(max(tensor<int64_t>({4, 9, -2})).item<int64_t>(), 9);
  EXPECT_EQ(min(tensor<uint8_t>({4, 9, 2})).item<int64_t>(), 2);
  Tensor b = max(tensor(std::vector<bool>{false, true}));
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_TRUE(b.item<bool>());
  expect_values_near(max(scalar_tensor(4.0)), {4});
  expect_values_near(amax(x, {0}), {7, 2});
  expect_values_near(amin(x, {1}, true), {-1, 2});
}

TEST(ReduceTest, NanPropagatesThroughMaxAndMin) {
  Tensor x = tensor({1.0, kNaN, 3.0});
  expect_values_near(max(x), {kNaN});
  expect_values_near(min(x), {kNaN});
  // Long rows (vectorised path) and columns.
  Tensor big = zeros({2, 1000});
  big.select(0, 1).select(0, 517).fill_(kNaN);
  expect_values_near(amax(big, {1}), {0, kNaN});
  expect_values_near(amin(big.t(), {0}), {0, kNaN});
  expect_values_near(amax(big, {0}).slice(0, 516, 518), {0, kNaN});
  auto [v, i] = max(big, 1);
  expect_values_near(v, {0, kNaN});
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{0, 517}));
}

TEST(ReduceTest, MaxAlongDimReturnsIndices) {
  Tensor x = tensor({1.0, 5.0, 3.0, 4.0, 2.0, 6.0}).reshape({2, 3});
  auto [v1, i1] = max(x, 1);
  expect_values_near(v1, {5, 6});
  EXPECT_EQ(i1.dtype(), kInt64);
  EXPECT_EQ(i1.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  auto [v0, i0] = x.max(0, true);
  expect_shape(v0, {1, 3});
  expect_values_near(v0, {4, 5, 6});
  EXPECT_EQ(i0.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  auto [vm, im] = min(x, -1);
  expect_values_near(vm, {1, 2});
  EXPECT_EQ(im.to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  // Ties report the first index; a NaN is the max and the min.
  auto [vt, it] = max(tensor({2.0, 7.0, 7.0, 1.0}), 0);
  EXPECT_EQ(it.item<int64_t>(), 1);
  auto [vn, in] = min(tensor({2.0, kNaN, 1.0, kNaN}), 0);
  expect_values_near(vn, {kNaN});
  EXPECT_EQ(in.item<int64_t>(), 1);
  // Integer and bool tensors keep their dtype.
  auto [vi, ii] = max(tensor<int32_t>({3, 9, 9, -4}).reshape({2, 2}), 1);
  EXPECT_EQ(vi.dtype(), kInt32);
  EXPECT_EQ(vi.to_vector<int32_t>(), (std::vector<int32_t>{9, 9}));
  EXPECT_EQ(ii.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  auto [vb, ib] = max(tensor(std::vector<bool>{false, true, false}), 0);
  EXPECT_EQ(vb.dtype(), kBool);
  EXPECT_EQ(ib.item<int64_t>(), 1);
  // 0-d: the value itself at index 0.
  auto [vs, is] = max(scalar_tensor(3.0), 0, true);
  expect_shape(vs, {});
  expect_values_near(vs, {3});
  EXPECT_EQ(is.item<int64_t>(), 0);
  // Empty kept dims give empty results.
  auto [ve, ie] = max(zeros({0, 4}), 1);
  expect_shape(ve, {0});
}

TEST(ReduceTest, MaxAlongInnerDimOfALargeTensorMatchesAReference) {
  Generator gen(5);
  Tensor x = randn({3, 40, 700}, kFloat64, &gen);
  auto [v, i] = max(x, 1);
  Tensor amax1 = amax(x, {1});
  expect_values(v, amax1.to_vector<double>());
  auto [vt, it] = min(x.transpose(0, 2), 1);  // non-contiguous input
  std::vector<double> xs = x.to_vector<double>();
  std::vector<int64_t> idx = it.to_vector<int64_t>();
  std::vector<double> vals = vt.to_vector<double>();
  for (int64_t a = 0; a < 700; ++a)
    for (int64_t c = 0; c < 3; ++c) {
      double best = kInf;
      int64_t bi = -1;
      for (int64_t b = 0; b < 40; ++b) {
        double e = xs[static_cast<size_t>((c * 40 + b) * 700 + a)];
        if (e < best) {
          best = e;
          bi = b;
        }
      }
      ASSERT_EQ(idx[static_cast<size_t>(a * 3 + c)], bi);
      ASSERT_EQ(vals[static_cast<size_t>(a * 3 + c)], best);
    }
  // One long kept dim (split over I) with one outer slice.
  Tensor w = randn({5, 60000}, kFloat64, &gen);
  auto [vw, iw] = max(w, 0);
  expect_values(vw, amax(w, {0}).to_vector<double>());
  std::vector<double> wv = w.to_vector<double>();
  std::vector<int64_t> wi = iw.to_vector<int64_t>();
  std::vector<double> pv = vw.to_vector<double>();
  for (size_t j = 0; j < wi.size(); ++j)
    ASSERT_EQ(wv[static_cast<size_t>(wi[j]) * 60000 + j], pv[j]);
}

TEST(ReduceTest, ArgmaxAndArgmin) {
  Tensor x = tensor({1.0, 5.0, 3.0, 4.0, 9.0, 6.0}).reshape({2, 3});
  EXPECT_EQ(argmax(x).item<int64_t>(), 4);  // into the flattened tensor
  expect_shape(argmax(x), {});
  expect_shape(x.argmax(std::nullopt, true), {1, 1});
  EXPECT_EQ(argmin(x).item<int64_t>(), 0);
  EXPECT_EQ(argmax(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(argmin(x, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
  expect_shape(argmax(x, -1, true), {2, 1});
  EXPECT_EQ(argmax(x.t()).item<int64_t>(), 3);  // row-major order of the transposed view
  EXPECT_EQ(argmax(scalar_tensor(1.0)).item<int64_t>(), 0);
  // Long rows: first of the ties, and the first NaN.
  Tensor row = zeros({500}, kFloat32);
  row.slice(0, 100, 110).fill_(2.0);
  EXPECT_EQ(argmax(row).item<int64_t>(), 100);
  row.select(0, 300).fill_(kNaN);
  row.select(0, 400).fill_(kNaN);
  EXPECT_EQ(argmax(row).item<int64_t>(), 300);
  EXPECT_EQ(argmin(row).item<int64_t>(), 300);
  EXPECT_EQ(argmax(tensor<int64_t>({3, 8, 8})).item<int64_t>(), 1);
}

TEST(ReduceTest, VarAndStd) {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 6.0, 8.0}).reshape({2, 3});
  // Row 0: mean 2, squared deviations 2 -> var 1 (unbiased), 2/3 (biased); row 1: mean 6, 8.
  expect_values_near(var(x, {1}), {1, 4});
  expect_values_near(var(x, {1}, 0), {2.0 / 3, 8.0 / 3});
  expect_values_near(x.std({1}), {1, 2});
  expect_shape(x.var({1}, 1, true), {2, 1});
  // All: mean 4, squared deviations 9 + 4 + 1 + 0 + 4 + 16 = 34.
  expect_values_near(var(x), {34.0 / 5});
  expect_values_near(ember::std(x, {}, 0), {std::sqrt(34.0 / 6)});
  expect_values_near(var(x, {0}), {4.5, 8, 12.5});
  expect_values_near(var(x.t(), {0}), {1, 4});
  // N <= correction divides by zero, as in PyTorch.
  expect_values_near(var(tensor({3.0})), {kNaN});
  expect_values_near(var(scalar_tensor(3.0)), {kNaN});
  expect_values_near(var(scalar_tensor(3.0), {}, 0), {0});
  // A large mean does not cancel the variance away.
  expect_values_near(var(tensor({1e8 + 1.0, 1e8 + 2.0, 1e8 + 3.0})), {1}, 1e-9, 1e-9);
}

TEST(ReduceTest, LogsumexpIsStable) {
  Tensor x = tensor({1.0, 2.0, 3.0, 1000.0, 1000.0, -kInf}).reshape({2, 3});
  double r0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  expect_values_near(logsumexp(x, {1}), {r0, 1000 + std::log(2.0)});
  expect_shape(x.logsumexp({1}, true), {2, 1});
  expect_values_near(logsumexp(x.to(kFloat32), {1}), {r0, 1000 + std::log(2.0)});
  expect_values_near(logsumexp(tensor({-kInf, -kInf}), {0}), {-kInf});
  expect_values_near(logsumexp(tensor({kInf, 1.0}), {0}), {kInf});
  expect_values_near(logsumexp(tensor({-1000.0, -1000.0}), {0}), {-1000 + std::log(2.0)});
  expect_values_near(logsumexp(zeros({2, 0}), {1}), {-kInf, -kInf});
  expect_values_near(logsumexp(scalar_tensor(2.0), {0}), {2});
  Tensor li = logsumexp(tensor<int64_t>({0, 0}), {0});
  EXPECT_EQ(li.dtype(), kFloat32);
  expect_values_near(li, {std::log(2.0)});
}

TEST(ReduceTest, NormForEveryOrder) {
  Tensor x = tensor({3.0, -4.0, 0.0, 1.0}).reshape({2, 2});
  expect_values_near(norm(x), {std::sqrt(26.0)});
  expect_values_near(norm(x, 1), {8});
  expect_values_near(norm(x, kInf), {4});
  expect_values_near(norm(x, -kInf), {0});
  expect_values_near(norm(x, 0), {3});
  expect_values_near(norm(x, 3), {std::cbrt(27.0 + 64.0 + 1.0)});
  expect_values_near(norm(x, 0.5), {std::pow(std::sqrt(3.0) + 2.0 + 1.0, 2.0)});
  expect_values_near(norm(x, 2, {1}), {5, 1});
  expect_values_near(x.norm(2, {0}, true), {3, std::sqrt(17.0)});
  expect_shape(x.norm(2, {0}, true), {1, 2});
  expect_values_near(norm(scalar_tensor(-2.0)), {2});
  EXPECT_EQ(norm(x.to(kFloat32)).dtype(), kFloat32);
}

TEST(ReduceTest, NormGradientAtZeroIsZero) {
  Tensor z = zeros({3}, kFloat64).set_requires_grad();
  norm(z).backward();
  expect_values_near(z.grad(), {0, 0, 0});
  Tensor z3 = zeros({2}, kFloat64).set_requires_grad();
  norm(z3, 3).backward();
  expect_values_near(z3.grad(), {0, 0});
}

TEST(ReduceTest, FullMaxSharesTheGradientAmongTies) {
  Tensor x = tensor({1.0, 3.0, 3.0, 2.0}).set_requires_grad();
  max(x).backward();
  expect_values_near(x.grad(), {0, 0.5, 0.5, 0});
  Tensor y = tensor({1.0, 1.0, 1.0}).set_requires_grad();
  min(y).backward();
  expect_values_near(y.grad(), {1.0 / 3, 1.0 / 3, 1.0 / 3});
  // A NaN maximum of the whole tensor sends the gradient to the NaNs, as PyTorch's max() does
  // (its amax() gives NaN throughout instead).
  Tensor n = tensor({kNaN, 2.0, kNaN}).set_requires_grad();
  max(n).backward();
  expect_values_near(n.grad(), {0.5, 0, 0.5});
  Tensor m = tensor({kNaN, 2.0, kNaN}).set_requires_grad();
  amax(m, {0}).backward();
  for (double v : m.grad().to_vector<double>()) EXPECT_TRUE(std::isnan(v));
  // amax over a dim: per slice.
  Tensor a = tensor({5.0, 5.0, 1.0, 2.0}).reshape({2, 2}).set_requires_grad();
  amax(a, {1}).sum().backward();
  expect_values_near(a.grad(), {0.5, 0.5, 0, 1});
}

TEST(ReduceTest, MaxAlongDimRoutesTheGradientToTheIndex) {
  Tensor x = tensor({1.0, 5.0, 5.0, 4.0, 2.0, 6.0}).reshape({2, 3}).set_requires_grad();
  auto [v, i] = max(x, 1);
  (v * tensor({1.0, 10.0})).sum().backward();
  expect_values_near(x.grad(), {0, 1, 0, 0, 0, 10});  // the first of the tied 5s
  Tensor y = tensor({1.0, 5.0, 3.0, 4.0}).reshape({2, 2}).set_requires_grad();
  std::get<0>(min(y, 0, true)).sum().backward();
  expect_values_near(y.grad(), {1, 0, 0, 1});
}

TEST(ReduceTest, Gradcheck) {
  Generator gen(17);
  auto check = [&](const std::function<Tensor(const Tensor&)>& fn, std::vector<int64_t> shape) {
    gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw(shape, gen)});
  };
  std::vector<std::function<Tensor(const Tensor&)>> ops = {
      [](const Tensor& x) { return sum(x, {-1}); },
      [](const Tensor& x) { return sum(x, {}, true); },
      [](const Tensor& x) { return mean(x, {0}, true); },
      [](const Tensor& x) { return mean(x); },
      [](const Tensor& x) { return var(x, {-1}); },
      [](const Tensor& x) { return var(x, {}, 0, true); },
      [](const Tensor& x) { return ember::std(x, {0}); },
      [](const Tensor& x) { return logsumexp(x, {-1}); },
      [](const Tensor& x) { return logsumexp(x, {}, true); },
      [](const Tensor& x) { return norm(x); },
      [](const Tensor& x) { return norm(x, 1, {-1}); },
      [](const Tensor& x) { return norm(x, kInf, {0}, true); },
      [](const Tensor& x) { return norm(x, -kInf); },
      [](const Tensor& x) { return norm(x, 3, {-1}); },
      [](const Tensor& x) { return norm(x, 1.5); },
      [](const Tensor& x) { return amax(x, {-1}); },
      [](const Tensor& x) { return amin(x, {0}, true); },
      [](const Tensor& x) { return max(x); },
      [](const Tensor& x) { return min(x); },
      [](const Tensor& x) { return std::get<0>(max(x, -1)); },
      [](const Tensor& x) { return std::get<0>(min(x, 0, true)); },
  };
  for (const auto& op : ops) {
    check(op, {3, 4});
    // Non-contiguous: the transpose of a [4, 3] tensor.
    gradcheck([&](const TensorList& in) { return op(in[0].t()); }, {draw({4, 3}, gen)});
  }
  // 0-d inputs, where the op accepts them (var and std of one element are NaN).
  for (size_t k = 0; k < ops.size(); ++k)
    if (k < 4 || k > 6) check(ops[k], {});
  // Sliced input.
  gradcheck([&](const TensorList& in) { return logsumexp(in[0].slice(1, 0, 6, 2), {1}); },
            {draw({3, 6}, gen)});
}

TEST(ReduceTest, Gradgradcheck) {
  Generator gen(23);
  Tensor x = draw({3, 4}, gen);
  gradgradcheck([](const TensorList& in) { return logsumexp(in[0], {1}); }, {x});
  gradgradcheck([](const TensorList& in) { return logsumexp(in[0].t(), {0}, true); }, {x});
  gradgradcheck([](const TensorList& in) { return var(in[0], {0}); }, {x});
  gradgradcheck([](const TensorList& in) { return ember::std(in[0], {1}); }, {x});
  gradgradcheck([](const TensorList& in) { return norm(in[0], 2, {1}); }, {x});
  gradgradcheck([](const TensorList& in) { return norm(in[0], 3); }, {x});
  gradgradcheck([](const TensorList& in) { return pow(std::get<0>(max(in[0], 1)), 2); }, {x});
  gradgradcheck([](const TensorList& in) { return amax(in[0], {0}) * in[0].sum(); }, {x});
}

TEST(ReduceTest, ErrorsNameTheOpAndTheRange) {
  Tensor x = zeros({2, 3});
  expect_error([&] { sum(x, {2}); }, {"sum", "dimension 2 out of range", "[-2, 1]"});
  expect_error([&] { max(x, -3); }, {"max", "dimension -3 out of range", "[-2, 1]"});
  expect_error([&] { argmin(x, 5); }, {"argmin", "out of range"});
  expect_error([&] { var(x, {0, -2}); }, {"var", "dim 0 appears twice"});
  expect_error([&] { logsumexp(x, {3}); }, {"logsumexp", "out of range"});
  expect_error([&] { norm(x, 2, {-3}); }, {"norm", "out of range"});
  expect_error([&] { max(scalar_tensor(1.0), 1); }, {"max", "[-1, 0]"});
  expect_error([&] { max(zeros({0, 2})); }, {"max", "empty", "[0, 2]"});
  expect_error([&] { argmax(zeros({0})); }, {"argmax", "empty"});
  expect_error([&] { max(zeros({2, 0}), 1); }, {"max", "dimension 1 of size 0", "[2, 0]"});
  expect_error([&] { amin(zeros({0, 3}), {0}); }, {"amin", "size 0"});
  expect_error([&] { mean(tensor<int64_t>({1, 2})); }, {"mean", "int64"});
  expect_error([&] { var(tensor<int32_t>({1, 2})); }, {"var", "int32"});
  expect_error([&] { norm(tensor<int64_t>({1})); }, {"norm", "int64"});
  expect_error([&] { amax(ones({2}, kComplex64)); }, {"amax", "complex64"});
}

// Regression: shapes of more than 6 dims lost their sizes when they grew past the inline capacity
// of the shape container (a 7-D sum was not 0-d and held garbage).
TEST(ReduceTest, SumsOfSevenAndEightDimsOverEveryDim) {
  for (int64_t ndim : {6, 7, 8}) {
    std::vector<int64_t> shape(static_cast<size_t>(ndim), 1);
    shape[1] = 2;
    shape[static_cast<size_t>(ndim - 1)] = 3;
    Tensor t = arange(6, kFloat64).reshape(shape);
    Tensor all = t.sum();
    EXPECT_EQ(all.dim(), 0);
    EXPECT_DOUBLE_EQ(all.item(), 15.0);
    for (int64_t d = 0; d < ndim; ++d) {
      Tensor s = t.sum({d}, /*keepdim=*/true);
      EXPECT_EQ(s.dim(), ndim) << "dim " << d;
      EXPECT_DOUBLE_EQ(s.sum().item(), 15.0) << "dim " << d;
      EXPECT_EQ(t.sum({d}).dim(), ndim - 1) << "dim " << d;
    }
    Tensor last = t.sum({1, ndim - 1});
    EXPECT_EQ(last.numel(), 1);
    EXPECT_DOUBLE_EQ(last.item(), 15.0);
  }
}

// Regression: std's gradient at zero spread was 0 * inf = NaN; PyTorch's is 0.
TEST(ReduceTest, StdGradientOfConstantValuesIsZero) {
  Tensor x = full({3}, 2.0, kFloat64).set_requires_grad();
  ember::std(x).backward();
  for (double g : x.grad().to_vector<double>()) EXPECT_EQ(g, 0.0);
  Tensor one = full({}, 0.3287, kFloat64).set_requires_grad();
  ember::std(one, {}, /*correction=*/0).backward();
  EXPECT_EQ(one.grad().item(), 0.0);
  gradcheck([](const TensorList& in) { return ember::std(in[0], {1}); }, {randn({3, 4}, kFloat64).set_requires_grad()});
}

TEST(ReduceTest, SumAndMeanInARequestedDtype) {
  Tensor x = tensor(std::vector<int64_t>{1, 2, 3, 4}, {2, 2});
  Tensor s = sum(x, {0}, false, kFloat64);
  EXPECT_EQ(s.dtype(), kFloat64);
  expect_values(s, {4, 6});
  Tensor m = x.mean({}, false, kFloat32);
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_DOUBLE_EQ(m.item(), 2.5);
  expect_error([&] { mean(x); }, {"mean"});  // an integer mean needs a floating dtype
}

TEST(ReduceTest, MaxAndMinOfTwoTensorsAreMaximumAndMinimum) {
  Tensor a = tensor({1.0, 5.0, -1.0}), b = tensor({2.0, 3.0, -4.0});
  expect_values(max(a, b), {2, 5, -1});
  expect_values(a.min(b), {1, 3, -4});
}
