#include "ember/cuda/check.h"

#include <cudnn.h>

#include <string>
#include <string_view>

#include "ember/core/error.h"
#include "ember/cuda/kernels/launch.h"

namespace ember::cuda {
namespace detail {
namespace {

// The source path from its project folder on ("cuda/allocator.cpp"), not the build machine's.
std::string_view where(const char* file) {
  std::string_view f(file);
  const size_t at = f.rfind("/cuda/");
  return at == std::string_view::npos ? f : f.substr(at + 1);
}

[[noreturn]] void fail(const std::string& library, const std::string& name, const char* expr, const char* file,
                       int line) {
  throw Error(::ember::detail::str(library, " error ", name, " in ", expr, " at ", where(file), ":", line));
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line) {
  cudaGetLastError();  // clears the error, unless it is sticky (the context is then lost)
  fail("CUDA", ::ember::detail::str(cudaGetErrorName(status), " (", cudaGetErrorString(status), ")"), expr, file,
       line);
}

void throw_cublas_error(int status, const char* expr, const char* file, int line) {
  fail("cuBLAS", cublas_status_name(status), expr, file, line);
}

void throw_cudnn_error(int status, const char* expr, const char* file, int line) {
  fail("cuDNN", cudnnGetErrorString(static_cast<cudnnStatus_t>(status)), expr, file, line);
}

void throw_cusolver_error(int status, const char* expr, const char* file, int line) {
  fail("cuSOLVER", cusolver_status_name(status), expr, file, line);
}

const char* cublas_status_name(int status) {
  switch (status) {  // cublasStatus_t (cublas_api.h)
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

const char* cusolver_status_name(int status) {
  switch (status) {  // cusolverStatus_t (cusolver_common.h)
    case 0: return "CUSOLVER_STATUS_SUCCESS";
    case 1: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case 2: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case 3: return "CUSOLVER_STATUS_INVALID_VALUE";
    case 4: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case 5: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case 6: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case 7: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case 8: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case 9: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case 10: return "CUSOLVER_STATUS_ZERO_PIVOT";
    case 11: return "CUSOLVER_STATUS_INVALID_LICENSE";
    case 31: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "CUSOLVER_STATUS_UNKNOWN";
  }
}

}  // namespace detail

void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) [[unlikely]]
    throw Error(::ember::detail::str(kernel, ": the CUDA kernel did not launch: ", cudaGetErrorName(status), " (",
                                     cudaGetErrorString(status), ")"));
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) [[unlikely]] {
    cudaGetLastError();
    throw Error(::ember::detail::str(what, ": CUDA error ", cudaGetErrorName(status), " (",
                                     cudaGetErrorString(status), ")"));
  }
}

void check_pool_sizes(bool fits, const char* op) {
  EMBER_CHECK_AS(NotImplementedError, fits, op, ": sizes past 2^30 are not supported by the CUDA kernel");
}

}  // namespace ember::cuda
