#include "ember/core/cpu/conv_taps.h"

// NB: GCC 12 flags Eigen's AVX-512 register transposes (transpose.h) as reading an uninitialised
// value (its _mm512_undefined_* placeholders): a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <vector>

#include "ember/core/cpu/gemm.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/scratch.h"
#include "ember/core/cpu/transpose.h"

namespace ember::cpu {
namespace {

// Where the path pays, measured per pass against conv_kernel.cpp's other routes on the small-plane
// layers of ResNet-18 and ResNet-50 at 32x32 inputs, at 1 and 2 threads (bench/README.md, "Tiny
// planes"): into a 1x1 plane (a 3x3 layer's centre tap, or 4 taps of a stride-2 one) every pass took
// 0.06-0.69x the time with batch 32, 0.27-0.49x with batch 4 for a centre tap; into 2x2 planes the
// weight gradient 0.18-0.61x, but the forward and input gradient up to 1.8x at 2 threads, where the
// direct kernels split the batch and here every share reads each tap of the weight. 1x1 kernels
// (one GEMM or the direct kernels already) and 3x3 layers into 2x2 planes with batch 8 did not win.
constexpr int64_t kMaxPositions = 4, kMinBatch = 16;

// An output position p, a kernel tap t and the input pixel q it reads (all flat indices).
struct Term {
  int64_t p, t, q;
};

struct Plan {
  int64_t N, C, O, Q, P, taps;  // batch, channels in and out, input and output plane sizes, kH * kW
  std::vector<Term> terms;      // by output position, then tap
  std::vector<int64_t> used;    // the taps that read inside the input somewhere, ascending

  Plan(const Tensor& input, const Tensor& weight, int64_t out_h, int64_t out_w, const Conv2dParams& p)
      : N(input.size(0)), C(input.size(1)), O(weight.size(0)), Q(input.size(2) * input.size(3)), P(out_h * out_w),
        taps(weight.size(2) * weight.size(3)) {
    const int64_t H = input.size(2), W = input.size(3), kH = weight.size(2), kW = weight.size(3);
    std::vector<bool> reads(static_cast<size_t>(taps), false);
    for (int64_t oh = 0; oh < out_h; ++oh)
      for (int64_t ow = 0; ow < out_w; ++ow)
        for (int64_t i = 0; i < kH; ++i)
          for (int64_t j = 0; j < kW; ++j) {
            const int64_t ih = oh * p.stride.h - p.padding.h + i * p.dilation.h;
            const int64_t iw = ow * p.stride.w - p.padding.w + j * p.dilation.w;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            terms.push_back({oh * out_w + ow, i * kW + j, ih * W + iw});
            reads[static_cast<size_t>(i * kW + j)] = true;
          }
    for (int64_t t = 0; t < taps; ++t)
      if (reads[static_cast<size_t>(t)]) used.push_back(t);
  }
};

// Runs f(lo, hi) over equal shares of the batch, one per thread: the products of a share are
// single-threaded, which at these sizes beats cutting each product (measured at 2 threads).
template <typename F>
void over_batch(const Plan& g, const F& f) {
  const int64_t threads = available_threads();
  parallel_for(0, g.N, std::max<int64_t>(1, (g.N + threads - 1) / threads), f);
}

// [N, C, Q] -> [Q, N, C]: each input pixel's values over the batch as one matrix.
Tensor by_position(const float* x, int64_t N, int64_t C, int64_t Q) {
  Tensor t = scratch<float>(Q * N * C);
  float* dst = t.data_ptr<float>();
  for (int64_t n = 0; n < N; ++n) transpose_rows(x + n * C * Q, Q, dst + n * C, N * C, 0, Q, C);
  return t;
}

// The reverse, [Q, N, C] -> [N, C, Q].
void from_position(const float* src, int64_t N, int64_t C, int64_t Q, float* x) {
  for (int64_t n = 0; n < N; ++n) transpose_rows(src + n * C, N * C, x + n * C * Q, Q, 0, C, Q);
}

// w [O, C, taps] -> [taps, O, C] for the used taps (the others are left unwritten).
Tensor by_tap(const float* w, const Plan& g) {
  Tensor t = scratch<float>(g.taps * g.O * g.C);
  float* dst = t.data_ptr<float>();
  for (int64_t o = 0; o < g.O; ++o)
    for (int64_t c = 0; c < g.C; ++c) {
      const float* kernel = w + (o * g.C + c) * g.taps;
      for (int64_t tap : g.used) dst[(tap * g.O + o) * g.C + c] = kernel[tap];
    }
  return t;
}

}  // namespace

bool taps_suit(const Tensor& input, const Tensor& weight, int64_t out_h, int64_t out_w, const Conv2dParams& p,
               bool weight_grad) {
  if (weight.dtype() != DType::Float32 || input.numel() == 0 || weight.numel() == 0 || p.groups != 1) return false;
  const int64_t positions = out_h * out_w, taps = weight.size(2) * weight.size(3);
  if (taps == 1 || positions == 0 || positions > (weight_grad ? kMaxPositions : 1)) return false;
  if (input.size(0) >= kMinBatch) return true;
  return 4 * static_cast<int64_t>(Plan(input, weight, out_h, out_w, p).terms.size()) <= positions * taps;
}

bool taps_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const Conv2dParams& p) {
  if (!taps_suit(input, weight, out.size(2), out.size(3), p, false)) return false;
  const Plan g(input, weight, out.size(2), out.size(3), p);
  const Tensor xt = by_position(input.data_ptr<float>(), g.N, g.C, g.Q), wt = by_tap(weight.data_ptr<float>(), g);
  Tensor yt = scratch<float>(g.P * g.N * g.O);  // [P, N, O]
  float* y = yt.data_ptr<float>();
  if (bias.defined()) {
    const float* b = bias.data_ptr<float>();
    for (int64_t row = 0; row < g.P * g.N; ++row) std::copy(b, b + g.O, y + row * g.O);
  } else {
    std::fill(y, y + g.P * g.N * g.O, 0.f);
  }
  const float *x = xt.data_ptr<float>(), *w = wt.data_ptr<float>();
  over_batch(g, [&](int64_t lo, int64_t hi) {
    for (const Term& term : g.terms)  // y[p] += x[q] @ w[t]^T
      gemm<float>({x + (term.q * g.N + lo) * g.C, hi - lo, g.C, g.C, 1}, {w + term.t * g.O * g.C, g.C, g.O, 1, g.C},
                  y + (term.p * g.N + lo) * g.O, g.O, true);
  });
  from_position(y, g.N, g.O, g.P, out.data_ptr<float>());
  return true;
}

bool taps_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                            const Conv2dParams& p) {
  if (!taps_suit(grad_input, weight, grad_out.size(2), grad_out.size(3), p, false)) return false;
  const Plan g(grad_input, weight, grad_out.size(2), grad_out.size(3), p);
  const Tensor gt = by_position(grad_out.data_ptr<float>(), g.N, g.O, g.P), wt = by_tap(weight.data_ptr<float>(), g);
  Tensor dxt = scratch<float>(g.Q * g.N * g.C);  // [Q, N, C]
  float* dx = dxt.data_ptr<float>();
  std::fill(dx, dx + g.Q * g.N * g.C, 0.f);
  const float *gy = gt.data_ptr<float>(), *w = wt.data_ptr<float>();
  over_batch(g, [&](int64_t lo, int64_t hi) {
    for (const Term& term : g.terms)  // dx[q] += gy[p] @ w[t]
      gemm<float>({gy + (term.p * g.N + lo) * g.O, hi - lo, g.O, g.O, 1}, {w + term.t * g.O * g.C, g.O, g.C, g.C, 1},
                  dx + (term.q * g.N + lo) * g.C, g.C, true);
  });
  from_position(dx, g.N, g.C, g.Q, grad_input.data_ptr<float>());
  return true;
}

bool taps_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                             const Conv2dParams& p) {
  if (!taps_suit(input, grad_weight, grad_out.size(2), grad_out.size(3), p, true)) return false;
  const Plan g(input, grad_weight, grad_out.size(2), grad_out.size(3), p);
  const Tensor gt = by_position(grad_out.data_ptr<float>(), g.N, g.O, g.P);
  const Tensor xt = by_position(input.data_ptr<float>(), g.N, g.C, g.Q);
  Tensor dwt = scratch<float>(g.taps * g.O * g.C);  // [taps, O, C]
  float* dw = dwt.data_ptr<float>();
  std::vector<char> started(static_cast<size_t>(g.taps), 0);
  const float *gy = gt.data_ptr<float>(), *x = xt.data_ptr<float>();
  for (const Term& term : g.terms) {  // dw[t] (+)= gy[p]^T @ x[q]
    char& begun = started[static_cast<size_t>(term.t)];
    gemm<float>({gy + term.p * g.N * g.O, g.O, g.N, 1, g.O}, {x + term.q * g.N * g.C, g.N, g.C, g.C, 1},
                dw + term.t * g.O * g.C, g.C, begun != 0);
    begun = 1;
  }
  float* out = grad_weight.data_ptr<float>();
  for (int64_t o = 0; o < g.O; ++o)
    for (int64_t c = 0; c < g.C; ++c) {
      float* kernel = out + (o * g.C + c) * g.taps;
      std::fill(kernel, kernel + g.taps, 0.f);
      for (int64_t tap : g.used) kernel[tap] = dw[(tap * g.O + o) * g.C + c];
    }
  return true;
}

}  // namespace ember::cpu
