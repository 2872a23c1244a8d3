#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "ember/ops/normalization.h"
#include "ember/ops/reduce.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::expect_values_near;

namespace {

// batch_norm from reduction ops: (x - mean) / sqrt(var + eps) * w + b per channel (dim 1).
Tensor batch_norm_reference(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor& w,
                            const Tensor& b, double eps) {
  DimVector cshape(static_cast<size_t>(x.dim()), 1);
  cshape[1] = x.size(1);
  Tensor y = (x - mean.reshape(cshape)) / sqrt(var.reshape(cshape) + eps);
  if (w.defined()) y = y * w.reshape(cshape);
  if (b.defined()) y = y + b.reshape(cshape);
  return y;
}

DimVector all_but_channel(const Tensor& x) {
  DimVector dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  return dims;
}

Tensor layer_norm_reference(const Tensor& x, int64_t k, const Tensor& w, const Tensor& b, double eps) {
  DimVector dims;
  for (int64_t d = x.dim() - k; d < x.dim(); ++d) dims.push_back(d);
  Tensor y = (x - mean(x, dims, true)) / sqrt(var(x, dims, 0, true) + eps);
  if (w.defined()) y = y * w;
  if (b.defined()) y = y + b;
  return y;
}

// The first derivative from the fused kernels (plain backward) and from the differentiable
// formula (create_graph) agree, for every input that requires grad.
void expect_fused_matches_composite(const std::function<Tensor(const TensorList&)>& fn, const TensorList& in) {
  TensorList wrt;
  for (const Tensor& t : in)
    if (t.defined() && t.requires_grad()) wrt.push_back(t);
  Tensor out = fn(in);
  Tensor g = randn(out.sizes(), kFloat64);
  TensorList fused = autograd::grad({fn(in)}, wrt, {g});
  TensorList composite = autograd::grad({fn(in)}, wrt, {g}, true, /*create_graph=*/true);
  for (size_t i = 0; i < wrt.size(); ++i) expect_close(fused[i], composite[i].detach(), 1e-10, 1e-10);
}

}  // namespace

TEST(BatchNormTest, TrainingNormalizesWithBatchStatistics) {
  // Channel 0: {1, 3, 5} mean 3, biased var 8/3; channel 1: {2, 2, 8} mean 4, biased var 8.
  Tensor x = tensor({1.0, 2.0, 3.0, 2.0, 5.0, 8.0}).reshape({3, 2});
  Tensor y = batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 0.0);
  double s0 = std::sqrt(8.0 / 3), s1 = std::sqrt(8.0);
  expect_values_near(y, {-2 / s0, -2 / s1, 0, -2 / s1, 2 / s0, 4 / s1});
  Tensor w = tensor({2.0, -1.0}), b = tensor({0.5, 1.0});
  Tensor yw = batch_norm(x, Tensor(), Tensor(), w, b, true, 0.1, 0.0);
  expect_values_near(yw, {-4 / s0 + 0.5, 2 / s1 + 1, 0.5, 2 / s1 + 1, 4 / s0 + 0.5, -4 / s1 + 1});
}

TEST(BatchNormTest, TrainingUpdatesRunningStatisticsInPlace) {
  Tensor x = tensor({1.0, 2.0, 3.0, 2.0, 5.0, 8.0}).reshape({3, 2});
  Tensor rm = tensor({1.0, -1.0}), rv = tensor({2.0, 0.5});
  uint64_t version = rm.version();
  batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.25);
  // running = 0.75 running + 0.25 batch, with the unbiased variance (4 and 12).
  expect_values_near(rm, {0.75 * 1 + 0.25 * 3, 0.75 * -1 + 0.25 * 4});
  expect_values_near(rv, {0.75 * 2 + 0.25 * 4, 0.75 * 0.5 + 0.25 * 12});
  EXPECT_GT(rm.version(), version);
  EXPECT_FALSE(rm.requires_grad());
  // A 4-d input: statistics over N, H and W.
  Generator gen(2);
  Tensor x4 = randn({4, 3, 5, 6}, kFloat64, &gen) * 2.0 + 1.0;
  Tensor rm4 = zeros({3}, kFloat64), rv4 = ones({3}, kFloat64);
  batch_norm(x4, rm4, rv4, Tensor(), Tensor(), true);
  DimVector dims{0, 2, 3};
  expect_close(rm4, mean(x4, dims) * 0.1, 1e-12, 1e-12);
  expect_close(rv4, var(x4, dims) * 0.1 + 0.9, 1e-12, 1e-12);
}

TEST(BatchNormTest, EvaluationUsesRunningStatistics) {
  Tensor x = tensor({1.0, 2.0, 3.0, 2.0, 5.0, 8.0}).reshape({3, 2});
  Tensor rm = tensor({1.0, -1.0}), rv = tensor({4.0, 0.25});
  Tensor w = tensor({2.0, 1.0}), b = tensor({0.0, 3.0});
  Tensor y = batch_norm(x, rm, rv, w, b, false, 0.1, 0.0);
  expect_values_near(y, {0, 3 + 3 / 0.5, 2, 3 + 3 / 0.5, 4, 3 + 9 / 0.5});
  expect_values_near(rm, {1, -1});  // untouched
  expect_values_near(rv, {4, 0.25});
}

TEST(BatchNormTest, MatchesAReferenceOnLargeInputs) {
  Generator gen(5);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{8, 16, 30, 30}, {64, 3, 500}, {300, 200}, {5, 7}}) {
    Tensor x = randn(shape, kFloat64, &gen) * 3.0 + 2.0;
    int64_t C = shape[1];
    Tensor w = randn({C}, kFloat64, &gen), b = randn({C}, kFloat64, &gen);
    DimVector dims = all_but_channel(x);
    Tensor expected = batch_norm_reference(x, mean(x, dims), var(x, dims, 0), w, b, 1e-5);
    expect_close(batch_norm(x, Tensor(), Tensor(), w, b, true), expected, 1e-9, 1e-9);
    Tensor xf = x.to(kFloat32);
    expect_close(batch_norm(xf, Tensor(), Tensor(), w.to(kFloat32), b.to(kFloat32), true), expected,
                 1e-4, 1e-4);
    Tensor rm = randn({C}, kFloat64, &gen), rv = rand({C}, kFloat64, &gen) + 0.5;
    expect_close(batch_norm(x, rm, rv, w, b, false), batch_norm_reference(x, rm, rv, w, b, 1e-5), 1e-9, 1e-9);
    // Non-contiguous input.
    if (x.dim() == 2) {
      Tensor xt = x.t().contiguous().t();
      expect_close(batch_norm(xt, Tensor(), Tensor(), w, b, true), expected, 1e-9, 1e-9);
    }
  }
}

TEST(BatchNormTest, Gradcheck) {
  Generator gen(7);
  auto draw = [&](IntArrayRef shape) { return randn(shape, kFloat64, &gen).set_requires_grad(); };
  Tensor w = draw({3}), b = draw({3});
  for (bool training : {true, false}) {
    Tensor rm = randn({3}, kFloat64, &gen), rv = rand({3}, kFloat64, &gen) + 0.5;
    auto bn = [&](const Tensor& x, const Tensor& wt, const Tensor& bt) {
      // Copies of the running statistics: each evaluation starts from the same ones.
      return batch_norm(x, rm.clone(), rv.clone(), wt, bt, training);
    };
    gradcheck([&](const TensorList& in) { return bn(in[0], in[1], in[2]); }, {draw({4, 3}), w, b});
    gradcheck([&](const TensorList& in) { return bn(in[0], in[1], in[2]); }, {draw({2, 3, 2, 2}), w, b});
    gradcheck([&](const TensorList& in) { return bn(in[0].t(), in[1], in[2]); }, {draw({3, 4}), w, b});
    gradcheck([&](const TensorList& in) { return bn(in[0], Tensor(), Tensor()); }, {draw({3, 3, 2})});
    gradcheck([&](const TensorList& in) { return bn(in[0], in[1], in[2]); }, {randn({4, 3}, kFloat64, &gen), w, b});
  }
}

TEST(BatchNormTest, Gradgradcheck) {
  Generator gen(8);
  Tensor x = randn({4, 3, 2}, kFloat64, &gen).set_requires_grad();
  Tensor w = randn({3}, kFloat64, &gen).set_requires_grad(), b = randn({3}, kFloat64, &gen).set_requires_grad();
  Tensor rm = randn({3}, kFloat64, &gen), rv = rand({3}, kFloat64, &gen) + 0.5;
  for (bool training : {true, false})
    gradgradcheck([&](const TensorList& in) { return batch_norm(in[0], rm.clone(), rv.clone(), in[1], in[2], training); },
                  {x, w, b});
}

TEST(BatchNormTest, FusedGradientMatchesTheDifferentiableFormula) {
  Generator gen(9);
  for (bool training : {true, false})
    for (std::vector<int64_t> shape : {std::vector<int64_t>{6, 4}, {3, 4, 5}}) {
      Tensor x = randn(shape, kFloat64, &gen).set_requires_grad();
      Tensor w = randn({4}, kFloat64, &gen).set_requires_grad(), b = randn({4}, kFloat64, &gen).set_requires_grad();
      Tensor rm = randn({4}, kFloat64, &gen), rv = rand({4}, kFloat64, &gen) + 0.5;
      expect_fused_matches_composite(
          [&](const TensorList& in) { return batch_norm(in[0], rm.clone(), rv.clone(), in[1], in[2], training); },
          {x, w, b});
    }
}

TEST(BatchNormTest, ErrorsNameTheArgumentAndShapes) {
  Tensor x = ones({4, 3});
  expect_error([&] { batch_norm(x, Tensor(), Tensor(), ones({4}), Tensor(), true); },
               {"batch_norm", "weight", "[4]", "[3]"});
  expect_error([&] { batch_norm(x, ones({3}), Tensor(), Tensor(), Tensor(), true); },
               {"batch_norm", "running_mean and running_var"});
  expect_error([&] { batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), false); },
               {"batch_norm", "required when training is false"});
  expect_error([&] { batch_norm(ones({1, 3}), Tensor(), Tensor(), Tensor(), Tensor(), true); },
               {"batch_norm", "more than 1 value per channel", "[1, 3]"});
  expect_error([&] { batch_norm(ones({3}), Tensor(), Tensor(), Tensor(), Tensor(), true); },
               {"batch_norm", "[N, C]", "[3]"});
  expect_error([&] { batch_norm(x, Tensor(), Tensor(), ones({3}, kFloat64), Tensor(), true); },
               {"batch_norm", "weight", "float64", "float32"});
  expect_error([&] { batch_norm(ones({4, 3}, kInt64), Tensor(), Tensor(), Tensor(), Tensor(), true); },
               {"batch_norm", "int64"});
}

TEST(LayerNormTest, NormalizesTheLastDims) {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 4.0, 4.0}).reshape({2, 3});
  // Row 0: mean 2, biased var 2/3; row 1 is constant: 0 / sqrt(eps) = 0.
  double s = std::sqrt(2.0 / 3 + 1e-5);
  expect_values_near(layer_norm(x, {3}), {-1 / s, 0, 1 / s, 0, 0, 0});
  Tensor w = tensor({1.0, 2.0, 3.0}), b = tensor({0.0, 0.5, -1.0});
  expect_values_near(layer_norm(x, {3}, w, b), {-1 / s, 0.5, 3 / s - 1, 0, 0.5, -1});
  Generator gen(3);
  Tensor x3 = randn({2, 3, 4, 5}, kFloat64, &gen) * 2.0 + 1.0;
  Tensor w2 = randn({4, 5}, kFloat64, &gen), b2 = randn({4, 5}, kFloat64, &gen);
  expect_close(layer_norm(x3, {4, 5}, w2, b2), layer_norm_reference(x3, 2, w2, b2, 1e-5), 1e-10, 1e-10);
  expect_close(layer_norm(x3, {4, 5}, w2), layer_norm_reference(x3, 2, w2, Tensor(), 1e-5), 1e-10, 1e-10);
  expect_close(layer_norm(x3, {5}, Tensor(), b2.select(0, 0)),
               layer_norm_reference(x3, 1, Tensor(), b2.select(0, 0), 1e-5), 1e-10, 1e-10);
  expect_close(layer_norm(x3, {2, 3, 4, 5}), layer_norm_reference(x3, 4, Tensor(), Tensor(), 1e-5),
               1e-10, 1e-10);
  expect_close(layer_norm(x3.transpose(0, 1), {2, 4, 5}, Tensor(), Tensor(), 0.1),
               layer_norm_reference(x3.transpose(0, 1), 3, Tensor(), Tensor(), 0.1), 1e-10, 1e-10);
  // Large rows in float32, split over threads.
  Tensor big = randn({512, 1024}, kFloat64, &gen) * 5.0 + 3.0;
  Tensor wb = randn({1024}, kFloat64, &gen);
  expect_close(layer_norm(big.to(kFloat32), {1024}, wb.to(kFloat32)),
               layer_norm_reference(big, 1, wb, Tensor(), 1e-5), 1e-4, 1e-4);
  EXPECT_EQ(layer_norm(zeros({0, 4}), {4}).numel(), 0);
}

TEST(LayerNormTest, Gradcheck) {
  Generator gen(12);
  auto draw = [&](IntArrayRef shape) { return randn(shape, kFloat64, &gen).set_requires_grad(); };
  Tensor w = draw({4}), b = draw({4});
  gradcheck([](const TensorList& in) { return layer_norm(in[0], {4}, in[1], in[2]); }, {draw({3, 4}), w, b});
  gradcheck([](const TensorList& in) { return layer_norm(in[0].t(), {4}, in[1], in[2]); }, {draw({4, 3}), w, b});
  gradcheck([](const TensorList& in) { return layer_norm(in[0], {4}, in[1], in[2]); }, {draw({4}), w, b});
  gradcheck([](const TensorList& in) { return layer_norm(in[0], {3, 4}); }, {draw({2, 3, 4})});
  gradcheck([](const TensorList& in) { return layer_norm(in[0], {2, 3}, in[1]); },
            {draw({2, 2, 3}), draw({2, 3})});
  gradcheck([](const TensorList& in) { return layer_norm(in[0], {4}, in[1], in[2]); },
            {randn({3, 4}, kFloat64, &gen), w, b});
}

TEST(LayerNormTest, Gradgradcheck) {
  Generator gen(13);
  Tensor x = randn({3, 4}, kFloat64, &gen).set_requires_grad();
  Tensor w = randn({4}, kFloat64, &gen).set_requires_grad(), b = randn({4}, kFloat64, &gen).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return layer_norm(in[0], {4}, in[1], in[2]); }, {x, w, b});
  gradgradcheck([](const TensorList& in) { return layer_norm(in[0], {3, 4}); }, {x});
}

TEST(LayerNormTest, FusedGradientMatchesTheDifferentiableFormula) {
  Generator gen(14);
  Tensor x = randn({300, 128}, kFloat64, &gen).set_requires_grad();  // split over threads
  Tensor w = randn({128}, kFloat64, &gen).set_requires_grad(), b = randn({128}, kFloat64, &gen).set_requires_grad();
  expect_fused_matches_composite([](const TensorList& in) { return layer_norm(in[0], {128}, in[1], in[2]); },
                                 {x, w, b});
  Tensor x2 = randn({2, 3, 4}, kFloat64, &gen).set_requires_grad();
  expect_fused_matches_composite([](const TensorList& in) { return layer_norm(in[0], {3, 4}); }, {x2});
}

TEST(LayerNormTest, ErrorsNameTheArgumentAndShapes) {
  expect_error([] { layer_norm(ones({2, 3}), {4}); }, {"layer_norm", "normalized_shape [4]", "[2, 3]"});
  expect_error([] { layer_norm(ones({3}), {2, 3}); }, {"layer_norm", "[2, 3]", "[3]"});
  expect_error([] { layer_norm(ones({3}), {}); }, {"layer_norm", "at least one dim"});
  expect_error([] { layer_norm(ones({2, 3}), {3}, ones({2})); }, {"layer_norm", "weight", "[2]", "[3]"});
  expect_error([] { layer_norm(ones({2, 3}), {3}, Tensor(), ones({3}, kFloat64)); }, {"layer_norm", "bias", "float64"});
  expect_error([] { layer_norm(ones({2, 3}, kInt32), {3}); }, {"layer_norm", "int32"});
}
