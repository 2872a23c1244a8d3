#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

Tensor range(int64_t n, IntArrayRef shape) { return arange(n, TensorOptions(kFloat32)).reshape(shape); }

Tensor draw(IntArrayRef shape, uint64_t seed = 11) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen).set_requires_grad();
}

bool shares(const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); }

}  // namespace

TEST(ViewTest, EveryViewSharesStorageAndWritesReachTheBase) {
  using ViewFn = std::function<Tensor(const Tensor&)>;
  std::vector<std::pair<const char*, ViewFn>> views = {
      {"view", [](const Tensor& t) { return t.view({4, 6}); }},
      {"reshape", [](const Tensor& t) { return t.reshape({-1}); }},
      {"flatten", [](const Tensor& t) { return t.flatten(1); }},
      {"permute", [](const Tensor& t) { return t.permute({2, 0, 1}); }},
      {"transpose", [](const Tensor& t) { return t.transpose(0, -1); }},
      {"squeeze", [](const Tensor& t) { return t.unsqueeze(1).squeeze(); }},
      {"unsqueeze", [](const Tensor& t) { return t.unsqueeze(-1); }},
      {"slice", [](const Tensor& t) { return t.slice(2, 1, std::nullopt, 2); }},
      {"narrow", [](const Tensor& t) { return t.narrow(1, 1, 2); }},
      {"select", [](const Tensor& t) { return t.select(0, 1); }},
  };
  for (const auto& [name, fn] : views) {
    Tensor base = zeros({2, 3, 4});
    Tensor v = fn(base);
    EXPECT_TRUE(shares(v, base)) << name;
    v.fill_(7.0);
    double total = base.sum().item();
    EXPECT_EQ(total, 7.0 * static_cast<double>(v.numel())) << name;
  }
  Tensor base = zeros({3, 1});
  EXPECT_TRUE(shares(base.expand({2, 3, 4}), base));
  Tensor m = zeros({2, 3});
  m.t().select(0, 2).fill_(1.0);  // column 2 of m
  expect_values(m, {0, 0, 1, 0, 0, 1});
}

TEST(ViewTest, ReshapeCopiesOnlyWhenTheLayoutNeedsIt) {
  Tensor x = range(6, {2, 3});
  EXPECT_TRUE(shares(x.reshape({3, 2}), x));
  EXPECT_TRUE(shares(x.t().reshape({3, 2}), x));        // same shape: still a view
  EXPECT_TRUE(shares(x.t().reshape({3, 1, 2}), x));     // adding a unit dim never needs a copy
  EXPECT_TRUE(shares(x.slice(1, 0, 2).reshape({2, 1, 2}), x));
  Tensor copied = x.t().reshape({6});
  EXPECT_FALSE(shares(copied, x));
  expect_values(copied, {0, 3, 1, 4, 2, 5});
  Tensor rows = x.slice(1, 0, 2).reshape({4});
  EXPECT_FALSE(shares(rows, x));
  expect_values(rows, {0, 1, 3, 4});
  EXPECT_EQ(x.reshape({-1, 2}).sizes(), IntArrayRef({3, 2}));
  expect_error([&] { x.reshape({-1, -1}); }, {"reshape: only one dimension can be inferred in shape [-1, -1]"});
  expect_error([&] { x.reshape({4, -1}); }, {"reshape: shape [4, -1] is invalid for input of size 6"});
  expect_error([&] { x.reshape({5}); }, {"reshape: shape [5] is invalid for input of size 6"});
}

TEST(ViewTest, ViewRefusesLayoutsThatNeedACopy) {
  Tensor x = range(6, {2, 3});
  try {
    x.t().view({6});
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "view: size [6] is not compatible with the input's size [3, 2] and "
                           "stride [1, 3]; use reshape() instead");
  }
  expect_error([&] { x.slice(1, 0, 2).view({4}); }, {"view: size [4] is not compatible", "[2, 2]", "[3, 1]"});
  // Splitting a dim and adding unit dims works on any layout.
  Tensor split = x.t().view({3, 1, 2, 1});
  EXPECT_EQ(split.sizes(), IntArrayRef({3, 1, 2, 1}));
  expect_values(split, {0, 3, 1, 4, 2, 5});
  Tensor e = tensor<float>({1.0f, 2.0f, 3.0f}, {3, 1}).expand({3, 4});
  Tensor ev = e.view({3, 2, 2});
  EXPECT_EQ(ev.strides(), IntArrayRef({1, 0, 0}));
  expect_error([&] { e.view({12}); }, {"view: size [12] is not compatible"});
  EXPECT_EQ(scalar_tensor(5.0).view({1, 1}).sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(zeros({1, 1}).view({}).dim(), 0);
}

TEST(ViewTest, ExpandUsesZeroStrides) {
  Tensor col = tensor<float>({1.0f, 2.0f, 3.0f}, {3, 1});
  Tensor e = col.expand({2, 3, 4});
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(e.strides(), IntArrayRef({0, 1, 0}));
  EXPECT_EQ(col.expand({2, -1, 4}).strides(), IntArrayRef({0, 1, 0}));
  expect_values(col.expand({3, 2}), {1, 1, 2, 2, 3, 3});
  EXPECT_EQ(col.expand_as(zeros({5, 3, 2})).sizes(), IntArrayRef({5, 3, 2}));
  EXPECT_EQ(scalar_tensor(2.0).expand({2, 2}).strides(), IntArrayRef({0, 0}));
  expect_error([&] { col.expand({2, 4, 4}); },
               {"expand: cannot expand shape [3, 1] to [2, 4, 4] (dim 1: 3 vs 4)"});
  expect_error([&] { col.expand({4}); },
               {"expand: the number of sizes (1) must be at least the tensor's dims (2)"});
}

TEST(ViewTest, SliceWithStepsAndNegativeBounds) {
  Tensor a = range(10, {10});
  Tensor s = a.slice(0, 1, std::nullopt, 3);
  EXPECT_EQ(s.strides(), IntArrayRef({3}));
  EXPECT_EQ(s.storage_offset(), 1);
  expect_values(s, {1, 4, 7});
  expect_values(a.slice(0, -7, -1, 2), {3, 5, 7});
  expect_values(a.slice(0, std::nullopt, std::nullopt, 4), {0, 4, 8});
  expect_values(a.slice(0, -100, 100, 5), {0, 5});  // bounds clamp to the dim
  EXPECT_EQ(a.slice(0, 8, 2).numel(), 0);            // start past end: empty
  EXPECT_EQ(a.slice(0, 10, std::nullopt).numel(), 0);
  Tensor m = range(12, {3, 4});
  expect_values(m.t().slice(1, std::nullopt, std::nullopt, 2), {0, 8, 1, 9, 2, 10, 3, 11});
  expect_values(m.slice(-1, -2, std::nullopt), {2, 3, 6, 7, 10, 11});
  expect_error([&] { a.slice(0, 0, 5, 0); }, {"slice: step must be positive, got 0"});
  expect_error([&] { a.slice(1, 0, 5); }, {"slice: dimension 1 out of range"});
  expect_error([] { scalar_tensor(1.0).slice(0, 0, 1); }, {"slice: cannot slice a 0-d tensor"});
}

TEST(ViewTest, SelectAndNarrow) {
  Tensor m = range(12, {3, 4});
  Tensor row = m.select(0, 1);
  EXPECT_EQ(row.sizes(), IntArrayRef({4}));
  expect_values(row, {4, 5, 6, 7});
  expect_values(m.select(1, -1), {3, 7, 11});
  expect_values(m.select(-1, -4), {0, 4, 8});
  EXPECT_EQ(m.select(0, 2).select(0, 3).dim(), 0);
  EXPECT_EQ(m.select(0, 2).select(0, 3).item<float>(), 11.0f);
  try {
    m.select(0, 3);
    FAIL() << "expected an IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "select: index 3 out of range for dimension 0 of size 3");
  }
  expect_error([] { scalar_tensor(1.0).select(0, 0); }, {"select: cannot select from a 0-d tensor"});
  Tensor n = m.narrow(1, 1, 2);
  EXPECT_EQ(n.sizes(), IntArrayRef({3, 2}));
  expect_values(n, {1, 2, 5, 6, 9, 10});
  expect_values(m.narrow(-1, -2, 2), {2, 3, 6, 7, 10, 11});
  EXPECT_EQ(m.narrow(0, 3, 0).numel(), 0);
  expect_error([&] { m.narrow(1, 3, 2); }, {"narrow: start 3 + length 2 exceeds dimension 1 of size 4"});
}

TEST(ViewTest, SqueezeUnsqueezeFlattenPermuteTranspose) {
  Tensor x = zeros({1, 3, 1, 2});
  EXPECT_EQ(x.squeeze().sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(x.squeeze(2).sizes(), IntArrayRef({1, 3, 2}));
  EXPECT_EQ(x.squeeze(-4).sizes(), IntArrayRef({3, 1, 2}));
  EXPECT_EQ(x.squeeze(1).sizes(), IntArrayRef({1, 3, 1, 2}));  // not size 1: unchanged
  EXPECT_EQ(x.unsqueeze(-1).sizes(), IntArrayRef({1, 3, 1, 2, 1}));
  EXPECT_EQ(x.unsqueeze(4).sizes(), IntArrayRef({1, 3, 1, 2, 1}));
  EXPECT_EQ(scalar_tensor(1.0).unsqueeze(0).sizes(), IntArrayRef({1}));
  EXPECT_EQ(scalar_tensor(1.0).squeeze(0).dim(), 0);
  expect_error([&] { x.unsqueeze(5); }, {"unsqueeze: dimension 5 out of range"});
  expect_error([] { scalar_tensor(1.0).squeeze(1); }, {"squeeze: dimension 1 out of range"});

  Tensor y = zeros({2, 3, 4, 5});
  EXPECT_EQ(y.flatten().sizes(), IntArrayRef({120}));
  EXPECT_EQ(y.flatten(1, 2).sizes(), IntArrayRef({2, 12, 5}));
  EXPECT_EQ(y.flatten(-2).sizes(), IntArrayRef({2, 3, 20}));
  EXPECT_EQ(scalar_tensor(1.0).flatten().sizes(), IntArrayRef({1}));
  expect_error([&] { y.flatten(2, 1); }, {"flatten: start_dim 2 comes after end_dim 1"});

  Tensor p = y.permute({2, 0, -1, 1});
  EXPECT_EQ(p.sizes(), IntArrayRef({4, 2, 5, 3}));
  EXPECT_EQ(p.strides(), IntArrayRef({5, 60, 1, 20}));
  expect_error([&] { y.permute({0, 0, 1, 2}); }, {"permute: dim 0 repeats in [0, 0, 1, 2]"});
  expect_error([&] { y.permute({0, 1}); }, {"permute: 2 dims given for a tensor with 4 dims"});
  EXPECT_EQ(y.transpose(-1, 0).sizes(), IntArrayRef({5, 3, 4, 2}));
  expect_values(range(6, {2, 3}).t(), {0, 3, 1, 4, 2, 5});
  EXPECT_EQ(zeros({3}).t().sizes(), IntArrayRef({3}));
  EXPECT_EQ(scalar_tensor(1.0).transpose(0, -1).dim(), 0);
  expect_error([] { scalar_tensor(1.0).transpose(0, 2); }, {"transpose: dimension 2 out of range"});
  expect_error([&] { y.t(); }, {"t: expects a tensor with at most 2 dims, got 4"});
}

TEST(ViewTest, ContiguousCopiesOnlyStridedTensors) {
  Tensor x = range(6, {2, 3});
  EXPECT_TRUE(x.contiguous().is_same(x));
  Tensor c = x.t().contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(shares(c, x));
  EXPECT_EQ(c.strides(), IntArrayRef({2, 1}));
  expect_values(c, {0, 3, 1, 4, 2, 5});
}

TEST(ViewTest, GradcheckThroughEachViewOp) {
  auto check = [](const std::function<Tensor(const Tensor&)>& fn, IntArrayRef shape) {
    gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw(shape)});
  };
  check([](const Tensor& t) { return t.view({3, 4}); }, {2, 6});
  check([](const Tensor& t) { return t.reshape({-1}); }, {2, 3});
  check([](const Tensor& t) { return t.t().reshape({6}); }, {2, 3});  // the copying path
  check([](const Tensor& t) { return t.flatten(1); }, {2, 2, 2});
  check([](const Tensor& t) { return t.permute({1, 2, 0}); }, {2, 3, 2});
  check([](const Tensor& t) { return t.transpose(0, -1); }, {2, 3});
  check([](const Tensor& t) { return t.t(); }, {3, 2});
  check([](const Tensor& t) { return t.t().contiguous(); }, {3, 2});
  check([](const Tensor& t) { return t.squeeze(); }, {1, 3, 1});
  check([](const Tensor& t) { return t.squeeze(0); }, {1, 3});
  check([](const Tensor& t) { return t.unsqueeze(1); }, {2, 3});
  check([](const Tensor& t) { return t.expand({2, 3, 4}); }, {3, 1});
  check([](const Tensor& t) { return t.expand({3, 2}); }, {});
  check([](const Tensor& t) { return t.slice(1, -4, std::nullopt, 2); }, {2, 5});
  check([](const Tensor& t) { return t.narrow(0, 1, 2); }, {4, 2});
  check([](const Tensor& t) { return t.select(1, -1); }, {2, 3});
  check([](const Tensor& t) { return t.select(0, 0); }, {3});
  check([](const Tensor& t) { return t.view({}); }, {1});
}

TEST(ViewTest, GradcheckThroughAChainOfViewsOnANonContiguousTensor) {
  auto chain = [](const TensorList& in) {
    Tensor t = in[0].transpose(0, 2);             // [4, 3, 2], non-contiguous
    t = t.slice(0, 1, std::nullopt, 2);           // [2, 3, 2]
    t = t.unsqueeze(1).expand({2, 2, 3, 2});      // [2, 2, 3, 2] with a stride-0 dim
    t = t.select(-1, 1).narrow(2, 1, 2);          // [2, 2, 2]
    return t.reshape({4, 2}).permute({1, 0}).flatten();
  };
  gradcheck(chain, {draw({2, 3, 4})});
  gradgradcheck([&](const TensorList& in) {
    Tensor y = chain(in);
    return y * y;
  }, {draw({2, 3, 4})});
  // 8 outputs read 4 elements of x (x[1][j][i], j in {1, 2}, i in {1, 3}) twice each.
  Tensor x = zeros({2, 3, 4}).set_requires_grad();
  chain({x}).sum().backward();
  std::vector<double> g = x.grad().to_vector<double>();
  double total = 0;
  for (double v : g) total += v;
  EXPECT_EQ(total, 8.0);
  EXPECT_EQ(g[1 * 12 + 1 * 4 + 1], 2.0);  // x[1][1][1] is read through both expanded copies
  EXPECT_EQ(g[0 * 12 + 1 * 4 + 1], 0.0);  // x[0][...] is never read (select(-1, 1))
}

TEST(ViewTest, GradgradcheckThroughSliceAndSelect) {
  gradgradcheck([](const TensorList& in) {
    Tensor y = in[0].slice(0, 0, std::nullopt, 2).select(1, 1);
    return y * y;
  }, {draw({5, 3})});
}

TEST(ViewTest, ConveniencesOfTheOpTableAreViewsOfTheirBase) {
  Tensor x = range(6, {2, 3});
  Tensor other = zeros({3, 2});
  EXPECT_EQ(view_as(x, other).sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(x.reshape_as(other).sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(range(3, {1, 3}).expand_as(x).strides(), IntArrayRef({0, 1}));
  EXPECT_EQ(broadcast_to(range(3, {3}), {4, 2, 3}).sizes(), IntArrayRef({4, 2, 3}));
  EXPECT_EQ(swapaxes(x, 0, 1).sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(t(x).sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(squeeze(zeros({1, 3, 1}), std::nullopt).sizes(), IntArrayRef({3}));
  EXPECT_EQ(x.squeeze(0).sizes(), IntArrayRef({2, 3}));
  for (const Tensor& v : {view_as(x, other), t(x), swapaxes(x, 0, 1)}) EXPECT_TRUE(shares(v, x));
  expect_error([&] { view_as(x.t(), zeros({6})); }, {"view"});
  expect_error([&] { t(zeros({2, 2, 2})); }, {"t: expects a tensor with at most 2 dims, got 3"});
}

TEST(ViewTest, UnbindGivesEveryEntryOfADimAsAView) {
  Tensor x = range(6, {2, 3});
  std::vector<Tensor> rows = unbind(x), cols = x.unbind(-1);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(cols.size(), 3u);
  expect_values(rows[1], {3, 4, 5});
  expect_values(cols[2], {2, 5});
  EXPECT_TRUE(shares(rows[0], x));
  EXPECT_TRUE(unbind(zeros({0, 2})).empty());
  expect_error([&] { unbind(x, 2); }, {"unbind: dimension 2 out of range"});
  gradcheck([](const TensorList& in) { return stack(unbind(in[0], 1), 0) * 2.0; }, {draw({2, 3})});
}

TEST(ViewTest, AsStridedViewsTheStorageAndAddsBackOverlappingGradients) {
  const Tensor x = arange(0, 10, 1, kFloat64).set_requires_grad();
  // Sliding windows of 4 every 2: elements shared between windows get each window's gradient.
  const Tensor w = as_strided(x, {4, 4}, {2, 1}, 0);
  EXPECT_EQ(w.data_ptr(), x.data_ptr());
  expect_values(w.select(0, 1), {2, 3, 4, 5});
  (w * arange(0, 4, 1, kFloat64)).sum().backward();
  expect_values(x.grad(), {0, 1, 2, 4, 2, 4, 2, 4, 2, 3});
  autograd::gradcheck([](const autograd::TensorList& in) { return as_strided(in[0], {3, 2}, {1, 3}, 1); },
                      {rand({8}, kFloat64).set_requires_grad()});
  // The offset defaults to the input's own; a view of a view reads the same storage.
  const Tensor tail = arange(0, 6, 1, kFloat32).slice(0, 2, 6);
  expect_values(as_strided(tail, {2}, {2}), {2, 4});
  expect_error<ValueError>([] { as_strided(arange(0, 6, 1, kFloat32), {3, 3}, {3, 1}); },
                           {"as_strided", "[3, 3]", "reach element 8", "6 elements"});
  expect_error<ValueError>([] { as_strided(arange(0, 6, 1, kFloat32), {2}, {-1}); }, {"negative strides"});
  expect_error<ValueError>([] { as_strided(arange(0, 6, 1, kFloat32), {2, 2}, {1}); }, {"mismatch", "[2, 2]", "[1]"});
}
