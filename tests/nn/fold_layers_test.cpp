// unfold / fold (nn/fold.h), bilinear, cosine_similarity, normalize, local_response_norm, gumbel_softmax
// (nn/functional.h) and interpolate with the Upsample layers (nn/upsample.h), against their
// definitions, through the C++ API.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using ember::testing::at;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::seeded_randn;

TEST(FoldLayersTest, UnfoldTakesEveryWindowAsAColumn) {
  Tensor x = seeded_randn({2, 3, 5, 6}, 1);
  const Size2 k{2, 3}, d{2, 1}, p{1, 0}, s{1, 2};
  Tensor cols = F::unfold(x, k, d, p, s);
  Tensor padded = pad(x, {0, 0, 1, 1});
  const int64_t oh = (7 - 2 * 1 - 1) / 1 + 1, ow = (6 - 3) / 2 + 1;
  ASSERT_EQ(cols.sizes(), IntArrayRef({2, 3 * 6, oh * ow}));
  for (int64_t c : {0, 2})
    for (int64_t i : {0, 1})
      for (int64_t j : {0, 2})
        for (int64_t r : {int64_t{0}, oh - 1})
          for (int64_t q : {int64_t{0}, ow - 1})
            EXPECT_EQ(at(cols, {1, (c * 2 + i) * 3 + j, r * ow + q}),
                      at(padded, {1, c, r * s.h + i * d.h, q * s.w + j * d.w}));
  // fold is unfold's adjoint: <unfold(x), y> = <x, fold(y)>
  Tensor y = seeded_randn(cols.sizes().std_vec(), 2);
  Tensor folded = F::fold(y, {5, 6}, k, d, p, s);
  EXPECT_NEAR(sum(cols * y).item<double>(), sum(x * folded).item<double>(), 1e-9);
  // non-overlapping windows: fold(unfold(x)) is x
  Tensor z = seeded_randn({1, 2, 4, 6}, 3);
  expect_close(nn::Fold({.output_size = {4, 6}, .kernel_size = 2, .stride = 2})
                   .forward(nn::Unfold({.kernel_size = 2, .stride = 2}).forward(z)),
               z, 0, 0);
  gradcheck([&](const autograd::TensorList& in) { return F::unfold(in[0], k, d, p, s); },
            {x.clone().set_requires_grad()});
  // an empty batch
  EXPECT_EQ(F::unfold(zeros({0, 2, 3, 3}), 2).sizes(), IntArrayRef({0, 8, 4}));
  EXPECT_EQ(F::fold(zeros({0, 8, 4}), {3, 3}, 2).sizes(), IntArrayRef({0, 2, 3, 3}));
  expect_error<Error>([] { F::fold(ones({1, 5, 4}), {3, 3}, 2); }, {"divisible by the product of kernel_size"});
  expect_error<Error>([] { F::fold(ones({1, 4, 3}), {3, 3}, 2); }, {"sliding blocks 4", "input.size(2)=3"});
  EXPECT_EQ(nn::Unfold({.kernel_size = {2, 3}}).extra_repr(), "kernel_size=(2, 3), dilation=1, padding=0, stride=1");
}

TEST(FoldLayersTest, BilinearIsTheSumOverBothInputs) {
  manual_seed(4);
  nn::Bilinear layer({.in1_features = 3, .in2_features = 4, .out_features = 2});
  EXPECT_EQ(layer.weight().sizes(), IntArrayRef({2, 3, 4}));
  Tensor a = randn({5, 3}), b = randn({5, 4});
  Tensor y = layer.forward(a, b);
  for (int64_t n : {0, 4})
    for (int64_t o : {0, 1}) {
      double want = at(layer.bias(), {o});
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) want += at(a, {n, i}) * at(layer.weight(), {o, i, j}) * at(b, {n, j});
      EXPECT_NEAR(at(y, {n, o}), want, 1e-5);
    }
  // initialised from U(-1/sqrt(in1), 1/sqrt(in1))
  EXPECT_LE(abs(layer.weight()).max().item<double>(), 1 / std::sqrt(3.0));
  expect_error<Error>([&] { layer.forward(randn({5, 4}), b); }, {"bilinear", "[5, 4]"});
}

TEST(FoldLayersTest, CosineSimilarityClampsEachNormAndBroadcasts) {
  Tensor a = tensor(std::vector<double>{3, 4}).reshape({1, 2}), b = tensor(std::vector<double>{4, 3}).reshape({1, 2});
  expect_close(F::cosine_similarity(a, b), tensor(std::vector<double>{24.0 / 25}), 1e-12, 1e-12);
  // a zero vector: 0, with a finite (zero) gradient, as PyTorch's
  Tensor zero = zeros({1, 2}, kFloat64).set_requires_grad();
  Tensor c = F::cosine_similarity(zero, b);
  EXPECT_EQ(c.item<double>(), 0.0);
  c.backward();
  EXPECT_TRUE(all(isfinite(zero.grad())).item<bool>());
  // broadcast [3, 1, 4] against [5, 4] along the last dim
  EXPECT_EQ(nn::CosineSimilarity({.dim = -1}).forward(seeded_randn({3, 1, 4}, 5), seeded_randn({5, 4}, 6)).sizes(),
            IntArrayRef({3, 5}));
  expect_error<Error>(
      [] {
        F::cosine_similarity(ones({2, 3}, kInt64), ones({2, 3}, kInt64));
      },
      {"common dtype to be floating point", "Long"});
  Tensor p = seeded_randn({4, 5}, 7).set_requires_grad(), q = seeded_randn({4, 5}, 8).set_requires_grad();
  gradcheck([](const autograd::TensorList& in) { return F::cosine_similarity(in[0], in[1]); }, {p, q});
}

TEST(FoldLayersTest, NormalizeDividesByTheClampedNorm) {
  const Tensor x = tensor(std::vector<double>{3, 4, 0, 0}, {2, 2});
  expect_close(F::normalize(x), tensor(std::vector<double>{0.6, 0.8, 0, 0}, {2, 2}), 1e-15, 0);
  expect_close(F::normalize(x, 1.0, 0), tensor(std::vector<double>{1, 1, 0, 0}, {2, 2}), 1e-15, 0);
  // a zero row: its norm is clamped at eps, and its gradient is 1 / eps, not NaN
  const Tensor z = zeros({1, 3}, kFloat64).requires_grad_();
  F::normalize(z).sum().backward();
  expect_close(z.grad(), full({1, 3}, 1e12, kFloat64), 1e-12, 0);
  const Tensor p = seeded_randn({2, 3}, 5).to(kFloat64).requires_grad_();
  gradcheck([](const autograd::TensorList& in) { return F::normalize(in[0], 3.0, -1); }, {p});
}

TEST(FoldLayersTest, LocalResponseNormDividesByTheNeighbourhoodsPower) {
  Tensor x = seeded_randn({2, 5, 3}, 9);
  Tensor y = nn::LocalResponseNorm({.size = 3, .alpha = 0.5, .beta = 0.75, .k = 2.0}).forward(x);
  for (int64_t c : {0, 2, 4}) {
    double s = 0;
    for (int64_t j = std::max<int64_t>(0, c - 1); j <= std::min<int64_t>(4, c + 1); ++j)
      s += std::pow(at(x, {1, j, 2}), 2);
    EXPECT_NEAR(at(y, {1, c, 2}), at(x, {1, c, 2}) / std::pow(2.0 + 0.5 * s / 3, 0.75), 1e-12);
  }
  EXPECT_EQ(nn::LocalResponseNorm({.size = 2}).extra_repr(), "2, alpha=0.0001, beta=0.75, k=1.0");
  gradcheck([](const autograd::TensorList& in) { return F::local_response_norm(in[0], 2, 0.3, 0.6, 1.5); },
            {x.clone().set_requires_grad()});
}

TEST(FoldLayersTest, GumbelSoftmaxSamplesOnTheSimplex) {
  manual_seed(10);
  Tensor logits = seeded_randn({6, 4}, 11);
  Tensor soft = F::gumbel_softmax(logits, 0.5);
  expect_close(sum(soft, {1}), ones({6}, kFloat64), 1e-12, 1e-12);
  Tensor hard = F::gumbel_softmax(logits.clone().set_requires_grad(), 1.0, true);
  expect_close(sum(hard, {1}), ones({6}, kFloat64), 1e-12, 1e-12);
  EXPECT_TRUE(all(logical_or(eq(hard, 0.0), eq(hard, 1.0))).item<bool>());
}

TEST(FoldLayersTest, InterpolateAndUpsampleChooseTheOp) {
  Tensor x = seeded_randn({1, 2, 3, 4}, 12);
  expect_close(F::interpolate(x, {.size = std::vector<int64_t>{6, 8}}), upsample_nearest2d(x, {6, 8}), 0, 0);
  expect_close(F::interpolate(x, {.scale_factor = std::vector<double>{2.0}, .mode = "bilinear"}),
               upsample_bilinear2d(x, {6, 8}, false, 2.0, 2.0), 0, 0);
  expect_close(F::interpolate(x, {.size = std::vector<int64_t>{1}, .mode = "area"}), mean(x, {2, 3}, true), 1e-12,
               1e-12);
  Tensor row = seeded_randn({1, 2, 5}, 13);
  expect_close(F::interpolate(row, {.size = std::vector<int64_t>{9}, .mode = "linear", .align_corners = true}),
               upsample_linear1d(row, 9, true), 0, 0);
  nn::Upsample up({.scale_factor = std::vector<double>{2.0}});
  EXPECT_EQ(up.forward(x).sizes(), IntArrayRef({1, 2, 6, 8}));
  EXPECT_EQ(up.extra_repr(), "scale_factor=2.0, mode='nearest'");
  nn::UpsamplingBilinear2d bi({.size = std::vector<int64_t>{5, 7}});
  expect_close(bi.forward(x), upsample_bilinear2d(x, {5, 7}, true), 0, 0);
  EXPECT_EQ(bi.extra_repr(), "size=(5, 7), mode='bilinear'");
  expect_error<ValueError>([&] { F::interpolate(x, {.mode = "nearest"}); }, {"either size or scale_factor"});
  expect_error<ValueError>([&] { F::interpolate(x, {.size = std::vector<int64_t>{4}, .align_corners = true}); },
                           {"align_corners option can only be set"});
  expect_error<NotImplementedError>([&] { F::interpolate(row, {.size = std::vector<int64_t>{4}, .mode = "bilinear"}); },
                                    {"needs a 4-D input"});
}
