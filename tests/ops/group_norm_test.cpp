// group_norm and instance_norm against their definitions written with reductions (in double),
// the running statistics instance_norm keeps, gradients by finite differences, and the errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen);
}

// (x - mean) / sqrt(var + eps) over every dim from `from` of x (biased variance).
Tensor standardise(const Tensor& x, int64_t from, double eps) {
  DimVector dims;
  for (int64_t d = from; d < x.dim(); ++d) dims.push_back(d);
  Tensor mean = x.mean(dims, true);
  Tensor var = ((x - mean) * (x - mean)).mean(dims, true);
  return (x - mean) / (var + eps).sqrt();
}

Tensor per_channel(const Tensor& t, int64_t dims) {
  DimVector shape(static_cast<size_t>(dims), 1);
  shape[1] = t.size(0);
  return t.reshape(shape);
}

Tensor reference_group_norm(const Tensor& x, int64_t groups, const Tensor& w, const Tensor& b, double eps) {
  Tensor y = standardise(x.reshape({x.size(0), groups, -1}), 2, eps).reshape(x.sizes());
  if (w.defined()) y = y * per_channel(w, x.dim());
  if (b.defined()) y = y + per_channel(b, x.dim());
  return y;
}

}  // namespace

TEST(GroupNormTest, MatchesTheDefinition) {
  uint64_t seed = 1;
  struct Case { std::vector<int64_t> shape; int64_t groups; bool affine; };
  for (const Case& c : std::vector<Case>{{{3, 6, 4, 5}, 2, true}, {{2, 6, 7}, 3, false}, {{1, 4, 3, 3}, 1, true},
                                         {{2, 4, 2, 3}, 4, true}, {{2, 3, 2, 2, 2}, 3, true}}) {
    Tensor x = draw(c.shape, seed++) * 3 + 1;
    Tensor w = c.affine ? draw({c.shape[1]}, seed++) : Tensor(), b = c.affine ? draw({c.shape[1]}, seed++) : Tensor();
    expect_close(group_norm(x, c.groups, w, b, 1e-5), reference_group_norm(x, c.groups, w, b, 1e-5), 1e-10, 1e-10,
                 "group_norm");
    expect_close(group_norm(x.to(kFloat32), c.groups, c.affine ? w.to(kFloat32) : w, c.affine ? b.to(kFloat32) : b),
                 reference_group_norm(x, c.groups, w, b, 1e-5), 1e-5, 1e-5, "float32");
  }
  // one value per group: zero variance, so the output is the bias
  Tensor b = draw({4}, 50);
  expect_close(group_norm(draw({2, 4}, 51), 4, ones({4}, kFloat64), b), b.unsqueeze(0).expand({2, 4}), 0, 1e-12,
               "one value per group");
  // strided input, empty batch
  Tensor xs = draw({5, 4, 2}, 52).permute({2, 1, 0});
  expect_close(group_norm(xs, 2), reference_group_norm(xs, 2, Tensor(), Tensor(), 1e-5), 1e-10, 1e-10, "strided");
  EXPECT_EQ(group_norm(zeros({0, 4, 3}, kFloat64), 2).sizes(), IntArrayRef({0, 4, 3}));
}

TEST(GroupNormTest, GradientsMatchFiniteDifferences) {
  auto fn = [](const TensorList& in) { return group_norm(in[0], 2, in[1], in[2], 1e-3); };
  gradcheck(fn, {draw({2, 4, 3, 2}, 60).set_requires_grad(), draw({4}, 61).set_requires_grad(),
                 draw({4}, 62).set_requires_grad()});
  gradcheck([](const TensorList& in) { return group_norm(in[0].transpose(1, 2), 3); },
            {draw({1, 5, 3}, 63).set_requires_grad()});
  gradgradcheck(fn, {draw({1, 4, 3}, 64).set_requires_grad(), draw({4}, 65).set_requires_grad(),
                     draw({4}, 66).set_requires_grad()});
}

TEST(GroupNormTest, Errors) {
  Tensor x = ones({2, 6, 3});
  expect_error([&] { group_norm(x, 4); }, {"group_norm: the 6 channels of input [2, 6, 3] are not divisible into "
                                            "num_groups=4 groups"});
  expect_error([&] { group_norm(x, 0); }, {"group_norm", "num_groups=0"});
  expect_error([&] { group_norm(ones({6}), 2); }, {"group_norm: expected an input of shape [N, C, *], got [6]"});
  expect_error([&] { group_norm(x, 2, ones({3})); }, {"group_norm: weight has shape [3]; expected [6] for input [2, 6, 3]"});
  expect_error<TypeError>([&] { group_norm(x, 2, ones({6}, kFloat64)); }, {"group_norm: weight has dtype float64"});
  expect_error<TypeError>([] { group_norm(ones({2, 2}, kInt64), 1); }, {"group_norm", "int64"});
}

TEST(InstanceNormTest, MatchesTheDefinitionAndUpdatesRunningStatistics) {
  Tensor x = draw({3, 2, 4, 5}, 70) * 2 - 1;
  Tensor w = draw({2}, 71), b = draw({2}, 72);
  expect_close(instance_norm(x, Tensor(), Tensor(), w, b), standardise(x, 2, 1e-5) * per_channel(w, 4) + per_channel(b, 4),
               1e-10, 1e-10, "instance_norm");
  Tensor rm = draw({2}, 73), rv = draw({2}, 74).abs() + 0.5, rm0 = rm.clone(), rv0 = rv.clone();
  Tensor y = instance_norm(x, rm, rv, Tensor(), Tensor(), /*use_input_stats=*/true, 0.2);
  expect_close(y, standardise(x, 2, 1e-5), 1e-10, 1e-10, "with running statistics");
  // each sample's update (unbiased variance over 20 values), averaged over the batch
  Tensor mean = x.mean({2, 3}), var = x.var({2, 3}, 1);
  expect_close(rm, (rm0 * 0.8 + mean * 0.2).mean({0}), 1e-12, 1e-12, "running_mean");
  expect_close(rv, (rv0 * 0.8 + var * 0.2).mean({0}), 1e-12, 1e-12, "running_var");
  // evaluation: the running statistics, unchanged
  Tensor rm1 = rm.clone();
  Tensor e = instance_norm(x, rm, rv, w, b, /*use_input_stats=*/false);
  expect_close(e, (x - per_channel(rm, 4)) / (per_channel(rv, 4) + 1e-5).sqrt() * per_channel(w, 4) + per_channel(b, 4),
               1e-10, 1e-10, "eval");
  expect_close(rm, rm1, 1e-15, 0, "running_mean kept");
}

TEST(InstanceNormTest, GradientsMatchFiniteDifferences) {
  auto fn = [](const TensorList& in) { return instance_norm(in[0], Tensor(), Tensor(), in[1], in[2]); };
  gradcheck(fn, {draw({2, 3, 4}, 80).set_requires_grad(), draw({3}, 81).set_requires_grad(),
                 draw({3}, 82).set_requires_grad()});
  Tensor rm = zeros({2}, kFloat64), rv = ones({2}, kFloat64);
  gradcheck([&](const TensorList& in) { return instance_norm(in[0], rm, rv, Tensor(), Tensor(), false); },
            {draw({2, 2, 3, 3}, 83).transpose(2, 3).set_requires_grad()});
  gradgradcheck(fn, {draw({1, 2, 5}, 84).set_requires_grad(), draw({2}, 85).set_requires_grad(),
                     draw({2}, 86).set_requires_grad()});
}

TEST(InstanceNormTest, Errors) {
  expect_error([] { instance_norm(ones({2, 3, 1})); },
               {"instance_norm: expected more than 1 spatial element when training, got input [2, 3, 1]"});
  expect_error([] { instance_norm(ones({2, 3, 4}), Tensor(), Tensor(), Tensor(), Tensor(), false); },
               {"instance_norm: running_mean and running_var are required when use_input_stats is false"});
  expect_error([] { instance_norm(ones({2, 3, 4}), zeros({2}), ones({2})); },
               {"instance_norm: running_mean has shape [2]; expected [3] for input [2, 3, 4]"});
  expect_error([] { instance_norm(ones({2, 3, 4}), zeros({3})); },
               {"instance_norm: running_mean and running_var must both be given"});
}
