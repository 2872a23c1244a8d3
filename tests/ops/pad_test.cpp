// pad: every mode against NumPy's np.pad rules written out (mirror without the edge, edge repeated,
// wrap-around), gradients by finite differences, and the errors.
#include <gtest/gtest.h>

#include <array>
#include <string>
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

// The source index of padded position i (of `before` + n + ...) along one dim, per mode.
int64_t source(const std::string& mode, int64_t i, int64_t before, int64_t n) {
  int64_t j = i - before;
  if (mode == "replicate") return std::min(std::max<int64_t>(j, 0), n - 1);
  if (mode == "circular") return ((j % n) + n) % n;
  // reflect: mirror about the first and last elements
  while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
  return j;
}

// pad of the last two dims of [N, C, H, W] by definition.
Tensor reference_pad2d(const Tensor& x, const std::string& mode, int64_t l, int64_t r, int64_t t, int64_t b) {
  const int64_t P = x.size(0) * x.size(1), H = x.size(2), W = x.size(3), oH = H + t + b, oW = W + l + r;
  std::vector<double> xv = x.contiguous().to_vector<double>(), out;
  for (int64_t p = 0; p < P; ++p)
    for (int64_t i = 0; i < oH; ++i)
      for (int64_t j = 0; j < oW; ++j)
        out.push_back(xv[static_cast<size_t>(p * H * W + source(mode, i, t, H) * W + source(mode, j, l, W))]);
  return tensor(out, {x.size(0), x.size(1), oH, oW});
}

}  // namespace

TEST(PadTest, KnownValues) {
  Tensor x = arange(1, 5, 1, TensorOptions(kFloat64)).reshape({1, 1, 4});
  expect_values(pad(x, {2, 1}, "reflect"), {3, 2, 1, 2, 3, 4, 3});
  expect_values(pad(x, {2, 1}, "replicate"), {1, 1, 1, 2, 3, 4, 4});
  expect_values(pad(x, {2, 1}, "circular"), {3, 4, 1, 2, 3, 4, 1});
  expect_values(pad(x, {2, 1}), {0, 0, 1, 2, 3, 4, 0});
  expect_values(pad(x, {-1, 2}, "constant", 9.0), {2, 3, 4, 9, 9});
  expect_values(pad(x, {4, 0}, "circular"), {1, 2, 3, 4, 1, 2, 3, 4});  // wraps once, fully
}

TEST(PadTest, ModesMatchTheirDefinitions) {
  uint64_t seed = 1;
  for (const std::string mode : {"reflect", "replicate", "circular"})
    for (auto [l, r, t, b] : std::vector<std::array<int64_t, 4>>{{1, 2, 3, 1}, {0, 0, 2, 0}, {3, 3, 0, 1}, {0, 1, 0, 0}}) {
      Tensor x = draw({2, 3, 4, 5}, seed++);
      if (mode == "reflect" && (t >= 4 || b >= 4 || l >= 5 || r >= 5)) continue;
      expect_close(pad(x, {l, r, t, b}, mode), reference_pad2d(x, mode, l, r, t, b), 0, 0, mode);
      // unbatched [C, H, W] and a strided input
      Tensor xs = draw({5, 4, 3}, seed++).permute({2, 1, 0});
      expect_close(pad(xs, {l, r, t, b}, mode), reference_pad2d(xs.unsqueeze(0), mode, l, r, t, b).squeeze(0), 0, 0,
                   mode + " unbatched strided");
    }
}

TEST(PadTest, ThreeDimsAndConstantPadsOfAnyRank) {
  Tensor x = draw({1, 2, 3, 4, 5}, 20);
  for (const std::string mode : {"reflect", "replicate", "circular"}) {
    Tensor y = pad(x, {1, 1, 2, 0, 1, 2}, mode);
    ASSERT_EQ(y.sizes(), IntArrayRef({1, 2, 6, 6, 7}));
    std::vector<double> xv = x.to_vector<double>(), want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t d = 0; d < 6; ++d)
        for (int64_t h = 0; h < 6; ++h)
          for (int64_t w = 0; w < 7; ++w)
            want.push_back(xv[static_cast<size_t>(((c * 3 + source(mode, d, 1, 3)) * 4 + source(mode, h, 2, 4)) * 5 +
                                                  source(mode, w, 1, 5))]);
    expect_close(y, tensor(want, {1, 2, 6, 6, 7}), 0, 0, mode + " 3-D");
  }
  Tensor s = draw({}, 21);
  expect_values(pad(draw({3}, 22).narrow(0, 0, 0), {1, 2}, "constant", -1.0), {-1, -1, -1});  // empty dim
  EXPECT_EQ(pad(s, {}).sizes(), IntArrayRef({}));
  EXPECT_EQ(pad(ones({2, 3}, kInt64), {1, 1, 1, 1}, "constant", 7.0).dtype(), kInt64);
}

TEST(PadTest, GradientsMatchFiniteDifferences) {
  for (const char* mode : {"reflect", "replicate", "circular", "constant"}) {
    SCOPED_TRACE(mode);
    std::string m = mode;
    gradcheck([m](const TensorList& in) { return pad(in[0], {2, 1, 1, 3}, m); }, {draw({1, 2, 4, 3}, 30).set_requires_grad()});
    gradgradcheck([m](const TensorList& in) { return pad(in[0] * in[0], {1, 2}, m); },
                  {draw({2, 3}, 31).set_requires_grad()});
  }
  gradcheck([](const TensorList& in) { return pad(in[0], {-1, 2, 1, -1}, "constant", 0.5); },
            {draw({2, 3, 4}, 32).transpose(1, 2).set_requires_grad()});
}

TEST(PadTest, Errors) {
  Tensor x = ones({1, 2, 3, 4});
  expect_error([&] { pad(x, {1, 1}, "wrap"); },
               {"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got 'wrap'"});
  expect_error([&] { pad(x, {1}); }, {"pad: expected an even number of amounts for at most 4 dims", "[1]"});
  Tensor x3 = ones({1, 2, 4});
  expect_error([&] { pad(x3, {4, 0}, "reflect"); },
               {"pad: reflect amounts must be smaller than the padded dim: got (4, 0) for dim 2 of size 4"});
  expect_error([&] { pad(x3, {5, 0}, "circular"); }, {"pad: circular amounts must not exceed the padded dim"});
  expect_error([&] { pad(x3, {-1, 0}, "replicate"); }, {"pad: mode 'replicate' takes non-negative amounts"});
  expect_error([&] { pad(x, {1, 1}, "reflect"); },  // as PyTorch: 1 dim of padding needs a 2-D or 3-D input
               {"pad: mode 'reflect' pads the last 1 to 3 dims", "(1 dims need a 2-D or 3-D input)", "[1, 2, 3, 4]"});
  expect_error([&] { pad(ones({4}), {1, 1}, "reflect"); },
               {"pad: mode 'reflect' pads the last 1 to 3 dims of a batched or unbatched input", "got pad [1, 1] for input [4]"});
  expect_error([&] { pad(x, {0, 0, -2, -2}); }, {"pad: padding [0, 0, -2, -2] crops more than the 3 elements of dim 2"});
  expect_error([&] { pad(x, {1, 1}, "reflect", 2.0); }, {"pad: value is only used in constant mode"});
}
