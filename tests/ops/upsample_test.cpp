// The upsample_* ops against interpolation written out per output element (in double), exact
// cases (copies, identities, constants), gradients by finite differences, and the errors. PyTorch's
// own outputs for every mode are in tests/nn/conv_layers_test.cpp (conv.json).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen);
}

// The source position of output i along a dim, for the interpolating modes.
double linear_source(int64_t i, int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<double>(i) * (in - 1) / (out - 1) : 0.0;
  return std::max(0.0, (i + 0.5) * in / out - 0.5);
}

// Bilinear interpolation of [N, C, H, W] by definition.
Tensor reference_bilinear(const Tensor& x, int64_t oh, int64_t ow, bool align_corners) {
  const int64_t P = x.size(0) * x.size(1), H = x.size(2), W = x.size(3);
  std::vector<double> xv = x.contiguous().to_vector<double>(), out;
  for (int64_t p = 0; p < P; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double sy = linear_source(i, H, oh, align_corners), sx = linear_source(j, W, ow, align_corners);
        int64_t y0 = std::min<int64_t>(static_cast<int64_t>(sy), H - 1), x0 = std::min<int64_t>(static_cast<int64_t>(sx), W - 1);
        int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
        double ly = sy - y0, lx = sx - x0;
        auto at = [&](int64_t r, int64_t c) { return xv[static_cast<size_t>(p * H * W + r * W + c)]; };
        out.push_back((1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) + ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1)));
      }
  return tensor(out, {x.size(0), x.size(1), oh, ow});
}

}  // namespace

TEST(UpsampleTest, NearestCopiesSourceElements) {
  Tensor x = arange(0, 6, 1, TensorOptions(kFloat64)).reshape({1, 1, 2, 3});
  expect_values(upsample_nearest2d(x, {4, 6}), {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 3, 3, 4, 4, 5, 5});
  expect_values(upsample_nearest2d(x, {1, 2}), {0, 1});  // floor(i * 3 / 2): columns 0, 1
  expect_values(upsample_nearest_exact2d(x, {1, 2}), {3, 5});  // floor((i + 0.5) * in / out): row 1, columns 0, 2
  expect_values(upsample_nearest1d(arange(0, 3, 1, TensorOptions(kFloat64)).reshape({1, 1, 3}), 5), {0, 0, 1, 1, 2});
  // a scale factor is used as given: floor(i / 1.5) over 7 outputs of 5
  expect_values(upsample_nearest1d(arange(0, 5, 1, TensorOptions(kFloat64)).reshape({1, 1, 5}), 7, 1.5),
                {0, 0, 1, 2, 2, 3, 4});
}

TEST(UpsampleTest, BilinearMatchesTheDefinition) {
  uint64_t seed = 1;
  for (bool align : {false, true})
    for (auto [h, w, oh, ow] : std::vector<std::array<int64_t, 4>>{{3, 4, 6, 8}, {3, 4, 5, 7}, {5, 7, 2, 3}, {4, 4, 1, 1},
                                                                   {1, 3, 4, 5}}) {
      Tensor x = draw({2, 3, h, w}, seed++);
      expect_close(upsample_bilinear2d(x, {oh, ow}, align), reference_bilinear(x, oh, ow, align), 1e-12, 1e-12,
                   align ? "align_corners" : "half pixels");
    }
  Tensor x = draw({2, 5, 4}, 20);  // unbatched; the same size is the identity
  expect_close(upsample_bilinear2d(x, {5, 4}, false), x, 1e-15, 0, "identity");
  expect_close(upsample_bilinear2d(x, {5, 4}, true), x, 1e-15, 0, "identity, align_corners");
  // linear 1-D is bilinear with a unit height
  Tensor l = draw({2, 3, 6}, 21);
  expect_close(upsample_linear1d(l, 10, true), reference_bilinear(l.unsqueeze(2), 1, 10, true).squeeze(2), 1e-12, 1e-12,
               "linear");
}

TEST(UpsampleTest, BicubicReproducesConstantsAndLines) {
  // Keys' kernel sums to 1 and reproduces linear functions away from the replicated edges.
  Tensor c = full({1, 2, 4, 5}, 2.5, kFloat64);
  expect_close(upsample_bicubic2d(c, {7, 9}, false), full({1, 2, 7, 9}, 2.5, kFloat64), 1e-12, 1e-12, "constant");
  Tensor ramp = arange(0, 8, 1, TensorOptions(kFloat64)).reshape({1, 1, 1, 8}).expand({1, 1, 3, 8});
  Tensor up = upsample_bicubic2d(ramp, {3, 15}, /*align_corners=*/true);  // source x = j / 2
  for (int64_t j = 3; j < 12; ++j) EXPECT_NEAR(up.select(3, j).select(2, 1).item<double>(), j * 0.5, 1e-12) << j;
}

TEST(UpsampleTest, GradientsMatchFiniteDifferences) {
  Tensor x = draw({1, 2, 3, 4}, 30).set_requires_grad();
  gradcheck([](const TensorList& in) { return upsample_nearest2d(in[0], {5, 7}); }, {x});
  gradcheck([](const TensorList& in) { return upsample_nearest_exact2d(in[0], {2, 9}, 0.6, 2.3); }, {x});
  gradcheck([](const TensorList& in) { return upsample_bilinear2d(in[0], {5, 7}, false); }, {x});
  gradcheck([](const TensorList& in) { return upsample_bilinear2d(in[0], {2, 3}, true); }, {x});
  gradcheck([](const TensorList& in) { return upsample_bicubic2d(in[0], {6, 5}, false, 2.0, 1.3); }, {x});
  gradcheck([](const TensorList& in) { return upsample_linear1d(in[0].transpose(1, 2), 5, false); },
            {draw({2, 3, 2}, 31).set_requires_grad()});
  gradcheck([](const TensorList& in) { return upsample_nearest1d(in[0], 2); }, {draw({3, 5}, 32).set_requires_grad()});
  gradgradcheck([](const TensorList& in) { return upsample_bilinear2d(in[0] * in[0], {3, 5}, false); },
                {draw({1, 1, 2, 3}, 33).set_requires_grad()});
}

TEST(UpsampleTest, Errors) {
  expect_error([] { upsample_bilinear2d(ones({2, 3}), {4, 4}, false); },
               {"upsample_bilinear2d: expected a 3-D or 4-D input", "[2, 3]"});
  expect_error([] { upsample_nearest2d(ones({1, 1, 2, 2}), {0, 3}); },
               {"upsample_nearest2d: input and output sizes should be greater than 0", "[0, 3]"});
  expect_error([] { upsample_linear1d(ones({1, 1, 0}), 3, false); }, {"upsample_linear1d", "greater than 0"});
  expect_error<TypeError>([] { upsample_nearest2d(ones({1, 1, 2, 2}, kInt64), {4, 4}); }, {"upsample_nearest2d", "int64"});
}
