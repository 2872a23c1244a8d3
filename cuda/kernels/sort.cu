// Sorting and running sums along rows of [rows, n]. argsort is a bottom-up merge sort of index
// permutations, each pass a kernel with a thread per element: an element's place in the merged run
// is its place in its own run plus its rank in the partner run, found by binary search (left
// elements count partner elements strictly before them, right elements those not after them, so
// equal keys keep their input order: stable). cumsum is a block per row scanning chunks of 256
// values in shared memory, carrying the running total between chunks.
#include <cmath>

#include "ember/cuda/kernels/device_utils.cuh"

namespace ember::cuda {
namespace {

// The order: NaN above every number (so last ascending, first descending), as on the CPU.
template <typename T>
__device__ __forceinline__ bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return false;
    if (b != b) return true;
  }
  return a < b;
}
template <typename T>
__device__ __forceinline__ bool before(T a, T b, bool descending) {
  return descending ? less_nan_last(b, a) : less_nan_last(a, b);
}

__global__ void __launch_bounds__(kThreads) iota_kernel(int64_t* out, int64_t rows, int64_t n) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
    for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
         j += static_cast<int64_t>(blockDim.x) * gridDim.x)
      out[r * n + j] = j;
}

// One pass: runs of `width` (1 << log_width) merged pairwise from `from` into `to`.
template <typename T>
__global__ void __launch_bounds__(kThreads) merge_pass_kernel(const T* x, const int64_t* from, int64_t* to,
                                                               int64_t rows, int64_t n, int log_width,
                                                               bool descending) {
  const int64_t width = int64_t{1} << log_width;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const T* row = x + r * n;
    const int64_t* src = from + r * n;
    int64_t* dst = to + r * n;
    for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < n;
         p += static_cast<int64_t>(blockDim.x) * gridDim.x) {
      const int64_t run = p >> log_width;
      const int64_t left = (run & ~int64_t{1}) << log_width;
      const int64_t mid = left + width < n ? left + width : n;
      const int64_t right_end = mid + width < n ? mid + width : n;
      const int64_t idx = src[p];
      const T key = row[idx];
      int64_t place;
      if ((run & 1) == 0) {  // left run: partner elements strictly before it
        int64_t lo = mid, hi = right_end;
        while (lo < hi) {
          const int64_t m = lo + (hi - lo) / 2;
          if (before(row[src[m]], key, descending)) lo = m + 1; else hi = m;
        }
        place = p + (lo - mid);
      } else {  // right run: partner elements not after it
        int64_t lo = left, hi = mid;
        while (lo < hi) {
          const int64_t m = lo + (hi - lo) / 2;
          if (!before(key, row[src[m]], descending)) lo = m + 1; else hi = m;
        }
        place = left + (p - mid) + (lo - left);
      }
      dst[place] = idx;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) cumsum_kernel(const T* in, T* out, int64_t rows, int64_t n) {
  __shared__ T chunk[kThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    T carry = 0;
    for (int64_t c0 = 0; c0 < n; c0 += kThreads) {
      const int64_t j = c0 + threadIdx.x;
      chunk[threadIdx.x] = j < n ? in[r * n + j] : T(0);
      // Hillis-Steele inclusive scan of the chunk (integers wrap).
      for (int s = 1; s < kThreads; s <<= 1) {
        __syncthreads();
        const T add = threadIdx.x >= static_cast<unsigned int>(s) ? chunk[threadIdx.x - s] : T(0);
        __syncthreads();
        chunk[threadIdx.x] = wrap_add(chunk[threadIdx.x], add);
      }
      __syncthreads();
      if (j < n) out[r * n + j] = wrap_add(carry, chunk[threadIdx.x]);
      carry = wrap_add(carry, chunk[kThreads - 1]);
      __syncthreads();
    }
  }
}

template <typename F>
void visit_sortable(DType dtype, const F& f) {
  switch (dtype) {
    case DType::Bool:
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    default: return f(double{});
  }
}

dim3 rows_grid(int64_t rows, int64_t n) {
  const int64_t x = (n + kThreads - 1) / kThreads;
  return dim3(static_cast<unsigned int>(x < 1 ? 1 : (x > 4096 ? 4096 : x)),
              static_cast<unsigned int>(rows < 65535 ? rows : 65535));
}

}  // namespace

void launch_argsort(DType dtype, const void* in, int64_t* indices, int64_t rows, int64_t n, bool descending,
                    Scratch& scratch, cudaStream_t stream) {
  if (rows * n == 0) return;
  int passes = 0;
  while ((int64_t{1} << passes) < n) ++passes;
  // Ping-pong between indices and a scratch buffer, starting where the last pass ends in indices.
  int64_t* other = passes > 0 ? static_cast<int64_t*>(scratch.get(static_cast<size_t>(rows * n) * sizeof(int64_t))) : indices;
  int64_t* from = passes % 2 == 0 ? indices : other;
  int64_t* to = passes % 2 == 0 ? other : indices;
  const dim3 grid = rows_grid(rows, n);
  iota_kernel<<<grid, kThreads, 0, stream>>>(from, rows, n);
  check_launch("argsort");
  visit_sortable(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int pass = 0; pass < passes; ++pass) {
      merge_pass_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), from, to, rows, n, pass, descending);
      check_launch("argsort");
      int64_t* t = from;
      from = to;
      to = t;
    }
  });
}

void launch_cumsum(DType dtype, const void* in, void* out, int64_t rows, int64_t n, cudaStream_t stream) {
  if (rows * n == 0) return;
  const auto blocks = static_cast<unsigned int>(rows < 65535 * 8 ? rows : 65535 * 8);
  visit_sortable(dtype, [&](auto tag) {
    using T = decltype(tag);
    cumsum_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), rows, n);
    check_launch("cumsum");
  });
}

}  // namespace ember::cuda
