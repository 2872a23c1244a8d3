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
    // into 2x2 planes over more samples than the weight gradient's eight partial sums (MobileNetV2's)
    {"depthwise into 2x2, batch 19", {19, 5, 4, 4}, {5, 1, 3, 3}, 2, 1, 1, 5, false},
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

// ---- padding by name, conv1d, conv_transpose2d

namespace {

// The definition of a transposed convolution, one input element scattered at a time, in double:
// out[n, g Og + o, ih sH - pH + kh dH, ...] += x[n, g Cg + c, ih, iw] w[g Cg + c, o, kh, kw].
Tensor reference_conv_transpose(const Tensor& x, const Tensor& w, const Tensor& b, Size2 s, Size2 p, Size2 op,
                                int64_t groups, Size2 d) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t Og = w.size(1), kH = w.size(2), kW = w.size(3), O = Og * groups, Cg = C / groups;
  const int64_t oH = (H - 1) * s.h - 2 * p.h + d.h * (kH - 1) + op.h + 1;
  const int64_t oW = (W - 1) * s.w - 2 * p.w + d.w * (kW - 1) + op.w + 1;
  std::vector<double> xv = x.to_vector<double>(), wv = w.to_vector<double>();
  std::vector<double> out(static_cast<size_t>(N * O * oH * oW), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < oH * oW; ++i)
        out[static_cast<size_t>((n * O + o) * oH * oW + i)] = b.defined() ? b.to_vector<double>()[static_cast<size_t>(o)] : 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw)
          for (int64_t ol = 0; ol < Og; ++ol)
            for (int64_t kh = 0; kh < kH; ++kh)
              for (int64_t kw = 0; kw < kW; ++kw) {
                int64_t oh = ih * s.h - p.h + kh * d.h, ow = iw * s.w - p.w + kw * d.w;
                if (oh < 0 || oh >= oH || ow < 0 || ow >= oW) continue;
                int64_t o = (c / Cg) * Og + ol;
                out[static_cast<size_t>(((n * O + o) * oH + oh) * oW + ow)] +=
                    xv[static_cast<size_t>(((n * C + c) * H + ih) * W + iw)] *
                    wv[static_cast<size_t>(((c * Og + ol) * kH + kh) * kW + kw)];
              }
  return tensor(out, {N, O, oH, oW});
}

struct TransposeSetting {
  const char* name;
  std::vector<int64_t> x_shape, w_shape;
  Size2 stride, padding, output_padding;
  int64_t groups;
  Size2 dilation;
  bool bias;
};

const std::vector<TransposeSetting> kTransposeSettings = {
    {"plain", {2, 3, 4, 5}, {3, 2, 3, 3}, 1, 0, 0, 1, 1, true},
    {"stride 2", {2, 3, 4, 5}, {3, 2, 3, 3}, 2, 0, 0, 1, 1, true},
    {"stride 2, padding 1, output_padding 1", {1, 2, 5, 4}, {2, 3, 3, 3}, 2, 1, 1, 1, 1, true},
    {"groups 2", {2, 4, 3, 4}, {4, 3, 3, 2}, {2, 1}, {1, 0}, {1, 0}, 2, 1, false},
    {"depthwise", {1, 3, 4, 4}, {3, 1, 3, 3}, 2, 1, 0, 3, 1, true},
    {"dilation 2", {1, 2, 4, 3}, {2, 2, 3, 2}, 1, 1, 0, 1, 2, true},
    {"output_padding below dilation", {1, 2, 3, 3}, {2, 2, 3, 3}, 1, 0, 1, 1, 2, false},
    {"rect, stride 3 by 2", {1, 2, 3, 5}, {2, 2, 2, 3}, {3, 2}, {0, 1}, {2, 1}, 1, {1, 2}, true},
    {"1x1", {2, 4, 3, 3}, {4, 5, 1, 1}, 1, 0, 0, 1, 1, true},
    {"kernel 4 stride 2 padding 1 (a GAN's upsampling)", {1, 2, 4, 4}, {2, 2, 4, 4}, 2, 1, 0, 1, 1, true},
};

// conv2d with padding "same", spelled out: the input padded with zeros by same_padding's amounts.
Tensor reference_same(const Tensor& x, const Tensor& w, const Tensor& b, Size2 d, int64_t groups) {
  Conv2dParams p = same_padding(Size2(w.size(2), w.size(3)), d);
  Tensor padded = pad(x, {p.padding.w, p.padding.w + p.extra_padding.w, p.padding.h, p.padding.h + p.extra_padding.h});
  return reference_conv(padded, w, b, 1, 0, d, groups);
}

}  // namespace

TEST(Conv2dTest, PaddingByNameMatchesExplicitPadding) {
  uint64_t seed = 300;
  struct Same { std::vector<int64_t> x, w; Size2 d; int64_t groups; };
  for (const Same& s : std::vector<Same>{{{2, 3, 7, 6}, {4, 3, 3, 3}, 1, 1},
                                         {{1, 2, 8, 9}, {3, 2, 4, 2}, {1, 3}, 1},
                                         {{2, 4, 5, 5}, {4, 2, 2, 2}, 2, 2},
                                         {{1, 2, 1, 6}, {3, 2, 3, 4}, 1, 1},
                                         {{1, 1, 3, 3}, {1, 1, 1, 1}, 1, 1}}) {
    Tensor x = draw(s.x, seed++), w = draw(s.w, seed++), b = draw({s.w[0]}, seed++);
    Tensor y = conv2d(x, w, b, 1, PaddingRule::Same, s.d, s.groups);
    EXPECT_EQ(y.sizes().vec(), (DimVector{s.x[0], s.w[0], s.x[2], s.x[3]}));
    expect_close(y, reference_same(x, w, b, s.d, s.groups), 1e-12, 1e-12, "same");
    if (s.x[2] > s.d.h * (s.w[2] - 1) && s.x[3] > s.d.w * (s.w[3] - 1))  // the kernel fits unpadded
      expect_close(conv2d(x, w, b, 1, PaddingRule::Valid, s.d, s.groups), conv2d(x, w, b, 1, 0, s.d, s.groups), 0,
                   0, "valid");
  }
  // same_padding: the odd one after, per dim
  Conv2dParams p = same_padding({4, 3}, {1, 2});
  EXPECT_EQ(p.padding, Size2(1, 2));
  EXPECT_EQ(p.extra_padding, Size2(1, 0));
}

TEST(Conv2dTest, SamePaddingGradientsMatchFiniteDifferences) {
  auto fn = [](const TensorList& in) { return conv2d(in[0], in[1], in[2], 1, PaddingRule::Same, {2, 1}, 1); };
  gradcheck(fn, {draw({1, 2, 5, 4}, 310).set_requires_grad(), draw({3, 2, 2, 4}, 311).set_requires_grad(),
                 draw({3}, 312).set_requires_grad()});
  gradgradcheck(fn, {draw({1, 1, 4, 3}, 313).set_requires_grad(), draw({2, 1, 3, 2}, 314).set_requires_grad(),
                     draw({2}, 315).set_requires_grad()});
}

TEST(Conv2dTest, PaddingByNameErrors) {
  Tensor x = ones({1, 2, 5, 5}), w = ones({3, 2, 3, 3});
  expect_error([&] { conv2d(x, w, Tensor(), 2, PaddingRule::Same); },
               {"conv2d: padding='same' is not supported for strided convolutions, got stride [2, 2]"});
  expect_error<ValueError>([] { padding_rule("full", "conv2d"); },
                           {"conv2d: invalid padding string 'full', expected 'valid' or 'same'"});
  EXPECT_EQ(padding_rule("same", "x"), PaddingRule::Same);
  EXPECT_STREQ(padding_rule_name(PaddingRule::Valid), "valid");
}

TEST(Conv1dTest, MatchesConv2dOfAUnitHeight) {
  uint64_t seed = 400;
  struct Case { std::vector<int64_t> x, w; int64_t s, p, d, g; bool bias; };
  for (const Case& k : std::vector<Case>{{{2, 3, 10}, {4, 3, 3}, 1, 0, 1, 1, true},
                                         {{2, 4, 11}, {6, 2, 3}, 2, 2, 2, 2, true},
                                         {{1, 2, 5}, {3, 2, 5}, 1, 2, 1, 1, false},
                                         {{3, 1, 7}, {2, 1, 1}, 3, 0, 1, 1, true},
                                         {{1, 3, 6}, {3, 1, 2}, 1, 1, 3, 3, true}}) {
    Tensor x = draw(k.x, seed++), w = draw(k.w, seed++), b = k.bias ? draw({k.w[0]}, seed++) : Tensor();
    Tensor y = conv1d(x, w, b, k.s, k.p, k.d, k.g);
    Tensor ref = reference_conv(x.unsqueeze(2), w.unsqueeze(2), b, {1, k.s}, {0, k.p}, {1, k.d}, k.g).squeeze(2);
    expect_close(y, ref, 1e-12, 1e-12, "conv1d");
    auto fn = [k](const TensorList& in) { return conv1d(in[0], in[1], in[2], k.s, k.p, k.d, k.g); };
    gradcheck(fn, {x.narrow(0, 0, 1).set_requires_grad(), w.clone().set_requires_grad(),
                   k.bias ? b.clone().set_requires_grad() : Tensor()});
  }
  // strided, "same" and unbatched inputs
  Tensor x = draw({4, 3, 8}, 420).transpose(0, 1);  // [3, 4, 8], strided
  Tensor w = draw({5, 4, 4}, 421);
  expect_close(conv1d(x, w, Tensor(), 1, PaddingRule::Same),
               reference_conv(pad(x, {1, 2}).unsqueeze(2), w.unsqueeze(2), Tensor(), 1, 0, 1, 1).squeeze(2), 1e-12,
               1e-12, "same, even kernel: one more after");
  Tensor xu = x.select(0, 1);  // [4, 8]
  expect_close(conv1d(xu, w, Tensor(), 1, 1),
               reference_conv(xu.unsqueeze(0).unsqueeze(2), w.unsqueeze(2), Tensor(), 1, {0, 1}, 1, 1).squeeze(2).squeeze(0),
               1e-12, 1e-12, "unbatched [C, L]");
  gradgradcheck([](const TensorList& in) { return conv1d(in[0], in[1], in[2], 1, PaddingRule::Same, 2); },
                {draw({1, 2, 5}, 422).set_requires_grad(), draw({2, 2, 2}, 423).set_requires_grad(),
                 draw({2}, 424).set_requires_grad()});
}

TEST(Conv1dTest, ErrorsNameTheOpAndShapes) {
  Tensor x = ones({1, 3, 8}), w = ones({4, 3, 3});
  expect_error([&] { conv1d(ones({1, 3, 8, 8}), w); }, {"conv1d: expected a 2-D [C, L] or 3-D [N, C, L] input",
                                                       "[1, 3, 8, 8]"});
  expect_error([&] { conv1d(x, ones({4, 3, 3, 3})); }, {"conv1d: expected a 3-D weight", "[4, 3, 3, 3]"});
  expect_error([&] { conv1d(x, ones({4, 2, 3})); },
               {"conv1d: weight [4, 2, 3] with groups=1 expects input with 2 channels, but input [1, 3, 8] has 3"});
  expect_error([&] { conv1d(ones({1, 3, 2}), w); }, {"conv1d: kernel [3] (dilated) is larger than the padded input [2]"});
  expect_error([&] { conv1d(x, w, Tensor(), 0); }, {"conv1d: stride must be positive, got [0]"});
  expect_error([&] { conv1d(x, w, Tensor(), 2, PaddingRule::Same); },
               {"conv1d: padding='same' is not supported for strided convolutions, got stride [2]"});
}

TEST(ConvTranspose2dTest, MatchesTheDefinition) {
  uint64_t seed = 500;
  for (const TransposeSetting& s : kTransposeSettings)
    for (DType dtype : {kFloat32, kFloat64}) {
      Tensor x = draw(s.x_shape, seed++, dtype), w = draw(s.w_shape, seed++, dtype);
      Tensor b = s.bias ? draw({s.w_shape[1] * s.groups}, seed++, dtype) : Tensor();
      Tensor y = conv_transpose2d(x, w, b, s.stride, s.padding, s.output_padding, s.groups, s.dilation);
      EXPECT_EQ(y.dtype(), dtype);
      const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
      expect_close(y, reference_conv_transpose(x, w, b, s.stride, s.padding, s.output_padding, s.groups, s.dilation),
                   tol, tol, s.name);
    }
}

TEST(ConvTranspose2dTest, IsTheAdjointOfConv2d) {
  // <conv_transpose(g, w), x> = <g, conv(x, w)> for the input size the transposed op produces.
  Tensor w = draw({3, 2, 3, 3}, 520), g = draw({2, 3, 4, 4}, 521);
  Tensor y = conv_transpose2d(g, w, Tensor(), 2, 1, 1);
  Tensor x = draw(y.sizes().vec(), 522);
  const double lhs = (y * x).sum().item<double>(), rhs = (g * conv2d(x, w, Tensor(), 2, 1)).sum().item<double>();
  EXPECT_NEAR(lhs, rhs, 1e-10 * std::fabs(lhs));
}

TEST(ConvTranspose2dTest, GradientsMatchFiniteDifferences) {
  uint64_t seed = 540;
  for (const TransposeSetting& s : kTransposeSettings) {
    SCOPED_TRACE(s.name);
    std::vector<int64_t> xs = s.x_shape;
    xs[0] = 1;
    Tensor x = draw(xs, seed++).set_requires_grad(), w = draw(s.w_shape, seed++).set_requires_grad();
    Tensor b = s.bias ? draw({s.w_shape[1] * s.groups}, seed++).set_requires_grad() : Tensor();
    TransposeSetting st = s;
    gradcheck([st](const TensorList& in) {
      return conv_transpose2d(in[0], in[1], in[2], st.stride, st.padding, st.output_padding, st.groups, st.dilation);
    }, {x, w, b});
  }
  // unbatched, strided, and second derivatives
  auto fn = [](const TensorList& in) { return conv_transpose2d(in[0].transpose(-1, -2), in[1], in[2], 2, 1, 1); };
  gradcheck(fn, {draw({2, 4, 3}, 560).set_requires_grad(), draw({2, 3, 3, 3}, 561).set_requires_grad(),
                 draw({3}, 562).set_requires_grad()});
  gradgradcheck(fn, {draw({1, 2, 3, 2}, 563).set_requires_grad(), draw({2, 2, 2, 3}, 564).set_requires_grad(),
                     draw({2}, 565).set_requires_grad()});
}

TEST(ConvTranspose2dTest, EmptyBatchAndUnbatchedInput) {
  Tensor w = draw({3, 2, 3, 3}, 580), b = draw({2}, 581);
  Tensor empty_batch = conv_transpose2d(zeros({0, 3, 4, 4}, kFloat64), w, b, 2);
  EXPECT_EQ(empty_batch.sizes(), IntArrayRef({0, 2, 9, 9}));
  Tensor x = draw({3, 4, 4}, 582);
  expect_close(conv_transpose2d(x, w, b, 2), conv_transpose2d(x.unsqueeze(0), w, b, 2).squeeze(0), 0, 0, "unbatched");
}

TEST(ConvTranspose2dTest, ErrorsNameShapes) {
  Tensor x = ones({1, 3, 4, 4}), w = ones({3, 2, 3, 3});
  expect_error([&] { conv_transpose2d(x, ones({4, 2, 3, 3})); },
               {"conv_transpose2d: weight [4, 2, 3, 3] expects input with 4 channels (its dim 0), but input [1, 3, 4, 4] has 3"});
  expect_error([&] { conv_transpose2d(x, w, Tensor(), 1, 0, 1); },
               {"conv_transpose2d: output_padding [1, 1] must be non-negative and smaller than either stride [1, 1] or "
                "dilation [1, 1]"});
  expect_error([&] { conv_transpose2d(x, w, ones({3})); }, {"conv_transpose2d: expected a bias of shape [2], got [3]"});
  expect_error([&] { conv_transpose2d(x, ones({3, 1, 3, 3}), Tensor(), 1, 0, 0, 2); },
               {"conv_transpose2d: input [1, 3, 4, 4] has 3 channels, which are not divisible by groups=2"});
  expect_error([&] { conv_transpose2d(ones({1, 3, 1, 1}), w, Tensor(), 1, 2); },
               {"conv_transpose2d:", "gives an output of size [-1, -1], which is too small"});
  expect_error([&] { conv_transpose2d(x, ones({3, 2, 3})); }, {"conv_transpose2d: expected a 4-D weight [in_channels, "
                                                               "out_channels / groups, kH, kW], got [3, 2, 3]"});
}
