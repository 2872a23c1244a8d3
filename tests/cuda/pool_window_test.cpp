// The window bounds the CUDA pooling kernels compute per output (cuda/shared/pool_window.h): a
// naive pooling built from them on the host matches the CPU kernels for every option (kernel,
// stride, padding, dilation, ceil_mode, count_include_pad, divisor_override, adaptive), including
// the indices of the maxima (the first of equals, the last NaN, a window of -inf at its first
// element).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "ember/cuda/shared/pool_window.h"
#include "ember/ember.h"

using namespace ember;
using cuda::PoolWindow;

namespace {

struct Case {
  int64_t H, W, k, s, p, d;
  bool ceil;
};

const std::vector<Case> kCases = {{7, 7, 2, 2, 0, 1, false}, {7, 7, 2, 2, 0, 1, true}, {8, 5, 3, 1, 1, 1, false},
                                  {9, 9, 3, 2, 1, 2, true},  {5, 6, 3, 3, 1, 1, true}, {1, 1, 1, 1, 0, 1, false},
                                  {6, 6, 4, 1, 2, 1, false}, {10, 3, 2, 3, 1, 3, true}};

// A [1, 2, H, W] input with repeated values, -inf stretches and a NaN.
Tensor input_for(const Case& c) {
  Generator gen(static_cast<uint64_t>(c.H * 31 + c.W));
  Tensor x = (rand({1, 2, c.H, c.W}, kFloat64, &gen) * 4.0).floor();  // ties
  std::vector<double> v = x.to_vector<double>();
  for (size_t i = 0; i < v.size(); i += 5) v[i] = -std::numeric_limits<double>::infinity();
  if (v.size() > 3) v[3] = std::numeric_limits<double>::quiet_NaN();
  return tensor(v, x.sizes(), kFloat64);
}

}  // namespace

TEST(PoolWindowTest, MaxPoolingFromTheWindowsMatchesTheCpuKernel) {
  for (const Case& c : kCases) {
    const Tensor x = input_for(c);
    auto [out, idx] = max_pool2d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
    const int64_t oH = out.size(2), oW = out.size(3);
    const std::vector<double> xv = x.to_vector<double>(), ov = out.to_vector<double>();
    const std::vector<int64_t> iv = idx.to_vector<int64_t>();
    for (int64_t plane = 0; plane < 2; ++plane)
      for (int64_t oh = 0; oh < oH; ++oh)
        for (int64_t ow = 0; ow < oW; ++ow) {
          // The CUDA kernel's loop (cuda/kernels/pool.cu).
          const PoolWindow<int64_t> r = cuda::pool_window(oh, c.H, c.k, c.s, c.p, c.d);
          const PoolWindow<int64_t> w = cuda::pool_window(ow, c.W, c.k, c.s, c.p, c.d);
          double best = -std::numeric_limits<double>::infinity();
          int64_t arg = (r.start + r.begin * c.d) * c.W + w.start + w.begin * c.d;
          for (int64_t ki = r.begin; ki < r.end; ++ki)
            for (int64_t kj = w.begin; kj < w.end; ++kj) {
              const int64_t at = (r.start + ki * c.d) * c.W + w.start + kj * c.d;
              const double v = xv[static_cast<size_t>(plane * c.H * c.W + at)];
              if (v > best || v != v) {
                best = v;
                arg = at;
              }
            }
          const auto o = static_cast<size_t>((plane * oH + oh) * oW + ow);
          EXPECT_TRUE(best == ov[o] || (std::isnan(best) && std::isnan(ov[o]))) << "H " << c.H << " k " << c.k << " at " << o;
          EXPECT_EQ(arg, iv[o]) << "H " << c.H << " k " << c.k << " s " << c.s << " p " << c.p << " d " << c.d << " at " << o;
        }
  }
}

TEST(PoolWindowTest, AveragePoolingFromTheWindowsMatchesTheCpuKernel) {
  Generator gen(2);
  for (const Case& c : kCases) {
    if (c.p * 2 > c.k) continue;  // avg_pool2d allows padding up to half the kernel
    const Tensor x = randn({1, 2, c.H, c.W}, kFloat64, &gen);
    for (bool include_pad : {true, false})
      for (std::optional<int64_t> over : {std::optional<int64_t>(), std::optional<int64_t>(3)}) {
        const Tensor out = avg_pool2d(x, c.k, c.s, c.p, c.ceil, include_pad, over);
        const int64_t oH = out.size(2), oW = out.size(3);
        const std::vector<double> xv = x.to_vector<double>(), ov = out.to_vector<double>();
        for (int64_t plane = 0; plane < 2; ++plane)
          for (int64_t oh = 0; oh < oH; ++oh)
            for (int64_t ow = 0; ow < oW; ++ow) {
              const PoolWindow<int64_t> r = cuda::pool_window(oh, c.H, c.k, c.s, c.p, int64_t{1});
              const PoolWindow<int64_t> w = cuda::pool_window(ow, c.W, c.k, c.s, c.p, int64_t{1});
              const int64_t div = cuda::avg_pool_divisor(r, w, false, include_pad, over.value_or(0));
              double acc = 0;
              for (int64_t ih = r.start + r.begin; ih < r.start + r.end; ++ih)
                for (int64_t iw = w.start + w.begin; iw < w.start + w.end; ++iw)
                  acc += xv[static_cast<size_t>((plane * c.H + ih) * c.W + iw)];
              const double want = div == 0 ? 0.0 : acc / static_cast<double>(div);
              EXPECT_NEAR(want, ov[static_cast<size_t>((plane * oH + oh) * oW + ow)], 1e-12)
                  << "H " << c.H << " k " << c.k << " pad " << include_pad << " override " << over.value_or(0);
            }
      }
  }
}

TEST(PoolWindowTest, AdaptiveAveragePoolingFromTheWindowsMatchesTheCpuKernel) {
  Generator gen(4);
  for (auto [H, W, oH, oW] : std::vector<std::array<int64_t, 4>>{{7, 5, 3, 2}, {4, 4, 4, 4}, {5, 9, 7, 3}, {6, 1, 1, 1}, {3, 3, 5, 5}}) {
    const Tensor x = randn({1, 1, H, W}, kFloat64, &gen);
    const Tensor out = adaptive_avg_pool2d(x, Size2(oH, oW));
    const std::vector<double> xv = x.to_vector<double>(), ov = out.to_vector<double>();
    for (int64_t oh = 0; oh < oH; ++oh)
      for (int64_t ow = 0; ow < oW; ++ow) {
        const PoolWindow<int64_t> r = cuda::adaptive_window(oh, H, oH), w = cuda::adaptive_window(ow, W, oW);
        const int64_t div = cuda::avg_pool_divisor(r, w, true, true, int64_t{5});  // adaptive ignores both
        double acc = 0;
        for (int64_t ih = r.begin; ih < r.end; ++ih)
          for (int64_t iw = w.begin; iw < w.end; ++iw) acc += xv[static_cast<size_t>(ih * W + iw)];
        EXPECT_NEAR(acc / static_cast<double>(div), ov[static_cast<size_t>(oh * oW + ow)], 1e-12) << H << "x" << W;
      }
  }
}

TEST(PoolWindowTest, ThirtyTwoBitWindowsAgreeWithSixtyFourBitOnes) {
  // The kernels use int windows; the host checks that the sizes fit first.
  for (int64_t o = 0; o < 40; ++o)
    for (int64_t s : {1, 2, 3})
      for (int64_t p : {0, 1, 2})
        for (int64_t d : {1, 2}) {
          const auto a = cuda::pool_window<int64_t>(o, 37, 5, s, p, d);
          const auto b = cuda::pool_window<int>(static_cast<int>(o), 37, 5, static_cast<int>(s), static_cast<int>(p),
                                                static_cast<int>(d));
          ASSERT_EQ(std::make_tuple(a.start, a.begin, a.end, a.padded), std::make_tuple(int64_t{b.start}, int64_t{b.begin},
                                                                                     int64_t{b.end}, int64_t{b.padded}));
        }
}
