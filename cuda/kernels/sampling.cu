// Multinomial sampling, one row per thread through the shared multinomial_row
// (cuda/shared/multinomial_row.h): each row is the CPU kernel's inverse transform sampling with the
// CPU's uniform draws, so the samples match for a given generator state. Each row's running sums
// and used flags live in scratch memory of [rows, n].
#include "ember/cuda/kernels/device_utils.cuh"
#include "ember/cuda/shared/multinomial_row.h"

namespace ember::cuda {
namespace {

__global__ void __launch_bounds__(kThreads) multinomial_kernel(const double* w, int64_t* out, int64_t rows, int64_t n,
                                                                int64_t k, bool replacement, uint64_t seed,
                                                                uint64_t draw0, double* cdf, uint8_t* used) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += static_cast<int64_t>(blockDim.x) * gridDim.x)
    multinomial_row(w + r * n, n, k, replacement, seed, draw0 + 2 * static_cast<uint64_t>(r * k), cdf + r * n,
                    used + r * n, out + r * k);
}

}  // namespace

void launch_multinomial(const double* weights, int64_t* out, int64_t rows, int64_t n, int64_t k, bool replacement,
                        uint64_t seed, uint64_t draw0, Scratch& scratch, cudaStream_t stream) {
  if (rows * k == 0 || n == 0) return;
  auto* cdf = static_cast<double*>(scratch.get(static_cast<size_t>(rows * n) * sizeof(double)));
  auto* used = static_cast<uint8_t*>(scratch.get(static_cast<size_t>(rows * n)));
  multinomial_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(weights, out, rows, n, k, replacement, seed, draw0, cdf,
                                                                used);
  check_launch("multinomial");
}

}  // namespace ember::cuda
