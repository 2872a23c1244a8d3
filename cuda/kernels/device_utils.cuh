#pragma once
// What the .cu files share: launch geometry, typed loads and stores at byte addresses, the error
// slot, atomic adds for every compute dtype, and a block reduction over threadIdx.y.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ember/cuda/kernels/launch.h"

namespace ember::cuda {

inline constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n items (capped: each thread then takes several).
inline unsigned int blocks_for(int64_t n, int threads = kThreads) {
  const int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned int>(b < 1 ? 1 : (b > 65535 * 8 ? 65535 * 8 : b));
}


template <typename T>
__device__ __forceinline__ T load(const char* p) {
  return *reinterpret_cast<const T*>(p);
}
template <typename T>
__device__ __forceinline__ void store(char* p, T v) {
  *reinterpret_cast<T*>(p) = v;
}

/// Copies a 16-byte element (complex128) as two 8-byte words: its address is 8-byte aligned only
/// (a view_as_complex of float64 may start at any even element).
__device__ __forceinline__ void move_16_bytes(char* to, const char* from) {
  store<uint64_t>(to, load<uint64_t>(from));
  store<uint64_t>(to + 8, load<uint64_t>(from + 8));
}

/// Records the first refused value in the device's error slot (later ones are dropped).
__device__ __forceinline__ void report_error(int64_t* slot, KernelError code, int64_t value) {
  auto* word = reinterpret_cast<unsigned long long*>(slot);
  if (atomicCAS(word, 0ull, static_cast<unsigned long long>(code)) == 0ull) slot[1] = value;
}

/// *p += v, atomically, for every compute dtype: the hardware's adds for float, double, int32 and
/// 64-bit integers (two's complement wraps the same signed or not), a compare-and-swap on the
/// enclosing 32-bit word for the 1-byte types (bool adds as or).
template <typename T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    static_assert(sizeof(T) == 1, "atomic_add: no atomic for this dtype");
    auto addr = reinterpret_cast<uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
    const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const auto cur = static_cast<uint8_t>((assumed >> shift) & 0xffu);
      uint8_t next;
      if constexpr (std::is_same_v<T, bool>)
        next = static_cast<uint8_t>(cur | static_cast<uint8_t>(v));
      else
        next = static_cast<uint8_t>(cur + static_cast<uint8_t>(v));
      const unsigned int updated = (assumed & ~(0xffu << shift)) | (static_cast<unsigned int>(next) << shift);
      old = atomicCAS(word, assumed, updated);
    } while (old != assumed);
  }
}

/// a + b, wrapping for integers (as the CPU's integer sums; signed overflow is undefined in C++).
template <typename T>
__device__ __forceinline__ T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}

/// Reduces v over threadIdx.y (blockDim.y a power of two) for each threadIdx.x; the result is
/// returned to the threads with threadIdx.y == 0. `shared` holds blockDim.x * blockDim.y Accs.
template <typename Acc, typename Combine>
__device__ Acc block_reduce_y(Acc v, Acc* shared, const Combine& combine) {
  const unsigned int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x;
  shared[ty * bx + tx] = v;
  for (unsigned int s = blockDim.y / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (ty < s) shared[ty * bx + tx] = combine(shared[ty * bx + tx], shared[(ty + s) * bx + tx]);
  }
  __syncthreads();
  Acc r = shared[tx];
  __syncthreads();  // the caller may reuse `shared`
  return r;
}

/// Reduces v over a 1-D block (blockDim.x a power of two); every thread gets the result.
template <typename Acc, typename Combine>
__device__ Acc block_reduce(Acc v, Acc* shared, const Combine& combine) {
  const unsigned int t = threadIdx.x;
  shared[t] = v;
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (t < s) shared[t] = combine(shared[t], shared[t + s]);
  }
  __syncthreads();
  Acc r = shared[0];
  __syncthreads();
  return r;
}

/// The smallest power of two >= n, at most `cap`.
inline int pow2_at_least(int64_t n, int cap) {
  int p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

}  // namespace ember::cuda
