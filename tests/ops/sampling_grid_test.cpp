// affine_grid and grid_sample through the C++ API (ops/sampling_grid.cpp): the identity grid with and
// without align_corners, every mode and padding against PyTorch's values (torch 2.15, float64),
// gradients to input and grid against finite differences, and the errors that name the argument.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using autograd::gradcheck;
using ember::testing::expect_error;
using ember::testing::expect_values_near;

namespace {

Tensor identity_theta() { return tensor(std::vector<double>{1, 0, 0, 0, 1, 0}, {1, 2, 3}); }
Tensor image() { return arange(1, 7, 1, TensorOptions(kFloat64)).reshape({1, 1, 2, 3}); }
// (x, y) points: the corner, the centre, the far corner, one inside, one outside
Tensor points() { return tensor(std::vector<double>{-1, -1, 0, 0, 1, 1, 0.5, -0.25, 1.4, 0.9}, {1, 1, 5, 2}); }

}  // namespace

TEST(SamplingGridTest, AffineGridOfTheIdentityIsThePixelCentres) {
  expect_values_near(affine_grid(identity_theta(), {1, 1, 2, 3}, false),
                     {-2.0 / 3, -0.5, 0, -0.5, 2.0 / 3, -0.5, -2.0 / 3, 0.5, 0, 0.5, 2.0 / 3, 0.5}, 1e-15);
  expect_values_near(affine_grid(identity_theta(), {1, 1, 2, 3}, true), {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1},
                     1e-15);
  expect_error<ValueError>([] { affine_grid(identity_theta(), {2, 1, 2, 3}); }, {"Expected a batch of 2D affine"});
  expect_error<NotImplementedError>([] { affine_grid(identity_theta(), {1, 1, 2}); }, {"only 4-D sizes"});
}

TEST(SamplingGridTest, GridSampleMatchesPyTorchInEveryModeAndPadding) {
  struct Case {
    const char* mode;
    const char* padding;
    bool corners;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {
      {"bilinear", "zeros", false, {0.25, 3.5, 1.5, 3.5, 0.0}},
      {"bilinear", "zeros", true, {1.0, 3.5, 6.0, 3.625, 3.51}},
      {"bilinear", "border", false, {1.0, 3.5, 6.0, 3.5, 6.0}},
      {"bilinear", "border", true, {1.0, 3.5, 6.0, 3.625, 5.85}},
      {"bilinear", "reflection", false, {1.0, 3.5, 6.0, 3.5, 5.9}},
      {"bilinear", "reflection", true, {1.0, 3.5, 6.0, 3.625, 5.45}},
      {"nearest", "zeros", false, {1.0, 2.0, 0.0, 3.0, 0.0}},
      {"nearest", "zeros", true, {1.0, 2.0, 6.0, 3.0, 6.0}},
      {"nearest", "border", false, {1.0, 2.0, 6.0, 3.0, 6.0}},
      {"nearest", "reflection", true, {1.0, 2.0, 6.0, 3.0, 6.0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + c.padding + (c.corners ? " align_corners" : ""));
    expect_values_near(grid_sample(image(), points(), c.mode, c.padding, c.corners), c.want, 1e-12);
  }
}

TEST(SamplingGridTest, ANanCoordinateGivesNanNotABadIndex) {
  // PyTorch's: the bilinear weights are NaN, so is the sample; nearest reads nothing (0)
  const Tensor grid = tensor(std::vector<double>{NAN, 0.0}, {1, 1, 1, 2});
  EXPECT_TRUE(std::isnan(grid_sample(ones({1, 1, 2, 2}, kFloat64), grid).item<double>()));
  EXPECT_EQ(grid_sample(ones({1, 1, 2, 2}, kFloat64), grid, "nearest").item<double>(), 0.0);
}

TEST(SamplingGridTest, GradientsReachInputAndGrid) {
  const Tensor input = randn({1, 2, 3, 4}, kFloat64).requires_grad_(true);
  const Tensor grid = (rand({1, 2, 3, 2}, kFloat64) * 1.6 - 0.8).requires_grad_(true);
  for (const char* padding : {"zeros", "border", "reflection"})
    gradcheck([&](const std::vector<Tensor>& x) { return grid_sample(x[0], x[1], "bilinear", padding, false); },
              {input, grid});
  gradcheck([](const std::vector<Tensor>& x) { return affine_grid(x[0], {1, 1, 2, 3}, false); },
            {identity_theta().requires_grad_(true)});
}

TEST(SamplingGridTest, RefusesWhatItDoesNotSupportByName) {
  expect_error<NotImplementedError>([] { grid_sample(image(), points(), "bicubic"); }, {"mode 'bicubic'"});
  expect_error<ValueError>([] { grid_sample(image(), points(), "bilinear", "wrap"); },
                           {"expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'wrap'"});
  expect_error<NotImplementedError>([] { grid_sample(image().reshape({1, 1, 6}), points()); }, {"only 4-D inputs"});
}
