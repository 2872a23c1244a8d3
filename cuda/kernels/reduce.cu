// The row-reduction family. One block-reduction kernel over [A, O, R, I] (reduce_layout.h) serves
// sum/max/min, max/min with indices, batch-norm statistics (Welford) and gradient sums and
// layer-norm parameter gradients: a block's threads cover up to 32 outputs along I (threadIdx.x,
// so reads along I coalesce) and split the A * R reduced values of each among themselves
// (threadIdx.y, so a long row, I == 1, is read by 256 threads side by side), then merge in shared
// memory. When the outputs are too few to fill the GPU, the reduced values are also split over
// blocks (gridDim.z) into partial results that a second kernel merges. A reducer is a functor:
// Acc, identity(), load(a, o, r, i), combine(x, y), store(o, i, acc). Layer norm and softmax over
// the last dim take a block per row (row_* kernels); softmax over an inner dim a thread per column.
// Floats accumulate sums and statistics in double, as the CPU kernels do.
#include <cuda_runtime.h>

#include <cmath>
#include <utility>

#include "ember/cuda/kernels/device_utils.cuh"
#include "ember/core/math/elementwise.h"
#include "ember/cuda/shared/welford.h"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)
namespace {

template <typename R>
__global__ void __launch_bounds__(kThreads) reduce_kernel(const R r, const ReduceLayout l, int64_t chunk,
                                                           typename R::Acc* partial) {
  using Acc = typename R::Acc;
  extern __shared__ unsigned char smem[];
  Acc* shared = reinterpret_cast<Acc*>(smem);
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t K = l.A * l.R;
  const int64_t k0 = static_cast<int64_t>(blockIdx.z) * chunk;
  const int64_t k1 = k0 + chunk < K ? k0 + chunk : K;
  for (int64_t o = blockIdx.y; o < l.O; o += gridDim.y) {
    Acc acc = r.identity();
    if (i < l.I) {
      // k = a * R + rr walks [k0, k1) in steps of blockDim.y; (a, rr) follow it without a division
      // in the loop (a 64-bit division is a subroutine call, and its registers spilled).
      int64_t k = k0 + threadIdx.y;
      int64_t a = l.A == 1 ? 0 : k / l.R, rr = k - a * l.R;
      const int64_t stride = blockDim.y, step_a = stride / l.R, step_r = stride - step_a * l.R;
      auto next = [&](int64_t& na, int64_t& nr) {
        na += step_a;
        nr += step_r;
        if (nr >= l.R) {
          nr -= l.R;
          ++na;
        }
      };
      // NB: four loads in flight before they are combined (in the same order as one at a time):
      // with one, each thread waits a memory latency per value, and a full reduction had too few
      // bytes in flight to reach the memory's bandwidth (0.56x of PyTorch's sum on an H100).
      for (; k + 3 * stride < k1; k += 4 * stride) {
        int64_t a1 = a, r1 = rr;
        next(a1, r1);
        int64_t a2 = a1, r2 = r1;
        next(a2, r2);
        int64_t a3 = a2, r3 = r2;
        next(a3, r3);
        const Acc v0 = r.load(a, o, rr, i), v1 = r.load(a1, o, r1, i), v2 = r.load(a2, o, r2, i),
                  v3 = r.load(a3, o, r3, i);
        acc = r.combine(r.combine(r.combine(r.combine(acc, v0), v1), v2), v3);
        a = a3;
        rr = r3;
        next(a, rr);
      }
      for (; k < k1; k += stride) {
        acc = r.combine(acc, r.load(a, o, rr, i));
        next(a, rr);
      }
    }
    acc = block_reduce_y(acc, shared, [&](const Acc& x, const Acc& y) { return r.combine(x, y); });
    if (threadIdx.y == 0 && i < l.I) {
      if (partial)
        partial[(static_cast<int64_t>(blockIdx.z) * l.O + o) * l.I + i] = acc;
      else
        r.store(o, i, acc);
    }
  }
}

// Merges the partial results of the splits, with the main kernel's block shape: outputs along x
// (i) and grid y (o), the splits of each shared by the threads along y. NB: not a thread per
// output walking every split: for one output (a full sum) that thread read the ~500 partials one
// latency after another, and the sum of 16M floats ran at 0.55x of PyTorch's on an H100.
template <typename R>
__global__ void __launch_bounds__(kThreads) reduce_finish_kernel(const R r, int64_t O, int64_t I, int splits,
                                                                  const typename R::Acc* partial) {
  using Acc = typename R::Acc;
  extern __shared__ unsigned char smem[];
  Acc* shared = reinterpret_cast<Acc*>(smem);
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t o = blockIdx.y; o < O; o += gridDim.y) {
    Acc acc = r.identity();
    if (i < I)
      for (int s = threadIdx.y; s < splits; s += blockDim.y) acc = r.combine(acc, partial[(s * O + o) * I + i]);
    acc = block_reduce_y(acc, shared, [&](const Acc& x, const Acc& y) { return r.combine(x, y); });
    if (threadIdx.y == 0 && i < I) r.store(o, i, acc);
  }
}

int multiprocessors() {
  int device = 0, count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 80;
  return count;
}

// Runs reducer r over layout l: out[o, i] for every o < O, i < I.
template <typename R>
void run_reduce(const R& r, const ReduceLayout& l, Scratch& scratch, cudaStream_t stream, const char* name) {
  using Acc = typename R::Acc;
  const int64_t outputs = l.O * l.I;
  if (outputs == 0) return;
  const int bx = pow2_at_least(l.I, 32), by = kThreads / bx;
  const int64_t gx = (l.I + bx - 1) / bx, gy = l.O < 65535 ? l.O : 65535;
  const int64_t K = l.A * l.R;
  // Split the reduced values over blocks when the outputs leave most of the GPU idle and each
  // block would still get a good run of values.
  int64_t splits = 1;
  const int64_t target = 4 * static_cast<int64_t>(multiprocessors());
  if (gx * gy < target && K > 16 * by) {
    splits = target / (gx * gy);
    const int64_t max_splits = K / (4 * by);
    if (splits > max_splits) splits = max_splits;
    if (splits > 65535) splits = 65535;
    if (splits < 1) splits = 1;
  }
  const int64_t chunk = (K + splits - 1) / splits;
  Acc* partial = splits > 1 ? static_cast<Acc*>(scratch.get(static_cast<size_t>(splits * outputs) * sizeof(Acc))) : nullptr;
  const dim3 grid(static_cast<unsigned int>(gx), static_cast<unsigned int>(gy), static_cast<unsigned int>(splits));
  const dim3 block(static_cast<unsigned int>(bx), static_cast<unsigned int>(by));
  reduce_kernel<R><<<grid, block, sizeof(Acc) * kThreads, stream>>>(r, l, chunk, partial);
  check_launch(name);
  if (splits > 1) {
    const dim3 finish_grid(static_cast<unsigned int>(gx), static_cast<unsigned int>(gy));
    reduce_finish_kernel<R><<<finish_grid, block, sizeof(Acc) * kThreads, stream>>>(r, l.O, l.I, static_cast<int>(splits),
                                                                                     partial);
    check_launch(name);
  }
}

// ---- sum, product, max, min
template <typename T>
using AccOf = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <typename T>
struct ValueReducer {
  using Acc = AccOf<T>;
  ReduceKind op;
  const T* x;
  T* out;
  ReduceLayout l;
  __device__ Acc identity() const {
    if (op == ReduceKind::Sum) return Acc(0);
    if (op == ReduceKind::Prod) return Acc(1);
    if constexpr (std::is_floating_point_v<T>)
      return op == ReduceKind::Max ? -INFINITY : INFINITY;
    else
      return op == ReduceKind::Max ? static_cast<Acc>(std::numeric_limits<T>::lowest())
                                   : static_cast<Acc>(std::numeric_limits<T>::max());
  }
  __device__ Acc load(int64_t a, int64_t o, int64_t r, int64_t i) const {
    return static_cast<Acc>(x[((a * l.O + o) * l.R + r) * l.I + i]);
  }
  __device__ Acc combine(Acc u, Acc v) const {
    switch (op) {
      case ReduceKind::Sum:
        if constexpr (std::is_floating_point_v<T>)
          return u + v;
        else  // wraps as the CPU's integer sums do
          return static_cast<Acc>(static_cast<uint64_t>(u) + static_cast<uint64_t>(v));
      case ReduceKind::Prod:
        if constexpr (std::is_floating_point_v<T>)
          return u * v;
        else  // wraps; the low bits of the int64 product are those of T's
          return static_cast<Acc>(static_cast<uint64_t>(u) * static_cast<uint64_t>(v));
      case ReduceKind::Max: return math::max_nan(u, v);
      case ReduceKind::Min: return math::min_nan(u, v);
    }
    return u;
  }
  __device__ void store(int64_t o, int64_t i, Acc v) const { out[o * l.I + i] = static_cast<T>(v); }
};

// ---- max / min with the first index
template <typename T>
struct ArgAcc {
  AccOf<T> value;
  int64_t index;  // -1: nothing seen
};

template <typename T>
struct ArgReducer {
  using Acc = ArgAcc<T>;
  bool is_max;
  const T* x;
  T* values;
  int64_t* indices;
  int64_t O, R, I;
  __device__ Acc identity() const { return {AccOf<T>(0), -1}; }
  __device__ Acc load(int64_t, int64_t o, int64_t r, int64_t i) const {
    return {static_cast<AccOf<T>>(x[(o * R + r) * I + i]), r};
  }
  // The better of two; a NaN beats every number, and of equals (or two NaNs) the first index wins.
  __device__ Acc combine(const Acc& u, const Acc& v) const {
    if (u.index < 0) return v;
    if (v.index < 0) return u;
    const bool un = math::is_nan(u.value), vn = math::is_nan(v.value);
    if (un || vn) {
      if (un && vn) return u.index < v.index ? u : v;
      return un ? u : v;
    }
    if (u.value == v.value) return u.index < v.index ? u : v;
    return (is_max ? u.value > v.value : u.value < v.value) ? u : v;
  }
  __device__ void store(int64_t o, int64_t i, const Acc& a) const {
    if (values) values[o * I + i] = static_cast<T>(a.value);
    indices[o * I + i] = a.index;
  }
};

// ---- batch norm: per-channel statistics and gradient sums over [N, C, S] = [A, O, R, 1]
template <typename T>
struct BatchNormStatsReducer {
  using Acc = Welford;
  const T* x;
  T *mean, *var;
  int64_t C, S;
  __device__ Acc identity() const { return Welford(); }
  __device__ Acc load(int64_t n, int64_t c, int64_t s, int64_t) const {
    Welford w;
    w.add(static_cast<double>(x[(n * C + c) * S + s]));
    return w;
  }
  __device__ Acc combine(Acc u, const Acc& v) const {
    u.merge(v);
    return u;
  }
  __device__ void store(int64_t c, int64_t, const Acc& a) const {
    mean[c] = static_cast<T>(a.mean);
    var[c] = static_cast<T>(a.var_biased());
  }
};

struct Sum2 {
  double first, second;
};

template <typename T>
struct BatchNormGradSumsReducer {
  using Acc = Sum2;
  const T *g, *x, *mean;
  T *sum_g, *sum_gx;
  int64_t C, S;
  __device__ Acc identity() const { return {0, 0}; }
  __device__ Acc load(int64_t n, int64_t c, int64_t s, int64_t) const {
    const int64_t j = (n * C + c) * S + s;
    return {static_cast<double>(g[j]), static_cast<double>(g[j] * (x[j] - mean[c]))};
  }
  __device__ Acc combine(const Acc& u, const Acc& v) const { return {u.first + v.first, u.second + v.second}; }
  __device__ void store(int64_t c, int64_t, const Acc& a) const {
    sum_g[c] = static_cast<T>(a.first);
    sum_gx[c] = static_cast<T>(a.second);
  }
};

// ---- layer norm's weight and bias gradients: column sums over the rows of [R, D] = [1, 1, R, D]
template <typename T>
struct LayerNormParamGradReducer {
  using Acc = Sum2;
  const T *g, *x, *mean, *rstd;
  T *grad_weight, *grad_bias;
  int64_t D;
  __device__ Acc identity() const { return {0, 0}; }
  __device__ Acc load(int64_t, int64_t, int64_t r, int64_t d) const {
    const T gv = g[r * D + d];
    const T xhat = (x[r * D + d] - mean[r]) * rstd[r];
    return {static_cast<double>(gv * xhat), static_cast<double>(gv)};
  }
  __device__ Acc combine(const Acc& u, const Acc& v) const { return {u.first + v.first, u.second + v.second}; }
  __device__ void store(int64_t, int64_t d, const Acc& a) const {
    if (grad_weight) grad_weight[d] = static_cast<T>(a.first);
    if (grad_bias) grad_bias[d] = static_cast<T>(a.second);
  }
};

// ---- a block per row of [rows, D]: layer norm forward and input gradient, softmax
int row_threads(int64_t D) { return pow2_at_least(D, kThreads) < 32 ? 32 : pow2_at_least(D, kThreads); }

template <typename T>
__global__ void __launch_bounds__(kThreads) layer_norm_kernel(const T* x, const T* w, const T* b, T* out, T* mean,
                                                               T* rstd, int64_t D, double eps) {
  __shared__ Welford shared[kThreads];
  const int64_t row = blockIdx.x;
  const T* xr = x + row * D;
  Welford acc;
  for (int64_t d = threadIdx.x; d < D; d += blockDim.x) acc.add(static_cast<double>(xr[d]));
  acc = block_reduce(acc, shared, [](Welford u, const Welford& v) {
    u.merge(v);
    return u;
  });
  const T mu = static_cast<T>(acc.mean);
  const T rs = static_cast<T>(1.0 / std::sqrt(acc.var_biased() + eps));
  if (threadIdx.x == 0) {
    mean[row] = mu;
    rstd[row] = rs;
  }
  T* o = out + row * D;
  for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
    T v = (xr[d] - mu) * rs;
    if (w) v = v * w[d];
    if (b) v = v + b[d];
    o[d] = v;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) layer_norm_grad_input_kernel(const T* g, const T* x, const T* mean,
                                                                          const T* rstd, const T* w, T* grad_in,
                                                                          int64_t D) {
  __shared__ Sum2 shared[kThreads];
  const int64_t row = blockIdx.x;
  const T *gr = g + row * D, *xr = x + row * D;
  const T mu = mean[row], rs = rstd[row];
  Sum2 acc{0, 0};
  for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
    const T gy = w ? gr[d] * w[d] : gr[d];
    const T xhat = (xr[d] - mu) * rs;
    acc.first += static_cast<double>(gy);
    acc.second += static_cast<double>(gy * xhat);
  }
  acc = block_reduce(acc, shared, [](const Sum2& u, const Sum2& v) { return Sum2{u.first + v.first, u.second + v.second}; });
  const T c1 = static_cast<T>(acc.first / static_cast<double>(D)), c2 = static_cast<T>(acc.second / static_cast<double>(D));
  for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
    const T gy = w ? gr[d] * w[d] : gr[d];
    const T xhat = (xr[d] - mu) * rs;
    grad_in[row * D + d] = rs * (gy - c1 - xhat * c2);
  }
}

// A row's max and its sum of exp(x - max), both in every thread of the block.
template <typename T>
__device__ std::pair<T, T> row_max_and_exp_sum(const T* x, int64_t R, T* shared) {
  T m = -INFINITY;
  for (int64_t r = threadIdx.x; r < R; r += blockDim.x) m = math::max_nan(m, x[r]);
  m = block_reduce(m, shared, [](T u, T v) { return math::max_nan(u, v); });
  T s = 0;
  for (int64_t r = threadIdx.x; r < R; r += blockDim.x) s += math::full_range_exp(x[r] - m);
  s = block_reduce(s, shared, [](T u, T v) { return u + v; });
  return {m, s};
}

template <typename T>
__global__ void __launch_bounds__(kThreads) softmax_rows_kernel(const T* in, T* out, int64_t R, bool log) {
  __shared__ T shared[kThreads];
  const T* x = in + static_cast<int64_t>(blockIdx.x) * R;
  T* o = out + static_cast<int64_t>(blockIdx.x) * R;
  const auto [m, s] = row_max_and_exp_sum(x, R, shared);
  if (log) {
    const T log_sum = std::log(s);
    for (int64_t r = threadIdx.x; r < R; r += blockDim.x) o[r] = (x[r] - m) - log_sum;
  } else {
    const T inv = T(1) / s;
    for (int64_t r = threadIdx.x; r < R; r += blockDim.x) o[r] = math::full_range_exp(x[r] - m) * inv;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) softmax_backward_rows_kernel(const T* grad, const T* y, T* grad_in,
                                                                          int64_t R, bool log) {
  __shared__ T shared[kThreads];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * R;
  T s = 0;
  for (int64_t r = threadIdx.x; r < R; r += blockDim.x) s += log ? grad[base + r] : grad[base + r] * y[base + r];
  s = block_reduce(s, shared, [](T u, T v) { return u + v; });
  for (int64_t r = threadIdx.x; r < R; r += blockDim.x) {
    const T g = grad[base + r], yv = y[base + r];
    grad_in[base + r] = log ? g - math::full_range_exp(yv) * s : yv * (g - s);
  }
}

// Cross entropy's rows (launch_log_softmax_nll): softmax_rows_kernel's statistics, the picked
// log-probability negated, no [R]-long output.
template <typename T>
__global__ void __launch_bounds__(kThreads) log_softmax_nll_kernel(const T* in, const int64_t* target, T* loss,
                                                                    T* stats, int64_t R) {
  __shared__ T shared[kThreads];
  const int64_t row = blockIdx.x;
  const T* x = in + row * R;
  const auto [m, s] = row_max_and_exp_sum(x, R, shared);
  if (threadIdx.x == 0) {
    const T log_sum = std::log(s);
    stats[2 * row] = m;
    stats[2 * row + 1] = log_sum;
    loss[row] = -((x[target[row]] - m) - log_sum);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) log_softmax_nll_backward_kernel(const T* in, const int64_t* target,
                                                                             const T* stats, const T* grad,
                                                                             T* grad_in, int64_t R) {
  const int64_t row = blockIdx.x, t = target[row];
  const T m = stats[2 * row], log_sum = stats[2 * row + 1], g = grad[row];
  for (int64_t r = threadIdx.x; r < R; r += blockDim.x) {
    const T v = math::full_range_exp((in[row * R + r] - m) - log_sum) * g;
    grad_in[row * R + r] = r == t ? v - g : v;
  }
}

// Softmax along a dim that is not the last: a thread per (o, i) column walks its R values.
template <typename T>
__global__ void __launch_bounds__(kThreads) softmax_cols_kernel(const T* in, T* out, int64_t O, int64_t R, int64_t I,
                                                                 bool log) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < O * I; c += step) {
    const int64_t base = (c / I) * R * I + c % I;
    T m = -INFINITY;
    for (int64_t r = 0; r < R; ++r) m = math::max_nan(m, in[base + r * I]);
    T s = 0;
    for (int64_t r = 0; r < R; ++r) s += math::full_range_exp(in[base + r * I] - m);
    const T log_sum = std::log(s), inv = T(1) / s;
    for (int64_t r = 0; r < R; ++r) {
      const T v = in[base + r * I] - m;
      out[base + r * I] = log ? v - log_sum : math::full_range_exp(v) * inv;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) softmax_backward_cols_kernel(const T* grad, const T* y, T* grad_in,
                                                                          int64_t O, int64_t R, int64_t I, bool log) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < O * I; c += step) {
    const int64_t base = (c / I) * R * I + c % I;
    T s = 0;
    for (int64_t r = 0; r < R; ++r) s += log ? grad[base + r * I] : grad[base + r * I] * y[base + r * I];
    for (int64_t r = 0; r < R; ++r) {
      const T g = grad[base + r * I], yv = y[base + r * I];
      grad_in[base + r * I] = log ? g - math::full_range_exp(yv) * s : yv * (g - s);
    }
  }
}

template <typename F>
void visit_reducible(DType dtype, const F& f) {
  switch (dtype) {
    case DType::Bool:
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    default: return f(double{});
  }
}

template <typename F>
void visit_floating(DType dtype, const F& f) {
  if (dtype == DType::Float32)
    f(float{});
  else
    f(double{});
}

}  // namespace

void launch_reduce(ReduceKind op, DType dtype, const void* in, void* out, const ReduceLayout& l, Scratch& scratch,
                   cudaStream_t stream) {
  visit_reducible(dtype, [&](auto tag) {
    using T = decltype(tag);
    run_reduce(ValueReducer<T>{op, static_cast<const T*>(in), static_cast<T*>(out), l}, l, scratch, stream, "reduce");
  });
}

void launch_arg_reduce(bool is_max, DType dtype, const void* in, void* values, int64_t* indices, int64_t O,
                       int64_t R, int64_t I, Scratch& scratch, cudaStream_t stream) {
  visit_reducible(dtype, [&](auto tag) {
    using T = decltype(tag);
    ArgReducer<T> r{is_max, static_cast<const T*>(in), static_cast<T*>(values), indices, O, R, I};
    ReduceLayout l;
    l.O = O;
    l.R = R;
    l.I = I;
    run_reduce(r, l, scratch, stream, is_max ? "max" : "min");
  });
}

void launch_batch_norm_stats(DType dtype, const void* x, void* mean, void* var, int64_t N, int64_t C, int64_t S,
                             Scratch& scratch, cudaStream_t stream) {
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    ReduceLayout l;
    l.A = N;
    l.O = C;
    l.R = S;
    run_reduce(BatchNormStatsReducer<T>{static_cast<const T*>(x), static_cast<T*>(mean), static_cast<T*>(var), C, S},
               l, scratch, stream, "batch_norm");
  });
}

void launch_batch_norm_grad_sums(DType dtype, const void* g, const void* x, const void* mean, void* sum_g,
                                 void* sum_gx, int64_t N, int64_t C, int64_t S, Scratch& scratch,
                                 cudaStream_t stream) {
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    ReduceLayout l;
    l.A = N;
    l.O = C;
    l.R = S;
    run_reduce(BatchNormGradSumsReducer<T>{static_cast<const T*>(g), static_cast<const T*>(x),
                                           static_cast<const T*>(mean), static_cast<T*>(sum_g),
                                           static_cast<T*>(sum_gx), C, S},
               l, scratch, stream, "batch_norm");
  });
}

void launch_layer_norm(DType dtype, const void* x, const void* weight, const void* bias, void* out, void* mean,
                       void* rstd, int64_t R, int64_t D, double eps, cudaStream_t stream) {
  if (R == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    layer_norm_kernel<T><<<static_cast<unsigned int>(R), row_threads(D), 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(weight), static_cast<const T*>(bias), static_cast<T*>(out),
        static_cast<T*>(mean), static_cast<T*>(rstd), D, eps);
    check_launch("layer_norm");
  });
}

void launch_layer_norm_backward(DType dtype, const void* g, const void* x, const void* mean, const void* rstd,
                                const void* weight, void* grad_in, void* grad_weight, void* grad_bias, int64_t R,
                                int64_t D, Scratch& scratch, cudaStream_t stream) {
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *gp = static_cast<const T*>(g), *xp = static_cast<const T*>(x), *mp = static_cast<const T*>(mean),
            *rp = static_cast<const T*>(rstd);
    if (grad_in && R > 0) {
      layer_norm_grad_input_kernel<T><<<static_cast<unsigned int>(R), row_threads(D), 0, stream>>>(
          gp, xp, mp, rp, static_cast<const T*>(weight), static_cast<T*>(grad_in), D);
      check_launch("layer_norm backward");
    }
    if (grad_weight || grad_bias) {
      ReduceLayout l;
      l.R = R;
      l.I = D;
      run_reduce(LayerNormParamGradReducer<T>{gp, xp, mp, rp, static_cast<T*>(grad_weight),
                                              static_cast<T*>(grad_bias), D},
                 l, scratch, stream, "layer_norm backward");
    }
  });
}

void launch_softmax(DType dtype, const void* in, void* out, int64_t O, int64_t R, int64_t I, bool log,
                    cudaStream_t stream) {
  if (O * R * I == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in);
    T* o = static_cast<T*>(out);
    if (I == 1)
      softmax_rows_kernel<T><<<static_cast<unsigned int>(O), row_threads(R), 0, stream>>>(x, o, R, log);
    else
      softmax_cols_kernel<T><<<blocks_for(O * I), kThreads, 0, stream>>>(x, o, O, R, I, log);
    check_launch(log ? "log_softmax" : "softmax");
  });
}

void launch_softmax_backward(DType dtype, const void* grad, const void* y, void* grad_in, int64_t O, int64_t R,
                             int64_t I, bool log, cudaStream_t stream) {
  if (O * R * I == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *g = static_cast<const T*>(grad), *yp = static_cast<const T*>(y);
    T* gi = static_cast<T*>(grad_in);
    if (I == 1)
      softmax_backward_rows_kernel<T><<<static_cast<unsigned int>(O), row_threads(R), 0, stream>>>(g, yp, gi, R, log);
    else
      softmax_backward_cols_kernel<T><<<blocks_for(O * I), kThreads, 0, stream>>>(g, yp, gi, O, R, I, log);
    check_launch(log ? "log_softmax" : "softmax");
  });
}

void launch_log_softmax_nll(DType dtype, const void* logits, const int64_t* target, void* loss, void* stats,
                            int64_t N, int64_t C, cudaStream_t stream) {
  if (N * C == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    log_softmax_nll_kernel<T><<<static_cast<unsigned int>(N), row_threads(C), 0, stream>>>(
        static_cast<const T*>(logits), target, static_cast<T*>(loss), static_cast<T*>(stats), C);
    check_launch("cross_entropy");
  });
}

void launch_log_softmax_nll_backward(DType dtype, const void* logits, const int64_t* target, const void* stats,
                                     const void* grad, void* grad_logits, int64_t N, int64_t C, cudaStream_t stream) {
  if (N * C == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    log_softmax_nll_backward_kernel<T><<<static_cast<unsigned int>(N), row_threads(C), 0, stream>>>(
        static_cast<const T*>(logits), target, static_cast<const T*>(stats), static_cast<const T*>(grad),
        static_cast<T*>(grad_logits), C);
    check_launch("cross_entropy");
  });
}

}  // namespace ember::cuda
