#include "ember/cuda/cublas_api.h"

#include <dlfcn.h>

#include <string>

#include "ember/core/error.h"

namespace ember::cuda {
namespace {

// The soname of the cuBLAS this backend was compiled against (libcublas.so.13 for CUDA 13).
std::string soname() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

template <typename Fn>
void bind(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  EMBER_CHECK(fn != nullptr, "cuBLAS: ", soname(), " has no ", name);
}

CublasApi load() {
  void* lib = dlopen(soname().c_str(), RTLD_NOW | RTLD_LOCAL);  // NB: never closed
  EMBER_CHECK(lib != nullptr, "cuBLAS: cannot open ", soname(), " (", dlerror(),
              "); it comes with the CUDA Toolkit: is its library folder on the loader's path?");
  CublasApi api{};
  bind(lib, api.create, "cublasCreate_v2");
  bind(lib, api.set_stream, "cublasSetStream_v2");
  bind(lib, api.set_math_mode, "cublasSetMathMode");
  bind(lib, api.sgemm_strided_batched, "cublasSgemmStridedBatched_64");
  bind(lib, api.dgemm_strided_batched, "cublasDgemmStridedBatched_64");
  bind(lib, api.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx_64");
  bind(lib, api.strsm, "cublasStrsm_v2_64");
  bind(lib, api.dtrsm, "cublasDtrsm_v2_64");
  bind(lib, api.stpttr, "cublasStpttr");
  bind(lib, api.dtpttr, "cublasDtpttr");
  return api;
}

}  // namespace

const CublasApi& cublas() {
  static const CublasApi api = load();
  return api;
}

}  // namespace ember::cuda
