// Kernels with a layout of their own: dropout (a Philox draw per element, core/philox.h), the
// per-channel affine pass of batch norm, integer matrix products (cuBLAS has none), and the
// optimizers' fused update steps (core/kernels/optim.h), which follow the CPU kernels
// (core/cpu/optim_kernel.cpp) operation by operation.
#include <cmath>

#include "ember/core/philox.h"
#include "ember/cuda/kernels/device_utils.cuh"
#include "ember/core/math/elementwise.h"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)
namespace {

#define EMBER_GRID_STRIDE(i, n)                                                             \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

template <typename T>
__global__ void __launch_bounds__(kThreads) dropout_kernel(const T* in, T* out, T* mask, int64_t n, float keep,
                                                            T scale, uint64_t seed, uint64_t counter) {
  EMBER_GRID_STRIDE(i, n) {
    const T m = philox_uniform_float(seed, counter + static_cast<uint64_t>(i)) < keep ? scale : T(0);
    mask[i] = m;
    out[i] = in[i] * m;
  }
}

// Grid: x over s, y over c, z over n.
template <typename T>
__global__ void __launch_bounds__(kThreads) channel_affine_kernel(T* out, const T* a, const T* ka, const T* b,
                                                                   const T* b0, const T* kb, const T* k, int64_t N,
                                                                   int64_t C, int64_t S) {
  for (int64_t n = blockIdx.z; n < N; n += gridDim.z)
    for (int64_t c = blockIdx.y; c < C; c += gridDim.y)
      for (int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < S;
           s += static_cast<int64_t>(blockDim.x) * gridDim.x) {
        const int64_t j = (n * C + c) * S + s;
        T v = a ? a[j] * ka[c] : T(0);
        if (b) v = v + (b[j] - b0[c]) * kb[c];
        out[j] = v + k[c];
      }
}

// Grid: x over columns j, y over rows i, z over the batch; wrapping integer arithmetic.
template <typename T>
__global__ void __launch_bounds__(kThreads) gemm_fallback_kernel(int64_t count, int64_t m, int64_t n, int64_t k,
                                                                  const T* a, int64_t a_batch, int64_t a_rs,
                                                                  int64_t a_cs, const T* b, int64_t b_batch,
                                                                  int64_t b_rs, int64_t b_cs, T* out) {
  for (int64_t e = blockIdx.z; e < count; e += gridDim.z)
    for (int64_t i = blockIdx.y; i < m; i += gridDim.y)
      for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
           j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
        uint64_t acc = 0;
        const T* ar = a + e * a_batch + i * a_rs;
        const T* bc = b + e * b_batch + j * b_cs;
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<uint64_t>(ar[p * a_cs]) * static_cast<uint64_t>(bc[p * b_rs]);
        out[(e * m + i) * n + j] = static_cast<T>(acc);
      }
}

// m = lerp(m, x, w) as PyTorch's CPU kernel (and core/cpu/lanes.h) computes it.
template <typename T>
__device__ __forceinline__ T lerp(T m, T x, T w) {
  return (w < T(0.5) && w > T(-0.5)) ? m + (x - m) * w : x - (x - m) * (T(1) - w);
}

// The optimizers' coefficients, converted to T once on the host and read by the kernels from
// their parameter space: kept in registers across the division and square root (whose slow paths
// are calls), they spilled on sm_90.
template <typename T>
struct SgdCoeffs {
  T sign, wd, mom, damp, neg_lr;
  bool decay, nesterov, first;
};
template <typename T>
struct AdamCoeffs {
  T sign, wd, w1, b2, c2, eps, bc2s, neg_ss, decay;
  bool l2, shrink;
};
template <typename T>
struct RmspropCoeffs {
  T sign, wd, alpha, c, eps, mom, neg_lr;
  bool decay;
};
template <typename T>
struct AdagradCoeffs {
  T sign, wd, eps, neg_clr;
  bool decay;
};

template <typename T>
__global__ void __launch_bounds__(kThreads) sgd_kernel(T* p, const T* g, T* buf, int64_t n, const SgdCoeffs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    const T P = p[i];
    const T d = a.decay ? g[i] * a.sign + P * a.wd : g[i] * a.sign;
    if (!buf) {
      p[i] = P + d * a.neg_lr;
      continue;
    }
    const T B = a.first ? d : buf[i] * a.mom + d * a.damp;
    buf[i] = B;
    p[i] = a.nesterov ? P + (d + B * a.mom) * a.neg_lr : P + B * a.neg_lr;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) adam_kernel(T* p, const T* g, T* m, T* v, T* vmax, int64_t n,
                                                         const AdamCoeffs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    const T P = p[i];
    const T d = a.l2 ? g[i] * a.sign + P * a.wd : g[i] * a.sign;
    const T M = lerp(m[i], d, a.w1);
    const T V = v[i] * a.b2 + d * a.c2 * d;
    m[i] = M;
    v[i] = V;
    T denom;
    if (vmax) {
      const T VM = math::max_nan(vmax[i], V);  // NaN wins, as in torch.maximum
      vmax[i] = VM;
      denom = std::sqrt(VM) / a.bc2s + a.eps;
    } else {
      denom = std::sqrt(V) / a.bc2s + a.eps;
    }
    p[i] = a.shrink ? P * a.decay + M * a.neg_ss / denom : P + M * a.neg_ss / denom;
  }
}

// One kernel per variant, as on the CPU.
template <typename T, bool Centered, bool Momentum>
__global__ void __launch_bounds__(kThreads) rmsprop_kernel(T* p, const T* g, T* sq, T* ga, T* buf, int64_t n,
                                                            const RmspropCoeffs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    const T P = p[i];
    const T d = a.decay ? g[i] * a.sign + P * a.wd : g[i] * a.sign;
    const T SQ = sq[i] * a.alpha + d * a.c * d;
    sq[i] = SQ;
    T avg;
    if constexpr (Centered) {
      const T GA = lerp(ga[i], d, a.c);
      ga[i] = GA;
      avg = std::sqrt(SQ + GA * T(-1) * GA) + a.eps;
    } else {
      avg = std::sqrt(SQ) + a.eps;
    }
    if constexpr (Momentum) {
      const T B = buf[i] * a.mom + d / avg;
      buf[i] = B;
      p[i] = P + B * a.neg_lr;
    } else {
      p[i] = P + d * a.neg_lr / avg;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) adagrad_kernel(T* p, const T* g, T* sum, int64_t n, const AdagradCoeffs<T> a) {
  EMBER_GRID_STRIDE(i, n) {
    const T P = p[i];
    const T d = a.decay ? g[i] * a.sign + P * a.wd : g[i] * a.sign;
    const T S = sum[i] + d * T(1) * d;
    sum[i] = S;
    p[i] = P + d * a.neg_clr / (std::sqrt(S) + a.eps);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) unscale_kernel(T* g, float* found_inf, int64_t n, const T inv) {
  EMBER_GRID_STRIDE(i, n) {
    const T v = g[i];
    if (!isfinite(v)) *found_inf = 1.0f;  // NB: every writer writes 1: the race is benign
    g[i] = v * inv;
  }
}

#undef EMBER_GRID_STRIDE

template <typename F>
void visit_floating(DType dtype, const F& f) {
  if (dtype == DType::Float32)
    f(float{});
  else
    f(double{});
}

unsigned int cap(int64_t v, int64_t c) { return static_cast<unsigned int>(v < 1 ? 1 : (v > c ? c : v)); }

}  // namespace

void launch_dropout(DType dtype, const void* in, void* out, void* mask, int64_t n, double p, uint64_t seed,
                    uint64_t counter, cudaStream_t stream) {
  if (n == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    dropout_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                              static_cast<T*>(mask), n, static_cast<float>(1.0 - p),
                                                              static_cast<T>(1.0 / (1.0 - p)), seed, counter);
    check_launch("dropout");
  });
}

void launch_channel_affine(DType dtype, void* out, const void* a, const void* ka, const void* b, const void* b0,
                           const void* kb, const void* k, int64_t N, int64_t C, int64_t S, cudaStream_t stream) {
  if (N * C * S == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const dim3 grid(cap((S + kThreads - 1) / kThreads, 1024), cap(C, 65535), cap(N, 65535));
    channel_affine_kernel<T><<<grid, kThreads, 0, stream>>>(
        static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(ka), static_cast<const T*>(b),
        static_cast<const T*>(b0), static_cast<const T*>(kb), static_cast<const T*>(k), N, C, S);
    check_launch("batch_norm");
  });
}

void launch_gemm_fallback(DType dtype, int64_t count, int64_t m, int64_t n, int64_t k, const void* a,
                          int64_t a_batch, int64_t a_rs, int64_t a_cs, const void* b, int64_t b_batch, int64_t b_rs,
                          int64_t b_cs, void* out, cudaStream_t stream) {
  if (count * m * n == 0) return;
  const dim3 grid(cap((n + kThreads - 1) / kThreads, 1024), cap(m, 65535), cap(count, 65535));
  const auto go = [&](auto tag) {
    using T = decltype(tag);
    gemm_fallback_kernel<T><<<grid, kThreads, 0, stream>>>(count, m, n, k, static_cast<const T*>(a), a_batch, a_rs,
                                                            a_cs, static_cast<const T*>(b), b_batch, b_rs, b_cs,
                                                            static_cast<T*>(out));
    check_launch("matmul");
  };
  switch (dtype) {
    case DType::UInt8: return go(uint8_t{});
    case DType::Int32: return go(int32_t{});
    default: return go(int64_t{});
  }
}

void launch_sgd_step(DType dtype, void* param, const void* grad, void* buf, int64_t n, const SgdArgs& a,
                     cudaStream_t stream) {
  if (n == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const SgdCoeffs<T> k{a.maximize ? T(-1) : T(1), T(a.weight_decay), T(a.momentum), T(1 - a.dampening), T(-a.lr),
                         a.weight_decay != 0, a.nesterov, a.first};
    sgd_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(param), static_cast<const T*>(grad),
                                                          static_cast<T*>(buf), n, k);
    check_launch("SGD");
  });
}

void launch_adam_step(DType dtype, void* param, const void* grad, void* exp_avg, void* exp_avg_sq,
                      void* max_exp_avg_sq, int64_t n, const AdamArgs& a, cudaStream_t stream) {
  if (n == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const AdamCoeffs<T> k{a.maximize ? T(-1) : T(1), T(a.weight_decay), T(1 - a.beta1), T(a.beta2), T(1 - a.beta2),
                          T(a.eps), T(a.bc2_sqrt), T(-a.step_size), T(a.decay),
                          a.weight_decay != 0 && !a.decoupled, a.weight_decay != 0 && a.decoupled};
    adam_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(param), static_cast<const T*>(grad),
                                                           static_cast<T*>(exp_avg), static_cast<T*>(exp_avg_sq),
                                                           static_cast<T*>(max_exp_avg_sq), n, k);
    check_launch("Adam");
  });
}

void launch_rmsprop_step(DType dtype, void* param, const void* grad, void* square_avg, void* grad_avg, void* buf,
                         int64_t n, const RmspropArgs& a, cudaStream_t stream) {
  if (n == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const RmspropCoeffs<T> k{a.maximize ? T(-1) : T(1), T(a.weight_decay), T(a.alpha), T(1 - a.alpha), T(a.eps),
                             T(a.momentum), T(-a.lr), a.weight_decay != 0};
    const auto go = [&](auto kernel) {
      kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(param), static_cast<const T*>(grad),
                                                     static_cast<T*>(square_avg), static_cast<T*>(grad_avg),
                                                     static_cast<T*>(buf), n, k);
      check_launch("RMSprop");
    };
    if (grad_avg && buf)
      go(rmsprop_kernel<T, true, true>);
    else if (grad_avg)
      go(rmsprop_kernel<T, true, false>);
    else if (buf)
      go(rmsprop_kernel<T, false, true>);
    else
      go(rmsprop_kernel<T, false, false>);
  });
}

void launch_adagrad_step(DType dtype, void* param, const void* grad, void* sum, int64_t n, const AdagradArgs& a,
                         cudaStream_t stream) {
  if (n == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const AdagradCoeffs<T> k{a.maximize ? T(-1) : T(1), T(a.weight_decay), T(a.eps), T(-a.clr), a.weight_decay != 0};
    adagrad_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(param), static_cast<const T*>(grad),
                                                              static_cast<T*>(sum), n, k);
    check_launch("Adagrad");
  });
}

void launch_unscale(DType dtype, void* grad, float* found_inf, int64_t n, float inv_scale, cudaStream_t stream) {
  if (n == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    unscale_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(grad), found_inf, n, T(inv_scale));
    check_launch("GradScaler.unscale_");
  });
}

}  // namespace ember::cuda
