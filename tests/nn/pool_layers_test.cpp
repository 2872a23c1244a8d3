// The 1-D, 3-D and LP pools (nn/pool_functional.h, nn/pool_layers.h) against direct loops over
// every window (the oracle), their gradients against finite differences, the positions of the
// maxima, and the errors that name the shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::seeded_randn;

namespace {

struct Window3 {
  Size3 k, s, p, d;
  bool ceil = false;
};

int64_t out_size(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const int64_t span = n + 2 * p - d * (k - 1) - 1;
  int64_t out = (span + (ceil ? s - 1 : 0)) / s + 1;
  if (ceil && (out - 1) * s >= n + p) --out;
  return out;
}

// Max (or mean, with PyTorch's divisor) of every window of x [N, C, D, H, W], by loops.
Tensor pool3d_loops(const Tensor& x, const Window3& w, bool max, bool count_include_pad = true) {
  const int64_t n = x.size(0), c = x.size(1), in[3] = {x.size(2), x.size(3), x.size(4)};
  int64_t out[3];
  for (int i = 0; i < 3; ++i) out[i] = out_size(in[i], w.k[i], w.s[i], w.p[i], w.d[i], w.ceil);
  Tensor y = zeros({n, c, out[0], out[1], out[2]}, kFloat64);
  auto xa = x.contiguous();
  const double* xp = xa.data_ptr<double>();
  double* yp = y.data_ptr<double>();
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          int64_t count = 0, padded_count = 1;
          const int64_t start[3] = {od * w.s.d - w.p.d, oh * w.s.h - w.p.h, ow * w.s.w - w.p.w};
          for (int i = 0; i < 3; ++i) {  // PyTorch's divisor: the window clipped to input + padding
            const int64_t end = std::min(start[i] + w.k[i], in[i] + w.p[i]);
            padded_count *= end - start[i];
          }
          for (int64_t i = 0; i < w.k.d; ++i)
            for (int64_t j = 0; j < w.k.h; ++j)
              for (int64_t l = 0; l < w.k.w; ++l) {
                const int64_t z = start[0] + i * w.d.d, r = start[1] + j * w.d.h, q = start[2] + l * w.d.w;
                if (z < 0 || r < 0 || q < 0 || z >= in[0] || r >= in[1] || q >= in[2]) continue;
                const double v = xp[((b * in[0] + z) * in[1] + r) * in[2] + q];
                best = std::max(best, v);
                sum += v;
                ++count;
              }
          yp[((b * out[0] + od) * out[1] + oh) * out[2] + ow] =
              max ? best : sum / static_cast<double>(count_include_pad ? padded_count : count);
        }
  return y;
}

}  // namespace

TEST(PoolLayersTest, MaxPool3dMatchesLoopsOverEveryWindow) {
  Tensor x = seeded_randn({2, 3, 5, 6, 7}, 1);
  for (const Window3& w :
       {Window3{2, 2, 0, 1}, Window3{3, 2, 1, 1}, Window3{3, 2, 1, 1, true},
        Window3{{2, 3, 2}, {1, 2, 3}, {1, 1, 0}, {2, 1, 2}}, Window3{{3, 2, 4}, {2, 3, 2}, 0, 1, true}}) {
    expect_close(F::max_pool3d(x, w.k, w.s, w.p, w.d, w.ceil), pool3d_loops(x, w, true), 0, 0);
    auto [values, at] = F::max_pool3d_with_indices(x, w.k, w.s, w.p, w.d, w.ceil);
    // every position holds its maximum, flat in D*H*W
    Tensor flat = x.reshape({2, 3, -1});
    expect_close(gather(flat, 2, at.reshape({2, 3, -1})).reshape(values.sizes()), values, 0, 0);
  }
  nn::MaxPool3d layer({.kernel_size = 2});
  EXPECT_EQ(layer.options().stride, Size3(2));
  expect_close(layer.forward(x.select(0, 0)), F::max_pool3d(x, 2).select(0, 0), 0, 0);  // unbatched
  EXPECT_EQ(layer.str().substr(0, layer.str().find('\n')),
            "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::AdaptiveAvgPool3d({.output_size = {2, -1, 3}}).extra_repr(), "output_size=(2, None, 3)");
}

TEST(PoolLayersTest, AvgPool3dMatchesLoopsWithPyTorchsDivisors) {
  Tensor x = seeded_randn({1, 2, 5, 6, 7}, 2);
  for (bool include_pad : {true, false})
    for (const Window3& w : {Window3{2, 2, 0, 1}, Window3{3, 2, 1, 1}, Window3{3, 2, 1, 1, true},
                             Window3{{2, 3, 4}, {3, 2, 2}, {1, 1, 2}, 1, true}})
      expect_close(F::avg_pool3d(x, w.k, w.s, w.p, w.ceil, include_pad), pool3d_loops(x, w, false, include_pad), 1e-12,
                   1e-12);
  // divisor_override divides each window's sum once
  Tensor sums = F::avg_pool3d(x, 2, 2, 0, false, true, 1);
  expect_close(F::avg_pool3d(x, 2, 2, 0, false, true, 5), sums / 5.0, 1e-12, 1e-12);
  expect_close(sums, pool3d_loops(x, Window3{2, 2, 0, 1}, false) * 8.0, 1e-12, 1e-12);
}

TEST(PoolLayersTest, AdaptivePools3dTileTheInput) {
  Tensor x = seeded_randn({2, 2, 5, 6, 7}, 3);
  // output 1 everywhere: the mean and maximum over each channel
  expect_close(F::adaptive_avg_pool3d(x, 1).reshape({2, 2}), mean(x, {2, 3, 4}), 1e-12, 1e-12);
  expect_close(F::adaptive_max_pool3d(x, 1).reshape({2, 2}), amax(x, {2, 3, 4}), 0, 0);
  // sizes that divide the input: plain average pooling
  Tensor y = seeded_randn({1, 2, 4, 6, 8}, 4);
  expect_close(F::adaptive_avg_pool3d(y, {2, 3, 4}), F::avg_pool3d(y, 2), 1e-12, 1e-12);
  expect_close(F::adaptive_max_pool3d(y, {2, 3, 4}), F::max_pool3d(y, 2), 0, 0);
  // -1 keeps that dim
  EXPECT_EQ(F::adaptive_avg_pool3d(y, {-1, 2, 2}).sizes(), IntArrayRef({1, 2, 4, 2, 2}));
  auto [values, at] = F::adaptive_max_pool3d_with_indices(x, {3, 4, 5});
  expect_close(gather(x.reshape({2, 2, -1}), 2, at.reshape({2, 2, -1})).reshape(values.sizes()), values, 0, 0);
}

TEST(PoolLayersTest, OneDimensionalPoolsAreTheirTwoDimensionalOnesOverARow) {
  Tensor x = seeded_randn({2, 3, 11}, 5);
  Tensor plane = x.unsqueeze(-2);
  expect_close(F::max_pool1d(x, 3, 2, 1, 2, true),
               max_pool2d(plane, {1, 3}, Size2(1, 2), {0, 1}, {1, 2}, true).squeeze(-2), 0, 0);
  expect_close(F::avg_pool1d(x, 4, 3, 2, true, false),
               avg_pool2d(plane, {1, 4}, Size2(1, 3), {0, 2}, true, false).squeeze(-2), 0, 0);
  // windows of 2 over pairs: the larger of each pair, at its position
  Tensor pairs = tensor(std::vector<double>{1, 5, 7, 2, -1, -3}).reshape({1, 1, 6});
  auto [values, at] = F::max_pool1d_with_indices(pairs, 2);
  expect_close(values.reshape({3}), tensor(std::vector<double>{5, 7, -1}), 0, 0);
  expect_close(at.reshape({3}).to(kFloat64), tensor(std::vector<double>{1, 2, 4}), 0, 0);
  expect_close(F::adaptive_avg_pool1d(x, 1).squeeze(-1), mean(x, {2}), 1e-12, 1e-12);
  expect_close(F::adaptive_max_pool1d(x, 1).squeeze(-1), amax(x, {2}), 0, 0);
  nn::MaxPool1d layer({.kernel_size = 3});
  EXPECT_EQ(*layer.options().stride, 3);
  expect_close(layer.forward(x.select(0, 1)), F::max_pool1d(x, 3).select(0, 1), 0, 0);
  EXPECT_EQ(nn::AvgPool1d({.kernel_size = 2, .padding = 1}).extra_repr(),
            "kernel_size=(2,), stride=(2,), padding=(1,)");
}

TEST(PoolLayersTest, LPPoolsAreThePNormOfEveryWindow) {
  Tensor x = abs(seeded_randn({1, 2, 6, 8}, 6)) + 0.1;
  // p = 2: sqrt of the sum of squares of each 2 x 2 window
  Tensor expected = sqrt(avg_pool2d(x * x, 2) * 4.0);
  expect_close(F::lp_pool2d(x, 2.0, 2), expected, 1e-12, 1e-12);
  expect_close(nn::LPPool2d({.norm_type = 2.0, .kernel_size = 2}).forward(x), expected, 1e-12, 1e-12);
  // p = 1 of positive inputs: the window sums
  Tensor row = x.reshape({1, 2, 48});
  expect_close(F::lp_pool1d(row, 1.0, 4), F::avg_pool1d(row, 4) * 4.0, 1e-12, 1e-12);
  Tensor v = abs(seeded_randn({1, 1, 4, 4, 4}, 7)) + 0.1;
  expect_close(F::lp_pool3d(v, 3.0, 2), pow(F::avg_pool3d(pow(v, 3.0), 2) * 8.0, 1.0 / 3), 1e-12, 1e-12);
  EXPECT_EQ(nn::LPPool1d({.norm_type = 2.0, .kernel_size = 3}).extra_repr(),
            "norm_type=2.0, kernel_size=3, stride=None, ceil_mode=False");
}

TEST(PoolLayersTest, GradientsMatchFiniteDifferences) {
  // NB: distinct values, so no window has a tie for its maximum.
  Tensor x = (arange(2 * 4 * 5 * 4, TensorOptions(kFloat64)).reshape({1, 2, 4, 5, 4}) * 0.37).sin().set_requires_grad();
  gradcheck([](const autograd::TensorList& in) { return F::max_pool3d(in[0], 2, 1, 1); }, {x});
  gradcheck([](const autograd::TensorList& in) { return F::avg_pool3d(in[0], 3, 2, 1, true, false); }, {x});
  gradcheck([](const autograd::TensorList& in) { return F::adaptive_avg_pool3d(in[0], {3, 2, 3}); }, {x});
  gradcheck([](const autograd::TensorList& in) { return F::adaptive_max_pool3d(in[0], {2, 3, 2}); }, {x});
  Tensor r = (abs(seeded_randn({2, 2, 9}, 8)) + 0.5).set_requires_grad();
  gradcheck([](const autograd::TensorList& in) { return F::lp_pool1d(in[0], 3.0, 3, 2); }, {r});
  gradcheck([](const autograd::TensorList& in) { return F::avg_pool1d(in[0], 3, 2, 1, true); }, {r});
}

TEST(PoolLayersTest, ErrorsNameTheShapes) {
  expect_error<Error>([] { F::max_pool3d(ones({2, 3, 4}), 2); }, {"max_pool3d", "4D or 5D", "[2, 3, 4]"});
  expect_error<Error>([] { F::avg_pool3d(ones({1, 1, 2, 2, 2}), 3); }, {"avg_pool3d", "Output size is too small"});
  expect_error<Error>([] { F::max_pool3d(ones({1, 1, 4, 4, 4}), 2, 2, 2); }, {"pad should be at most half"});
  expect_error<Error>([] { F::max_pool1d(ones({1, 2, 3, 4}), 2); }, {"max_pool1d", "2D or 3D", "[1, 2, 3, 4]"});
  expect_error<Error>(
      [] {
        F::avg_pool3d(ones({1, 1, 2, 2, 2}), 1, 1, 0, false, true, 0);
      },
      {"divisor must be not zero"});
  expect_error<Error>([] { F::adaptive_avg_pool3d(ones({2, 2}), 1); }, {"adaptive_avg_pool3d", "4D or 5D"});
}
