// 2-D max and average pooling, forward and backward: a thread per output (ow along x, oh along y,
// the N * C planes along z), its window from cuda/shared/pool_window.h in 32-bit arithmetic. The
// backward kernels add into the zeroed input gradient with atomics (windows overlap).
#include <cmath>

#include "ember/cuda/kernels/device_utils.cuh"
#include "ember/cuda/shared/pool_window.h"

namespace ember::cuda {
namespace {

// The same geometry in 32-bit ints (launch_* check that every size fits).
struct Geometry32 {
  int H, W, oH, oW, kH, kW, sH, sW, pH, pW, dH, dW;
  bool adaptive, count_include_pad;
  int divisor_override;
};

Geometry32 narrow(const PoolGeometry& g) {
  return {static_cast<int>(g.H), static_cast<int>(g.W), static_cast<int>(g.oH), static_cast<int>(g.oW),
          static_cast<int>(g.kH), static_cast<int>(g.kW), static_cast<int>(g.sH), static_cast<int>(g.sW),
          static_cast<int>(g.pH), static_cast<int>(g.pW), static_cast<int>(g.dH), static_cast<int>(g.dW),
          g.adaptive, g.count_include_pad, static_cast<int>(g.divisor_override)};
}

__device__ __forceinline__ PoolWindow<int> row_window(const Geometry32& g, int oh) {
  return g.adaptive ? adaptive_window(oh, g.H, g.oH) : pool_window(oh, g.H, g.kH, g.sH, g.pH, g.dH);
}
__device__ __forceinline__ PoolWindow<int> col_window(const Geometry32& g, int ow) {
  return g.adaptive ? adaptive_window(ow, g.W, g.oW) : pool_window(ow, g.W, g.kW, g.sW, g.pW, g.dW);
}

// Grid: x over ow, y over oh, z over planes (each a grid-stride loop past the grid's limits).
#define EMBER_FOR_EACH_OUTPUT(planes, oH, oW)                                                           \
  for (int64_t plane = blockIdx.z; plane < (planes); plane += gridDim.z)                              \
    for (int oh = blockIdx.y; oh < (oH); oh += gridDim.y)                                             \
      for (int ow = blockIdx.x * blockDim.x + threadIdx.x; ow < (oW); ow += blockDim.x * gridDim.x)

dim3 output_grid(int64_t planes, int64_t oH, int64_t oW) {
  const auto cap = [](int64_t v, int64_t c) { return static_cast<unsigned int>(v < 1 ? 1 : (v > c ? c : v)); };
  return dim3(cap((oW + kThreads - 1) / kThreads, 1024), cap(oH, 65535), cap(planes, 65535));
}

// NB: adaptive_max_pool2d's windows in a kernel of their own: choosing them at run time made the
// float64 kernel spill on sm_80.
template <typename T, bool Adaptive>
__global__ void __launch_bounds__(kThreads) max_pool_kernel(const Geometry32 g, int64_t planes, const T* in, T* out,
                                                             int64_t* indices) {
  EMBER_FOR_EACH_OUTPUT(planes, g.oH, g.oW) {
    const PoolWindow<int> r = Adaptive ? adaptive_window(oh, g.H, g.oH) : pool_window(oh, g.H, g.kH, g.sH, g.pH, g.dH);
    const PoolWindow<int> c = Adaptive ? adaptive_window(ow, g.W, g.oW) : pool_window(ow, g.W, g.kW, g.sW, g.pW, g.dW);
    const T* x = in + plane * g.H * g.W;
    // A window of -inf (or with no input) points at its first element, as on the CPU; taps in
    // row-major order, a later value wins only when larger, and a NaN always takes over.
    T best = -INFINITY;
    int64_t arg = static_cast<int64_t>(r.start + r.begin * g.dH) * g.W + c.start + c.begin * g.dW;
    for (int ki = r.begin; ki < r.end; ++ki) {
      const int row = r.start + ki * g.dH;
      for (int kj = c.begin; kj < c.end; ++kj) {
        const int col = c.start + kj * g.dW;
        const T v = x[static_cast<int64_t>(row) * g.W + col];
        if (v > best || v != v) {
          best = v;
          arg = static_cast<int64_t>(row) * g.W + col;
        }
      }
    }
    const int64_t o = (plane * g.oH + oh) * g.oW + ow;
    out[o] = best;
    indices[o] = arg;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) max_pool_backward_kernel(int64_t planes, int64_t in_plane, int64_t out_plane,
                                                                      const T* grad_out, const int64_t* indices,
                                                                      T* grad_in) {
  for (int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y)
    for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < out_plane;
         j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
      const int64_t o = plane * out_plane + j, i = indices[o];
      if (i >= 0 && i < in_plane) atomic_add(grad_in + plane * in_plane + i, grad_out[o]);  // NB: user indices
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) avg_pool_kernel(const Geometry32 g, int64_t planes, const T* in, T* out) {
  EMBER_FOR_EACH_OUTPUT(planes, g.oH, g.oW) {
    const PoolWindow<int> r = row_window(g, oh), c = col_window(g, ow);
    const int div = avg_pool_divisor(r, c, g.adaptive, g.count_include_pad, g.divisor_override);
    const T* x = in + plane * g.H * g.W;
    T acc = 0;
    for (int ih = r.start + r.begin; ih < r.start + r.end; ++ih)
      for (int iw = c.start + c.begin; iw < c.start + c.end; ++iw) acc += x[static_cast<int64_t>(ih) * g.W + iw];
    out[(plane * g.oH + oh) * g.oW + ow] = div == 0 ? T(0) : acc / static_cast<T>(div);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) avg_pool_backward_kernel(const Geometry32 g, int64_t planes,
                                                                      const T* grad_out, T* grad_in) {
  EMBER_FOR_EACH_OUTPUT(planes, g.oH, g.oW) {
    const PoolWindow<int> r = row_window(g, oh), c = col_window(g, ow);
    const int div = avg_pool_divisor(r, c, g.adaptive, g.count_include_pad, g.divisor_override);
    if (div == 0) continue;
    const T share = grad_out[(plane * g.oH + oh) * g.oW + ow] / static_cast<T>(div);
    T* gi = grad_in + plane * g.H * g.W;
    for (int ih = r.start + r.begin; ih < r.start + r.end; ++ih)
      for (int iw = c.start + c.begin; iw < c.start + c.end; ++iw) atomic_add(gi + static_cast<int64_t>(ih) * g.W + iw, share);
  }
}

#undef EMBER_FOR_EACH_OUTPUT

bool fits_int32(const PoolGeometry& g) {
  const int64_t limit = int64_t{1} << 30;
  for (int64_t v : {g.H, g.W, g.oH, g.oW, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.divisor_override})
    if (v >= limit || v <= -limit) return false;
  // Adaptive windows multiply an output position by an input size.
  return !g.adaptive || (g.oH * g.H < limit && g.oW * g.W < limit);
}

template <typename F>
void visit_floating(DType dtype, const F& f) {
  if (dtype == DType::Float32)
    f(float{});
  else
    f(double{});
}

}  // namespace

void launch_max_pool2d(DType dtype, const PoolGeometry& g, const void* in, void* out, int64_t* indices,
                       cudaStream_t stream) {
  if (g.planes * g.oH * g.oW == 0) return;
  check_pool_sizes(fits_int32(g), "max_pool2d");
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (g.adaptive)
      max_pool_kernel<T, true><<<output_grid(g.planes, g.oH, g.oW), kThreads, 0, stream>>>(
          narrow(g), g.planes, static_cast<const T*>(in), static_cast<T*>(out), indices);
    else
      max_pool_kernel<T, false><<<output_grid(g.planes, g.oH, g.oW), kThreads, 0, stream>>>(
          narrow(g), g.planes, static_cast<const T*>(in), static_cast<T*>(out), indices);
    check_launch(g.adaptive ? "adaptive_max_pool2d" : "max_pool2d");
  });
}

void launch_max_pool2d_backward(DType dtype, int64_t planes, int64_t in_plane, int64_t out_plane,
                                const void* grad_out, const int64_t* indices, void* grad_in, cudaStream_t stream) {
  const size_t item = dtype == DType::Float32 ? 4 : 8;
  if (planes * in_plane == 0) return;
  check_cuda(cudaMemsetAsync(grad_in, 0, static_cast<size_t>(planes * in_plane) * item, stream), "max_pool2d");
  if (out_plane == 0) return;
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const dim3 grid(blocks_for(out_plane) > 1024 ? 1024 : blocks_for(out_plane),
                    static_cast<unsigned int>(planes < 65535 ? planes : 65535));
    max_pool_backward_kernel<T><<<grid, kThreads, 0, stream>>>(planes, in_plane, out_plane,
                                                               static_cast<const T*>(grad_out), indices,
                                                               static_cast<T*>(grad_in));
    check_launch("max_pool2d backward");
  });
}

void launch_avg_pool2d(DType dtype, const PoolGeometry& g, const void* in, void* out, cudaStream_t stream) {
  if (g.planes * g.oH * g.oW == 0) return;
  check_pool_sizes(fits_int32(g), "avg_pool2d");
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_kernel<T><<<output_grid(g.planes, g.oH, g.oW), kThreads, 0, stream>>>(
        narrow(g), g.planes, static_cast<const T*>(in), static_cast<T*>(out));
    check_launch("avg_pool2d");
  });
}

void launch_avg_pool2d_backward(DType dtype, const PoolGeometry& g, const void* grad_out, void* grad_in,
                                cudaStream_t stream) {
  const size_t item = dtype == DType::Float32 ? 4 : 8;
  if (g.planes * g.H * g.W == 0) return;
  check_cuda(cudaMemsetAsync(grad_in, 0, static_cast<size_t>(g.planes * g.H * g.W) * item, stream), "avg_pool2d");
  if (g.oH * g.oW == 0) return;
  check_pool_sizes(fits_int32(g), "avg_pool2d");
  visit_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_backward_kernel<T><<<output_grid(g.planes, g.oH, g.oW), kThreads, 0, stream>>>(
        narrow(g), g.planes, static_cast<const T*>(grad_out), static_cast<T*>(grad_in));
    check_launch("avg_pool2d backward");
  });
}

}  // namespace ember::cuda
