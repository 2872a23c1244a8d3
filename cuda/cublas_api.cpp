#include "ember/cuda/cublas_api.h"

#include <string>

#include "ember/core/error.h"
#include "ember/cuda/library_loader.h"

namespace ember::cuda {
namespace {

// The soname of the cuBLAS this backend was compiled against (libcublas.so.13 for CUDA 13).
std::string soname() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

CublasApi load() {
  const LibraryLoader lib("cuBLAS", soname());
  CublasApi api{};
  lib.bind(api.create, "cublasCreate_v2");
  lib.bind(api.set_stream, "cublasSetStream_v2");
  lib.bind(api.set_math_mode, "cublasSetMathMode");
  lib.bind(api.sgemm_strided_batched, "cublasSgemmStridedBatched_64");
  lib.bind(api.dgemm_strided_batched, "cublasDgemmStridedBatched_64");
  lib.bind(api.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx_64");
  lib.bind(api.strsm, "cublasStrsm_v2_64");
  lib.bind(api.dtrsm, "cublasDtrsm_v2_64");
  lib.bind(api.stpttr, "cublasStpttr");
  lib.bind(api.dtpttr, "cublasDtpttr");
  return api;
}

}  // namespace

const CublasApi& cublas() {
  static const CublasApi api = load();
  return api;
}

}  // namespace ember::cuda
