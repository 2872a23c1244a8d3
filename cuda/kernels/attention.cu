// Fused scaled dot-product attention over contiguous operands, written for correctness rather than
// speed (no tiling of q or k through shared memory, scores recomputed per pass):
//   forward: a block per query row (b, i). Pass 1 takes the row's maximum score, pass 2 the sum of
//     exp(score - max), giving the log-sum-exp; pass 3 walks the keys kBlock at a time, each
//     thread turning one score into its probability (kept in shared memory and, when asked, in
//     probs), then the threads add probability times value rows into out, a column each.
//   backward: dot_i = grad_out_i . out_i per query row first; then grad_q a block per query row
//     (d score = p (grad_out_i . v_j - dot_i); grad_q_i = scale sum_j d score_ij k_j) and grad_k,
//     grad_v a block per key row (sums over the query rows, in order: no atomics, so the result is
//     the same every run). A block owns its output row, so partial sums accumulate in place.
// Scores and probabilities are the shared ones (cuda/shared/attention_score.h).
#include <cmath>
#include <limits>

#include "ember/cuda/kernels/device_utils.cuh"

namespace ember::cuda {
namespace {

constexpr int kBlock = kThreads;

// NB: the chunk loops stay rolled: unrolled, the float64 kernels spilled (sm_80) though far from
// the register limit.
#define EMBER_NO_UNROLL _Pragma("unroll 1")

// Row i of entry b, a block each: x over the rows, y over the batch (no 64-bit division, whose
// call would make the kernels spill).
#define EMBER_ROWS(b, i, rows)                                           \
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y)             \
    for (int64_t i = blockIdx.x; i < (rows); i += gridDim.x)

template <typename T>
__device__ __forceinline__ T dot(const T* a, const T* b, int64_t n) {
  T s = T(0);
  for (int64_t e = 0; e < n; ++e) s += a[e] * b[e];
  return s;
}

template <typename T>
struct Operands {
  const T *q, *k, *v, *grad_out, *out, *lse, *probs;
  const void* mask;
};

// Score (i, j) of entry b.
template <typename T>
__device__ __forceinline__ T score(const AttentionShape& s, const Operands<T>& o, int64_t b, int64_t i, int64_t j) {
  return attention_score<T>(s, dot(o.q + (b * s.L + i) * s.E, o.k + (b * s.S + j) * s.E, s.E), o.mask, b, i, j);
}

// Probability (i, j) of entry b, saved or recomputed from the row's log-sum-exp.
template <typename T>
__device__ __forceinline__ T probability(const AttentionShape& s, const Operands<T>& o, int64_t b, int64_t i, int64_t j) {
  if (o.probs) return o.probs[(b * s.L + i) * s.S + j];
  return attention_probability(score(s, o, b, i, j), o.lse[b * s.L + i]);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) forward_kernel(const AttentionShape s, const Operands<T> o, T* out, T* lse,
                                                            T* probs) {
  __shared__ T shared[kBlock];
  const T neg_inf = -std::numeric_limits<T>::infinity();
  EMBER_ROWS(b, i, s.L) {
    const int64_t row = b * s.L + i, len = attention_keys(s, i);
    T* orow = out + row * s.Ev;
    T* prow = probs ? probs + row * s.S : nullptr;
    T top = neg_inf;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) top = math::max_nan(top, score(s, o, b, i, j));
    top = block_reduce(top, shared, [](T x, T y) { return math::max_nan(x, y); });
    T lse_row = neg_inf;
    if (top != neg_inf) {
      T sum = T(0);
      for (int64_t j = threadIdx.x; j < len; j += blockDim.x) sum += std::exp(score(s, o, b, i, j) - top);
      sum = block_reduce(sum, shared, [](T x, T y) { return x + y; });
      lse_row = top + std::log(sum);
    }
    if (threadIdx.x == 0) lse[row] = lse_row;
    for (int64_t e = threadIdx.x; e < s.Ev; e += blockDim.x) orow[e] = T(0);
    if (prow)
      for (int64_t j = (lse_row == neg_inf ? 0 : len) + threadIdx.x; j < s.S; j += blockDim.x) prow[j] = T(0);
    if (lse_row == neg_inf) continue;  // no key visible: zero output (uniform over the block)
    for (int64_t j0 = 0; j0 < len; j0 += kBlock) {
      const int64_t j = j0 + threadIdx.x, count = len - j0 < kBlock ? len - j0 : kBlock;
      if (j < len) {
        const T p = attention_probability(score(s, o, b, i, j), lse_row);
        shared[threadIdx.x] = p;
        if (prow) prow[j] = p;
      }
      __syncthreads();
      for (int64_t e = threadIdx.x; e < s.Ev; e += blockDim.x) {
        T acc = orow[e];
        EMBER_NO_UNROLL for (int64_t t = 0; t < count; ++t) acc += shared[t] * o.v[(b * s.S + j0 + t) * s.Ev + e];
        orow[e] = acc;
      }
      __syncthreads();
    }
  }
}

// dot[row] = grad_out[row] . out[row]: softmax's backward term.
template <typename T>
__global__ void __launch_bounds__(kThreads) row_dot_kernel(const AttentionShape s, const Operands<T> o, T* dots) {
  __shared__ T shared[kBlock];
  EMBER_ROWS(b, i, s.L) {
    const int64_t row = b * s.L + i;
    T acc = T(0);
    for (int64_t e = threadIdx.x; e < s.Ev; e += blockDim.x) acc += o.grad_out[row * s.Ev + e] * o.out[row * s.Ev + e];
    acc = block_reduce(acc, shared, [](T x, T y) { return x + y; });
    if (threadIdx.x == 0) dots[row] = acc;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) grad_q_kernel(const AttentionShape s, const Operands<T> o, const T* dots,
                                                           T* grad_q) {
  __shared__ T ds[kBlock];
  const T scale = static_cast<T>(s.scale);
  EMBER_ROWS(b, i, s.L) {
    const int64_t row = b * s.L + i;
    // A row that sees no key (log-sum-exp -inf) gets no gradient: len 0 leaves it zero.
    const int64_t len = o.lse[row] == -std::numeric_limits<T>::infinity() ? 0 : attention_keys(s, i);
    T* dq = grad_q + row * s.E;
    for (int64_t e = threadIdx.x; e < s.E; e += blockDim.x) dq[e] = T(0);
    for (int64_t j0 = 0; j0 < len; j0 += kBlock) {
      const int64_t j = j0 + threadIdx.x, count = len - j0 < kBlock ? len - j0 : kBlock;
      if (j < len) {
        const T p = probability(s, o, b, i, j);
        ds[threadIdx.x] = p * (dot(o.grad_out + row * s.Ev, o.v + (b * s.S + j) * s.Ev, s.Ev) - dots[row]);
      }
      __syncthreads();
      for (int64_t e = threadIdx.x; e < s.E; e += blockDim.x) {
        T acc = dq[e];
        EMBER_NO_UNROLL for (int64_t t = 0; t < count; ++t) acc += ds[t] * o.k[(b * s.S + j0 + t) * s.E + e];
        dq[e] = acc;
      }
      __syncthreads();
    }
    __syncthreads();
    for (int64_t e = threadIdx.x; e < s.E; e += blockDim.x) dq[e] *= scale;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) grad_kv_kernel(const AttentionShape s, const Operands<T> o, const T* dots,
                                                            T* grad_k, T* grad_v) {
  __shared__ T ps[kBlock];
  __shared__ T ds[kBlock];
  const T scale = static_cast<T>(s.scale), neg_inf = -std::numeric_limits<T>::infinity();
  EMBER_ROWS(b, j, s.S) {
    const int64_t key = b * s.S + j;
    T* dk = grad_k ? grad_k + key * s.E : nullptr;
    T* dv = grad_v ? grad_v + key * s.Ev : nullptr;
    if (dk)
      for (int64_t e = threadIdx.x; e < s.E; e += blockDim.x) dk[e] = T(0);
    if (dv)
      for (int64_t e = threadIdx.x; e < s.Ev; e += blockDim.x) dv[e] = T(0);
    // Under the causal mask only the query rows i >= j see key j.
    for (int64_t i0 = s.causal ? j : 0; i0 < s.L; i0 += kBlock) {
      const int64_t i = i0 + threadIdx.x, count = s.L - i0 < kBlock ? s.L - i0 : kBlock;
      if (i < s.L) {
        const int64_t row = b * s.L + i;
        const bool seen = o.lse[row] != neg_inf && j < attention_keys(s, i);
        const T p = seen ? probability(s, o, b, i, j) : T(0);
        ps[threadIdx.x] = p;
        if (dk)
          ds[threadIdx.x] = seen ? p * (dot(o.grad_out + row * s.Ev, o.v + key * s.Ev, s.Ev) - dots[row]) : T(0);
      }
      __syncthreads();
      if (dv)
        for (int64_t e = threadIdx.x; e < s.Ev; e += blockDim.x) {
          T acc = dv[e];
          EMBER_NO_UNROLL for (int64_t t = 0; t < count; ++t) acc += ps[t] * o.grad_out[(b * s.L + i0 + t) * s.Ev + e];
          dv[e] = acc;
        }
      if (dk)
        for (int64_t e = threadIdx.x; e < s.E; e += blockDim.x) {
          T acc = dk[e];
          EMBER_NO_UNROLL for (int64_t t = 0; t < count; ++t) acc += ds[t] * o.q[(b * s.L + i0 + t) * s.E + e];
          dk[e] = acc;
        }
      __syncthreads();
    }
    if (dk) {
      __syncthreads();
      for (int64_t e = threadIdx.x; e < s.E; e += blockDim.x) dk[e] *= scale;
    }
  }
}

#undef EMBER_ROWS
#undef EMBER_NO_UNROLL

dim3 row_blocks(int64_t batch, int64_t rows) {
  return dim3(static_cast<unsigned int>(rows < 65535 * 8 ? rows : 65535 * 8),
              static_cast<unsigned int>(batch < 65535 ? batch : 65535));
}

template <typename F>
void visit_floating(DType dtype, const F& f) {
  if (dtype == DType::Float32) f(float{});
  else f(double{});
}

}  // namespace

void launch_attention_forward(DType dtype, const AttentionShape& s, const void* q, const void* k, const void* v,
                              const void* mask, void* out, void* logsumexp, void* probs, cudaStream_t stream) {
  if (s.batch * s.L == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const Operands<T> o{static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), nullptr,
                        nullptr, nullptr, nullptr, mask};
    forward_kernel<T><<<row_blocks(s.batch, s.L), kThreads, 0, stream>>>(s, o, static_cast<T*>(out),
                                                                          static_cast<T*>(logsumexp),
                                                                          static_cast<T*>(probs));
    check_launch("scaled_dot_product_attention");
  });
}

void launch_attention_backward(DType dtype, const AttentionShape& s, const void* q, const void* k, const void* v,
                               const void* mask, const void* grad_out, const void* out, const void* logsumexp,
                               const void* probs, void* grad_q, void* grad_k, void* grad_v, Scratch& scratch,
                               cudaStream_t stream) {
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const Operands<T> o{static_cast<const T*>(q),        static_cast<const T*>(k),   static_cast<const T*>(v),
                        static_cast<const T*>(grad_out), static_cast<const T*>(out), static_cast<const T*>(logsumexp),
                        static_cast<const T*>(probs),    mask};
    const int64_t rows = s.batch * s.L, keys = s.batch * s.S;
    T* dots = rows > 0 ? static_cast<T*>(scratch.get(static_cast<size_t>(rows) * sizeof(T))) : nullptr;
    if (rows > 0) {
      row_dot_kernel<T><<<row_blocks(s.batch, s.L), kThreads, 0, stream>>>(s, o, dots);
      check_launch("scaled_dot_product_attention backward");
    }
    if (grad_q && rows > 0) {
      grad_q_kernel<T><<<row_blocks(s.batch, s.L), kThreads, 0, stream>>>(s, o, dots, static_cast<T*>(grad_q));
      check_launch("scaled_dot_product_attention backward");
    }
    if ((grad_k || grad_v) && keys > 0) {
      grad_kv_kernel<T><<<row_blocks(s.batch, s.S), kThreads, 0, stream>>>(s, o, dots, static_cast<T*>(grad_k),
                                                                   static_cast<T*>(grad_v));
      check_launch("scaled_dot_product_attention backward");
    }
  });
}

}  // namespace ember::cuda
