// CPU kernel for matmul (ops/matmul.h): one gemm per batch entry on the operands' own layout,
// writing or (addmm) accumulating into out.
// Large products are split over threads by Eigen; many small ones are split over the batch.
// bfloat16 products go to oneDNN's bfloat16 matmul where the CPU has the instructions, and are
// widened to float32 (computed in float32, rounded once) where it has not.
#include "ember/core/cpu/gemm.h"
#include "ember/core/cpu/gemm_operand.h"
#include "ember/core/cpu/matmul_onednn.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/matmul.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Multiply-adds per thread's share of a batch of small products, and the size of one product
// from which Eigen's own threading is the better split.
constexpr int64_t kBatchGrain = int64_t{1} << 16;
constexpr int64_t kOwnThreadsWork = int64_t{1} << 21;

// product(a_offset, b_offset, entry) for each batch entry of out = a @ b (offsets in elements), over
// threads when the products are small, in order on this thread otherwise; `from` skips entries.
template <typename F>
void for_each_product(const Tensor& out, const Tensor& a, const Tensor& b, int64_t from, const F& product) {
  const int64_t nd = out.dim();
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  DimVector batch(out.sizes().begin(), out.sizes().end() - 2);
  DimVector a_strides(a.strides().begin(), a.strides().end() - 2);
  DimVector b_strides(b.strides().begin(), b.strides().end() - 2);
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
      product(a_off, b_off, i);
    }
  };
  const int64_t work = m * n * std::max<int64_t>(k, 1);
  if (count - from > 1 && work < kOwnThreadsWork)
    parallel_for(from, count, std::max<int64_t>(1, kBatchGrain / work), run);
  else
    run(from, count);
}

template <typename T>
void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  const int64_t ars = a.stride(-2), acs = a.stride(-1), brs = b.stride(-2), bcs = b.stride(-1);
  const T* ap = static_cast<const T*>(a.data_ptr());
  const T* bp = static_cast<const T*>(b.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  for_each_product(out, a, b, 0, [&](int64_t a_off, int64_t b_off, int64_t i) {
    gemm<T>({ap + a_off, m, k, ars, acs}, {bp + b_off, k, n, brs, bcs}, op + i * m * n, n, accumulate);
  });
}

// The product on oneDNN's bfloat16 matmul (core/cpu/matmul_onednn.h); false, with nothing written,
// where it does not apply. The first entry decides: every entry has its shape and strides.
bool onednn_batched(const Tensor& out, const Tensor& a, const Tensor& b) {
  const DType dtype = out.dtype();
  if (a.dtype() != dtype || b.dtype() != dtype || !onednn_matmul_native(dtype) || out.numel() == 0) return false;
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  const int64_t ars = a.stride(-2), acs = a.stride(-1), brs = b.stride(-2), bcs = b.stride(-1);
  const auto item = static_cast<int64_t>(itemsize(dtype));
  const auto* ap = static_cast<const char*>(a.data_ptr());
  const auto* bp = static_cast<const char*>(b.data_ptr());
  auto* op = static_cast<char*>(out.data_ptr());
  auto product = [&](int64_t a_off, int64_t b_off, int64_t i) {
    return onednn_matmul(dtype, {ap + a_off * item, m, k, ars, acs}, {bp + b_off * item, k, n, brs, bcs},
                         op + i * m * n * item, n);
  };
  if (!product(0, 0, 0)) return false;
  for_each_product(out, a, b, 1, [&](int64_t a_off, int64_t b_off, int64_t i) {
    EMBER_INTERNAL_ASSERT(product(a_off, b_off, i), "matmul: oneDNN's kernel went missing within one product");
  });
  return true;
}

void cpu_matmul(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  EMBER_INTERNAL_ASSERT(!accumulate || is_floating(out.dtype()), "matmul: accumulates floating products only");
  Tensor ar = gemm_ready(a), br = gemm_ready(b);
  if (is_16bit_float(out.dtype())) {
    // NB: oneDNN's matmul overwrites; an addend goes through the float32 copy (widened keeps out's values)
    if (!accumulate && onednn_batched(out, ar, br)) return;
    return widened<&cpu_matmul, 0>(out, ar, br, accumulate);
  }
  visit_compute_dtype(out.dtype(), "matmul", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>)
      EMBER_CHECK_TYPE(false, "matmul: not supported for bool tensors");
    else
      batched_gemm<T>(out, ar, br, accumulate);
  });
}

// The bias in oneDNN's matmul epilogue, where that measured faster than writing it and sgemm
// accumulating onto it (Zen 4, 1 and 2 threads): 2-10% on products of 64 rows or more split by
// rows, e.g. [1024, 128] @ [128, 384]^T 959 -> 897 us. Fewer rows pay the primitive's call (1.4 ->
// 3.7 us at [1, 16] -> 16; [8, 512] -> 1000: 86 -> 126 us), and wider outputs, split by columns,
// lost at 2 threads ([700, 200] -> 800: 1.10 -> 1.36 ms) and were level at 1 (-> 10000).
bool bias_epilogue_pays(int64_t m, int64_t k, int64_t n) { return m >= 64 && m >= n && m * k * n >= (1 << 16); }

bool cpu_matmul_bias(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias) {
  const DType dtype = out.dtype();
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  if (!onednn_matmul_native(dtype) || out.numel() == 0 || k == 0 || !bias_epilogue_pays(m, k, n)) return false;
  const Tensor ar = gemm_ready(a), br = gemm_ready(b);
  return onednn_matmul(dtype, {ar.data_ptr(), m, k, ar.stride(0), ar.stride(1)},
                       {br.data_ptr(), k, n, br.stride(0), br.stride(1)}, out.data_ptr(), n, false, bias.data_ptr());
}

}  // namespace

EMBER_REGISTER_KERNEL(matmul_stub, DeviceType::CPU, &cpu_matmul);
EMBER_REGISTER_KERNEL(matmul_bias_stub, DeviceType::CPU, &cpu_matmul_bias);

}  // namespace ember::cpu
