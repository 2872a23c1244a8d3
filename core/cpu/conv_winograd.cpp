#include "ember/core/cpu/conv_winograd.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "ember/core/cpu/gemm.h"
#include "ember/core/cpu/onednn.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/cpu/scratch.h"

namespace ember::cpu {
namespace {

// Outputs per tile side, input patch side, and positions of a transformed tile (6x6): the GEMMs of
// a chunk.
constexpr int64_t kOut = 4, kPatch = 6, kPoints = 36;
// Tiles per chunk: enough columns for the GEMMs to run near their peak, few enough that a chunk's
// transformed input (36 x 64 tiles x C floats) stays near L2. 32 to 256 measured: 64 best or within
// 3% of it on every layer at 1 and 2 threads (bench/README.md, "Winograd on AVX2").
constexpr int64_t kChunkTiles = 64;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One Winograd product: a "forward" from an input [N, C, H, W] to an output [N, K, oH, oW], in
// bands of tw tiles (output rows 4i to 4i + 3 of one sample).
struct Plan {
  int64_t N, C, K, H, W, oH, oW, ph, pw;
  int64_t th, tw;  // tiles down and across

  Plan(int64_t n, int64_t c, int64_t k, int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t pad_h, int64_t pad_w)
      : N(n), C(c), K(k), H(h), W(w), oH(oh), oW(ow), ph(pad_h), pw(pad_w) {
    th = ceil_div(oh, kOut);
    tw = ceil_div(ow, kOut);
  }

  int64_t bands() const { return N * th; }
};

// Chunks of whole bands, at least one per thread where there are enough bands.
struct Chunks {
  int64_t count, bands_each;
  explicit Chunks(const Plan& g) {
    bands_each = std::max<int64_t>(1, kChunkTiles / g.tw);
    bands_each = std::max<int64_t>(1, std::min(bands_each, ceil_div(g.bands(), available_threads())));
    count = ceil_div(g.bands(), bands_each);
  }
  int64_t first(int64_t chunk) const { return chunk * bands_each; }
  int64_t end(const Plan& g, int64_t chunk) const { return std::min(g.bands(), (chunk + 1) * bands_each); }
};

// p[r * n + j] = row[4j + r - pad] for r in [0, 4) and j in [0, n), zero outside [0, width) or where
// row is null (a padding row): a row's columns split by their phase modulo 4, so that the tiles'
// column combinations run on contiguous arrays.
void split_phases(const float* row, int64_t width, int64_t pad, int64_t n, float* __restrict p) {
  if (!row) {
    std::fill(p, p + 4 * n, 0.f);
    return;
  }
  auto at = [&](int64_t x) { return x >= 0 && x < width ? row[x] : 0.f; };
  const int64_t lo = std::min(n, (pad + 3) / 4), hi = std::max(lo, std::min(n, (width + pad) / 4));
  for (int r = 0; r < 4; ++r) {
    float* pr = p + r * n;
    for (int64_t j = 0; j < lo; ++j) pr[j] = at(4 * j + r - pad);
    const float* src = row + r - pad;
    for (int64_t j = lo; j < hi; ++j) pr[j] = src[4 * j];
    for (int64_t j = hi; j < n; ++j) pr[j] = at(4 * j + r - pad);
  }
}

// B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
// applied to six arrays of n values (elementwise). Out of line, so that the compiler keeps the
// pointers' restrict and vectorises.
[[gnu::noinline]] void input_1d(const float* __restrict d0, const float* __restrict d1, const float* __restrict d2,
                                const float* __restrict d3, const float* __restrict d4, const float* __restrict d5,
                                float* __restrict o0, float* __restrict o1, float* __restrict o2, float* __restrict o3,
                                float* __restrict o4, float* __restrict o5, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    o0[j] = 4.f * d0[j] - 5.f * d2[j] + d4[j];
    o1[j] = d3[j] + d4[j] - 4.f * (d1[j] + d2[j]);
    o2[j] = d4[j] - d3[j] + 4.f * (d1[j] - d2[j]);
    o3[j] = d4[j] - d2[j] + 2.f * (d3[j] - d1[j]);
    o4[j] = d4[j] - d2[j] + 2.f * (d1[j] - d3[j]);
    o5[j] = 4.f * d1[j] - 5.f * d3[j] + d5[j];
  }
}

// A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1] applied to six arrays of n values
// (the first six at m + h * step), plus a constant.
[[gnu::noinline]] void output_1d(const float* __restrict m, int64_t step, float* __restrict y0, float* __restrict y1,
                                 float* __restrict y2, float* __restrict y3, float bias, int64_t n) {
  const float *m0 = m, *m1 = m + step, *m2 = m + 2 * step, *m3 = m + 3 * step, *m4 = m + 4 * step, *m5 = m + 5 * step;
  for (int64_t j = 0; j < n; ++j) {
    const float s12 = m1[j] + m2[j], d12 = m1[j] - m2[j], s34 = m3[j] + m4[j], d34 = m3[j] - m4[j];
    y0[j] = m0[j] + s12 + s34 + bias;
    y1[j] = d12 + 2.f * d34 + bias;
    y2[j] = s12 + 4.f * s34 + bias;
    y3[j] = d12 + 8.f * d34 + m5[j] + bias;
  }
}

// A = (A^T)^T applied to four arrays of n values, the six results at o + h * step: the output
// transform's adjoint.
[[gnu::noinline]] void output_grad_1d(const float* __restrict y0, const float* __restrict y1,
                                      const float* __restrict y2, const float* __restrict y3, float* __restrict o,
                                      int64_t step, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const float s02 = y0[j] + y2[j], s13 = y1[j] + y3[j], p = y0[j] + 4.f * y2[j], r = 2.f * y1[j] + 8.f * y3[j];
    o[j] = y0[j];
    o[step + j] = s02 + s13;
    o[2 * step + j] = s02 - s13;
    o[3 * step + j] = p + r;
    o[4 * step + j] = p - r;
    o[5 * step + j] = y3[j];
  }
}

// Row buffers of a band's transforms: 12 split rows of 4 (tw + 1) floats.
struct BandRows {
  std::vector<float> data;
  int64_t n;  // values per phase
  explicit BandRows(const Plan& g) : data(static_cast<size_t>(12 * 4 * (g.tw + 1))), n(g.tw + 1) {}
  float* row(int64_t r) { return data.data() + r * 4 * n; }
};

// v[(xi * C + c) * ldv + t0 + j] = (B^T d B)[xi] for the tiles j of band i of one sample x, d the 6x6
// input patch at rows 4i - ph, columns 4j - pw (zero in the padding).
void transform_input(const Plan& g, const float* x, int64_t i, float* v, int64_t ldv, int64_t t0, BandRows& rows) {
  const int64_t n = rows.n, step = g.C * ldv;
  const float* raw[kPatch];
  float* mixed[kPatch];
  for (int s = 0; s < kPatch; ++s) raw[s] = rows.row(s), mixed[s] = rows.row(kPatch + s);
  for (int64_t c = 0; c < g.C; ++c) {
    const float* plane = x + c * g.H * g.W;
    for (int s = 0; s < kPatch; ++s) {
      const int64_t y = kOut * i - g.ph + s;
      split_phases(y >= 0 && y < g.H ? plane + y * g.W : nullptr, g.W, g.pw, n, rows.row(s));
    }
    input_1d(raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], mixed[0], mixed[1], mixed[2], mixed[3], mixed[4], mixed[5],
             4 * n);
    // Columns 0 to 5 of tile j: phases 0 to 3 at j, then phases 0 and 1 at j + 1.
    float* vc = v + c * ldv + t0;
    for (int q = 0; q < kPatch; ++q) {
      const float* p = mixed[q];
      float* o = vc + kPatch * q * step;
      input_1d(p, p + n, p + 2 * n, p + 3 * n, p + 1, p + n + 1, o, o + step, o + 2 * step, o + 3 * step, o + 4 * step,
               o + 5 * step, g.tw);
    }
  }
}

// out[k, 4i + a, 4j + b] = (A^T m A)[a, b] + bias[k] for the tiles j of band i of one sample, m at
// m[(xi * K + k) * ldm + t0 + j]. Clipped to oH x oW.
void transform_output(const Plan& g, const float* m, int64_t ldm, int64_t t0, int64_t i, const float* bias, float* out,
                      BandRows& rows) {
  const int64_t tw = g.tw, step = g.K * ldm;
  float* cols = rows.data.data();        // [h][a]: A^T over the rows of column h, 24 arrays of tw
  float* y = cols + kPatch * kOut * tw;  // [a][b]: the outputs, 16 arrays of tw
  auto at = [&](float* base, int64_t r) { return base + r * tw; };
  const int64_t out_rows = std::min(kOut, g.oH - kOut * i), whole = g.oW / kOut, rest = g.oW % kOut;
  for (int64_t k = 0; k < g.K; ++k) {
    const float* mk = m + k * ldm + t0;
    for (int h = 0; h < kPatch; ++h)
      output_1d(mk + h * step, kPatch * step, at(cols, h * kOut), at(cols, h * kOut + 1), at(cols, h * kOut + 2),
                at(cols, h * kOut + 3), 0.f, tw);
    // Row a of the tile: column h's value a, for h in [0, 6), is at cols[h][a], kOut arrays apart.
    const float b = bias ? bias[k] : 0.f;
    for (int a = 0; a < kOut; ++a)
      output_1d(at(cols, a), kOut * tw, at(y, a * kOut), at(y, a * kOut + 1), at(y, a * kOut + 2), at(y, a * kOut + 3),
                b, tw);
    for (int64_t a = 0; a < out_rows; ++a) {
      float* row = out + (k * g.oH + kOut * i + a) * g.oW;
      const float *y0 = at(y, a * kOut), *y1 = at(y, a * kOut + 1), *y2 = at(y, a * kOut + 2),
                  *y3 = at(y, a * kOut + 3);
      for (int64_t j = 0; j < whole; ++j)
        row[4 * j] = y0[j], row[4 * j + 1] = y1[j], row[4 * j + 2] = y2[j], row[4 * j + 3] = y3[j];
      for (int64_t c = 0; c < rest; ++c) row[4 * whole + c] = at(y, a * kOut + c)[whole];
    }
  }
}

// dm[(xi * K + k) * ldm + t0 + j] = (A dy A^T)[xi] for the tiles j of band i of one sample's output
// gradient dy (zero past oH x oW): the adjoint of transform_output.
void transform_output_grad(const Plan& g, const float* dy, int64_t i, float* dm, int64_t ldm, int64_t t0,
                           BandRows& rows) {
  const int64_t tw = g.tw, step = g.K * ldm, n = rows.n;
  float* split = rows.data.data();  // [a][b]: row a of the tile's phase b, 16 arrays of n
  float* mixed = split + 16 * n;    // [q][b]: A over the rows, 24 arrays of n
  for (int64_t k = 0; k < g.K; ++k) {
    const float* plane = dy + k * g.oH * g.oW;
    for (int a = 0; a < kOut; ++a) {
      const int64_t y = kOut * i + a;
      split_phases(y < g.oH ? plane + y * g.oW : nullptr, g.oW, 0, n, split + a * kOut * n);
    }
    // Column b of the tile is phase b of the four rows; A maps it to the six rows q, at mixed[q][b].
    for (int b = 0; b < kOut; ++b)
      output_grad_1d(split + b * n, split + (kOut + b) * n, split + (2 * kOut + b) * n, split + (3 * kOut + b) * n,
                     mixed + b * n, kOut * n, tw);
    float* mk = dm + k * ldm + t0;
    for (int q = 0; q < kPatch; ++q) {
      const float* r = mixed + q * kOut * n;
      output_grad_1d(r, r + n, r + 2 * n, r + 3 * n, mk + kPatch * q * step, step, tw);
    }
  }
}

// G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1], the kernel
// transform, applied to three arrays of n values, the six results at o + q * step.
[[gnu::noinline]] void kernel_1d(const float* __restrict g0, const float* __restrict g1, const float* __restrict g2,
                                 float* __restrict o, int64_t step, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const float even = g0[j] + g2[j], sixth = 1.f / 6;
    o[j] = 0.25f * g0[j];
    o[step + j] = -sixth * (even + g1[j]);
    o[2 * step + j] = -sixth * (even - g1[j]);
    const float a = (1.f / 24) * g0[j] + sixth * g2[j], b = (1.f / 12) * g1[j];
    o[3 * step + j] = a + b;
    o[4 * step + j] = a - b;
    o[5 * step + j] = g2[j];
  }
}

// u[(xi * rows + r) * cols + c] = (G w G^T)[xi], w the 3x3 kernel of weight [K, C, 3, 3] at
// (k, c) = (r, c); or, `turned` (the input gradient's), at (k, c) = (c, r) and rotated by 180 degrees.
Tensor transform_weight(const float* w, int64_t K, int64_t C, bool turned) {
  const int64_t rows = turned ? C : K, cols = turned ? K : C;
  Tensor u = scratch<float>(kPoints * K * C);
  float* up = u.data_ptr<float>();
  parallel_for(0, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, cols)), [&](int64_t lo, int64_t hi) {
    // A row of u's kernels as 9 tap arrays, then G over their rows into 18 arrays [q][b].
    std::vector<float> buffer(static_cast<size_t>(27 * cols));
    float *taps = buffer.data(), *mixed = taps + 9 * cols;
    for (int64_t r = lo; r < hi; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const float* src = w + (turned ? c * C + r : r * C + c) * 9;
        for (int t = 0; t < 9; ++t) taps[t * cols + c] = src[turned ? 8 - t : t];
      }
      // Kernel column b is taps b, 3 + b, 6 + b; G maps it to rows q at mixed[q][b].
      for (int b = 0; b < 3; ++b)
        kernel_1d(taps + b * cols, taps + (3 + b) * cols, taps + (6 + b) * cols, mixed + b * cols, 3 * cols, cols);
      for (int q = 0; q < kPatch; ++q) {
        const float* m = mixed + q * 3 * cols;
        kernel_1d(m, m + cols, m + 2 * cols, up + (kPatch * q * rows + r) * cols, rows * cols, cols);
      }
    }
  });
  return u;
}

// out = the Winograd product of x and the transformed weight u [36, K, C] (+ bias).
void forward(const Plan& g, const float* x, const float* u, const float* bias, float* out) {
  const Chunks chunks(g);
  const int64_t most = chunks.bands_each * g.tw;
  parallel_for(0, chunks.count, 1, [&](int64_t lo, int64_t hi) {
    Tensor v_buf = scratch<float>(kPoints * g.C * most), m_buf = scratch<float>(kPoints * g.K * most);
    float *v = v_buf.data_ptr<float>(), *m = m_buf.data_ptr<float>();
    BandRows rows(g);
    for (int64_t chunk = lo; chunk < hi; ++chunk) {
      const int64_t b0 = chunks.first(chunk), b1 = chunks.end(g, chunk), tc = (b1 - b0) * g.tw;
      for (int64_t b = b0; b < b1; ++b)
        transform_input(g, x + b / g.th * g.C * g.H * g.W, b % g.th, v, tc, (b - b0) * g.tw, rows);
      for (int64_t xi = 0; xi < kPoints; ++xi)
        gemm<float>({u + xi * g.K * g.C, g.K, g.C, g.C, 1}, {v + xi * g.C * tc, g.C, tc, tc, 1}, m + xi * g.K * tc, tc,
                    false);
      for (int64_t b = b0; b < b1; ++b)
        transform_output(g, m, tc, (b - b0) * g.tw, b % g.th, bias, out + b / g.th * g.K * g.oH * g.oW, rows);
    }
  });
}

// Whether sums of `terms` products of values up to a and b, scaled by the transforms' `gain`, stay
// finite (false for an inf or NaN operand: the product is then inf or NaN).
bool in_range(const Tensor& a, const Tensor& b, double terms, double gain) {
  auto magnitude = [](const Tensor& t) { return static_cast<double>(max_magnitude(t.data_ptr<float>(), t.numel())); };
  return magnitude(a) * magnitude(b) * terms * gain < static_cast<double>(FLT_MAX);
}

// B^T d B grows values by up to 100, G w G^T by at most 1, A^T m A by 361; for the weight gradient
// A dy A^T by 225 and G^T du G by 2.8.
constexpr double kProductGain = 36100.0, kWeightGradGain = 62500.0;

// Where the algorithm applies and pays. Measured per pass against the routes conv_kernel.cpp takes
// otherwise (im2col or oneDNN's direct kernels) on 3x3 stride-1 layers of 2x2 to 56x56 planes and 32
// to 512 channels, at 1 and 2 threads on an AVX2 machine (bench/README.md, "Winograd on AVX2"): it
// wins from 28x28 planes with 64 channels (0.54-0.89x the time) and from 14x14 with 128 (0.65-0.98x
// but the weight gradient), and loses on smaller planes and fewer channels, where the transforms
// and the tiles' outputs past the edge cost more than the products save; the weight gradient's
// sums over few tiles per channel pair cost most.
bool suits(DType dtype, const Tensor& weight, int64_t channels_in, int64_t channels_out, int64_t out_h, int64_t out_w,
           const Conv2dParams& p, bool weight_grad) {
  if (!conv_winograd() || onednn_avx512() || dtype != DType::Float32) return false;
  if (weight.size(2) != 3 || weight.size(3) != 3 || p.groups != 1) return false;
  if (p.stride.h != 1 || p.stride.w != 1 || p.dilation.h != 1 || p.dilation.w != 1) return false;
  if (p.padding.h < 0 || p.padding.h > 2 || p.padding.w < 0 || p.padding.w > 2) return false;
  const int64_t positions = out_h * out_w, channels = std::min(channels_in, channels_out);
  if (channels < 64 || out_h < kOut || out_w < kOut) return false;
  if (weight_grad) return positions >= 784;
  return positions >= 784 || (positions >= 196 && channels >= 128);
}

}  // namespace

bool winograd_product_in_range(const Tensor& x, const Tensor& weight, int64_t channels) {
  return in_range(x, weight, static_cast<double>(channels), kProductGain);
}

bool winograd_weight_grad_in_range(const Tensor& x, const Tensor& grad_out) {
  const double tiles =
      static_cast<double>(grad_out.size(0) * ceil_div(grad_out.size(2), kOut) * ceil_div(grad_out.size(3), kOut));
  return in_range(x, grad_out, tiles * kPoints, kWeightGradGain);
}

bool winograd_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Conv2dParams& p) {
  const int64_t N = input.size(0), C = input.size(1), K = weight.size(0);
  if (N == 0 || !suits(out.dtype(), weight, C, K, out.size(2), out.size(3), p, false)) return false;
  if (!winograd_product_in_range(input, weight, C)) return false;
  const Plan g(N, C, K, input.size(2), input.size(3), out.size(2), out.size(3), p.padding.h, p.padding.w);
  const Tensor u = transform_weight(weight.data_ptr<float>(), K, C, false);
  forward(g, input.data_ptr<float>(), u.data_ptr<float>(), bias.defined() ? bias.data_ptr<float>() : nullptr,
          out.data_ptr<float>());
  return true;
}

bool winograd_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                const Conv2dParams& p) {
  const int64_t N = grad_out.size(0), K = grad_out.size(1), C = grad_input.size(1);
  const int64_t H = grad_input.size(2), W = grad_input.size(3);
  if (N == 0 || !suits(grad_out.dtype(), weight, K, C, H, W, p, false)) return false;
  if (!winograd_product_in_range(grad_out, weight, K)) return false;
  // The full correlation of grad_out with the turned kernels: a forward padded 2 - padding, whose
  // output is the input's plane.
  const Plan g(N, K, C, grad_out.size(2), grad_out.size(3), H, W, 2 - p.padding.h, 2 - p.padding.w);
  const Tensor u = transform_weight(weight.data_ptr<float>(), K, C, true);
  forward(g, grad_out.data_ptr<float>(), u.data_ptr<float>(), nullptr, grad_input.data_ptr<float>());
  return true;
}

bool winograd_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                 const Conv2dParams& p) {
  const int64_t N = input.size(0), C = input.size(1), K = grad_out.size(1);
  if (N == 0 || !suits(grad_out.dtype(), grad_weight, C, K, grad_out.size(2), grad_out.size(3), p, true)) return false;
  const Plan g(N, C, K, input.size(2), input.size(3), grad_out.size(2), grad_out.size(3), p.padding.h, p.padding.w);
  if (!winograd_weight_grad_in_range(input, grad_out)) return false;

  // Each part of the chunks sums its tiles into its own du [16, K, C]; the parts are then added in
  // a fixed order, so the bits depend on the thread count, not on timing.
  const Chunks chunks(g);
  const int64_t parts = std::min<int64_t>(available_threads(), chunks.count), most = chunks.bands_each * g.tw;
  const int64_t size = kPoints * g.K * g.C;
  std::vector<Tensor> du(static_cast<size_t>(parts));
  for (Tensor& d : du) d = scratch<float>(size);
  const float *x = input.data_ptr<float>(), *dy = grad_out.data_ptr<float>();
  parallel_for(0, parts, 1, [&](int64_t lo, int64_t hi) {
    Tensor v_buf = scratch<float>(kPoints * g.C * most), m_buf = scratch<float>(kPoints * g.K * most);
    float *v = v_buf.data_ptr<float>(), *m = m_buf.data_ptr<float>();
    BandRows rows(g);
    for (int64_t part = lo; part < hi; ++part) {
      float* sum = du[static_cast<size_t>(part)].data_ptr<float>();
      const int64_t c0 = chunks.count * part / parts, c1 = chunks.count * (part + 1) / parts;
      for (int64_t chunk = c0; chunk < c1; ++chunk) {
        const int64_t b0 = chunks.first(chunk), b1 = chunks.end(g, chunk), tc = (b1 - b0) * g.tw;
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t n = b / g.th, i = b % g.th, t0 = (b - b0) * g.tw;
          transform_input(g, x + n * g.C * g.H * g.W, i, v, tc, t0, rows);
          transform_output_grad(g, dy + n * g.K * g.oH * g.oW, i, m, tc, t0, rows);
        }
        for (int64_t xi = 0; xi < kPoints; ++xi)  // du[xi] (+)= dm[xi] @ v[xi]^T
          gemm<float>({m + xi * g.K * tc, g.K, tc, tc, 1}, {v + xi * g.C * tc, tc, g.C, 1, tc}, sum + xi * g.K * g.C,
                      g.C, chunk > c0);
      }
    }
  });
  float* total = du[0].data_ptr<float>();
  for (size_t part = 1; part < du.size(); ++part) {
    const float* add = du[part].data_ptr<float>();
    for (int64_t i = 0; i < size; ++i) total[i] += add[i];
  }
  // grad_weight[k, c] = G^T du G (G in kernel_1d).
  static constexpr double kG[kPatch][3] = {{1. / 4, 0, 0},
                                           {-1. / 6, -1. / 6, -1. / 6},
                                           {-1. / 6, 1. / 6, -1. / 6},
                                           {1. / 24, 1. / 12, 1. / 6},
                                           {1. / 24, -1. / 12, 1. / 6},
                                           {0, 0, 1}};
  float* gw = grad_weight.data_ptr<float>();
  const int64_t plane = g.K * g.C;
  parallel_for(0, plane, 1024, [&](int64_t lo, int64_t hi) {
    for (int64_t kc = lo; kc < hi; ++kc) {
      double r[3][kPatch];  // G^T du
      for (int a = 0; a < 3; ++a)
        for (int h = 0; h < kPatch; ++h) {
          double sum = 0;
          for (int q = 0; q < kPatch; ++q) sum += kG[q][a] * total[(kPatch * q + h) * plane + kc];
          r[a][h] = sum;
        }
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          double sum = 0;
          for (int h = 0; h < kPatch; ++h) sum += r[a][h] * kG[h][b];
          gw[kc * 9 + a * 3 + b] = static_cast<float>(sum);
        }
    }
  });
  return true;
}

}  // namespace ember::cpu
