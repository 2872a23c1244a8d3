#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "ember/ops/pool.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

// Distinct positive values (a shuffled 0.1, 0.2, ...): no ties, so max pooling is differentiable with a
// margin far wider than gradcheck's step.
Tensor distinct(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (randperm(n, &gen).to(kFloat64) * 0.1 + 0.1).reshape(shape).detach();
}

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen);
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = num / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// max and avg pooling by their definitions over a [N, C, H, W] input, in double.
Tensor reference_pool(const Tensor& x, bool is_max, Size2 k, Size2 s, Size2 p, Size2 d, bool ceil_mode,
                      bool count_include_pad) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t oH = out_size(H, k.h, s.h, p.h, d.h, ceil_mode), oW = out_size(W, k.w, s.w, p.w, d.w, ceil_mode);
  std::vector<double> xv = x.to_vector<double>(), out;
  for (int64_t plane = 0; plane < N * C; ++plane)
    for (int64_t oh = 0; oh < oH; ++oh)
      for (int64_t ow = 0; ow < oW; ++ow) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t count = 0, padded = 0;
        for (int64_t ki = 0; ki < k.h; ++ki)
          for (int64_t kj = 0; kj < k.w; ++kj) {
            int64_t ih = oh * s.h - p.h + ki * d.h, iw = ow * s.w - p.w + kj * d.w;
            if (ih < H + p.h && iw < W + p.w) ++padded;  // windows are clipped at the far padding
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            double v = xv[static_cast<size_t>((plane * H + ih) * W + iw)];
            best = std::max(best, v);
            sum += v;
            ++count;
          }
        out.push_back(is_max ? best : sum / static_cast<double>(count_include_pad ? padded : count));
      }
  return tensor(out, {N, C, oH, oW});
}

struct Window {
  const char* name;
  std::vector<int64_t> shape;
  Size2 kernel, stride, padding, dilation;
  bool ceil_mode;
};

const std::vector<Window> kWindows = {
    {"2x2", {2, 3, 6, 6}, 2, 2, 0, 1, false},
    {"2x2 on odd sizes (last row and column unused)", {2, 2, 7, 9}, 2, 2, 0, 1, false},
    {"3x3 stride 1 (overlapping)", {1, 2, 5, 6}, 3, 1, 0, 1, false},
    {"padding 1", {1, 2, 5, 5}, 3, 2, 1, 1, false},
    {"ceil mode", {1, 2, 5, 7}, 2, 2, 0, 1, true},
    {"ceil mode with padding", {1, 1, 6, 5}, 3, 2, 1, 1, true},
    {"mixed h/w", {1, 2, 7, 6}, {3, 2}, {2, 1}, {1, 0}, 1, false},
};

}  // namespace

TEST(PoolTest, MaxPoolKnownValuesAndIndices) {
  Tensor x = arange(16, TensorOptions(kFloat32)).reshape({1, 1, 4, 4});
  auto [y, idx] = max_pool2d_with_indices(x, 2);
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 1, 2, 2}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(idx.dtype(), kInt64);
  EXPECT_EQ(idx.to_vector<int64_t>(), (std::vector<int64_t>{5, 7, 13, 15}));
  EXPECT_EQ(max_pool2d(x, 2).to_vector<float>(), y.to_vector<float>());
}

TEST(PoolTest, MaxPoolMatchesDefinition) {
  uint64_t seed = 1;
  for (const Window& w : kWindows) {
    Tensor x = draw(w.shape, seed++);
    expect_close(max_pool2d(x, w.kernel, w.stride, w.padding, w.dilation, w.ceil_mode),
                 reference_pool(x, true, w.kernel, w.stride, w.padding, w.dilation, w.ceil_mode, true), 0, 0,
                 w.name);
  }
  Tensor x = draw({2, 2, 9, 8}, 9).to(kFloat32);
  expect_close(max_pool2d(x, 3, 1, 1, 2), reference_pool(x, true, 3, 1, 1, 2, false, true), 0, 0,
               "dilation 2");
}

TEST(PoolTest, MaxPoolPropagatesNaNAndTakesFirstMaximum) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tensor(std::vector<double>{1, nan, 3, 4, 2, 2, 2, 2}, {1, 2, 2, 2});
  auto [y, idx] = max_pool2d_with_indices(x, 2);
  EXPECT_TRUE(std::isnan(y.to_vector<double>()[0]));
  EXPECT_EQ(idx.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));  // ties: the first one
}

// The 2x2 stride-2 kernel has its own loop: ties and NaNs must pick the same element as the
// general one (the first maximum in row-major window order; the last NaN), on sizes with a
// leftover row and column.
TEST(PoolTest, MaxPool2x2TiesAndNaNsPickTheDefinedElement) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Generator gen(3);
  const int64_t H = 9, W = 11;
  std::vector<double> v = randint(0, 4, {2, 3, H, W}, TensorOptions(), &gen).to_vector<double>();
  for (double& e : v) e = e == 3 ? nan : e;  // values in {0, 1, 2, NaN}: many ties
  Tensor x = tensor(v, {2, 3, H, W});
  for (DType dtype : {kFloat64, kFloat32}) {
    auto [y, idx] = max_pool2d_with_indices(x.to(dtype), 2);
    std::vector<int64_t> got = idx.to_vector<int64_t>(), want;
    for (int64_t plane = 0; plane < 6; ++plane)
      for (int64_t oh = 0; oh < H / 2; ++oh)
        for (int64_t ow = 0; ow < W / 2; ++ow) {
          int64_t arg = -1;
          double best = -std::numeric_limits<double>::infinity();
          for (int64_t t = 0; t < 4; ++t) {
            const int64_t i = (2 * oh + t / 2) * W + 2 * ow + t % 2;
            const double e = v[static_cast<size_t>(plane * H * W + i)];
            if (arg < 0 || e > best || std::isnan(e)) best = e, arg = i;
          }
          want.push_back(arg);
        }
    EXPECT_EQ(got, want) << dtype;
  }
}

TEST(PoolTest, AvgPoolMatchesDefinition) {
  uint64_t seed = 20;
  for (const Window& w : kWindows)
    for (bool include_pad : {true, false}) {
      Tensor x = draw(w.shape, seed++);
      expect_close(avg_pool2d(x, w.kernel, w.stride, w.padding, w.ceil_mode, include_pad),
                   reference_pool(x, false, w.kernel, w.stride, w.padding, 1, w.ceil_mode, include_pad),
                   1e-12, 1e-12,
                   std::string(w.name) + (include_pad ? " counting padding" : ""));
    }
}

TEST(PoolTest, AvgPoolPaddingAndCeilModeDivisors) {
  Tensor x = ones({1, 1, 3, 3});
  // Corner windows hold 4 ones among 9 positions when padding counts.
  EXPECT_NEAR(avg_pool2d(x, 3, 1, 1).to_vector<float>()[0], 4.0 / 9.0, 1e-7);
  EXPECT_EQ(avg_pool2d(x, 3, 1, 1, false, false).to_vector<float>(), std::vector<float>(9, 1.0f));
  // The extra ceil-mode window is clipped at the input, so it averages only what it covers.
  EXPECT_EQ(avg_pool2d(x, 2, 2, 0, true).to_vector<float>(), std::vector<float>(4, 1.0f));
  EXPECT_EQ(avg_pool2d(x, 3, 1, 1, false, true, 2).to_vector<float>()[4], 4.5f);
}

TEST(PoolTest, AdaptiveAvgPoolMatchesDefinition) {
  Tensor x = draw({2, 3, 5, 7}, 30);
  Tensor y = adaptive_avg_pool2d(x, {3, 2});
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 3, 3, 2}));
  // Windows [floor(i*5/3), ceil((i+1)*5/3)) = [0,2), [1,4), [3,5) by [0,4), [3,7).
  std::vector<double> xv = x.to_vector<double>(), want;
  const int64_t hs[3][2] = {{0, 2}, {1, 4}, {3, 5}}, ws[2][2] = {{0, 4}, {3, 7}};
  for (int64_t plane = 0; plane < 6; ++plane)
    for (auto& h : hs)
      for (auto& w : ws) {
        double sum = 0;
        for (int64_t i = h[0]; i < h[1]; ++i)
          for (int64_t j = w[0]; j < w[1]; ++j) sum += xv[static_cast<size_t>(plane * 35 + i * 7 + j)];
        want.push_back(sum / static_cast<double>((h[1] - h[0]) * (w[1] - w[0])));
      }
  expect_close(y, tensor(want, {2, 3, 3, 2}), 1e-12, 1e-12, "adaptive");
  expect_close(adaptive_avg_pool2d(x, 1), x.mean({2, 3}, true), 1e-12, 1e-12, "global");
  expect_close(adaptive_avg_pool2d(x, {5, 7}), x, 1e-12, 1e-12, "identity");
}

TEST(PoolTest, UnbatchedInputs) {
  Tensor x = draw({3, 6, 6}, 40);
  EXPECT_EQ(max_pool2d(x, 2).sizes(), IntArrayRef({3, 3, 3}));
  expect_close(max_pool2d(x, 2), max_pool2d(x.unsqueeze(0), 2).squeeze(0), 0, 0, "max");
  expect_close(avg_pool2d(x, 3, 2, 1), avg_pool2d(x.unsqueeze(0), 3, 2, 1).squeeze(0), 0, 0, "avg");
  expect_close(adaptive_avg_pool2d(x, 2), adaptive_avg_pool2d(x.unsqueeze(0), 2).squeeze(0), 0, 0,
               "adaptive");
  auto [y, idx] = max_pool2d_with_indices(x, 2);
  EXPECT_EQ(idx.sizes(), IntArrayRef({3, 3, 3}));
}

TEST(PoolTest, ManyPlanesSplitOverThreads) {
  Tensor x = draw({16, 32, 20, 20}, 45);
  expect_close(max_pool2d(x, 2), reference_pool(x, true, 2, 2, 0, 1, false, true), 0, 0, "max");
  expect_close(avg_pool2d(x, 3, 2, 1), reference_pool(x, false, 3, 2, 1, 1, false, true), 1e-12, 1e-12,
               "avg");
}

TEST(PoolTest, MaxPoolGradients) {
  uint64_t seed = 50;
  for (const Window& w : kWindows) {
    std::vector<int64_t> shape = w.shape;
    shape[0] = 1;
    Window win = w;
    gradcheck([win](const TensorList& in) {
      return max_pool2d(in[0], win.kernel, win.stride, win.padding, win.dilation, win.ceil_mode);
    }, {distinct(shape, seed++).set_requires_grad()});
  }
  gradcheck([](const TensorList& in) { return max_pool2d(in[0], 2, 1, 1, 2); }, {distinct({1, 1, 6, 6}, 58).set_requires_grad()});
  // Unbatched and transposed (non-contiguous) inputs.
  gradcheck([](const TensorList& in) { return max_pool2d(in[0].transpose(1, 2), 2); },
            {distinct({2, 4, 5}, 59).set_requires_grad()});
}

TEST(PoolTest, MaxPoolGradientGoesToTheMaximumOnce) {
  Tensor x = tensor(std::vector<double>{1, 9, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 3, 3}).set_requires_grad();
  // Overlapping 2x2 windows, two of which hold the 9: its gradient is summed.
  max_pool2d(x, 2, 1).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 2, 0, 0, 0, 0, 0, 1, 1}));
}

TEST(PoolTest, AvgPoolGradients) {
  uint64_t seed = 60;
  for (const Window& w : kWindows)
    for (bool include_pad : {true, false}) {
      std::vector<int64_t> shape = w.shape;
      shape[0] = 1;
      Window win = w;
      gradcheck([win, include_pad](const TensorList& in) {
        return avg_pool2d(in[0], win.kernel, win.stride, win.padding, win.ceil_mode, include_pad);
      }, {draw(shape, seed++).set_requires_grad()});
    }
  gradcheck([](const TensorList& in) { return avg_pool2d(in[0].transpose(1, 2), 2, 1, 1, false, true, 3); },
            {draw({2, 4, 5}, 69).set_requires_grad()});
}

TEST(PoolTest, AdaptiveAvgPoolGradients) {
  auto fn = [](const TensorList& in) { return adaptive_avg_pool2d(in[0], {3, 2}); };
  gradcheck(fn, {draw({1, 2, 5, 7}, 70).set_requires_grad()});
  gradcheck(fn, {draw({2, 4, 3}, 71).set_requires_grad()});
  gradcheck([](const TensorList& in) { return adaptive_avg_pool2d(in[0], {4, 5}); }, {draw({1, 1, 3, 3}, 72).set_requires_grad()});
}

TEST(PoolTest, SecondDerivatives) {
  // Pooling is linear in its input (piecewise, for max), so its gradient depends on the input only
  // through what comes before it: a square in front makes the second derivative nonzero.
  gradgradcheck([](const TensorList& in) { return max_pool2d(in[0] * in[0], 2, 1); },
                {distinct({1, 1, 4, 4}, 80).set_requires_grad()});
  gradgradcheck([](const TensorList& in) { return avg_pool2d(in[0] * in[0], 3, 2, 1); },
                {draw({1, 2, 5, 5}, 81).set_requires_grad()});
  gradgradcheck([](const TensorList& in) { return adaptive_avg_pool2d(in[0] * in[0], 2); },
                {draw({1, 1, 5, 3}, 82).set_requires_grad()});
}

TEST(PoolTest, ErrorsNameArguments) {
  Tensor x = ones({1, 1, 4, 4});
  expect_error([] { max_pool2d(ones({4, 4}), 2); }, {"max_pool2d", "3-D", "4-D", "[4, 4]"});
  expect_error([] { max_pool2d(ones({1, 0, 4, 4}), 2); }, {"max_pool2d", "non-zero", "[1, 0, 4, 4]"});
  expect_error([&] { max_pool2d(x, 0); }, {"max_pool2d: kernel_size must be positive, got [0, 0]"});
  expect_error([&] { max_pool2d(x, 2, 0); }, {"max_pool2d: stride must be positive"});
  expect_error([&] { avg_pool2d(x, 2, 2, 2); }, {"avg_pool2d: padding [2, 2]", "at most half of kernel_size [2, 2]"});
  expect_error([&] { max_pool2d(x, 5); }, {"max_pool2d: input [1, 1, 4, 4] is too small for kernel_size [5, 5]"});
  expect_error([&] { max_pool2d(x, 2, 1, 0, 4); }, {"max_pool2d", "too small", "dilation [4, 4]"});
  expect_error([&] { avg_pool2d(x, 2, std::nullopt, 0, false, true, 0); }, {"avg_pool2d: divisor_override"});
  expect_error([&] { adaptive_avg_pool2d(x, -1); }, {"adaptive_avg_pool2d: output_size", "[-1, -1]"});
  expect_error<TypeError>([] { max_pool2d(ones({1, 1, 4, 4}, kInt64), 2); },
                          {"max_pool2d: expected a floating point tensor, got int64"});
  expect_error<TypeError>([] { avg_pool2d(ones({1, 1, 4, 4}, kInt32), 2); },
                          {"avg_pool2d: expected a floating point tensor, got int32"});
}

// ---- adaptive_max_pool2d

TEST(PoolTest, AdaptiveMaxPoolMatchesDefinition) {
  for (auto [h, w, oh, ow] : std::vector<std::array<int64_t, 4>>{{7, 5, 3, 2}, {4, 6, 4, 6}, {3, 4, 5, 7}, {5, 5, 1, 1}}) {
    Tensor x = distinct({2, 3, h, w}, static_cast<uint64_t>(h * 100 + w * 10 + oh));
    auto [y, idx] = adaptive_max_pool2d_with_indices(x, {oh, ow});
    std::vector<double> xv = x.to_vector<double>(), want;
    std::vector<int64_t> want_idx;
    for (int64_t plane = 0; plane < 6; ++plane)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          // PyTorch's bins: [floor(i h / oh), ceil((i + 1) h / oh))
          int64_t r0 = i * h / oh, r1 = ((i + 1) * h + oh - 1) / oh, c0 = j * w / ow, c1 = ((j + 1) * w + ow - 1) / ow;
          double best = -INFINITY;
          int64_t arg = 0;
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = c0; c < c1; ++c)
              if (xv[static_cast<size_t>(plane * h * w + r * w + c)] > best) {
                best = xv[static_cast<size_t>(plane * h * w + r * w + c)];
                arg = r * w + c;
              }
          want.push_back(best);
          want_idx.push_back(arg);
        }
    expect_close(y, tensor(want, {2, 3, oh, ow}), 0, 0, "values");
    EXPECT_EQ(idx.to_vector<int64_t>(), want_idx);
    EXPECT_EQ(adaptive_max_pool2d(x, {oh, ow}).to_vector<double>(), want);
  }
  Tensor x = draw({3, 5, 4}, 90);  // unbatched, and global pooling
  expect_close(adaptive_max_pool2d(x, 1), x.amax({1, 2}, true), 0, 0, "global");
  expect_close(adaptive_max_pool2d(x, {5, 4}), x, 0, 0, "identity");
}

TEST(PoolTest, AdaptiveMaxPoolPropagatesNaNAndTakesFirstMaximum) {
  Tensor x = tensor(std::vector<double>{1, 3, 3, 2, NAN, 0, 5, 5, 1}, {1, 1, 3, 3});
  auto [y, idx] = adaptive_max_pool2d_with_indices(x, {2, 2});
  // bins rows [0, 2) and [1, 3), columns likewise
  EXPECT_EQ(idx.to_vector<int64_t>(), (std::vector<int64_t>{4, 4, 4, 4}));
  EXPECT_TRUE(std::isnan(y.to_vector<double>()[0]));
  auto [y2, idx2] = adaptive_max_pool2d_with_indices(tensor(std::vector<double>{1, 3, 3, 2}, {1, 1, 2, 2}), {1, 1});
  EXPECT_EQ(idx2.to_vector<int64_t>(), (std::vector<int64_t>{1}));
}

TEST(PoolTest, AdaptiveMaxPoolGradients) {
  auto fn = [](const TensorList& in) { return adaptive_max_pool2d(in[0], {3, 2}); };
  gradcheck(fn, {distinct({2, 2, 5, 4}, 91).set_requires_grad()});
  gradcheck([](const TensorList& in) { return adaptive_max_pool2d(in[0], {4, 5}); },
            {distinct({1, 1, 3, 3}, 92).set_requires_grad()});  // overlapping bins: one element, many outputs
  gradcheck(fn, {distinct({5, 4, 2}, 93).permute({2, 0, 1}).set_requires_grad()});  // unbatched, strided
  gradgradcheck([](const TensorList& in) { return adaptive_max_pool2d(in[0] * in[0], 2); },
                {distinct({1, 2, 4, 5}, 94).set_requires_grad()});
}

TEST(PoolTest, AdaptiveMaxPoolErrors) {
  expect_error([] { adaptive_max_pool2d(ones({1, 2, 3, 3}), {-1, 2}); },
               {"adaptive_max_pool2d: output_size must be non-negative, got [-1, 2]"});
  expect_error([] { adaptive_max_pool2d(ones({3, 3}), 2); }, {"adaptive_max_pool2d", "[3, 3]"});
  expect_error<TypeError>([] { adaptive_max_pool2d(ones({1, 2, 3, 3}, kInt64), 2); }, {"adaptive_max_pool2d", "int64"});
  EXPECT_EQ(adaptive_max_pool2d(ones({0, 2, 3, 3}), 2).sizes(), IntArrayRef({0, 2, 2, 2}));
}
