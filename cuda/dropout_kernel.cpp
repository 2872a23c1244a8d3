// CUDA kernel for dropout: element i draws number counter + i of the generator's Philox stream
// (core/philox.h), exactly the draw the CPU kernel gives it, so a seeded mask is the same on both
// devices and a saved generator state resumes on either.
#include "ember/core/copy.h"
#include "ember/core/kernels/dropout.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

void cuda_dropout(const Tensor& out, const Tensor& mask, const Tensor& in, double p, Generator& gen) {
  check_floating_compute(in.dtype(), "dropout");
  const Tensor src = contiguous_data(in);
  const Generator::State start = gen.get_state();
  On on(out);
  launch_dropout(in.dtype(), src.data_ptr(), out.data_ptr(), mask.data_ptr(), in.numel(), p, start.seed, start.counter,
                 on.stream);
  gen.set_state({start.seed, start.counter + static_cast<uint64_t>(in.numel())});
}

}  // namespace

EMBER_REGISTER_KERNEL(dropout_stub, DeviceType::CUDA, (widened<&cuda_dropout, 0, 1>));

}  // namespace ember::cuda
