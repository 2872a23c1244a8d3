// CPU kernels for batch_norm and layer_norm (ops/normalization.h). Batch norm sees its input as
// [N, C, S]: with S > 1 each (n, c) is a contiguous run reduced or transformed with Eigen, work
// split over channels; with S == 1 ([N, C]) rows of C channels are combined elementwise, vectorised
// across channels. Layer norm works on rows of [R, D], split over rows; its weight and bias
// gradients sum over rows into per-thread partial results. Statistics accumulate in double: a
// float running sum over a whole channel (N * H * W values) would drift. Runs are summed with
// sum_run / sum_blocks, in an order fixed by the length, so the bits never depend on addresses.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <cmath>
#include <vector>

#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/kernels/normalization.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

using ArrD = Eigen::Array<double, Eigen::Dynamic, 1>;

template <typename T>
const T* ptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// One row of layer norm's backward, in double (see cpu_layer_norm_backward), in four passes over
// the row: blocks of kRowBlock values as fixed-size Eigen arrays (straight vector code; the order of
// every sum depends on D alone), the last D % kRowBlock values one by one.
constexpr int64_t kRowBlock = 16;
using Block = Eigen::Array<double, kRowBlock, 1>;

template <typename T>
Block wide_block(const T* p) {
  return Eigen::Map<const Eigen::Array<T, kRowBlock, 1>>(p).template cast<double>();
}

// Buffers of one chunk of rows: xhat, gy and their products, and the weight and bias partials.
struct RowScratch {
  ArrD xhat, gy, prod;
  explicit RowScratch(int64_t D) : xhat(D), gy(D), prod(D) {}
};

template <typename T>
void layer_norm_backward_row(const T* xr, const T* gr, const T* wp, int64_t D, double eps, T saved_mean,
                             T saved_rstd, RowScratch& s, double* part_w, double* part_b, T* gi) {
  const int64_t full = D / kRowBlock * kRowBlock;
  const double x0 = static_cast<double>(xr[0]), n = static_cast<double>(D);
  auto sum_of = [&](const auto& block, const auto& one) {
    Block acc = Block::Zero();
    for (int64_t i = 0; i < full; i += kRowBlock) acc += block(i);
    double total = acc.sum();
    for (int64_t i = full; i < D; ++i) total += one(i);
    return total;
  };
  // Pass 1 and 2: the mean as x0 + mean(x - x0), then the variance about it.
  const double m = sum_of([&](int64_t i) { return Block(wide_block(xr + i) - x0); },
                          [&](int64_t i) { return static_cast<double>(xr[i]) - x0; }) / n;
  const double ss = sum_of([&](int64_t i) { return Block(((wide_block(xr + i) - x0) - m).square()); },
                           [&](int64_t i) {
                             const double d = (static_cast<double>(xr[i]) - x0) - m;
                             return d * d;
                           });
  const double a = 1.0 / std::sqrt(ss / n + eps);
  // Pass 3: xhat, gy = g * w and their products (stored, so rounded before they are summed), the
  // weight and bias partials, and the sum of gy.
  Block acc = Block::Zero();
  for (int64_t i = 0; i < full; i += kRowBlock) {
    const Block xh = ((wide_block(xr + i) - x0) - m) * a, gd = wide_block(gr + i);
    const Block gy = wp ? Block(gd * wide_block(wp + i)) : gd;
    s.xhat.segment<kRowBlock>(i) = xh;
    s.gy.segment<kRowBlock>(i) = gy;
    s.prod.segment<kRowBlock>(i) = gy * xh;
    acc += gy;
    if (part_w) Eigen::Map<Block>(part_w + i) += gd * xh;
    if (part_b) Eigen::Map<Block>(part_b + i) += gd;
  }
  double c1 = acc.sum();
  for (int64_t i = full; i < D; ++i) {
    const double xh = ((static_cast<double>(xr[i]) - x0) - m) * a, gd = static_cast<double>(gr[i]);
    const double gy = wp ? gd * static_cast<double>(wp[i]) : gd;
    s.xhat[i] = xh;
    s.gy[i] = gy;
    s.prod[i] = gy * xh;
    c1 += gy;
    if (part_w) part_w[i] += gd * xh;
    if (part_b) part_b[i] += gd;
  }
  if (!gi) return;
  // NB: the products summed in a pass of their own: summed where they are made, the compiler fused
  // each into a multiply-add, and gy xhat of (g, g) and (c, -c) came out 1e-16, not 0 (PyTorch's 0).
  const double c1m = c1 / n;
  const double c2m = sum_of([&](int64_t i) { return Block(s.prod.segment<kRowBlock>(i)); },
                            [&](int64_t i) { return s.prod[i]; }) / n;
  if (!std::isfinite(c1m) || !std::isfinite(c2m)) {
    // NB: a row whose sums overflow (an infinite weight or gradient) takes PyTorch's form of the same
    // gradient, a * gy + b * x + c, so that its infinities and NaNs come out as PyTorch's.
    using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
    ConstVecMap<T> g(gr, D), x(xr, D);
    Arr gyt = wp ? Arr(g * ConstVecMap<T>(wp, D)) : Arr(g);
    const T at = saved_rstd, db = gyt.sum(), ds = (gyt * x).sum();
    const T b = (db * saved_mean - ds) * at * at * at / static_cast<T>(D);
    const T cc = -b * saved_mean - db * at / static_cast<T>(D);
    VecMap<T>(gi, D) = at * gyt + b * x + cc;
    return;
  }
  // Pass 4: the input gradient, rounded once.
  for (int64_t i = 0; i < full; i += kRowBlock)
    Eigen::Map<Eigen::Array<T, kRowBlock, 1>>(gi + i) =
        (a * ((s.gy.segment<kRowBlock>(i) - c1m) - s.xhat.segment<kRowBlock>(i) * c2m)).template cast<T>();
  for (int64_t i = full; i < D; ++i) gi[i] = static_cast<T>(a * ((s.gy[i] - c1m) - s.xhat[i] * c2m));
}

// Calls channel(c) for every c in [0, C), split over threads; each call reads N runs of S.
template <typename F>
void per_channel(int64_t N, int64_t C, int64_t S, const F& channel) {
  parallel_for(0, C, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(N * S, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t c = lo; c < hi; ++c) channel(c);
               });
}

void cpu_batch_norm_stats(const Tensor& mean, const Tensor& var, const Tensor& x, int64_t N, int64_t C,
                          int64_t S) {
  visit_floating_dtype(x.dtype(), "batch_norm", [&]<typename T>(type_tag<T>) {
    const T* xp = ptr<T>(x);
    T* mp = static_cast<T*>(mean.data_ptr());
    T* vp = static_cast<T*>(var.data_ptr());
    const double inv_m = 1.0 / static_cast<double>(N * S);
    if (S == 1) {
      // Two passes over rows of C: the mean, then the squared deviations from it.
      ArrD sum = ArrD::Zero(C), sq = ArrD::Zero(C);
      for (int64_t n = 0; n < N; ++n) sum += ConstVecMap<T>(xp + n * C, C).template cast<double>();
      ArrD mu = sum / static_cast<double>(N);  // NB: a division, so a constant channel's mean is exact
      for (int64_t n = 0; n < N; ++n)
        sq += (ConstVecMap<T>(xp + n * C, C).template cast<double>() - mu).square();
      VecMap<T>(mp, C) = mu.template cast<T>();
      VecMap<T>(vp, C) = (sq * inv_m).template cast<T>();
      return;
    }
    per_channel(N, C, S, [&](int64_t c) {
      double sum = 0;
      for (int64_t n = 0; n < N; ++n) sum += sum_run_wide(xp + (n * C + c) * S, S);
      double mu = sum / static_cast<double>(N * S);
      double sq = 0;
      const T mu_t = static_cast<T>(mu);
      for (int64_t n = 0; n < N; ++n) {
        const T* xr = xp + (n * C + c) * S;
        sq += static_cast<double>(
            sum_blocks<T>(S, [&](int64_t i, auto len) { return (segment(xr + i, len) - mu_t).square(); }));
      }
      mp[c] = mu_t;
      vp[c] = static_cast<T>(sq * inv_m);
    });
  });
}

void cpu_batch_norm_grad_sums(const Tensor& sum_g, const Tensor& sum_gx, const Tensor& g, const Tensor& x,
                              const Tensor& mean, int64_t N, int64_t C, int64_t S, bool batch_mean) {
  visit_floating_dtype(x.dtype(), "batch_norm", [&]<typename T>(type_tag<T>) {
    const T *gp = ptr<T>(g), *xp = ptr<T>(x), *mp = ptr<T>(mean);
    T* sg = static_cast<T*>(sum_g.data_ptr());
    T* sgx = static_cast<T*>(sum_gx.data_ptr());
    // NB: with the batch's own mean, sum(g (x - mean)) is taken about the stored mean, rounded to T,
    // then corrected by (stored - exact mean) sum(g), the exact mean from x's sum in double: a constant
    // g gives exactly 0 (the mean's rounding times sum(g) made 1e-7 that a tiny variance's invstd^3
    // amplified). The running mean of evaluation is exact as stored.
    const auto m = static_cast<double>(N * S);
    if (S == 1) {
      ArrD a = ArrD::Zero(C), b = ArrD::Zero(C), sx = ArrD::Zero(C);
      ConstVecMap<T> mu(mp, C);
      for (int64_t n = 0; n < N; ++n) {
        ConstVecMap<T> gr(gp + n * C, C), xr(xp + n * C, C);
        a += gr.template cast<double>();
        b += (gr * (xr - mu)).template cast<double>();
        if (batch_mean) sx += xr.template cast<double>();
      }
      VecMap<T>(sg, C) = a.template cast<T>();
      if (batch_mean) b += (mu.template cast<double>() - sx / m) * a;
      VecMap<T>(sgx, C) = b.template cast<T>();
      return;
    }
    per_channel(N, C, S, [&](int64_t c) {
      double a = 0, b = 0, sx = 0;
      const T mu = mp[c];
      for (int64_t n = 0; n < N; ++n) {
        const T *gr = gp + (n * C + c) * S, *xr = xp + (n * C + c) * S;
        a += static_cast<double>(sum_run(gr, S));
        b += static_cast<double>(sum_blocks<T>(
            S, [&](int64_t i, auto len) { return segment(gr + i, len) * (segment(xr + i, len) - mu); }));
        if (batch_mean) sx += sum_run_wide(xr, S);
      }
      sg[c] = static_cast<T>(a);
      sgx[c] = static_cast<T>(batch_mean ? b + (static_cast<double>(mu) - sx / m) * a : b);
    });
  });
}

void cpu_channel_affine(const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& b,
                        const Tensor& b0, const Tensor& kb, const Tensor& k, int64_t N, int64_t C,
                        int64_t S) {
  visit_floating_dtype(out.dtype(), "batch_norm", [&]<typename T>(type_tag<T>) {
    T* op = static_cast<T*>(out.data_ptr());
    const T *ap = ptr<T>(a), *kap = ptr<T>(ka), *bp = ptr<T>(b), *b0p = ptr<T>(b0), *kbp = ptr<T>(kb),
            *kp = ptr<T>(k);
    if (!ap) {  // (b - b0) * kb + k: x == mean normalises to exactly 0 (x * k + shift need not)
      parallel_for(0, N * C, std::max<int64_t>(1, kElementwiseGrain / S), [&](int64_t lo, int64_t hi) {
        for (int64_t nc = lo; nc < hi; ++nc) {
          int64_t c = nc % C;
          VecMap<T>(op + nc * S, S) = (ConstVecMap<T>(bp + nc * S, S) - b0p[c]) * kbp[c] + kp[c];
        }
      });
      return;
    }
    if (S == 1) {
      ConstVecMap<T> kav(kap, C), kv(kp, C);
      parallel_for(0, N, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(C, 1)),
                   [&](int64_t lo, int64_t hi) {
                     for (int64_t n = lo; n < hi; ++n) {
                       VecMap<T> o(op + n * C, C);
                       ConstVecMap<T> ar(ap + n * C, C);
                       if (bp)
                         o = ar * kav + (ConstVecMap<T>(bp + n * C, C) - ConstVecMap<T>(b0p, C)) *
                                            ConstVecMap<T>(kbp, C) + kv;
                       else
                         o = ar * kav + kv;
                     }
                   });
      return;
    }
    parallel_for(0, N * C, std::max<int64_t>(1, kElementwiseGrain / S), [&](int64_t lo, int64_t hi) {
      for (int64_t nc = lo; nc < hi; ++nc) {
        int64_t c = nc % C;
        VecMap<T> o(op + nc * S, S);
        ConstVecMap<T> ar(ap + nc * S, S);
        if (bp)
          o = ar * kap[c] + (ConstVecMap<T>(bp + nc * S, S) - b0p[c]) * kbp[c] + kp[c];
        else
          o = ar * kap[c] + kp[c];
      }
    });
  });
}

void cpu_layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                    const Tensor& weight, const Tensor& bias, double eps) {
  visit_floating_dtype(x.dtype(), "layer_norm", [&]<typename T>(type_tag<T>) {
    int64_t R = mean.numel(), D = x.numel() / R;
    const T *xp = ptr<T>(x), *wp = ptr<T>(weight), *bp = ptr<T>(bias);
    T *op = static_cast<T*>(out.data_ptr()), *mp = static_cast<T*>(mean.data_ptr()),
      *rp = static_cast<T*>(rstd.data_ptr());
    parallel_for(0, R, std::max<int64_t>(1, kElementwiseGrain / D), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        ConstVecMap<T> xr(xp + r * D, D);
        VecMap<T> o(op + r * D, D);
        // Two passes over the row (in cache): the mean, then the squared deviations from it. The mean is
        // x0 + mean(x - x0), in double: that of a constant row is exactly its value (for float64 too), as
        // PyTorch's Welford statistics give, so its deviations are 0 (1 / sqrt(eps) amplifies any noise).
        // The mean is kept as mu + dmu, mu rounded to T and dmu the rest: x - mu is exact near the mean,
        // and a row of nearly equal values (std 5e-4 at 7.7) loses nothing to mu's rounding, which 1 /
        // std would scale into the output (4e-4 off).
        const T* x_row = xp + r * D;
        const double x0 = static_cast<double>(x_row[0]);
        const double mean = x0 + sum_blocks<double>(D, [&](int64_t i, auto len) {
                              return segment(x_row + i, len).template cast<double>() - x0;
                            }) / static_cast<double>(D);
        const T mu = static_cast<T>(mean), dmu = static_cast<T>(mean - static_cast<double>(mu));
        double var = static_cast<double>(sum_blocks<T>(D, [&](int64_t i, auto len) {
                       return ((segment(x_row + i, len) - mu) - dmu).square();
                     })) / static_cast<double>(D);
        T rs = static_cast<T>(1.0 / std::sqrt(var + eps));
        mp[r] = mu;
        rp[r] = rs;
        // NB: a missing bias adds +0, as PyTorch's (x - mean) * rstd * weight + 0: a zero weight gives +0
        if (wp && bp)
          o = ((xr - mu) - dmu) * rs * ConstVecMap<T>(wp, D) + ConstVecMap<T>(bp, D);
        else if (wp)
          o = ((xr - mu) - dmu) * rs * ConstVecMap<T>(wp, D) + T(0);
        else if (bp)
          o = ((xr - mu) - dmu) * rs + ConstVecMap<T>(bp, D);
        else
          o = ((xr - mu) - dmu) * rs + T(0);
      }
    });
  });
}

void cpu_layer_norm_backward(const Tensor& grad_in, const Tensor& grad_weight, const Tensor& grad_bias,
                             const Tensor& g, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                             const Tensor& weight, double eps) {
  visit_floating_dtype(x.dtype(), "layer_norm", [&]<typename T>(type_tag<T>) {
    int64_t R = mean.numel(), D = x.numel() / R;
    const T *gp = ptr<T>(g), *xp = ptr<T>(x), *mp = ptr<T>(mean), *rp = ptr<T>(rstd), *wp = ptr<T>(weight);
    T* gip = grad_in.defined() ? static_cast<T*>(grad_in.data_ptr()) : nullptr;
    bool want_w = grad_weight.defined(), want_b = grad_bias.defined();
    // Weight and bias gradients sum over rows: each chunk of rows sums into its own partial.
    const int threads = available_threads();
    int64_t chunks = R * D < kElementwiseGrain ? 1 : std::min<int64_t>(threads, R);
    std::vector<ArrD> part_w(static_cast<size_t>(want_w ? chunks : 0), ArrD::Zero(want_w ? D : 0));
    std::vector<ArrD> part_b(static_cast<size_t>(want_b ? chunks : 0), ArrD::Zero(want_b ? D : 0));
    auto rows = [&](int64_t c0, int64_t c1) {
      // NB: in double, rounded once at the end: rstd * (gy - mean(gy) - xhat mean(gy xhat)) cancels (to
      // exactly 0 for a two-element row), and float32 roundings of its terms, times rstd, were its noise.
      // The row's statistics are recomputed in double too: with the saved float32 rstd, xhat of a
      // two-element row is +-(1 + 6e-8), and the cancellation left that, times rstd, as the gradient.
      RowScratch scratch(D);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = R * c / chunks; r < R * (c + 1) / chunks; ++r)
          layer_norm_backward_row<T>(xp + r * D, gp + r * D, wp, D, eps, mp[r], rp[r], scratch,
                                     want_w ? part_w[static_cast<size_t>(c)].data() : nullptr,
                                     want_b ? part_b[static_cast<size_t>(c)].data() : nullptr,
                                     gip ? gip + r * D : nullptr);
    };
    if (chunks == 1)
      rows(0, 1);  // NB: parallel_for would open a parallel region even for one chunk
    else
      parallel_for(0, chunks, 1, rows);
    for (int64_t c = 1; c < chunks; ++c) {
      if (want_w) part_w[0] += part_w[static_cast<size_t>(c)];
      if (want_b) part_b[0] += part_b[static_cast<size_t>(c)];
    }
    if (want_w) VecMap<T>(static_cast<T*>(grad_weight.data_ptr()), D) = part_w[0].template cast<T>();
    if (want_b) VecMap<T>(static_cast<T*>(grad_bias.data_ptr()), D) = part_b[0].template cast<T>();
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(batch_norm_stats_stub, DeviceType::CPU, (widened<&cpu_batch_norm_stats, 0, 1>));
EMBER_REGISTER_KERNEL(batch_norm_grad_sums_stub, DeviceType::CPU, (widened<&cpu_batch_norm_grad_sums, 0, 1>));
EMBER_REGISTER_KERNEL(channel_affine_stub, DeviceType::CPU, (widened<&cpu_channel_affine, 0>));
EMBER_REGISTER_KERNEL(layer_norm_stub, DeviceType::CPU, (widened<&cpu_layer_norm, 0, 1, 2>));
EMBER_REGISTER_KERNEL(layer_norm_backward_stub, DeviceType::CPU, (widened<&cpu_layer_norm_backward, 0, 1, 2>));

}  // namespace ember::cpu
