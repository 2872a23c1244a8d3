// CPU kernels for conv2d (ops/conv.h) by im2col + GEMM. Per sample and group, the input patches
// are unrolled into a column matrix col [C/g * kH * kW, oH * oW], so the convolution is
// weight [O/g, K] @ col; the input gradient is weight^T @ grad folded back (col2im), and the weight
// gradient sums grad @ col^T over the batch. A batch is split over threads (each with its own
// column buffer); a single sample leaves the threading to Eigen's GEMM. Other routes, where they
// measured faster:
//  - float32 3x3 stride-1 convolutions with many channels: Winograd's algorithm (oneDNN's on
//    AVX-512, Ember's own elsewhere, conv_winograd.h);
//  - float32 kxk convolutions into one position (their weight gradients into up to four): sums of
//    per-tap products over the batch (conv_taps.h);
//  - float32 stems, depthwise layers and small planes: oneDNN's direct kernels (direct_wins), and
//    bfloat16 ones where the machine multiplies bfloat16 natively (conv_onednn.h);
// other 16-bit convolutions are widened to float32 (core/kernels/widen.h).
// NB: GCC 12 flags Eigen's AVX-512 register transposes (transpose.h) as reading an uninitialised
// value (its _mm512_undefined_* placeholders): a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/core/cpu/conv_onednn.h"
#include "ember/core/cpu/conv_taps.h"
#include "ember/core/cpu/conv_winograd.h"
#include "ember/core/cpu/gemm.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/cpu/scratch.h"
#include "ember/core/cpu/transpose.h"
#include "ember/core/factory.h"
#include "ember/core/kernels/conv.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Multiply-adds from which a batch is split over threads.
constexpr int64_t kConvGrain = int64_t{1} << 17;

struct Geometry {
  int64_t N, C, H, W, O, kH, kW, oH, oW, G, Cg, Og, K, P;
  int64_t sh, sw, ph, pw, dh, dw;
  bool direct;  // 1x1 kernel, stride 1, no padding: an input plane already is the column matrix
  // Stride 1 and as many output columns as input columns (a "same" convolution): a row of the
  // column matrix is then the input plane shifted by a constant, so im2col and col2im move whole
  // planes at a time instead of one output row.
  bool shifted;

  Geometry(const Tensor& input, const Tensor& weight, int64_t out_h, int64_t out_w, const Conv2dParams& p)
      : N(input.size(0)), C(input.size(1)), H(input.size(2)), W(input.size(3)), O(weight.size(0)),
        kH(weight.size(2)), kW(weight.size(3)), oH(out_h), oW(out_w), G(p.groups), Cg(C / G), Og(O / G),
        K(Cg * kH * kW), P(out_h * out_w), sh(p.stride.h), sw(p.stride.w), ph(p.padding.h),
        pw(p.padding.w), dh(p.dilation.h), dw(p.dilation.w),
        direct(kH == 1 && kW == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0),
        shifted(sh == 1 && sw == 1 && oW == W) {}

  // Multiply-adds of one sample, for the threading decision.
  int64_t sample_work() const { return std::max<int64_t>(1, O * K * P); }
};

// Smallest o >= 0 with o * stride + offset >= bound.
int64_t first_at_least(int64_t bound, int64_t offset, int64_t stride) {
  int64_t need = bound - offset;
  return need <= 0 ? 0 : (need + stride - 1) / stride;
}

// The walk im2col and col2im share: for every column-matrix row (c, ki, kj) and output row oh,
// calls f(col_offset, x_offset, ow_lo, ow_hi, iw_offset): col_offset is where that stretch of oW
// columns starts in col, x_offset where input row ih starts in x (-1 when ih is in the padding);
// output column ow reads input column ow * sw + iw_offset, in bounds for ow in [ow_lo, ow_hi).
template <typename F>
void for_each_patch_row(const Geometry& g, const F& f) {
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const int64_t row = (c * g.kH + ki) * g.kW + kj;
        const int64_t iw_off = kj * g.dw - g.pw;
        const int64_t lo = std::min(g.oW, first_at_least(0, iw_off, g.sw));
        const int64_t hi = std::max(lo, std::min(g.oW, first_at_least(g.W, iw_off, g.sw)));
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          f(row * g.P + oh * g.oW, ih >= 0 && ih < g.H ? (c * g.H + ih) * g.W : -1, lo, hi, iw_off);
        }
      }
}

// For a `shifted` geometry, calls f(row, c, shift, oh_lo, oh_hi, lo, hi) for every column-matrix
// row (c, ki, kj): its element (oh, ow) is x[c][oh * W + ow + shift], in bounds for oh in
// [oh_lo, oh_hi) and ow in [lo, hi).
template <typename F>
void for_each_shifted_row(const Geometry& g, const F& f) {
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const int64_t ih_off = ki * g.dh - g.ph, iw_off = kj * g.dw - g.pw;
        const int64_t oh_lo = std::min(g.oH, std::max<int64_t>(0, -ih_off));
        const int64_t oh_hi = std::max(oh_lo, std::min(g.oH, g.H - ih_off));
        const int64_t lo = std::min(g.oW, std::max<int64_t>(0, -iw_off));
        const int64_t hi = std::max(lo, std::min(g.oW, g.W - iw_off));
        f((c * g.kH + ki) * g.kW + kj, c, ih_off * g.W + iw_off, oh_lo, oh_hi, lo, hi);
      }
}

// Zeroes columns [0, lo) and [hi, oW) of rows [oh_lo, oh_hi) of a column-matrix row.
template <typename T>
void zero_edges(const Geometry& g, T* row, int64_t oh_lo, int64_t oh_hi, int64_t lo, int64_t hi) {
  if (lo == 0 && hi == g.oW) return;
  for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
    std::fill(row + oh * g.oW, row + oh * g.oW + lo, T(0));
    std::fill(row + oh * g.oW + hi, row + (oh + 1) * g.oW, T(0));
  }
}

// col[(c, ki, kj), (oh, ow)] = x[c, oh*sh - ph + ki*dh, ow*sw - pw + kj*dw], 0 in the padding.
template <typename T>
void im2col(const Geometry& g, const T* x, T* col) {
  if (g.shifted) {
    // One copy per row from its first to its last in-bounds element; the copy also brings in the
    // neighbouring input row's elements where the window hangs over a side, which are then zeroed.
    for_each_shifted_row(g, [&](int64_t r, int64_t c, int64_t shift, int64_t oh_lo, int64_t oh_hi, int64_t lo,
                                int64_t hi) {
      T* row = col + r * g.P;
      if (oh_lo == oh_hi || lo == hi) {
        std::fill(row, row + g.P, T(0));
        return;
      }
      const int64_t first = oh_lo * g.oW + lo, last = (oh_hi - 1) * g.oW + hi;
      std::fill(row, row + first, T(0));
      std::copy(x + c * g.H * g.W + first + shift, x + c * g.H * g.W + last + shift, row + first);
      std::fill(row + last, row + g.P, T(0));
      zero_edges(g, row, oh_lo, oh_hi, lo, hi);
    });
    return;
  }
  for_each_patch_row(g, [&](int64_t dst, int64_t src, int64_t lo, int64_t hi, int64_t iw_off) {
    T* out = col + dst;
    if (src < 0) {
      std::fill(out, out + g.oW, T(0));
      return;
    }
    const T* in = x + src + iw_off;
    std::fill(out, out + lo, T(0));
    if (g.sw == 1)
      std::copy(in + lo, in + hi, out + lo);
    else
      for (int64_t ow = lo; ow < hi; ++ow) out[ow] = in[ow * g.sw];
    std::fill(out + hi, out + g.oW, T(0));
  });
}

// dst[i] += src[i]
template <typename T>
void add_to(T* __restrict dst, const T* __restrict src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

// The adjoint of im2col: x[c, ih, iw] += col[(c, ki, kj), (oh, ow)] (x zeroed by the caller). A
// shifted geometry first zeroes col's elements that fall in the padding (col is scratch), so that
// each row is added to x in one pass.
template <typename T>
void col2im(const Geometry& g, T* col, T* x) {
  if (g.shifted) {
    for_each_shifted_row(g, [&](int64_t r, int64_t c, int64_t shift, int64_t oh_lo, int64_t oh_hi, int64_t lo,
                                int64_t hi) {
      if (oh_lo == oh_hi || lo == hi) return;
      T* row = col + r * g.P;
      zero_edges(g, row, oh_lo, oh_hi, lo, hi);
      const int64_t first = oh_lo * g.oW + lo, last = (oh_hi - 1) * g.oW + hi;
      add_to(x + c * g.H * g.W + first + shift, row + first, last - first);
    });
    return;
  }
  for_each_patch_row(g, [&](int64_t src, int64_t dst, int64_t lo, int64_t hi, int64_t iw_off) {
    if (dst < 0) return;
    const T* in = col + src;
    T* out = x + dst + iw_off;
    if (g.sw == 1)
      for (int64_t ow = lo; ow < hi; ++ow) out[ow] += in[ow];
    else
      for (int64_t ow = lo; ow < hi; ++ow) out[ow * g.sw] += in[ow];
  });
}

// Runs f(lo, hi) over the samples, split over threads when every thread gets a sample and the
// work is worth it.
template <typename F>
void over_batch(const Geometry& g, const F& f) {
  if (g.N >= 2 && g.N >= available_threads())
    parallel_for(0, g.N, std::max<int64_t>(1, kConvGrain / g.sample_work()), f);
  else
    f(0, g.N);
}

// A column buffer per thread's share of the batch (none when the input is used directly).
template <typename T>
struct ColumnBuffer {
  Tensor buffer;
  explicit ColumnBuffer(const Geometry& g) {
    if (!g.direct) buffer = scratch<T>(g.K * g.P);
  }
  T* get() const { return buffer.defined() ? buffer.data_ptr<T>() : nullptr; }
};

// A 1x1 convolution into small planes (a network's last layers at small inputs) is a product over
// the whole batch's pixels: out rows [N * P, O] = x rows [N * P, C] @ weight^T, one GEMM where the
// per-sample path makes N products of P columns each (16 at 4x4: 1.61 ms against PyTorch's 1.32 for
// ResNet-50's 256 -> 1024 at batch 16), every one reading the whole weight. The planes are
// transposed to pixel-major rows and back, which one position per sample (P = 1) needs not.
constexpr int64_t kMaxPixelRowsPlane = 16;
bool pixel_rows(const Geometry& g) {
  if (!g.direct || g.G != 1 || g.N < 2) return false;
  return g.P == 1 || (g.P <= kMaxPixelRowsPlane && g.C * g.O >= (int64_t{1} << 17));
}

// planes [N, ch, P] as rows [N * P, ch] (pixel-major), or back (`to_planes`); the samples split over
// threads.
template <typename T>
void transpose_samples(const Geometry& g, int64_t ch, const T* from, T* to, bool to_planes) {
  parallel_for(0, g.N, std::max<int64_t>(1, kElementwiseGrain / (ch * g.P)), [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      const T* src = from + n * ch * g.P;
      T* dst = to + n * ch * g.P;
      if (to_planes)
        transpose_rows(src, ch, dst, g.P, 0, ch, g.P);
      else
        transpose_rows(src, g.P, dst, ch, 0, g.P, ch);
    }
  });
}

// pixel-major rows of planes [N, ch, P]: the planes themselves where P is 1.
template <typename T>
const T* pixel_major(const Geometry& g, int64_t ch, const T* planes, Tensor& buffer) {
  if (g.P == 1) return planes;
  buffer = scratch<T>(g.N * g.P * ch);
  transpose_samples(g, ch, planes, buffer.data_ptr<T>(), false);
  return buffer.data_ptr<T>();
}

// Where a product writes the pixel-major rows of planes [N, ch, P]: the planes themselves where P is
// 1, else a buffer that into_planes() then transposes into them.
template <typename T>
T* pixel_rows_of(const Geometry& g, int64_t ch, T* planes, Tensor& buffer) {
  if (g.P == 1) return planes;
  buffer = scratch<T>(g.N * g.P * ch);
  return buffer.data_ptr<T>();
}

template <typename T>
void into_planes(const Geometry& g, int64_t ch, const T* rows, T* planes) {
  if (g.P > 1) transpose_samples(g, ch, rows, planes, true);
}

template <typename T>
void forward(const Geometry& g, const T* x, const T* w, const T* bias, T* out) {
  if (pixel_rows(g)) {
    Tensor x_buffer, out_buffer;
    const T* xr = pixel_major(g, g.C, x, x_buffer);
    T* rows = pixel_rows_of(g, g.O, out, out_buffer);
    if (bias)
      for (int64_t r = 0; r < g.N * g.P; ++r) std::copy(bias, bias + g.O, rows + r * g.O);
    gemm<T>({xr, g.N * g.P, g.C, g.C, 1}, {w, g.C, g.O, 1, g.C}, rows, g.O, bias != nullptr);
    return into_planes<T>(g, g.O, rows, out);
  }
  over_batch(g, [&](int64_t lo, int64_t hi) {
    ColumnBuffer<T> col(g);
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t grp = 0; grp < g.G; ++grp) {
        const T* xg = x + (n * g.C + grp * g.Cg) * g.H * g.W;
        const T* cm = xg;
        if (!g.direct) {
          im2col(g, xg, col.get());
          cm = col.get();
        }
        T* og = out + (n * g.O + grp * g.Og) * g.P;
        if (bias)  // the GEMM then accumulates onto the bias
          for (int64_t o = 0; o < g.Og; ++o) std::fill(og + o * g.P, og + (o + 1) * g.P, bias[grp * g.Og + o]);
        gemm<T>({w + grp * g.Og * g.K, g.Og, g.K, g.K, 1}, {cm, g.K, g.P, g.P, 1}, og, g.P, bias != nullptr);
      }
  });
}

template <typename T>
void input_grad(const Geometry& g, const T* gout, const T* w, T* gx) {
  if (pixel_rows(g)) {
    Tensor gout_buffer, gx_buffer;
    const T* gr = pixel_major(g, g.O, gout, gout_buffer);
    T* rows = pixel_rows_of(g, g.C, gx, gx_buffer);
    gemm<T>({gr, g.N * g.P, g.O, g.O, 1}, {w, g.O, g.C, g.C, 1}, rows, g.C, false);
    return into_planes<T>(g, g.C, rows, gx);
  }
  over_batch(g, [&](int64_t lo, int64_t hi) {
    ColumnBuffer<T> col(g);
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t grp = 0; grp < g.G; ++grp) {
        MatrixRef<T> wt{w + grp * g.Og * g.K, g.K, g.Og, 1, g.K};  // weight^T, column-major
        MatrixRef<T> go{gout + (n * g.O + grp * g.Og) * g.P, g.Og, g.P, g.P, 1};
        T* gxg = gx + (n * g.C + grp * g.Cg) * g.H * g.W;
        if (g.direct) {
          gemm<T>(wt, go, gxg, g.P, false);
        } else {
          gemm<T>(wt, go, col.get(), g.P, false);
          std::fill(gxg, gxg + g.Cg * g.H * g.W, T(0));
          col2im(g, col.get(), gxg);
        }
      }
  });
}

// A depthwise convolution: one input and one output channel per group.
bool depthwise(const Geometry& g) { return g.G > 1 && g.Cg == 1 && g.Og == 1; }

// The weight gradient of a depthwise convolution by its definition: per channel, kH x kW sums over
// the batch's positions. im2col makes that N * C products of 1 x P by P x kH*kW, which cost more in
// calls than in multiply-adds (MobileNetV2's last layers: 2.5x PyTorch's time). Each thread owns
// whole channels, so the sums do not depend on the thread count.
template <typename T>
void depthwise_weight_grad(const Geometry& g, const T* gout, const T* x, T* gw) {
  const int64_t per_channel = std::max<int64_t>(1, g.N * g.P * g.kH * g.kW);
  const int64_t go_sample = g.C * g.oH * g.oW, x_sample = g.C * g.H * g.W, N = g.N, oW = g.oW, sw = g.sw;
  const int64_t x_row = g.sh * g.W;
  parallel_for(0, g.C, std::max<int64_t>(1, kConvGrain / per_channel), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c)
      for (int64_t i = 0; i < g.kH; ++i) {
        // The output rows and columns whose tap (i, j) reads inside the input.
        const int64_t ih_off = i * g.dh - g.ph;
        const int64_t oh_lo = std::min(g.oH, first_at_least(0, ih_off, g.sh));
        const int64_t oh_hi = std::max(oh_lo, std::min(g.oH, first_at_least(g.H, ih_off, g.sh)));
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t iw_off = j * g.dw - g.pw;
          const int64_t ow_lo = std::min(g.oW, first_at_least(0, iw_off, g.sw));
          const int64_t ow_hi = std::max(ow_lo, std::min(g.oW, first_at_least(g.W, iw_off, g.sw)));
          const int64_t rows = oh_hi - oh_lo, cols = ow_hi - ow_lo;
          const T* go0 = gout + (c * g.oH + oh_lo) * oW + ow_lo;
          const T* x0 = x + (c * g.H + oh_lo * g.sh + ih_off) * g.W + iw_off + ow_lo * sw;
          // NB: a sum per sample, added into one of eight partial sums, so that the samples' chains
          // of multiply-adds overlap; the geometry in locals, so that the loops over few positions
          // (2x2 outputs: MobileNetV2's last layers at 64x64) do not reload it.
          T part[8] = {};
          for (int64_t n = 0; n < N; ++n) {
            const T *go = go0 + n * go_sample, *xr = x0 + n * x_sample;
            T sum(0);
            for (int64_t r = 0; r < rows; ++r, go += oW, xr += x_row)
              for (int64_t q = 0; q < cols; ++q) sum += go[q] * xr[q * sw];
            part[n % 8] += sum;
          }
          gw[(c * g.kH + i) * g.kW + j] =
              ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
        }
      }
  });
}

template <typename T>
void weight_grad(const Geometry& g, const T* gout, const T* x, T* gw) {
  if (depthwise(g)) return depthwise_weight_grad(g, gout, x, gw);
  if (pixel_rows(g)) {
    Tensor gout_buffer, x_buffer;
    const T* gr = pixel_major(g, g.O, gout, gout_buffer);
    const T* xr = pixel_major(g, g.C, x, x_buffer);
    return gemm<T>({gr, g.O, g.N * g.P, 1, g.O}, {xr, g.N * g.P, g.C, g.C, 1}, gw, g.C, false);
  }
  // Each thread sums its share of the batch into its own buffer (the first into gw itself); the
  // buffers are then added in a fixed order, so results do not depend on thread timing.
  int64_t chunks = 1;
  if (g.N >= 2 && g.N * g.sample_work() >= 2 * kConvGrain)
    chunks = std::min<int64_t>(available_threads(), g.N);
  const int64_t size = g.O * g.K;
  std::vector<Tensor> partial;
  for (int64_t c = 1; c < chunks; ++c) partial.push_back(scratch<T>(size));
  auto run = [&](int64_t c_lo, int64_t c_hi) {
    ColumnBuffer<T> col(g);
    for (int64_t c = c_lo; c < c_hi; ++c) {
      T* dst = c == 0 ? gw : partial[static_cast<size_t>(c - 1)].data_ptr<T>();
      const int64_t lo = g.N * c / chunks, hi = g.N * (c + 1) / chunks;
      if (lo == hi) std::fill(dst, dst + size, T(0));
      for (int64_t n = lo; n < hi; ++n)
        for (int64_t grp = 0; grp < g.G; ++grp) {
          const T* xg = x + (n * g.C + grp * g.Cg) * g.H * g.W;
          const T* cm = xg;
          if (!g.direct) {
            im2col(g, xg, col.get());
            cm = col.get();
          }
          MatrixRef<T> go{gout + (n * g.O + grp * g.Og) * g.P, g.Og, g.P, g.P, 1};
          MatrixRef<T> colt{cm, g.P, g.K, 1, g.P};  // col^T, column-major
          gemm<T>(go, colt, dst + grp * g.Og * g.K, g.K, n > lo);
        }
    }
  };
  if (chunks > 1)
    parallel_for(0, chunks, 1, run);
  else
    run(0, 1);
  for (const Tensor& part : partial) {
    const T* p = part.data_ptr<T>();
    for (int64_t i = 0; i < size; ++i) gw[i] += p[i];
  }
}

enum class Pass { Forward, InputGrad, WeightGrad };

// Whether oneDNN's direct kernels beat im2col for a float32 pass: measured per pass on every layer
// of the convolution sweep (bench/conv_sweep.py: ResNet-18 and -50, MobileNetV2, a UNet decoder at
// 32x32, 64x64 and 224x224 inputs) on an AVX2 machine, 1 thread (bench/README.md, "Convolution
// algorithms"); each rule holds where the ratio was below 1 on nearly every layer it covers, by
// 1.2x to 30x. Dilated convolutions were not measured and stay on im2col.
bool direct_wins(Pass pass, const Geometry& g) {
  if (g.dh != 1 || g.dw != 1) return false;
  // 1x1 into small planes: one GEMM over the batch's pixels (pixel_rows) in every pass. The direct
  // kernels' 1x1 rules below were measured before that path existed; against it they took 3-15x as
  // long for the gradients of ResNet-50's last 1x1 layers at 32x32 (bench/README.md).
  if (pixel_rows(g)) return false;
  const bool forward = pass == Pass::Forward, input_grad = pass == Pass::InputGrad;
  // Depthwise, where im2col's GEMMs are one row deep; but the weight gradient into planes under 16
  // positions, which the direct kernels take 1.3-2.4x as long as depthwise_weight_grad.
  if (g.G > 1) return g.Cg == 1 && (pass != Pass::WeightGrad || g.P >= 16);
  const bool unit = g.kH == 1 && g.kW == 1;
  // An image stem (3 channels): its input gradient, which a first layer never needs, stays on im2col.
  if (g.C <= 4 && !unit) return !input_grad;
  if (unit) {
    // 1x1 into planes of 2 to 9 positions, where im2col's GEMMs have that few columns per sample,
    // and the input gradient of wide ones (strided 1x1 convolutions come here gathered).
    const bool few = g.P >= 2 && g.P <= 9;
    if (forward) return few;
    if (input_grad) return few || (g.C >= 512 && g.P <= 256);
    return g.P <= 4 && g.C * g.O >= (int64_t{1} << 18);
  }
  // 3x3 and larger: small planes and few channels; the weight gradient is im2col's.
  if (forward) return g.P <= 16 || (g.C <= 128 && g.O <= 64);
  if (input_grad) return g.P <= 256 || g.C <= 128;
  return false;
}

// oneDNN's direct kernels leave the padding out of their sums; im2col multiplies it as zeros, which
// is PyTorch's answer where the other factor is inf or NaN (0 * inf = NaN: a stem's infinite weight
// beside a padded border). With padding, the direct kernels take the forward only when the weight is
// finite, and the weight gradient only when the output gradient is finite wherever its window
// reaches into the padding (the border rows and columns: the stem's gradient has millions of values).
bool weight_finite(const Geometry& g, const Tensor& weight) {
  if (g.ph == 0 && g.pw == 0) return true;
  return std::isfinite(max_magnitude(weight.data_ptr<float>(), weight.numel()));
}

bool border_gradient_finite(const Geometry& g, const Tensor& grad_out) {
  if (g.ph == 0 && g.pw == 0) return true;
  auto reaches_padding = [](int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t dilation, int64_t in) {
    const int64_t first = o * stride - pad;
    return first < 0 || first + (k - 1) * dilation >= in;
  };
  std::vector<int64_t> border_cols;
  for (int64_t ow = 0; ow < g.oW; ++ow)
    if (reaches_padding(ow, g.sw, g.pw, g.kW, g.dw, g.W)) border_cols.push_back(ow);
  const float* go = grad_out.data_ptr<float>();
  for (int64_t plane = 0; plane < g.N * g.O; ++plane)
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const float* row = go + (plane * g.oH + oh) * g.oW;
      if (reaches_padding(oh, g.sh, g.ph, g.kH, g.dh, g.H)) {
        for (int64_t ow = 0; ow < g.oW; ++ow)
          if (!std::isfinite(row[ow])) return false;
      } else {
        for (int64_t ow : border_cols)
          if (!std::isfinite(row[ow])) return false;
      }
    }
  return true;
}

// A 1x1 convolution with a stride and no padding reads every s-th pixel: it is the stride-1
// convolution of those pixels, gathered once, which then takes the 1x1 paths above (ResNet's
// downsampling layers into planes of 1 to 16 positions: one GEMM or the direct kernels, where the
// strided one made a matrix-vector product per sample).
bool strided_unit(const Geometry& g) {
  return g.kH == 1 && g.kW == 1 && (g.sh > 1 || g.sw > 1) && g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1;
}

Conv2dParams unit_stride(const Conv2dParams& p) {
  Conv2dParams q = p;
  q.stride = 1;
  return q;
}

// The pixels a strided 1x1 convolution reads, [N, C, oH, oW]: each sample's and group's column
// matrix (im2col); or (scatter) their gradient written back to theirs in `x` (col2im), whose other
// pixels get none.
Tensor gather_strided(const Geometry& g, const Tensor& x) {
  Tensor dense = empty({g.N, g.C, g.oH, g.oW}, TensorOptions(x.dtype()));
  visit_floating_dtype(x.dtype(), "conv2d", [&]<typename T>(type_tag<T>) {
    for (int64_t plane = 0; plane < g.N * g.C; plane += g.Cg)
      im2col(g, x.data_ptr<T>() + plane * g.H * g.W, dense.data_ptr<T>() + plane * g.P);
  });
  return dense;
}

void scatter_strided(const Geometry& g, const Tensor& dense, const Tensor& x) {
  visit_floating_dtype(x.dtype(), "conv2d", [&]<typename T>(type_tag<T>) {
    std::fill(x.data_ptr<T>(), x.data_ptr<T>() + x.numel(), T(0));
    for (int64_t plane = 0; plane < g.N * g.C; plane += g.Cg)
      col2im(g, dense.data_ptr<T>() + plane * g.P, x.data_ptr<T>() + plane * g.H * g.W);
  });
}

void cpu_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                const Conv2dParams& p) {
  if (onednn_conv2d(ConvAlgorithm::Winograd, out, input, weight, bias, p)) return;
  if (winograd_conv2d(out, input, weight, bias, p)) return;
  Geometry g(input, weight, out.size(2), out.size(3), p);
  if (taps_suit(input, weight, g.oH, g.oW, p, false) && weight_finite(g, weight) &&
      taps_conv2d(out, input, weight, bias, p))
    return;
  if (strided_unit(g)) return cpu_conv2d(out, gather_strided(g, input), weight, bias, unit_stride(p));
  if (out.dtype() == DType::Float32 && direct_wins(Pass::Forward, g) && weight_finite(g, weight) &&
      onednn_conv2d(ConvAlgorithm::Direct, out, input, weight, bias, p))
    return;
  visit_floating_dtype(out.dtype(), "conv2d", [&]<typename T>(type_tag<T>) {
    forward<T>(g, input.data_ptr<T>(), weight.data_ptr<T>(), bias.defined() ? bias.data_ptr<T>() : nullptr,
               out.data_ptr<T>());
  });
}

void cpu_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                           const Conv2dParams& p) {
  if (onednn_conv2d_input_grad(ConvAlgorithm::Winograd, grad_input, grad_out, weight, p)) return;
  if (winograd_conv2d_input_grad(grad_input, grad_out, weight, p)) return;
  Geometry g(grad_input, weight, grad_out.size(2), grad_out.size(3), p);
  if (taps_conv2d_input_grad(grad_input, grad_out, weight, p)) return;
  if (strided_unit(g)) {
    Tensor dense = empty({g.N, g.C, g.oH, g.oW}, TensorOptions(grad_input.dtype()));
    cpu_conv2d_input_grad(dense, grad_out, weight, unit_stride(p));
    return scatter_strided(g, dense, grad_input);
  }
  if (grad_out.dtype() == DType::Float32 && direct_wins(Pass::InputGrad, g) &&
      onednn_conv2d_input_grad(ConvAlgorithm::Direct, grad_input, grad_out, weight, p))
    return;
  visit_floating_dtype(grad_out.dtype(), "conv2d", [&]<typename T>(type_tag<T>) {
    input_grad<T>(g, grad_out.data_ptr<T>(), weight.data_ptr<T>(), grad_input.data_ptr<T>());
  });
}

void cpu_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                            const Conv2dParams& p) {
  if (onednn_conv2d_weight_grad(ConvAlgorithm::Winograd, grad_weight, grad_out, input, p)) return;
  if (winograd_conv2d_weight_grad(grad_weight, grad_out, input, p)) return;
  Geometry g(input, grad_weight, grad_out.size(2), grad_out.size(3), p);
  if (taps_suit(input, grad_weight, g.oH, g.oW, p, true) && border_gradient_finite(g, grad_out) &&
      taps_conv2d_weight_grad(grad_weight, grad_out, input, p))
    return;
  if (strided_unit(g)) return cpu_conv2d_weight_grad(grad_weight, grad_out, gather_strided(g, input), unit_stride(p));
  if (grad_out.dtype() == DType::Float32 && direct_wins(Pass::WeightGrad, g) &&
      border_gradient_finite(g, grad_out) &&
      onednn_conv2d_weight_grad(ConvAlgorithm::Direct, grad_weight, grad_out, input, p))
    return;
  visit_floating_dtype(grad_out.dtype(), "conv2d", [&]<typename T>(type_tag<T>) {
    weight_grad<T>(g, grad_out.data_ptr<T>(), input.data_ptr<T>(), grad_weight.data_ptr<T>());
  });
}

// The registered kernels: a 16-bit convolution runs natively where oneDNN has a kernel for its
// dtype on this machine, widened to float32 where it has not.
void conv2d_kernel(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const Conv2dParams& p) {
  if (is_16bit_float(out.dtype()) && onednn_conv2d(ConvAlgorithm::Direct, out, input, weight, bias, p)) return;
  widened<&cpu_conv2d, 0>(out, input, weight, bias, p);
}

void conv2d_input_grad_kernel(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                              const Conv2dParams& p) {
  if (is_16bit_float(grad_out.dtype()) &&
      onednn_conv2d_input_grad(ConvAlgorithm::Direct, grad_input, grad_out, weight, p))
    return;
  widened<&cpu_conv2d_input_grad, 0>(grad_input, grad_out, weight, p);
}

void conv2d_weight_grad_kernel(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                               const Conv2dParams& p) {
  if (is_16bit_float(grad_out.dtype()) &&
      onednn_conv2d_weight_grad(ConvAlgorithm::Direct, grad_weight, grad_out, input, p))
    return;
  widened<&cpu_conv2d_weight_grad, 0>(grad_weight, grad_out, input, p);
}

}  // namespace

EMBER_REGISTER_KERNEL(conv2d_stub, DeviceType::CPU, &conv2d_kernel);
EMBER_REGISTER_KERNEL(conv2d_input_grad_stub, DeviceType::CPU, &conv2d_input_grad_kernel);
EMBER_REGISTER_KERNEL(conv2d_weight_grad_stub, DeviceType::CPU, &conv2d_weight_grad_kernel);

}  // namespace ember::cpu
