// The scatter family through the C++ API (ops/scatter_composite.cpp): scatter with a tensor, a number
// and a reduce; scatter_reduce's five reductions with and without self; index_reduce, index_copy,
// index_fill, masked_scatter and put. Values against PyTorch's (torch 2.15, CPU), gradients against
// finite differences and PyTorch's formulas where they differ from a composition's (ties of amax, a
// single zero of prod), the 0-d and empty-index rules, and the errors that name the argument.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;
using ember::testing::expect_values_near;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(std::initializer_list<double> v) { return tensor(std::vector<double>(v)); }
Tensor i64(std::initializer_list<int64_t> v) { return tensor(std::vector<int64_t>(v)); }

std::vector<Tensor> grads_of(const Tensor& out, const std::vector<Tensor>& inputs) {
  return autograd::grad({out.sum()}, inputs);
}

}  // namespace

TEST(ScatterTest, WritesAlongADimAndTheLastRepeatedWriteWins) {
  // torch.zeros(2, 3).scatter(1, [[2, 0], [1, 2]], [[1, 2, 3], [4, 5, 6]]): src's third column unread
  const Tensor out = scatter(zeros({2, 3}, kFloat64), 1, tensor(std::vector<int64_t>{2, 0, 1, 2}, {2, 2}),
                             tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}));
  expect_values(out, {2, 0, 1, 0, 4, 5});
  // a repeated index: PyTorch's CPU keeps the last write, a sum would be a value neither wrote
  expect_values(scatter(zeros({4}, kFloat64), 0, i64({0, 0}), f64({1, 2})), {2, 0, 0, 0});
  expect_values(index_copy(zeros({4}, kFloat64), 0, i64({0, 0}), f64({1, 2})), {2, 0, 0, 0});
  expect_values(put(zeros({4}, kFloat64), i64({0, 0}), f64({1, 2})), {2, 0, 0, 0});
  // a written -0 stays -0
  const Tensor signed_zero = scatter(ones({2}, kFloat64), 0, i64({1}), f64({-0.0}));
  EXPECT_TRUE(std::signbit(signed_zero.to_vector<double>()[1]));
}

TEST(ScatterTest, ANumberIsCastToSelfsDtype) {
  EXPECT_EQ(scatter(ones({4}, kInt64), 0, i64({0, 0}), Scalar(2.7)).to_vector<int64_t>(),
            (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(scatter(ones({4}, kInt64), 0, i64({0}), Scalar(2.7), "add").to_vector<int64_t>(),
            (std::vector<int64_t>{3, 1, 1, 1}));
  const Tensor flags = scatter(zeros({3}, kBool), 0, i64({2}), Scalar(0.5));
  EXPECT_EQ(flags.dtype(), kBool);
  EXPECT_EQ(flags.to_vector<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(index_fill(zeros({3}, kInt64), 0, i64({0}), Scalar(2.7)).to_vector<int64_t>(),
            (std::vector<int64_t>{2, 0, 0}));
}

TEST(ScatterTest, ReduceAddsOrMultiplies) {
  expect_values(scatter(ones({4}, kFloat64), 0, i64({0, 0}), f64({3, 2}), "multiply"), {6, 1, 1, 1});
  expect_values(scatter(ones({4}, kFloat64), 0, i64({0, 0}), f64({3, 2}), "add"), {6, 1, 1, 1});
  expect_values(scatter(zeros({4}, kFloat64), 0, i64({0, 1}), Scalar(2.5), "multiply"), {0, 0, 0, 0});
  expect_error<Error>([] { scatter(ones({4}, kFloat64), 0, i64({0}), f64({3}), "max"); },
                      {"scatter()", "add or multiply", "max"});
}

TEST(ScatterTest, ScatterReduceGivesEachReductionWithAndWithoutSelf) {
  const Tensor self = f64({1, 2, 3, 4}), index = i64({0, 0, 2}), src = f64({5, -1, 7});
  const auto with = [&](const char* reduce, bool include_self) {
    return scatter_reduce(self, 0, index, src, reduce, include_self);
  };
  expect_values(with("sum", true), {5, 2, 10, 4});
  expect_values(with("sum", false), {4, 2, 7, 4});
  expect_values(with("prod", true), {-5, 2, 21, 4});
  expect_values(with("prod", false), {-5, 2, 7, 4});
  expect_values_near(with("mean", true), {5.0 / 3, 2, 5, 4}, 1e-15, 0);
  expect_values(with("mean", false), {2, 2, 7, 4});
  expect_values(with("amax", true), {5, 2, 7, 4});
  expect_values(with("amax", false), {5, 2, 7, 4});
  expect_values(with("amin", true), {-1, 2, 3, 4});
  expect_values(with("amin", false), {-1, 2, 7, 4});
  // an integer mean floors, as PyTorch's: (1 + 2 + 2) / 3
  EXPECT_EQ(scatter_reduce(i64({1, 2}), 0, i64({0, 0}), i64({2, 2}), "mean").to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2}));
  // amax propagates NaN, as maximum does
  EXPECT_TRUE(std::isnan(scatter_reduce(f64({1}), 0, i64({0, 0}), f64({NAN, 2}), "amax").item<double>()));
}

TEST(ScatterTest, ScatterReduceGradientsMatchFiniteDifferences) {
  // distinct values: no ties, no zeros, where every formula is the derivative
  const Tensor self = tensor(std::vector<double>{1.5, -2, 3, 0.5, 2.5, -1.25}, {2, 3}).requires_grad_();
  const Tensor src = tensor(std::vector<double>{0.75, 1.25, -0.5, 2, 3.5, -3}, {2, 3}).requires_grad_();
  const Tensor index = tensor(std::vector<int64_t>{0, 2, 0, 1, 1, 1}, {2, 3});
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (bool include_self : {true, false}) {
      const auto fn = [&](const TensorList& in) {
        return scatter_reduce(in[0], 1, index, in[1], reduce, include_self);
      };
      SCOPED_TRACE(std::string(reduce) + (include_self ? " with self" : " without self"));
      gradcheck(fn, {self, src});
      gradgradcheck(fn, {self, src});
    }
}

TEST(ScatterTest, AmaxSharesTheGradientAmongTiesAndProdDividesOutTheOneZero) {
  const Tensor self = f64({1}).requires_grad_(), src = f64({1, 1}).requires_grad_();
  auto g = grads_of(scatter_reduce(self, 0, i64({0, 0}), src, "amax"), {self, src});
  expect_values_near(g[0], {1.0 / 3}, 1e-15, 0);
  expect_values_near(g[1], {1.0 / 3, 1.0 / 3}, 1e-15, 0);
  // include_self=False: self's element still counts in the tie, with a gradient of 0 (PyTorch's)
  g = grads_of(scatter_reduce(self, 0, i64({0, 0}), src, "amax", false), {self, src});
  expect_values_near(g[0], {0}, 0, 0);
  expect_values_near(g[1], {1.0 / 3, 1.0 / 3}, 1e-15, 0);

  const Tensor base = f64({2}).requires_grad_(), factors = f64({0, 3}).requires_grad_();
  g = grads_of(scatter_reduce(base, 0, i64({0, 0}), factors, "prod"), {base, factors});
  expect_values(g[0], {0});     // 0 * 3
  expect_values(g[1], {6, 0});  // the exclusive product 2 * 3 where the only zero is
}

TEST(ScatterTest, AnEmptyIndexCopiesSelfAndGivesSrcAZeroGradient) {
  const Tensor self = f64({1, kInf, 0}).requires_grad_(), src = f64({4, 5}).requires_grad_();
  const Tensor none = zeros({0}, kInt64);
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    SCOPED_TRACE(reduce);
    const Tensor out = scatter_reduce(self, 0, none, src, reduce);
    expect_values(out.detach(), {1, kInf, 0});
    ASSERT_TRUE(out.requires_grad());
    const auto g = grads_of(out, {self, src});
    expect_values(g[1], {0, 0});
    // prod's formula grad * self / self: NaN at inf, 1 at 0
    if (std::string(reduce) == "prod") expect_values(g[0], {1, NAN, 1});
  }
  // nothing is read from src, whatever its shape (PyTorch's)
  expect_values(scatter(f64({1, 2}), 0, zeros({0, 3}, kInt64), f64({9})), {1, 2});
}

TEST(ScatterTest, AZeroDimTensorIsOneEntryAlongDimZero) {
  const Tensor self = full({}, 1.0, kFloat64);
  const Tensor written = scatter(self, 0, full({}, int64_t(0), kInt64), full({}, 4.0, kFloat64));
  EXPECT_EQ(written.dim(), 0);
  EXPECT_EQ(written.item<double>(), 4);
  EXPECT_EQ(scatter_reduce(self, -1, full({}, int64_t(0), kInt64), full({}, 3.0, kFloat64), "sum").item<double>(), 4);
  EXPECT_EQ(index_copy(self, 0, i64({0}), full({}, 7.0, kFloat64)).item<double>(), 7);
  EXPECT_EQ(index_fill(self, 0, i64({0}), Scalar(5)).item<double>(), 5);
  expect_error<IndexError>([&] { scatter(self, 1, i64({0}), f64({1})); }, {"scatter", "1"});
}

TEST(ScatterTest, IndexOpsWriteSlicesAndNegativeIndicesFollowPyTorch) {
  const Tensor self = zeros({2, 3}, kFloat64);
  const Tensor rows = tensor(std::vector<double>{1, 2, 3, 4}, {2, 2});
  expect_values(index_copy(self, 1, i64({2, 0}), rows), {2, 0, 1, 4, 0, 3});
  expect_values(index_fill(self, 1, i64({-1}), Scalar(2.0)), {0, 0, 2, 0, 0, 2});  // counts from the end
  expect_values(put(zeros({2, 2}, kFloat64), i64({-1}), f64({5})), {0, 0, 0, 5});
  expect_values(put(zeros({4}, kFloat64), i64({0, 0}), f64({1, 2}), true), {3, 0, 0, 0});
  // index_copy and index_reduce refuse a negative index, as PyTorch's
  expect_error<IndexError>(
      [&] {
        index_copy(self, 1, i64({-1}), ones({2, 1}, kFloat64));
      },
      {"index_copy", "-1", "dimension 1", "size 3"});
  expect_error<IndexError>([] { index_reduce(zeros({4}, kFloat64), 0, i64({-1}), ones({1}, kFloat64), "prod"); },
                           {"index_reduce", "-1", "size 4"});
  const Tensor reduced =
      index_reduce(ones({2, 2}, kFloat64), 0, i64({1, 1}), tensor(std::vector<double>{2, 3, 4, 5}, {2, 2}), "prod");
  expect_values(reduced, {1, 1, 8, 15});
  expect_values(index_reduce(ones({2}, kFloat64), 0, i64({0, 0}), f64({4, 8}), "mean", false), {6, 1});
}

TEST(ScatterTest, IndexFillAndMaskedScatterGradients) {
  const Tensor x = tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  const Tensor value = full({}, 0.5, kFloat64).requires_grad_();
  auto g = grads_of(index_fill(x, 1, i64({0, 2}), value), {x, value});
  expect_values(g[0], {0, 1, 0, 0, 1, 0});
  expect_values(g[1], {4});  // one per filled element
  const Tensor mask = tensor(std::vector<bool>{true, false, true}, {3}, TensorOptions(kBool));
  const Tensor source = f64({7, 8, 9, 10}).requires_grad_();
  expect_values(masked_scatter(x, mask, source).detach(), {7, 2, 8, 9, 5, 10});
  gradcheck([&](const TensorList& in) { return masked_scatter(in[0], mask, in[1]); }, {x, source});
  gradcheck([](const TensorList& in) { return index_copy(in[0], 0, i64({1}), in[1]); },
            {x, tensor(std::vector<double>{1, 1, 1}, {1, 3}).requires_grad_()});
  gradcheck(
      [](const TensorList& in) {
        return put(in[0], i64({4, 0}), in[1], true);
      },
      {x, f64({1, 2}).requires_grad_()});
}

TEST(ScatterTest, ErrorsNameTheArgument) {
  const Tensor x = zeros({2, 3}, kFloat64), i = tensor(std::vector<int64_t>{0, 1}, {1, 2}), s = ones({1, 2}, kFloat64);
  expect_error<Error>([&] { scatter_reduce(x, 1, i, s, "max"); },
                      {"reduce argument", "sum, prod, mean, amax or amin", "max"});
  expect_error<Error>([&] { scatter(x, 1, i, s.to(kFloat32)); }, {"scatter()", "float64", "float32"});
  expect_error<Error>([&] { scatter(x, 1, i64({0, 1}), s); }, {"same number of dimensions", "[2]", "[2, 3]"});
  expect_error<Error>([&] { scatter(x, 1, zeros({3, 2}, kInt64), s); }, {"[3, 2]", "[2, 3]", "[1, 2]"});
  expect_error<Error>([&] { scatter(x, 1, zeros({1, 2}, kFloat64), s); }, {"int32/int64", "index", "float64"});
  expect_error<IndexError>(
      [&] {
        scatter(x, 1, tensor(std::vector<int64_t>{0, 3}, {1, 2}), s);
      },
      {"scatter", "index 3", "dimension 1", "size 3"});
  expect_error<Error>([] { put(zeros({3}, kFloat64), i64({0, 1}), f64({1})); }, {"put_", "source.numel() = 1", "2"});
  expect_error<IndexError>([] { put(zeros({3}, kFloat64), i64({3}), f64({1})); }, {"put_", "index 3", "[3]"});
  expect_error<Error>([] { index_reduce(zeros({3}, kFloat64), 0, i64({0}), f64({1}), "sum"); },
                      {"index_reduce", "prod, mean, amax or amin", "sum"});
  expect_error<Error>([] { index_fill(zeros({3}, kFloat64), 0, i64({0}), ones({1}, kFloat64)); },
                      {"0-dimensional value tensor", "1 dimension"});
  expect_error<Error>([] { masked_scatter(zeros({4}, kFloat64), ones({4}, kBool), f64({1})); },
                      {"masked_scatter", "source < number of ones in mask", "4 true"});
  expect_error<Error>([] { masked_scatter(zeros({4}, kFloat64), ones({4}, kInt64), f64({1})); },
                      {"boolean masks", "int64"});
}

TEST(ScatterTest, InPlaceFormsWriteIntoSelfAndItsViews) {
  const Tensor x = zeros({2, 2}, kFloat64);
  const Tensor row = x.select(0, 1);
  const Tensor& same =
      x.scatter_(1, tensor(std::vector<int64_t>{1, 0}, {1, 2}), tensor(std::vector<double>{7, 8}, {1, 2}));
  EXPECT_EQ(&same, &x);
  expect_values(x, {8, 7, 0, 0});
  x.index_fill_(0, i64({-1}), Scalar(2.0));
  expect_values(row, {2, 2});  // a view sees the write
  x.put_(i64({0}), f64({-1}), true);
  expect_values(x, {7, 7, 2, 2});
  expect_error<Error>([] { ones({2}, kInt64).exp_(); }, {"exp_", "result type Float", "output type Long"});
  // while recording the op reads a copy of self: lerp saves what it reads for end's gradient
  const Tensor end = f64({2, 3}).requires_grad_();
  const Tensor out = mul(f64({1, 5}), 1.0);
  out.lerp_(end, Scalar(0.5));
  expect_values(out.detach(), {1.5, 4});
  expect_values(grads_of(out, {end})[0], {0.5, 0.5});
}
