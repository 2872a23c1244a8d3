#include "ember/cuda/cusolver_api.h"

#include <dlfcn.h>

#include <string>

#include "ember/core/error.h"

namespace ember::cuda {
namespace {

// The soname of the cuSOLVER this backend was compiled against (libcusolver.so.12 for CUDA 13).
std::string soname() { return "libcusolver.so." + std::to_string(CUSOLVER_VER_MAJOR); }

template <typename Fn>
void bind(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  EMBER_CHECK(fn != nullptr, "cuSOLVER: ", soname(), " has no ", name);
}

CusolverApi load() {
  void* lib = dlopen(soname().c_str(), RTLD_NOW | RTLD_LOCAL);  // NB: never closed
  EMBER_CHECK(lib != nullptr, "cuSOLVER: cannot open ", soname(), " (", dlerror(),
              "); it comes with the CUDA Toolkit: is its library folder on the loader's path?");
  CusolverApi api{};
  bind(lib, api.create, "cusolverDnCreate");
  bind(lib, api.set_stream, "cusolverDnSetStream");
  bind(lib, api.sgesvd_buffer_size, "cusolverDnSgesvd_bufferSize");
  bind(lib, api.dgesvd_buffer_size, "cusolverDnDgesvd_bufferSize");
  bind(lib, api.sgesvd, "cusolverDnSgesvd");
  bind(lib, api.dgesvd, "cusolverDnDgesvd");
  bind(lib, api.ssyevd_buffer_size, "cusolverDnSsyevd_bufferSize");
  bind(lib, api.dsyevd_buffer_size, "cusolverDnDsyevd_bufferSize");
  bind(lib, api.ssyevd, "cusolverDnSsyevd");
  bind(lib, api.dsyevd, "cusolverDnDsyevd");
  bind(lib, api.sgeqrf_buffer_size, "cusolverDnSgeqrf_bufferSize");
  bind(lib, api.dgeqrf_buffer_size, "cusolverDnDgeqrf_bufferSize");
  bind(lib, api.sgeqrf, "cusolverDnSgeqrf");
  bind(lib, api.dgeqrf, "cusolverDnDgeqrf");
  bind(lib, api.sorgqr_buffer_size, "cusolverDnSorgqr_bufferSize");
  bind(lib, api.dorgqr_buffer_size, "cusolverDnDorgqr_bufferSize");
  bind(lib, api.sorgqr, "cusolverDnSorgqr");
  bind(lib, api.dorgqr, "cusolverDnDorgqr");
  bind(lib, api.spotrf_buffer_size, "cusolverDnSpotrf_bufferSize");
  bind(lib, api.dpotrf_buffer_size, "cusolverDnDpotrf_bufferSize");
  bind(lib, api.spotrf, "cusolverDnSpotrf");
  bind(lib, api.dpotrf, "cusolverDnDpotrf");
  bind(lib, api.sgetrf_buffer_size, "cusolverDnSgetrf_bufferSize");
  bind(lib, api.dgetrf_buffer_size, "cusolverDnDgetrf_bufferSize");
  bind(lib, api.sgetrf, "cusolverDnSgetrf");
  bind(lib, api.dgetrf, "cusolverDnDgetrf");
  bind(lib, api.sgetrs, "cusolverDnSgetrs");
  bind(lib, api.dgetrs, "cusolverDnDgetrs");
  return api;
}

}  // namespace

const CusolverApi& cusolver() {
  static const CusolverApi api = load();
  return api;
}

}  // namespace ember::cuda
