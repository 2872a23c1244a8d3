// CPU kernels of fused scaled dot-product attention (core/kernels/attention.h). Each batch entry's
// query rows are taken a block at a time: the block's scores come from one gemm into a buffer
// that stays in cache, are scaled, masked and turned into probabilities row by row, and one more
// gemm multiplies them into the output; nothing is recorded for autograd. The backward takes the
// probabilities the forward kept, or recomputes each block's from the row log-sum-exps
// (FlashAttention's scheme) when they were not kept, and accumulates the key and value gradients
// over the blocks of an entry in a fixed order. Under a causal mask a block stops at the last key
// its last row may see, and each row's exp at its own last key.
// NB: GCC 12 flags Eigen's AVX-512 min/max/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/core/cpu/gemm.h"
#include "ember/core/cpu/gemm_operand.h"
#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/math.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/kernels/attention.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Scores per block (rows x keys) below which a block holds every query row of an entry: about
// 64 KiB of float, so a block's scores stay in L2 between the two gemms.
constexpr int64_t kBlockScores = 16384;
// Multiply-adds a thread's share of the tasks should hold before work is split.
constexpr int64_t kThreadWork = int64_t{1} << 16;

// The element offset of each batch entry (flat index over the dims before the last two).
std::vector<int64_t> batch_offsets(const Tensor& t) {
  const int64_t nd = t.dim() - 2;
  int64_t count = 1;
  for (int64_t d = 0; d < nd; ++d) count *= t.size(d);
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    int64_t off = 0, rem = b;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += (rem % t.size(d)) * t.stride(d);
      rem /= t.size(d);
    }
    out[static_cast<size_t>(b)] = off;
  }
  return out;
}

// One matrix operand: the base of each batch entry and the strides of its last two dims.
template <typename T>
struct Operand {
  const T* data = nullptr;
  std::vector<int64_t> offsets;
  int64_t row_stride = 0, col_stride = 0;

  Operand() = default;
  explicit Operand(const Tensor& t)
      : data(static_cast<const T*>(t.data_ptr())), offsets(batch_offsets(t)),
        row_stride(t.stride(-2)), col_stride(t.stride(-1)) {}
  /// Rows [r0, r0 + rows) of entry b as a gemm operand of `cols` columns.
  MatrixRef<T> rows(int64_t b, int64_t r0, int64_t rows, int64_t cols) const {
    return {data + offsets[static_cast<size_t>(b)] + r0 * row_stride, rows, cols, row_stride, col_stride};
  }
  /// The transpose of rows(b, 0, rows, cols): cols x rows.
  MatrixRef<T> transposed(int64_t b, int64_t rows, int64_t cols) const {
    return {data + offsets[static_cast<size_t>(b)], cols, rows, col_stride, row_stride};
  }
};

// A gradient the backward writes: row r of entry b at row(b, r), unit column stride (the stub's
// contract), rows row_stride apart; null when the gradient is not wanted.
template <typename T>
struct Output {
  T* data = nullptr;
  std::vector<int64_t> offsets;
  int64_t row_stride = 0;

  explicit Output(const Tensor& t) {
    if (!t.defined()) return;
    data = static_cast<T*>(t.data_ptr());
    offsets = batch_offsets(t);
    row_stride = t.stride(-2);
  }
  explicit operator bool() const { return data != nullptr; }
  T* row(int64_t b, int64_t r) const { return data + offsets[static_cast<size_t>(b)] + r * row_stride; }
  /// rows [r0, r0 + rows) of entry b, cols wide, times s
  void scale(int64_t b, int64_t r0, int64_t rows, int64_t cols, T s) const {
    for (int64_t r = r0; r < r0 + rows; ++r) VecMap<T>(row(b, r), cols) *= s;
  }
  void zero(int64_t b, int64_t rows, int64_t cols) const {
    for (int64_t r = 0; r < rows; ++r) VecMap<T>(row(b, r), cols).setZero();
  }
};

// Everything a block needs, in T.
template <typename T>
struct Problem {
  Operand<T> q, k, v;
  int64_t batch, L, S, E, Ev, block;
  T scale;
  bool causal;
  // The mask: none, bool or T; element (b, i, j) at mask_data + mask_offsets[b] + i * mrs + j * mcs.
  const void* mask_data = nullptr;
  bool bool_mask = false;
  std::vector<int64_t> mask_offsets;
  int64_t mrs = 0, mcs = 0;

  explicit Problem(const AttentionInputs& in)
      : q(in.q), k(in.k), v(in.v), L(in.q.size(-2)), S(in.k.size(-2)), E(in.q.size(-1)), Ev(in.v.size(-1)),
        scale(static_cast<T>(in.scale)), causal(in.causal) {
    batch = static_cast<int64_t>(q.offsets.size());
    // A block holds all rows when they fit kBlockScores, else a multiple of 16 rows.
    block = L * std::max<int64_t>(S, 1) <= kBlockScores
                ? std::max<int64_t>(L, 1)
                : std::max<int64_t>(16, kBlockScores / std::max<int64_t>(S, 1) / 16 * 16);
    if (in.mask.defined()) {
      mask_data = in.mask.data_ptr();
      bool_mask = in.mask.dtype() == kBool;
      mask_offsets = batch_offsets(in.mask);
      mrs = in.mask.stride(-2);
      mcs = in.mask.stride(-1);
    }
  }
  int64_t blocks() const { return (L + block - 1) / block; }
  /// The keys rows [i0, i1) look at: under the causal mask none beyond the last row's own index.
  int64_t keys_for(int64_t i1) const { return causal ? std::min(S, i1) : S; }

  /// Scores row i of entry b, x[0, n), scaled and masked in place: -inf where a key is hidden.
  /// Returns how many leading keys the row may see at all (the causal triangle); x beyond them is
  /// zeroed, so the softmax and its exp skip them.
  int64_t mask_row(T* x, int64_t n, int64_t b, int64_t i) const {
    const int64_t len = causal ? std::min(n, i + 1) : n;
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    VecMap<T> xv(x, len);
    if (!mask_data) {
      xv *= scale;
    } else {
      const int64_t off = mask_offsets[static_cast<size_t>(b)] + i * mrs;
      if (bool_mask) {
        const bool* m = static_cast<const bool*>(mask_data) + off;
        for (int64_t j = 0; j < len; ++j) x[j] = m[j * mcs] ? x[j] * scale : kNegInf;
      } else if (mcs == 1) {
        xv = xv * scale + ConstVecMap<T>(static_cast<const T*>(mask_data) + off, len);
      } else {
        const T* m = static_cast<const T*>(mask_data) + off;
        for (int64_t j = 0; j < len; ++j) x[j] = x[j] * scale + m[j * mcs];
      }
    }
    if (len < n) VecMap<T>(x + len, n - len).setZero();
    return len;
  }

  /// Scores row i of entry b, x[0, n), turned into probabilities in place; returns the row's
  /// log-sum-exp (-inf, and zero probabilities, when no key is visible).
  T softmax_row(T* x, int64_t n, int64_t b, int64_t i) const {
    const int64_t len = mask_row(x, n, b, i);
    const T top = len > 0 ? extreme_run<true>(x, len) : -std::numeric_limits<T>::infinity();
    VecMap<T> xv(x, len);
    if (top == -std::numeric_limits<T>::infinity()) {
      xv.setZero();
      return top;
    }
    exp_shifted(x, x, len, top);
    const T sum = sum_run(x, len);
    xv *= T(1) / sum;
    return top + std::log(sum);
  }

  /// The probabilities of scores row x[0, n) again, from its log-sum-exp.
  void probabilities_row(T* x, int64_t n, int64_t b, int64_t i, T lse) const {
    const int64_t len = mask_row(x, n, b, i);
    if (lse == -std::numeric_limits<T>::infinity())
      VecMap<T>(x, len).setZero();
    else
      exp_shifted(x, x, len, lse);
  }

  /// Block scores: buf[r * ld + j] = q[i0 + r] . k[j] for j < n.
  void scores(T* buf, int64_t ld, int64_t b, int64_t i0, int64_t rows, int64_t n) const {
    gemm<T>(q.rows(b, i0, rows, E), k.transposed(b, n, E), buf, ld, false);
  }
};

// Runs body(t) for t in [0, tasks): split over the threads when there are at least as many tasks
// as threads (each then a single-threaded gemm), else one after the other with each gemm using
// the threads itself.
template <typename F>
void run_tasks(int64_t tasks, int64_t work_per_task, const F& body) {
  auto range = [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) body(t);
  };
  if (tasks >= available_threads())
    parallel_for(0, tasks, std::max<int64_t>(1, kThreadWork / std::max<int64_t>(work_per_task, 1)), range);
  else
    range(0, tasks);
}

template <typename T>
void forward(const Tensor& out, const Tensor& logsumexp, const Tensor& probs, const AttentionInputs& in) {
  const Problem<T> p(in);
  T* o = static_cast<T*>(out.data_ptr());
  T* lse = static_cast<T*>(logsumexp.data_ptr());
  T* saved = probs.defined() ? static_cast<T*>(probs.data_ptr()) : nullptr;
  const int64_t blocks = p.blocks();
  run_tasks(p.batch * blocks, p.block * p.S * (p.E + p.Ev), [&](int64_t task) {
    const int64_t b = task / blocks, i0 = task % blocks * p.block;
    const int64_t rows = std::min(p.block, p.L - i0), n = p.keys_for(i0 + rows);
    // The block's probabilities: in the saved ones (row stride S) or a buffer of its own.
    std::vector<T> own(saved ? 0 : static_cast<size_t>(rows * n));
    T* buf = saved ? saved + (b * p.L + i0) * p.S : own.data();
    const int64_t ld = saved ? p.S : n;
    if (saved && n < p.S)
      for (int64_t r = 0; r < rows; ++r) VecMap<T>(buf + r * ld + n, p.S - n).setZero();
    p.scores(buf, ld, b, i0, rows, n);
    for (int64_t r = 0; r < rows; ++r) lse[b * p.L + i0 + r] = p.softmax_row(buf + r * ld, n, b, i0 + r);
    gemm<T>({buf, rows, n, ld, 1}, p.v.rows(b, 0, n, p.Ev), o + (b * p.L + i0) * p.Ev, p.Ev, false);
  });
}

template <typename T>
void backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v, const Tensor& grad_out,
              const Tensor& out, const Tensor& logsumexp, const Tensor& probs, const AttentionInputs& in) {
  const Problem<T> p(in);
  const Tensor g = gemm_ready(grad_out);
  const Operand<T> dout(g);
  const T* o = static_cast<const T*>(out.data_ptr());
  const T* lse = static_cast<const T*>(logsumexp.data_ptr());
  const T* saved = probs.defined() ? static_cast<const T*>(probs.data_ptr()) : nullptr;
  const Output<T> dq(grad_q), dk(grad_k), dv(grad_v);
  const int64_t blocks = p.blocks();
  // NB: one task per batch entry: its key and value gradients sum over all of its blocks.
  run_tasks(p.batch, p.L * p.S * (2 * p.E + 3 * p.Ev), [&](int64_t b) {
    T* dkb = dk ? dk.row(b, 0) : nullptr;
    T* dvb = dv ? dv.row(b, 0) : nullptr;
    if (dkb) dk.zero(b, p.S, p.E);
    if (dvb) dv.zero(b, p.S, p.Ev);
    std::vector<T> own, dprob, dot(static_cast<size_t>(p.block));
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t i0 = blk * p.block, rows = std::min(p.block, p.L - i0), n = p.keys_for(i0 + rows);
      const MatrixRef<T> g_rows = dout.rows(b, i0, rows, p.Ev);
      // dot[r] = grad_out[i] . out[i]: softmax's backward term.
      for (int64_t r = 0; r < rows; ++r) {
        const T* orow = o + (b * p.L + i0 + r) * p.Ev;
        const T* grow = g_rows.data + r * g_rows.row_stride;
        T s = 0;
        for (int64_t e = 0; e < p.Ev; ++e) s += grow[e * g_rows.col_stride] * orow[e];
        dot[static_cast<size_t>(r)] = s;
      }
      // The block's probabilities (row stride ld): saved by the forward, or recomputed.
      const T* prob;
      int64_t ld;
      if (saved) {
        prob = saved + (b * p.L + i0) * p.S;
        ld = p.S;
      } else {
        own.resize(static_cast<size_t>(rows * n));
        p.scores(own.data(), n, b, i0, rows, n);
        for (int64_t r = 0; r < rows; ++r)
          p.probabilities_row(own.data() + r * n, n, b, i0 + r, lse[b * p.L + i0 + r]);
        prob = own.data();
        ld = n;
      }
      // d value += prob^T grad_out
      if (dvb) gemm<T>({prob, n, rows, 1, ld}, g_rows, dvb, dv.row_stride, true);
      if (!dq && !dkb) continue;
      // d scores = prob * (grad_out v^T - dot)
      dprob.resize(static_cast<size_t>(rows * n));
      gemm<T>(g_rows, p.v.transposed(b, n, p.Ev), dprob.data(), n, false);
      for (int64_t r = 0; r < rows; ++r) {
        VecMap<T> ds(dprob.data() + r * n, n);
        ds = ConstVecMap<T>(prob + r * ld, n) * (ds - dot[static_cast<size_t>(r)]);
      }
      // d query = d scores k * scale; d key += d scores^T q (scaled once at the end)
      if (dq) {
        gemm<T>({dprob.data(), rows, n, n, 1}, p.k.rows(b, 0, n, p.E), dq.row(b, i0), dq.row_stride, false);
        dq.scale(b, i0, rows, p.E, p.scale);
      }
      if (dkb) gemm<T>({dprob.data(), n, rows, 1, n}, p.q.rows(b, i0, rows, p.E), dkb, dk.row_stride, true);
    }
    if (dkb) dk.scale(b, 0, p.S, p.E, p.scale);
  });
}

AttentionInputs gemm_ready_inputs(const AttentionInputs& in) {
  AttentionInputs r = in;
  r.q = gemm_ready(in.q);
  r.k = gemm_ready(in.k);
  r.v = gemm_ready(in.v);
  return r;
}

void cpu_attention_forward(const Tensor& out, const Tensor& logsumexp, const Tensor& probs,
                           const AttentionInputs& in) {
  const AttentionInputs r = gemm_ready_inputs(in);
  visit_floating_dtype(in.q.dtype(), "scaled_dot_product_attention",
                       [&]<typename T>(type_tag<T>) { forward<T>(out, logsumexp, probs, r); });
}

void cpu_attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                            const Tensor& grad_out, const Tensor& out, const Tensor& logsumexp,
                            const Tensor& probs, const AttentionInputs& in) {
  const AttentionInputs r = gemm_ready_inputs(in);
  visit_floating_dtype(in.q.dtype(), "scaled_dot_product_attention", [&]<typename T>(type_tag<T>) {
    backward<T>(grad_q, grad_k, grad_v, grad_out, out, logsumexp, probs, r);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(attention_forward_stub, DeviceType::CPU, (widened<&cpu_attention_forward, 0, 1, 2>));
EMBER_REGISTER_KERNEL(attention_backward_stub, DeviceType::CPU, (widened<&cpu_attention_backward, 0, 1, 2>));

}  // namespace ember::cpu
