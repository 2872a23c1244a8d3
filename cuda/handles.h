#pragma once
// cuBLAS, cuSOLVER and cuDNN handles, one per device and thread (a handle is not thread-safe), each
// bound to its device's stream. A thread's handles go back to a per-device pool when it ends, for the
// next thread; they are never destroyed, as destroying them at exit races the CUDA runtime's teardown.
#include <cublas_api.h>
#include <cudnn.h>
#include <cusolverDn.h>

namespace ember::cuda {

/// The calling thread's cuBLAS handle for cuda:index (that device must be current).
cublasHandle_t cublas_handle(int index);
/// The calling thread's cuSOLVER (dense) handle for cuda:index (that device must be current).
cusolverDnHandle_t cusolver_handle(int index);
/// The calling thread's cuDNN handle for cuda:index (that device must be current).
cudnnHandle_t cudnn_handle(int index);

}  // namespace ember::cuda
