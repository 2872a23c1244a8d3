// CPU kernel for matmul (ops/matmul.h): one gemm per batch entry on the operands' own layout.
// Large products are split over threads by Eigen; many small ones are split over the batch.
#include "ember/core/cpu/gemm.h"
#include "ember/core/cpu/gemm_operand.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/matmul.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Multiply-adds per thread's share of a batch of small products, and the size of one product
// from which Eigen's own threading is the better split.
constexpr int64_t kBatchGrain = int64_t{1} << 16;
constexpr int64_t kOwnThreadsWork = int64_t{1} << 21;

template <typename T>
void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t nd = out.dim();
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  DimVector batch(out.sizes().begin(), out.sizes().end() - 2);
  DimVector a_strides(a.strides().begin(), a.strides().end() - 2);
  DimVector b_strides(b.strides().begin(), b.strides().end() - 2);
  const int64_t ars = a.stride(-2), acs = a.stride(-1), brs = b.stride(-2), bcs = b.stride(-1);
  const T* ap = static_cast<const T*>(a.data_ptr());
  const T* bp = static_cast<const T*>(b.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  auto run = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      int64_t a_off = 0, b_off = 0, rem = i;
      for (int64_t d = nd - 3; d >= 0; --d) {
        auto du = static_cast<size_t>(d);
        int64_t idx = rem % batch[du];
        rem /= batch[du];
        a_off += idx * a_strides[du];
        b_off += idx * b_strides[du];
      }
      gemm<T>({ap + a_off, m, k, ars, acs}, {bp + b_off, k, n, brs, bcs}, op + i * m * n, n, false);
    }
  };
  const int64_t work = m * n * std::max<int64_t>(k, 1);
  if (count > 1 && work < kOwnThreadsWork)
    parallel_for(0, count, std::max<int64_t>(1, kBatchGrain / work), run);
  else
    run(0, count);
}

void cpu_matmul(const Tensor& out, const Tensor& a, const Tensor& b) {
  Tensor ar = gemm_ready(a), br = gemm_ready(b);
  visit_compute_dtype(out.dtype(), "matmul", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>)
      EMBER_CHECK_TYPE(false, "matmul: not supported for bool tensors");
    else
      batched_gemm<T>(out, ar, br);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(matmul_stub, DeviceType::CPU, (widened<&cpu_matmul, 0>));

}  // namespace ember::cpu
