// CUDA kernel for multinomial sampling (core/kernels/sampling.h; cuda/kernels/sampling.cu): row r
// takes the generator's uniform doubles r k to r k + k - 1 from its state at the call, as the CPU
// kernel draws them one after another, so both devices give the same samples for a given state,
// and the generator moves on by the same count (two 32-bit draws per uniform double).
#include "ember/core/kernels/sampling.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

void cuda_multinomial(const Tensor& out, const Tensor& weights, int64_t k, bool replacement, Generator& gen) {
  const int64_t n = weights.size(-1), rows = weights.numel() / std::max<int64_t>(n, 1);
  const Generator::State start = gen.get_state();
  On on(out);
  TensorScratch scratch(out.device());
  launch_multinomial(static_cast<const double*>(weights.data_ptr()), static_cast<int64_t*>(out.data_ptr()), rows, n, k,
                     replacement, start.seed, start.counter, scratch, on.stream);
  gen.set_state({start.seed, start.counter + 2 * static_cast<uint64_t>(rows * k)});
}

}  // namespace

EMBER_REGISTER_KERNEL(multinomial_stub, DeviceType::CUDA, &cuda_multinomial);

}  // namespace ember::cuda
