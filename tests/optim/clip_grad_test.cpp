#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "ember/optim/optim.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;
using ember::testing::message_of;

namespace {

// Parameters whose gradients are [3, 4] and [[12]], plus one without a gradient.
std::vector<Tensor> params_with_grads(DType dtype = kFloat64) {
  Tensor a = zeros({2}, dtype), b = zeros({1, 1}, dtype), c = zeros({3}, dtype);
  a.set_grad(tensor({3.0, 4.0}).to(dtype));
  b.set_grad(tensor(std::vector<double>{12.0}, {1, 1}).to(dtype));
  return {a, b, c};
}

}  // namespace

TEST(ClipGradTest, NormClipsToMaxNormAndReturnsTotal) {
  auto ps = params_with_grads();
  Tensor total = clip_grad_norm_(ps, 6.5);
  EXPECT_EQ(total.dim(), 0);
  EXPECT_DOUBLE_EQ(total.item(), 13.0);
  double coef = 6.5 / (13.0 + 1e-6);
  EXPECT_NEAR(ps[0].grad().to_vector<double>()[0], 3 * coef, 1e-15);
  EXPECT_NEAR(ps[1].grad().item(), 12 * coef, 1e-15);
  EXPECT_FALSE(ps[2].grad().defined());
}

TEST(ClipGradTest, NormBelowMaxLeavesGradientsAlone) {
  auto ps = params_with_grads();
  EXPECT_DOUBLE_EQ(clip_grad_norm_(ps, 100.0).item(), 13.0);
  EXPECT_EQ(ps[0].grad().to_vector<double>(),
            (std::vector<double>{3, 4}));  // coefficient clamped to 1
}

TEST(ClipGradTest, OtherNormOrders) {
  auto norm = [](double p) { return clip_grad_norm_(params_with_grads(), 1e9, p).item(); };
  EXPECT_DOUBLE_EQ(norm(1), 19);
  EXPECT_DOUBLE_EQ(norm(INFINITY), 12);
  EXPECT_DOUBLE_EQ(norm(-INFINITY), 3);
  EXPECT_DOUBLE_EQ(norm(0), 2);  // as PyTorch: the count of non-zero per-tensor norms
  EXPECT_NEAR(norm(3), std::cbrt(27.0 + 64.0 + 1728.0), 1e-12);
}

TEST(ClipGradTest, Float32GradientsGiveAFloat32Norm) {
  auto ps = params_with_grads(kFloat32);
  Tensor total = clip_grad_norm_(ps, 1.0);
  EXPECT_EQ(total.dtype(), kFloat32);
  EXPECT_FLOAT_EQ(total.item<float>(), 13.0f);
  EXPECT_NEAR(ps[0].grad().to_vector<double>()[1], 4.0 / 13.0, 1e-6);
}

TEST(ClipGradTest, NonFiniteNormIsAnErrorWhenAsked) {
  auto ps = params_with_grads();
  ps[0].set_grad(tensor(std::vector<double>{INFINITY, 1.0}));
  EXPECT_EQ(message_of([&] { clip_grad_norm_(ps, 1.0, 2.0, /*error_if_nonfinite=*/true); }),
            "clip_grad_norm_: the total norm of order 2 of the gradients is non-finite (inf), so "
            "it cannot be clipped; pass error_if_nonfinite = false to scale the gradients by it "
            "anyway");
  EXPECT_EQ(ps[1].grad().item(), 12.0);  // untouched
  // Without the check, PyTorch scales by max_norm / inf = 0.
  EXPECT_TRUE(std::isinf(clip_grad_norm_(ps, 1.0).item()));
  EXPECT_EQ(ps[1].grad().item(), 0.0);
  EXPECT_TRUE(std::isnan(ps[0].grad().to_vector<double>()[0]));  // inf * 0

  auto qs = params_with_grads();
  qs[1].set_grad(tensor(std::vector<double>{NAN}, {1, 1}));
  expect_error([&] { clip_grad_norm_(qs, 1.0, 2.0, true); },
               {"clip_grad_norm_: the total norm of order 2 of the gradients is non-finite (nan)"});
  EXPECT_TRUE(std::isnan(clip_grad_norm_(qs, 1.0).item()));
}

TEST(ClipGradTest, NoGradientsGiveZero) {
  Tensor a = zeros({2});
  EXPECT_EQ(clip_grad_norm_(std::vector<Tensor>{a}, 1.0).item(), 0.0);
  EXPECT_EQ(clip_grad_norm_(std::vector<Tensor>{}, 1.0).item(), 0.0);
}

TEST(ClipGradTest, NamedParametersOverload) {
  auto ps = params_with_grads();
  NamedParameters named{{"a", ps[0]}, {"b", ps[1]}};
  EXPECT_DOUBLE_EQ(clip_grad_norm_(named, 1.0).item(), 13.0);
  clip_grad_value_(named, 0.1);
  EXPECT_LE(ps[1].grad().item(), 0.1);
}

TEST(ClipGradTest, ValueClampsEveryElement) {
  auto ps = params_with_grads();
  ps[0].set_grad(tensor({-5.0, 0.5}));
  clip_grad_value_(ps, 1.0);
  EXPECT_EQ(ps[0].grad().to_vector<double>(), (std::vector<double>{-1.0, 0.5}));
  EXPECT_EQ(ps[1].grad().item(), 1.0);
  EXPECT_FALSE(ps[2].grad().defined());
}

// Regression: past 8 parameters the norms were stacked through a container that lost elements,
// so a model of 28 tensors got a constant wrong norm (or inf) and stopped learning.
TEST(ClipGradTest, NormOverManyParametersMatchesAReference) {
  for (int n : {1, 8, 9, 28, 40}) {
    for (double norm_type : {1.0, 2.0, double(INFINITY)}) {
      std::vector<Tensor> ps;
      double sum1 = 0, sum2 = 0, inf = 0;
      for (int i = 0; i < n; ++i) {
        Tensor p = zeros({i % 4 + 1}, kFloat64);
        std::vector<double> g(static_cast<size_t>(i % 4 + 1));
        for (size_t k = 0; k < g.size(); ++k) {
          g[k] = (i % 2 ? -1.0 : 1.0) * (0.5 + i + 0.25 * static_cast<double>(k));
          sum1 += std::abs(g[k]);
          sum2 += g[k] * g[k];
          inf = std::max(inf, std::abs(g[k]));
        }
        p.set_grad(tensor(g));
        ps.push_back(p);
      }
      double expected = norm_type == 1.0 ? sum1 : norm_type == 2.0 ? std::sqrt(sum2) : inf;
      Tensor total = clip_grad_norm_(ps, 1.0, norm_type);
      EXPECT_NEAR(total.item(), expected, 1e-12 * expected) << n << " parameters, norm " << norm_type;
      // every gradient scaled by the same coefficient
      double coef = std::min(1.0, 1.0 / (expected + 1e-6));
      EXPECT_NEAR(ps.back().grad().to_vector<double>()[0],
                  (n - 1) % 2 ? -(0.5 + n - 1) * coef : (0.5 + n - 1) * coef, 1e-12);
    }
  }
}
