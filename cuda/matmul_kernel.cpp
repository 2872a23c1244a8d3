// CUDA kernel for matmul: float32 and float64 through cuBLAS's strided-batched GEMM on the operands'
// own layouts (cuda/shared/gemm_plan.h: a transposed view needs no copy), addmm's accumulation as
// its beta = 1; integers through a plain kernel (cuBLAS has no integer GEMM). The batch dims that
// flatten to one stride per operand (all of them, for contiguous or broadcast operands) go to
// cuBLAS in one call; any others are looped here.
// float32 products keep full precision (no TF32), as on the CPU. float16 and bfloat16 go to
// cuBLAS's GemmEx on tensor cores, accumulating in float32 and rounding once, where the device
// has them (cuda/shared/tensor_math.h); elsewhere through float32 copies (core/kernels/widen.h).
#include "ember/core/copy.h"
#include "ember/core/kernels/matmul.h"
#include "ember/core/strided.h"
#include "ember/cuda/check.h"
#include "ember/cuda/cublas_api.h"
#include "ember/cuda/handles.h"
#include "ember/cuda/native_or_widened.h"
#include "ember/cuda/shared/gemm_plan.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

MatrixView view_of(const Tensor& t) {
  const int64_t nd = t.dim();
  return {t.size(nd - 2), t.size(nd - 1), t.stride(nd - 2), t.stride(nd - 1)};
}

// t unchanged when cuBLAS can read its matrices in place, else a row-major copy; broadcast
// (stride-0) batch dims stay broadcast, so each distinct matrix is copied once.
Tensor gemm_ready(const Tensor& t) {
  if (plan_operand(view_of(t)).usable) return t;
  const int64_t nd = t.dim();
  DimVector sizes = t.sizes().vec();
  for (int64_t d = 0; d < nd - 2; ++d)
    if (t.stride(d) == 0) sizes[static_cast<size_t>(d)] = 1;
  Tensor dense = contiguous_data(as_strided_data(t, sizes, t.strides(), t.storage_offset()));
  DimVector strides = dense.strides().vec();
  for (int64_t d = 0; d < nd - 2; ++d)
    if (t.stride(d) == 0) strides[static_cast<size_t>(d)] = 0;
  return as_strided_data(dense, t.sizes(), strides, dense.storage_offset());
}

// Calls gemm(a_offset, b_offset, out_offset, count, a_stride, b_stride) (element offsets; count
// matrices at the given batch strides) for every group of the batch that flattens.
template <typename Gemm>
void for_each_batch_group(const Tensor& out, const Tensor& a, const Tensor& b, const Gemm& gemm) {
  const int nb = static_cast<int>(out.dim()) - 2;
  const int64_t* sizes = out.sizes().data();
  const int64_t mn = out.size(-2) * out.size(-1);
  int split = 0;  // batch dims [0, split) are looped, [split, nb) flattened
  int64_t sa = 0, sb = 0;
  while (!(flatten_batch(nb - split, sizes + split, a.strides().data() + split, sa) &&
           flatten_batch(nb - split, sizes + split, b.strides().data() + split, sb)))
    ++split;
  int64_t inner = 1, outer = 1;
  for (int d = split; d < nb; ++d) inner *= sizes[d];
  for (int d = 0; d < split; ++d) outer *= sizes[d];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t a_off = 0, b_off = 0, rem = o;
    for (int d = split - 1; d >= 0; --d) {
      const int64_t idx = rem % sizes[d];
      rem /= sizes[d];
      a_off += idx * a.stride(d);
      b_off += idx * b.stride(d);
    }
    gemm(a_off, b_off, o * inner * mn, inner, sa, sb);
  }
}

// T: float, double, or uint16_t for the float16 and bfloat16 bits (GemmEx: float32 accumulation,
// float alpha and beta, one rounding of the result).
template <typename T>
void cublas_matmul(const On& on, const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  const GemmPlan plan = plan_gemm(view_of(a), view_of(b));
  const CublasApi& api = cublas();
  cublasHandle_t handle = cublas_handle(on.index);
  const auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  using Scale = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const Scale alpha = 1, beta = accumulate ? 1 : 0;
  const cudaDataType_t half = out.dtype() == kBFloat16 ? CUDA_R_16BF : CUDA_R_16F;
  const T* ap = static_cast<const T*>(a.data_ptr());
  const T* bp = static_cast<const T*>(b.data_ptr());
  T* op_ = static_cast<T*>(out.data_ptr());
  const int64_t mn = plan.m * plan.n;
  for_each_batch_group(out, a, b, [&](int64_t a_off, int64_t b_off, int64_t o_off, int64_t count, int64_t sa, int64_t sb) {
    if constexpr (std::is_same_v<T, float>)
      EMBER_CUBLAS_CHECK(api.sgemm_strided_batched(handle, op(plan.first.transpose), op(plan.second.transpose), plan.n,
                                                   plan.m, plan.k, &alpha, bp + b_off, plan.first.ld, sb, ap + a_off,
                                                   plan.second.ld, sa, &beta, op_ + o_off, plan.n, mn, count));
    else if constexpr (std::is_same_v<T, double>)
      EMBER_CUBLAS_CHECK(api.dgemm_strided_batched(handle, op(plan.first.transpose), op(plan.second.transpose), plan.n,
                                                   plan.m, plan.k, &alpha, bp + b_off, plan.first.ld, sb, ap + a_off,
                                                   plan.second.ld, sa, &beta, op_ + o_off, plan.n, mn, count));
    else
      EMBER_CUBLAS_CHECK(api.gemm_strided_batched_ex(
          handle, op(plan.first.transpose), op(plan.second.transpose), plan.n, plan.m, plan.k, &alpha, bp + b_off, half,
          plan.first.ld, sb, ap + a_off, half, plan.second.ld, sa, &beta, op_ + o_off, half, plan.n, mn, count,
          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  });
}

void integer_matmul(const On& on, const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  const auto* ap = static_cast<const char*>(a.data_ptr());
  const auto* bp = static_cast<const char*>(b.data_ptr());
  auto* op = static_cast<char*>(out.data_ptr());
  const auto item = static_cast<int64_t>(out.itemsize());
  for_each_batch_group(out, a, b, [&](int64_t a_off, int64_t b_off, int64_t o_off, int64_t count, int64_t sa, int64_t sb) {
    launch_gemm_fallback(out.dtype(), count, m, n, k, ap + a_off * item, sa, a.stride(-2), a.stride(-1), bp + b_off * item,
                         sb, b.stride(-2), b.stride(-1), op + o_off * item, on.stream);
  });
}

void cuda_matmul(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  check_compute_dtype(out.dtype(), "matmul");
  EMBER_CHECK_TYPE(out.dtype() != kBool, "matmul: not supported for bool tensors");
  EMBER_INTERNAL_ASSERT(!accumulate || is_floating(out.dtype()), "matmul: accumulates floating products only");
  if (out.numel() == 0) return;
  if (a.size(-1) == 0) {  // an empty sum: zeros, or the addend (cuBLAS asks k >= 1 of its leading dims)
    if (!accumulate) fill_data(out, 0);
    return;
  }
  On on(out);
  if (!is_floating(out.dtype())) return integer_matmul(on, out, a, b);
  const Tensor ar = gemm_ready(a), br = gemm_ready(b);
  if (is_16bit_float(out.dtype()))
    cublas_matmul<uint16_t>(on, out, ar, br, accumulate);
  else if (out.dtype() == kFloat32)
    cublas_matmul<float>(on, out, ar, br, accumulate);
  else
    cublas_matmul<double>(on, out, ar, br, accumulate);
}

}  // namespace

EMBER_REGISTER_KERNEL(matmul_stub, DeviceType::CUDA, (native_or_widened<&cuda_matmul>));
// NB: no epilogue path yet (cuBLASLt's bias epilogue would be it): the bias is written, then accumulated onto
EMBER_REGISTER_KERNEL(matmul_bias_stub, DeviceType::CUDA,
                      ([](const Tensor&, const Tensor&, const Tensor&, const Tensor&) { return false; }));

}  // namespace ember::cuda
