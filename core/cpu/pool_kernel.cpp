// CPU kernels for 2-D pooling (ops/pool.h). Every (n, c) plane is pooled independently, so planes
// are split over threads. Within a plane, each output row is built up one kernel tap at a time
// over all its columns: the inner loops run along a row with no dependence between iterations
// (vectorisable, and for max pooling free of unpredictable branches). Window bounds are worked
// out once per call and shared by all planes.
#include <algorithm>
#include <limits>
#include <vector>

#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/pool.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Smallest o >= 0 with offset + o * step >= bound.
int64_t first_at_least(int64_t bound, int64_t offset, int64_t step) {
  int64_t need = bound - offset;
  return need <= 0 ? 0 : (need + step - 1) / step;
}

// Window o along one axis reads start + t * dilation for taps t in [begin, end) (the in-bounds
// ones); `padded` is the window's length counting padding, up to in + pad (avg_pool's divisor
// with count_include_pad).
struct Window {
  int64_t start, begin, end, padded;
};

std::vector<Window> windows(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  std::vector<Window> ws(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = o * stride - pad;
    int64_t begin = std::min(k, first_at_least(0, start, dilation));
    int64_t end = std::max(begin, std::min(k, first_at_least(in, start, dilation)));
    ws[static_cast<size_t>(o)] = {start, begin, end, std::min(start + k, in + pad) - start};
  }
  return ws;
}

// For kernel tap t along the columns: the output columns [lo, hi) for which it is in bounds,
// reading input column o * stride + offset.
struct TapRun {
  int64_t lo, hi, offset;
};

std::vector<TapRun> tap_runs(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  std::vector<TapRun> runs(static_cast<size_t>(k));
  for (int64_t t = 0; t < k; ++t) {
    int64_t offset = t * dilation - pad;
    int64_t lo = std::min(out, first_at_least(0, offset, stride));
    int64_t hi = std::max(lo, std::min(out, first_at_least(in, offset, stride)));
    runs[static_cast<size_t>(t)] = {lo, hi, offset};
  }
  return runs;
}

// The inner loops, over the output columns a kernel tap covers. NB: restrict lets GCC vectorise
// them (the stores cannot then reach the loads), which also makes max pooling branch-free: the
// comparison is unpredictable on real data, and mispredicted branches cost more than the loads.

// best[i], arg[i] = max(best[i], src[i * stride]) and its index base + i * stride; NaN wins, and
// so does the first of equal values, as in PyTorch.
template <typename T>
void max_run(T* __restrict best, int64_t* __restrict arg, const T* __restrict src, int64_t n,
             int64_t stride, int64_t base) {
  for (int64_t i = 0; i < n; ++i) {
    const T v = src[i * stride], cur = best[i];
    const bool take = (v > cur) | (v != v);
    best[i] = take ? v : cur;
    arg[i] = take ? base + i * stride : arg[i];
  }
}

// acc[i] += src[i * stride]
template <typename T>
void add_run(T* __restrict acc, const T* __restrict src, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) acc[i] += src[i * stride];
}

// dst[i * stride] += share[i]
template <typename T>
void scatter_run(T* __restrict dst, const T* __restrict share, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) dst[i * stride] += share[i];
}

// Splits `planes` planes of `work` element visits each over threads.
template <typename F>
void over_planes(int64_t planes, int64_t work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(work, 1)), f);
}

// One plane of the common 2x2 window with stride 2 whose windows all lie inside the input:
// output j's window starts at xp[corner[j]]. Its four taps are folded in row-major order with
// max_run's rule, in one loop over the whole plane that GCC vectorises with gathers. (A loop per
// output row is too short for the vector units: 7 or 14 outputs in a small CNN, mostly left to
// the scalar epilogue, whose NaN test branches; it was 6 times slower.)
template <typename T>
void max_pool_2x2_plane(const T* __restrict xp, T* __restrict best, int64_t* __restrict arg,
                        const int64_t* __restrict corner, int64_t n, int64_t W) {
  for (int64_t j = 0; j < n; ++j) {
    const int64_t c = corner[j];
    const T v0 = xp[c], v1 = xp[c + 1], v2 = xp[c + W], v3 = xp[c + W + 1];
    T m = v0;
    int64_t tap = 0;  // the winner's flat offset from the window's first element
    bool take = (v1 > m) | (v1 != v1);
    m = take ? v1 : m;
    tap = take ? 1 : tap;
    take = (v2 > m) | (v2 != v2);
    m = take ? v2 : m;
    tap = take ? W : tap;
    take = (v3 > m) | (v3 != v3);
    m = take ? v3 : m;
    tap = take ? W + 1 : tap;
    best[j] = m;
    arg[j] = c + tap;
  }
}

template <typename T>
void max_pool(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& p) {
  const int64_t H = input.size(2), W = input.size(3), oH = out.size(2), oW = out.size(3);
  if (p.kernel == Size2(2, 2) && p.stride == Size2(2, 2) && p.padding == Size2(0, 0) && p.dilation == Size2(1, 1) &&
      2 * oH <= H && 2 * oW <= W) {
    const T* x = input.data_ptr<T>();
    T* o = out.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    std::vector<int64_t> corner(static_cast<size_t>(oH * oW));
    for (int64_t oh = 0; oh < oH; ++oh)
      for (int64_t ow = 0; ow < oW; ++ow) corner[static_cast<size_t>(oh * oW + ow)] = 2 * oh * W + 2 * ow;
    over_planes(input.size(0) * input.size(1), oH * oW * 4, [&](int64_t lo, int64_t hi) {
      for (int64_t plane = lo; plane < hi; ++plane)
        max_pool_2x2_plane(x + plane * H * W, o + plane * oH * oW, idx + plane * oH * oW, corner.data(), oH * oW, W);
    });
    return;
  }
  const auto rows = windows(H, oH, p.kernel.h, p.stride.h, p.padding.h, p.dilation.h);
  const auto cols = windows(W, oW, p.kernel.w, p.stride.w, p.padding.w, p.dilation.w);
  const auto runs = tap_runs(W, oW, p.kernel.w, p.stride.w, p.padding.w, p.dilation.w);
  const T* x = input.data_ptr<T>();
  T* o = out.data_ptr<T>();
  int64_t* idx = indices.data_ptr<int64_t>();
  const int64_t sw = p.stride.w, dh = p.dilation.h;
  over_planes(input.size(0) * input.size(1), oH * oW * p.kernel.h * p.kernel.w, [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      const T* xp = x + plane * H * W;
      for (int64_t oh = 0; oh < oH; ++oh) {
        const Window& r = rows[static_cast<size_t>(oh)];
        T* best = o + (plane * oH + oh) * oW;
        int64_t* arg = idx + (plane * oH + oh) * oW;
        // A window of -inf points at its first element, as in PyTorch.
        const int64_t first_row = (r.start + r.begin * dh) * W;
        for (int64_t ow = 0; ow < oW; ++ow) {
          const Window& c = cols[static_cast<size_t>(ow)];
          best[ow] = -std::numeric_limits<T>::infinity();
          arg[ow] = first_row + c.start + c.begin * p.dilation.w;
        }
        // Taps in row-major window order, so the first maximum wins.
        for (int64_t ki = r.begin; ki < r.end; ++ki) {
          const int64_t row = (r.start + ki * dh) * W;
          const T* src = xp + row;
          for (const TapRun& t : runs)
            max_run(best + t.lo, arg + t.lo, src + t.lo * sw + t.offset, t.hi - t.lo, sw, row + t.lo * sw + t.offset);
        }
      }
    }
  });
}

template <typename T>
void max_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  const int64_t plane_in = grad_input.size(2) * grad_input.size(3);
  const int64_t plane_out = grad_out.size(2) * grad_out.size(3);
  T* gi = grad_input.data_ptr<T>();
  const T* go = grad_out.data_ptr<T>();
  const int64_t* idx = indices.data_ptr<int64_t>();
  over_planes(grad_input.size(0) * grad_input.size(1), plane_in + plane_out, [&](int64_t lo, int64_t hi) {
    std::fill(gi + lo * plane_in, gi + hi * plane_in, T(0));
    for (int64_t plane = lo; plane < hi; ++plane) {
      T* gp = gi + plane * plane_in;
      for (int64_t j = plane * plane_out; j < (plane + 1) * plane_out; ++j) {
        int64_t i = idx[j];
        if (i >= 0 && i < plane_in) gp[i] += go[j];  // NB: indices may come from a user's tensor
      }
    }
  });
}

// Divisor of the window (r, c), or 0 for a window with no input inside it (its output is 0).
int64_t avg_divisor(const Window& r, const Window& c, const Pool2dParams& p) {
  const int64_t valid = (r.end - r.begin) * (c.end - c.begin);
  if (valid == 0) return 0;
  if (p.divisor_override) return *p.divisor_override;
  return p.count_include_pad ? r.padded * c.padded : valid;
}

// Adaptive windows along one axis: [floor(o * in / out), ceil((o + 1) * in / out)).
std::vector<Window> adaptive_windows(int64_t in, int64_t out) {
  std::vector<Window> ws(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t begin = o * in / out, end = ((o + 1) * in + out - 1) / out;
    ws[static_cast<size_t>(o)] = {0, begin, end, end - begin};
  }
  return ws;
}

// Average pooling and its adjoint share the geometry: window bounds, divisors and, for fixed
// windows, the per-tap column runs.
struct AvgGeometry {
  int64_t H, W, oH, oW, sw;
  bool adaptive;
  std::vector<Window> rows, cols;
  std::vector<TapRun> runs;
  std::vector<int64_t> divisors;  // oH * oW

  AvgGeometry(int64_t h, int64_t w, int64_t oh, int64_t ow, const Pool2dParams& p)
      : H(h), W(w), oH(oh), oW(ow), sw(p.stride.w), adaptive(p.adaptive) {
    if (adaptive) {
      rows = adaptive_windows(H, oH);
      cols = adaptive_windows(W, oW);
    } else {
      rows = windows(H, oH, p.kernel.h, p.stride.h, p.padding.h, 1);
      cols = windows(W, oW, p.kernel.w, p.stride.w, p.padding.w, 1);
      runs = tap_runs(W, oW, p.kernel.w, p.stride.w, p.padding.w, 1);
    }
    divisors.reserve(static_cast<size_t>(oH * oW));
    Pool2dParams q = p;
    if (adaptive) {  // an adaptive window divides by its own size
      q.count_include_pad = false;
      q.divisor_override.reset();
    }
    for (const Window& r : rows)
      for (const Window& c : cols) divisors.push_back(avg_divisor(r, c, q));
  }
  // Input rows [row_begin, row_end) of output row oh.
  int64_t row_begin(int64_t oh) const {
    const Window& r = rows[static_cast<size_t>(oh)];
    return r.start + r.begin;
  }
  int64_t row_end(int64_t oh) const {
    const Window& r = rows[static_cast<size_t>(oh)];
    return r.start + r.end;
  }
  int64_t work() const {
    int64_t kh = 0, kw = 0;
    for (const Window& r : rows) kh = std::max(kh, r.end - r.begin);
    for (const Window& c : cols) kw = std::max(kw, c.end - c.begin);
    return H * W + oH * oW * std::max<int64_t>(kh * kw, 1);
  }
};

template <typename T>
void avg_pool(const Tensor& out, const Tensor& input, const Pool2dParams& p) {
  const AvgGeometry g(input.size(2), input.size(3), out.size(2), out.size(3), p);
  const T* x = input.data_ptr<T>();
  T* o = out.data_ptr<T>();
  over_planes(input.size(0) * input.size(1), g.work(), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      const T* xp = x + plane * g.H * g.W;
      for (int64_t oh = 0; oh < g.oH; ++oh) {
        T* acc = o + (plane * g.oH + oh) * g.oW;
        std::fill(acc, acc + g.oW, T(0));
        for (int64_t ih = g.row_begin(oh); ih < g.row_end(oh); ++ih) {
          const T* src = xp + ih * g.W;
          if (g.adaptive) {
            for (int64_t ow = 0; ow < g.oW; ++ow) {
              const Window& c = g.cols[static_cast<size_t>(ow)];
              for (int64_t iw = c.begin; iw < c.end; ++iw) acc[ow] += src[iw];
            }
          } else {
            for (const TapRun& t : g.runs) add_run(acc + t.lo, src + t.lo * g.sw + t.offset, t.hi - t.lo, g.sw);
          }
        }
        const int64_t* div = g.divisors.data() + oh * g.oW;
        for (int64_t ow = 0; ow < g.oW; ++ow) acc[ow] = div[ow] == 0 ? T(0) : acc[ow] / static_cast<T>(div[ow]);
      }
    }
  });
}

template <typename T>
void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& p) {
  const AvgGeometry g(grad_input.size(2), grad_input.size(3), grad_out.size(2), grad_out.size(3), p);
  T* gi = grad_input.data_ptr<T>();
  const T* go = grad_out.data_ptr<T>();
  over_planes(grad_input.size(0) * grad_input.size(1), g.work(), [&](int64_t lo, int64_t hi) {
    std::vector<T> share(static_cast<size_t>(g.oW));
    std::fill(gi + lo * g.H * g.W, gi + hi * g.H * g.W, T(0));
    for (int64_t plane = lo; plane < hi; ++plane) {
      T* gp = gi + plane * g.H * g.W;
      for (int64_t oh = 0; oh < g.oH; ++oh) {
        const T* grow = go + (plane * g.oH + oh) * g.oW;
        const int64_t* div = g.divisors.data() + oh * g.oW;
        for (int64_t ow = 0; ow < g.oW; ++ow)
          share[static_cast<size_t>(ow)] = div[ow] == 0 ? T(0) : grow[ow] / static_cast<T>(div[ow]);
        for (int64_t ih = g.row_begin(oh); ih < g.row_end(oh); ++ih) {
          T* dst = gp + ih * g.W;
          if (g.adaptive) {
            for (int64_t ow = 0; ow < g.oW; ++ow) {
              const Window& c = g.cols[static_cast<size_t>(ow)];
              for (int64_t iw = c.begin; iw < c.end; ++iw) dst[iw] += share[static_cast<size_t>(ow)];
            }
          } else {
            for (const TapRun& t : g.runs)
              scatter_run(dst + t.lo * g.sw + t.offset, share.data() + t.lo, t.hi - t.lo, g.sw);
          }
        }
      }
    }
  });
}

// Adaptive windows differ in size, so each is a loop of its own; the rule is max_run's (NaN wins,
// and the first of equal values).
template <typename T>
void adaptive_max_pool(const Tensor& out, const Tensor& indices, const Tensor& input) {
  const int64_t H = input.size(2), W = input.size(3), oH = out.size(2), oW = out.size(3);
  const auto rows = adaptive_windows(H, oH), cols = adaptive_windows(W, oW);
  const T* x = input.data_ptr<T>();
  T* o = out.data_ptr<T>();
  int64_t* idx = indices.data_ptr<int64_t>();
  over_planes(input.size(0) * input.size(1), H * W + oH * oW, [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      const T* xp = x + plane * H * W;
      for (int64_t oh = 0; oh < oH; ++oh) {
        const Window& r = rows[static_cast<size_t>(oh)];
        for (int64_t ow = 0; ow < oW; ++ow) {
          const Window& c = cols[static_cast<size_t>(ow)];
          T best = -std::numeric_limits<T>::infinity();
          int64_t arg = r.begin * W + c.begin;
          for (int64_t ih = r.begin; ih < r.end; ++ih)
            for (int64_t iw = c.begin; iw < c.end; ++iw) {
              const T v = xp[ih * W + iw];
              if (v > best || v != v) {
                best = v;
                arg = ih * W + iw;
              }
            }
          o[(plane * oH + oh) * oW + ow] = best;
          idx[(plane * oH + oh) * oW + ow] = arg;
        }
      }
    }
  });
}

void cpu_max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& p) {
  visit_floating_dtype(input.dtype(), "max_pool2d", [&]<typename T>(type_tag<T>) {
    if (p.adaptive)
      adaptive_max_pool<T>(out, indices, input);
    else
      max_pool<T>(out, indices, input, p);
  });
}
void cpu_max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  visit_floating_dtype(grad_out.dtype(), "max_pool2d",
                       [&]<typename T>(type_tag<T>) { max_pool_backward<T>(grad_input, grad_out, indices); });
}
void cpu_avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p) {
  visit_floating_dtype(input.dtype(), "avg_pool2d", [&]<typename T>(type_tag<T>) { avg_pool<T>(out, input, p); });
}
void cpu_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& p) {
  visit_floating_dtype(grad_out.dtype(), "avg_pool2d",
                       [&]<typename T>(type_tag<T>) { avg_pool_backward<T>(grad_input, grad_out, p); });
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool2d_stub, DeviceType::CPU, (widened<&cpu_max_pool2d, 0>));
EMBER_REGISTER_KERNEL(max_pool2d_backward_stub, DeviceType::CPU, (widened<&cpu_max_pool2d_backward, 0>));
EMBER_REGISTER_KERNEL(avg_pool2d_stub, DeviceType::CPU, (widened<&cpu_avg_pool2d, 0>));
EMBER_REGISTER_KERNEL(avg_pool2d_backward_stub, DeviceType::CPU, (widened<&cpu_avg_pool2d_backward, 0>));

}  // namespace ember::cpu
