#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "ember/ops/conv.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed, DType dtype = kFloat64) {
  Generator gen(seed);
  return randn(shape, dtype, &gen);
}

// The definition of conv2d, one output element at a time, in double.
Tensor reference_conv(const Tensor& x, const Tensor& w, const Tensor& b, Size2 s, Size2 p, Size2 d,
                      int64_t groups) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), Cg = w.size(1), kH = w.size(2), kW = w.size(3), Og = O / groups;
  const int64_t oH = (H + 2 * p.h - d.h * (kH - 1) - 1) / s.h + 1;
  const int64_t oW = (W + 2 * p.w - d.w * (kW - 1) - 1) / s.w + 1;
  std::vector<double> xv = x.to_vector<double>(), wv = w.to_vector<double>(), out;
  std::vector<double> bv = b.defined() ? b.to_vector<double>() : std::vector<double>(static_cast<size_t>(O), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < oH; ++oh)
        for (int64_t ow = 0; ow < oW; ++ow) {
          double acc = bv[static_cast<size_t>(o)];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t ki = 0; ki < kH; ++ki)
              for (int64_t kj = 0; kj < kW; ++kj) {
                int64_t ih = oh * s.h - p.h + ki * d.h, iw = ow * s.w - p.w + kj * d.w;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                int64_t ci = (o / Og) * Cg + c;
                acc += xv[static_cast<size_t>(((n * C + ci) * H + ih) * W + iw)] *
                       wv[static_cast<size_t>(((o * Cg + c) * kH + ki) * kW + kj)];
              }
          out.push_back(acc);
        }
  return tensor(out, {N, O, oH, oW});
}

struct Setting {
  const char* name;
  std::vector<int64_t> x_shape, w_shape;
  Size2 stride, padding, dilation;
  int64_t groups;
  bool bias;
};

const std::vector<Setting> kSettings = {
    {"plain", {2, 3, 7, 6}, {4, 3, 3, 3}, 1, 0, 1, 1, true},
    {"stride 2", {2, 3, 7, 6}, {4, 3, 3, 3}, 2, 0, 1, 1, true},
    {"padding 1", {2, 3, 7, 6}, {4, 3, 3, 3}, 1, 1, 1, 1, true},
    {"dilation 2", {2, 3, 7, 8}, {4, 3, 3, 2}, 1, 0, 2, 1, true},
    {"groups 2", {2, 4, 6, 6}, {6, 2, 3, 3}, 1, 1, 1, 2, true},
    {"no bias", {2, 3, 5, 5}, {4, 3, 2, 2}, 1, 0, 1, 1, false},
    {"mixed h/w", {1, 2, 9, 8}, {3, 2, 3, 2}, {2, 1}, {1, 2}, {1, 2}, 1, true},
    {"depthwise", {2, 3, 6, 5}, {3, 1, 3, 3}, 2, 1, 1, 3, true},
    {"1x1", {2, 5, 4, 3}, {4, 5, 1, 1}, 1, 0, 1, 1, true},
    {"1x1 stride 2", {2, 5, 5, 4}, {4, 5, 1, 1}, 2, 0, 1, 1, false},
    {"kernel fills padded input", {1, 2, 3, 3}, {2, 2, 5, 5}, 1, 1, 1, 1, true},
    // "same" width at stride 1: im2col and col2im shift whole planes (conv_kernel.cpp)
    {"same, dilation 2", {2, 3, 7, 6}, {4, 3, 3, 3}, 1, 2, 2, 1, true},
    {"same width, tall padding", {1, 2, 4, 5}, {3, 2, 3, 3}, 1, {3, 1}, 1, 1, true},
    {"same, one-row input", {2, 2, 1, 6}, {3, 2, 3, 5}, 1, {1, 2}, 1, 1, true},
};

}  // namespace

TEST(Conv2dTest, KnownValues) {
  Tensor x = arange(9, TensorOptions(kFloat32)).reshape({1, 1, 3, 3});
  Tensor w = ones({1, 1, 2, 2});
  Tensor y = conv2d(x, w, tensor({0.5f}));
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 1, 2, 2}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{8.5f, 12.5f, 20.5f, 24.5f}));
  // Padding 1 adds zeros: the corner windows see one element each.
  Tensor p = conv2d(x, w, Tensor(), 2, 1);
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{0, 3, 9, 24}));
}

TEST(Conv2dTest, MatchesDirectConvolution) {
  uint64_t seed = 1;
  for (const Setting& s : kSettings) {
    for (DType dtype : {kFloat32, kFloat64}) {
      Tensor x = draw(s.x_shape, seed++, dtype), w = draw(s.w_shape, seed++, dtype);
      Tensor b = s.bias ? draw({s.w_shape[0]}, seed++, dtype) : Tensor();
      Tensor y = conv2d(x, w, b, s.stride, s.padding, s.dilation, s.groups);
      EXPECT_EQ(y.dtype(), dtype);
      const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
      expect_close(y, reference_conv(x, w, b, s.stride, s.padding, s.dilation, s.groups), tol, tol,
                   s.name);
    }
  }
}

TEST(Conv2dTest, NonContiguousInputAndWeight) {
  Tensor x = draw({2, 3, 6, 7}, 40).transpose(2, 3);  // [2, 3, 7, 6], strided
  Tensor w = draw({3, 4, 3, 3}, 41).transpose(0, 1);  // [4, 3, 3, 3], strided
  expect_close(conv2d(x, w, Tensor(), 1, 1), reference_conv(x, w, Tensor(), 1, 1, 1, 1), 1e-12, 1e-12,
               "strided");
}

TEST(Conv2dTest, UnbatchedInputGivesUnbatchedOutput) {
  Tensor x = draw({3, 6, 6}, 50), w = draw({4, 3, 3, 3}, 51), b = draw({4}, 52);
  Tensor y = conv2d(x, w, b, 1, 1);
  EXPECT_EQ(y.sizes(), IntArrayRef({4, 6, 6}));
  expect_close(y, reference_conv(x.unsqueeze(0), w, b, 1, 1, 1, 1).squeeze(0), 1e-12, 1e-12, "unbatched");
}

TEST(Conv2dTest, BatchSplitOverThreadsMatchesPerSampleResults) {
  // Large enough for the batch to be split over threads (and the weight gradient to be summed
  // from per-thread buffers); each sample alone runs unsplit.
  Tensor x = draw({8, 4, 12, 12}, 60).set_requires_grad();
  Tensor w = draw({16, 4, 3, 3}, 61).set_requires_grad();
  Tensor b = draw({16}, 62).set_requires_grad();
  Tensor g = draw({8, 16, 10, 10}, 63);
  Tensor y = conv2d(x, w, b);
  expect_close(y.detach(), reference_conv(x, w, b, 1, 0, 1, 1), 1e-12, 1e-12, "forward");
  y.backward(g);
  Tensor w_grad = zeros({16, 4, 3, 3}, kFloat64);
  for (int64_t n = 0; n < 8; ++n) {
    Tensor xn = x.detach().narrow(0, n, 1).clone().set_requires_grad();
    Tensor wn = w.detach().clone().set_requires_grad();
    conv2d(xn, wn, b.detach()).backward(g.narrow(0, n, 1));
    expect_close(x.grad().narrow(0, n, 1), xn.grad(), 1e-12, 1e-12, "input grad");
    w_grad = w_grad + wn.grad();
  }
  expect_close(w.grad(), w_grad, 1e-12, 1e-12, "weight grad");
  expect_close(b.grad(), g.sum({0, 2, 3}), 1e-12, 1e-12, "bias grad");
}

TEST(Conv2dTest, GradientsMatchFiniteDifferences) {
  uint64_t seed = 70;
  for (const Setting& s : kSettings) {
    // Small shapes: gradcheck runs one backward per output element.
    std::vector<int64_t> xs = s.x_shape;
    xs[0] = 1;
    Tensor x = draw(xs, seed++).set_requires_grad(), w = draw(s.w_shape, seed++).set_requires_grad();
    Tensor b = s.bias ? draw({s.w_shape[0]}, seed++).set_requires_grad() : Tensor();
    Setting st = s;
    gradcheck([st](const TensorList& in) { return conv2d(in[0], in[1], in[2], st.stride, st.padding, st.dilation, st.groups); },
              {x, w, b});
  }
}

TEST(Conv2dTest, GradientsForBatchUnbatchedAndStridedInputs) {
  auto fn = [](const TensorList& in) { return conv2d(in[0], in[1], in[2], 2, 1); };
  gradcheck(fn, {draw({2, 2, 5, 4}, 80).set_requires_grad(), draw({3, 2, 3, 3}, 81).set_requires_grad(),
                 draw({3}, 82).set_requires_grad()});
  gradcheck(fn, {draw({2, 5, 4}, 83).set_requires_grad(), draw({3, 2, 3, 3}, 84).set_requires_grad(),
                 draw({3}, 85)});
  auto strided = [](const TensorList& in) { return conv2d(in[0].transpose(2, 3), in[1], Tensor(), 1, 1); };
  gradcheck(strided, {draw({1, 2, 4, 5}, 86).set_requires_grad(), draw({2, 2, 3, 3}, 87).set_requires_grad()});
}

TEST(Conv2dTest, SecondDerivatives) {
  auto fn = [](const TensorList& in) { return conv2d(in[0], in[1], in[2], 2, 1, 1, 2); };
  gradgradcheck(fn, {draw({1, 2, 4, 4}, 90).set_requires_grad(), draw({2, 1, 3, 3}, 91).set_requires_grad(),
                     draw({2}, 92).set_requires_grad()});
  auto dilated = [](const TensorList& in) { return conv2d(in[0], in[1], Tensor(), 1, 0, 2); };
  gradgradcheck(dilated, {draw({1, 1, 5, 5}, 93).set_requires_grad(), draw({2, 1, 2, 2}, 94).set_requires_grad()});
}

TEST(Conv2dTest, ErrorsNameShapes) {
  Tensor x = ones({1, 3, 8, 8}), w = ones({4, 3, 3, 3});
  expect_error([&] { conv2d(ones({3, 8}), w); }, {"conv2d", "3-D", "4-D", "[3, 8]"});
  expect_error([&] { conv2d(x, ones({4, 3, 3})); }, {"conv2d", "4-D weight", "[4, 3, 3]"});
  expect_error([&] { conv2d(x, ones({4, 1, 3, 3}), Tensor(), 1, 0, 1, 2); },
               {"conv2d", "[1, 3, 8, 8]", "3 channels", "not divisible by groups=2"});
  expect_error([&] { conv2d(ones({1, 4, 8, 8}), ones({3, 2, 3, 3}), Tensor(), 1, 0, 1, 2); },
               {"conv2d", "weight [3, 2, 3, 3]", "3 output channels", "groups=2"});
  expect_error([&] { conv2d(x, ones({4, 2, 3, 3})); },
               {"conv2d: weight [4, 2, 3, 3] with groups=1 expects input with 2 channels", "[1, 3, 8, 8] has 3"});
  expect_error([&] { conv2d(ones({1, 3, 4, 4}), ones({4, 3, 5, 5})); },
               {"conv2d: kernel [5, 5]", "larger than the padded input [4, 4]"});
  expect_error([&] { conv2d(ones({1, 3, 4, 4}), w, Tensor(), 1, 0, 2); }, {"conv2d: kernel [5, 5] (dilated)"});
  expect_error([&] { conv2d(x, w, ones({3})); }, {"conv2d", "bias of shape [4]", "[3]"});
  expect_error([&] { conv2d(x, ones({4, 3, 3, 3}, kFloat64)); }, {"conv2d", "same dtype", "float32", "float64"});
  expect_error([&] { conv2d(x, w, Tensor(), 0); }, {"conv2d: stride must be positive, got [0, 0]"});
  expect_error([&] { conv2d(x, w, Tensor(), 1, -1); }, {"conv2d: padding must be non-negative"});
  expect_error<TypeError>([] { conv2d(ones({1, 3, 8, 8}, kInt64), ones({4, 3, 3, 3}, kInt64)); },
                          {"conv2d: input and weight must be float32 or float64, got int64 [1, 3, 8, 8] and int64 [4, 3, 3, 3]"});
}
