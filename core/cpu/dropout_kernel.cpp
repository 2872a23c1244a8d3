// CPU kernel for dropout (ops/dropout.h). The generator is counter-based (Philox), so a chunk of
// elements starting at element k draws the words at counter + k (philox_run.h): the chunks run in
// parallel and the mask is the same for any number of threads.
#include <algorithm>

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"
#include "ember/core/kernels/dropout.h"
#include "ember/core/kernels/widen.h"
#include "ember/core/philox.h"
#include "ember/core/philox_run.h"

namespace ember::cpu {
namespace {

void cpu_dropout(const Tensor& out, const Tensor& mask, const Tensor& in, double p, Generator& gen) {
  Tensor src = contiguous_data(in);
  int64_t n = in.numel();
  Generator::State start = gen.get_state();
  visit_floating_dtype(in.dtype(), "dropout", [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(src.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    T* m = static_cast<T*>(mask.data_ptr());
    const float keep = static_cast<float>(1.0 - p);
    const T scale = static_cast<T>(1.0 / (1.0 - p));
    parallel_for(0, n, kElementwiseGrain, [&](int64_t lo, int64_t hi) {
      constexpr int64_t kChunk = 1024;
      uint32_t bits[kChunk];
      const float keep_below = keep;  // NB: copies the loop can keep in registers: it vectorises
      const T kept = scale;
      for (int64_t s = lo; s < hi; s += kChunk) {
        const int64_t len = std::min(kChunk, hi - s);
        philox_u32_run(start.seed, start.counter + static_cast<uint64_t>(s), bits, len);
        T* __restrict mask_run = m + s;
        for (int64_t j = 0; j < len; ++j) mask_run[j] = uniform_float_of(bits[j]) < keep_below ? kept : T(0);
      }
      VecMap<T>(o + lo, hi - lo) = ConstVecMap<T>(x + lo, hi - lo) * ConstVecMap<T>(m + lo, hi - lo);
    });
  });
  gen.set_state({start.seed, start.counter + static_cast<uint64_t>(n)});
}

}  // namespace

EMBER_REGISTER_KERNEL(dropout_stub, DeviceType::CPU, (widened<&cpu_dropout, 0, 1>));

}  // namespace ember::cpu
