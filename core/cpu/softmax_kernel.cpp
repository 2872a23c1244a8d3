// CPU kernels for softmax / log_softmax and their backward (ops/softmax.h). Inputs are made
// contiguous and seen as [O, R, I] with R the softmax dim. When the dim is innermost (I == 1, the
// usual last-dim softmax) each row is one Eigen array expression; otherwise rows of I values are
// combined elementwise, so both cases are vectorised. Row sums run in an order fixed by the row
// length (sum_run), never by the address.
// NB: GCC 12 flags Eigen's AVX-512 min/max/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <cmath>
#include <utility>

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/math.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/kernels/softmax.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

template <typename T>
using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;

struct Layout {
  int64_t O = 1, R = 1, I = 1;
};

Layout layout_of(const Tensor& t, int64_t dim) {
  Layout l;
  if (t.dim() == 0) return l;
  for (int64_t d = 0; d < dim; ++d) l.O *= t.size(d);
  l.R = t.size(dim);
  for (int64_t d = dim + 1; d < t.dim(); ++d) l.I *= t.size(d);
  return l;
}

// Calls f(o0, o1, i0, i1) over parallel chunks: by O when there are enough, else by I.
template <typename F>
void split_work(const Layout& l, const F& f) {
  int64_t per_o = l.R * l.I;
  if (l.O > 1 || l.I == 1 || per_o < kElementwiseGrain) {
    parallel_for(0, l.O, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(per_o, 1)),
                 [&](int64_t lo, int64_t hi) { f(lo, hi, 0, l.I); });
  } else {
    parallel_for(0, l.I, std::max<int64_t>(16, kElementwiseGrain / l.R),
                 [&](int64_t lo, int64_t hi) { f(0, 1, lo, hi); });
  }
}

// A row's max m (NaN where the row holds one) and the log of its sum of exp(x - m): log_softmax is
// (x - m) - log_sum, exact for the largest element even when |m| is large. Shared by log_softmax and
// cross entropy's rows, so that both give the same bits.
template <typename T>
std::pair<T, T> max_and_log_sum(const T* x, int64_t R) {
  const T m = extreme_run<true>(x, R);
  return {m, std::log(sum_blocks<T>(R, [&](int64_t i, auto len) { return exp_of(segment(x + i, len) - m); }))};
}

template <typename T>
void softmax_row(T* out, const T* x, int64_t R, bool log) {
  ConstVecMap<T> v(x, R);
  VecMap<T> o(out, R);
  if (log) {
    const auto [m, log_sum] = max_and_log_sum(x, R);
    o = (v - m) - log_sum;
  } else {
    exp_shifted(x, out, R, extreme_run<true>(x, R));
    o *= T(1) / sum_run(out, R);
  }
}

template <typename T>
void softmax_cols(T* out, const T* x, int64_t R, int64_t I, int64_t i0, int64_t i1, bool log,
                  Arr<T>& m, Arr<T>& s) {
  int64_t n = i1 - i0;
  auto row = [&](int64_t r) { return ConstVecMap<T>(x + r * I + i0, n); };
  auto orow = [&](int64_t r) { return VecMap<T>(out + r * I + i0, n); };
  m = row(0);
  for (int64_t r = 1; r < R; ++r) m = m.max(row(r));
  s.setZero(n);
  for (int64_t r = 0; r < R; ++r) {
    if (log) {
      s += exp_of(row(r) - m);
    } else {
      orow(r) = exp_of(row(r) - m);
      s += orow(r);
    }
  }
  if (log) {
    s = log_of(s);
    for (int64_t r = 0; r < R; ++r) orow(r) = (row(r) - m) - s;
  } else {
    s = s.inverse();
    for (int64_t r = 0; r < R; ++r) orow(r) *= s;
  }
}

void cpu_softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  Tensor src = contiguous_data(in);
  Layout l = layout_of(src, dim);
  visit_floating_dtype(in.dtype(), log ? "log_softmax" : "softmax", [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(src.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    split_work(l, [&](int64_t o0, int64_t o1, int64_t i0, int64_t i1) {
      Arr<T> m, s;
      for (int64_t k = o0; k < o1; ++k) {
        int64_t off = k * l.R * l.I;
        if (l.I == 1)
          softmax_row<T>(o + off, x + off, l.R, log);
        else
          softmax_cols<T>(o + off, x + off, l.R, l.I, i0, i1, log, m, s);
      }
    });
  });
}

template <typename T>
void softmax_backward_row(T* gi, const T* g, const T* y, int64_t R, bool log) {
  ConstVecMap<T> gv(g, R), yv(y, R);
  VecMap<T> o(gi, R);
  if (log)
    o = gv - exp_of(yv) * sum_run(g, R);
  else
    o = yv * (gv - sum_blocks<T>(R, [&](int64_t i, auto len) { return segment(g + i, len) * segment(y + i, len); }));
}

template <typename T>
void softmax_backward_cols(T* gi, const T* g, const T* y, int64_t R, int64_t I, int64_t i0,
                           int64_t i1, bool log, Arr<T>& s) {
  int64_t n = i1 - i0;
  auto at = [&](const T* p, int64_t r) { return ConstVecMap<T>(p + r * I + i0, n); };
  s.setZero(n);
  for (int64_t r = 0; r < R; ++r) {
    if (log)
      s += at(g, r);
    else
      s += at(g, r) * at(y, r);
  }
  for (int64_t r = 0; r < R; ++r) {
    VecMap<T> o(gi + r * I + i0, n);
    if (log)
      o = at(g, r) - exp_of(at(y, r)) * s;
    else
      o = at(y, r) * (at(g, r) - s);
  }
}

void cpu_softmax_backward(const Tensor& grad_in, const Tensor& grad, const Tensor& y, int64_t dim,
                          bool log) {
  Tensor gc = contiguous_data(grad), yc = contiguous_data(y);
  Layout l = layout_of(yc, dim);
  visit_floating_dtype(y.dtype(), log ? "log_softmax" : "softmax", [&]<typename T>(type_tag<T>) {
    const T* g = static_cast<const T*>(gc.data_ptr());
    const T* yp = static_cast<const T*>(yc.data_ptr());
    T* o = static_cast<T*>(grad_in.data_ptr());
    split_work(l, [&](int64_t o0, int64_t o1, int64_t i0, int64_t i1) {
      Arr<T> s;
      for (int64_t k = o0; k < o1; ++k) {
        int64_t off = k * l.R * l.I;
        if (l.I == 1)
          softmax_backward_row<T>(o + off, g + off, yp + off, l.R, log);
        else
          softmax_backward_cols<T>(o + off, g + off, yp + off, l.R, l.I, i0, i1, log, s);
      }
    });
  });
}

// Cross entropy's rows: the forward reads each row twice (max, then the sum of exponentials) and
// writes two statistics and the loss; the backward reads it once more and writes the gradient.
// The log-probabilities are never stored: log_softmax then nll_loss wrote and reread them, and
// nll_loss's gradient was a zero-filled [N, C] tensor read once more.
template <typename T>
void log_softmax_nll_row(T* loss, T* stats, const T* x, int64_t R, int64_t target) {
  const auto [m, log_sum] = max_and_log_sum(x, R);
  stats[0] = m;
  stats[1] = log_sum;
  *loss = -((x[target] - m) - log_sum);
}

void cpu_log_softmax_nll(const Tensor& loss, const Tensor& stats, const Tensor& logits, const Tensor& target) {
  const Tensor src = contiguous_data(logits), tc = contiguous_data(target);
  const int64_t N = src.size(0), C = src.size(1);
  visit_floating_dtype(src.dtype(), "cross_entropy", [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(src.data_ptr());
    const int64_t* t = static_cast<const int64_t*>(tc.data_ptr());
    T* l = static_cast<T*>(loss.data_ptr());
    T* st = static_cast<T*>(stats.data_ptr());
    parallel_for(0, N, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(C, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) log_softmax_nll_row<T>(l + i, st + 2 * i, x + i * C, C, t[i]);
    });
  });
}

void cpu_log_softmax_nll_backward(const Tensor& grad_logits, const Tensor& grad, const Tensor& logits,
                                  const Tensor& stats, const Tensor& target) {
  const Tensor src = contiguous_data(logits), tc = contiguous_data(target), gc = contiguous_data(grad);
  const int64_t N = src.size(0), C = src.size(1);
  visit_floating_dtype(src.dtype(), "cross_entropy", [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(src.data_ptr());
    const T* st = static_cast<const T*>(stats.data_ptr());
    const T* g = static_cast<const T*>(gc.data_ptr());
    const int64_t* t = static_cast<const int64_t*>(tc.data_ptr());
    T* o = static_cast<T*>(grad_logits.data_ptr());
    parallel_for(0, N, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(C, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        // NB: every element, even where g is 0: a NaN logit gives NaN, as log_softmax's gradient does
        VecMap<T>(o + i * C, C) = exp_of((ConstVecMap<T>(x + i * C, C) - st[2 * i]) - st[2 * i + 1]) * g[i];
        o[i * C + t[i]] -= g[i];
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(log_softmax_nll_stub, DeviceType::CPU, &cpu_log_softmax_nll);
EMBER_REGISTER_KERNEL(log_softmax_nll_backward_stub, DeviceType::CPU, &cpu_log_softmax_nll_backward);
EMBER_REGISTER_KERNEL(softmax_stub, DeviceType::CPU, (widened<&cpu_softmax, 0>));
EMBER_REGISTER_KERNEL(softmax_backward_stub, DeviceType::CPU, (widened<&cpu_softmax_backward, 0>));

}  // namespace ember::cpu
