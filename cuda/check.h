#pragma once
// Checks of CUDA runtime, cuBLAS, cuSOLVER and cuDNN calls. A failure throws an ember::Error that names the
// library's error, the expression and where it was called:
//   CUDA error cudaErrorMemoryAllocation (out of memory) in cudaMalloc(&p, n) at cuda/allocator.cpp:70
#include <cuda_runtime_api.h>

namespace ember::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas_error(int status, const char* expr, const char* file, int line);
[[noreturn]] void throw_cudnn_error(int status, const char* expr, const char* file, int line);
[[noreturn]] void throw_cusolver_error(int status, const char* expr, const char* file, int line);
/// cuBLAS's name of a status ("CUBLAS_STATUS_NOT_INITIALIZED"): cuBLAS is opened on first use, so
/// its own cublasGetStatusName may not be loaded when a status needs naming.
const char* cublas_status_name(int status);
/// cuSOLVER's name of a status ("CUSOLVER_STATUS_INVALID_VALUE"): cuSOLVER has no function for it.
const char* cusolver_status_name(int status);

}  // namespace ember::cuda::detail

/// EMBER_CUDA_CHECK(cudaMalloc(&p, n)): throws ember::Error unless the call returns cudaSuccess.
#define EMBER_CUDA_CHECK(expr)                                                             \
  do {                                                                                     \
    const cudaError_t ember_status_ = (expr);                                              \
    if (ember_status_ != cudaSuccess) [[unlikely]]                                         \
      ::ember::cuda::detail::throw_cuda_error(ember_status_, #expr, __FILE__, __LINE__);   \
  } while (0)

/// EMBER_CUBLAS_CHECK(api.gemm(...)): throws ember::Error unless CUBLAS_STATUS_SUCCESS.
#define EMBER_CUBLAS_CHECK(expr)                                                                      \
  do {                                                                                                \
    const int ember_status_ = static_cast<int>(expr);                                                 \
    if (ember_status_ != 0) [[unlikely]]                                                              \
      ::ember::cuda::detail::throw_cublas_error(ember_status_, #expr, __FILE__, __LINE__);            \
  } while (0)

/// EMBER_CUDNN_CHECK(cudnnCreate(&h)): throws ember::Error unless CUDNN_STATUS_SUCCESS.
#define EMBER_CUDNN_CHECK(expr)                                                                      \
  do {                                                                                               \
    const int ember_status_ = static_cast<int>(expr);                                                \
    if (ember_status_ != 0) [[unlikely]]                                                             \
      ::ember::cuda::detail::throw_cudnn_error(ember_status_, #expr, __FILE__, __LINE__);            \
  } while (0)

/// EMBER_CUSOLVER_CHECK(api.sgeqrf(...)): throws ember::Error unless CUSOLVER_STATUS_SUCCESS.
#define EMBER_CUSOLVER_CHECK(expr)                                                                   \
  do {                                                                                               \
    const int ember_status_ = static_cast<int>(expr);                                                \
    if (ember_status_ != 0) [[unlikely]]                                                             \
      ::ember::cuda::detail::throw_cusolver_error(ember_status_, #expr, __FILE__, __LINE__);         \
  } while (0)
