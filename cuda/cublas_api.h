#pragma once
// cuBLAS, opened on first use with dlopen rather than linked: libcublas brings libcublasLt (half a
// gigabyte), and loading both cost every process that links libember.so about a second on the CI
// machine, a test process included, GPU or not. Only the calls Ember makes are looked up.
#include <cublas_api.h>

namespace ember::cuda {

struct CublasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSetMathMode) set_math_mode;
  decltype(&cublasSgemmStridedBatched_64) sgemm_strided_batched;
  decltype(&cublasDgemmStridedBatched_64) dgemm_strided_batched;
  decltype(&cublasGemmStridedBatchedEx_64) gemm_strided_batched_ex;  // float16 and bfloat16
  decltype(&cublasStrsm_v2_64) strsm;                                // the linalg kernels (cuda/linalg_kernel.cpp)
  decltype(&cublasDtrsm_v2_64) dtrsm;
  decltype(&cublasStpttr) stpttr;
  decltype(&cublasDtpttr) dtpttr;
};

/// The loaded library's entry points; throws an ember::Error saying what is missing when
/// libcublas cannot be opened.
const CublasApi& cublas();

}  // namespace ember::cuda
