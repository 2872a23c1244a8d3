#include "ember/cuda/cusolver_api.h"

#include <string>

#include "ember/core/error.h"
#include "ember/cuda/library_loader.h"

namespace ember::cuda {
namespace {

// The soname of the cuSOLVER this backend was compiled against (libcusolver.so.12 for CUDA 13).
std::string soname() { return "libcusolver.so." + std::to_string(CUSOLVER_VER_MAJOR); }

CusolverApi load() {
  const LibraryLoader lib("cuSOLVER", soname());
  CusolverApi api{};
  lib.bind(api.create, "cusolverDnCreate");
  lib.bind(api.set_stream, "cusolverDnSetStream");
  lib.bind(api.sgesvd_buffer_size, "cusolverDnSgesvd_bufferSize");
  lib.bind(api.dgesvd_buffer_size, "cusolverDnDgesvd_bufferSize");
  lib.bind(api.sgesvd, "cusolverDnSgesvd");
  lib.bind(api.dgesvd, "cusolverDnDgesvd");
  lib.bind(api.ssyevd_buffer_size, "cusolverDnSsyevd_bufferSize");
  lib.bind(api.dsyevd_buffer_size, "cusolverDnDsyevd_bufferSize");
  lib.bind(api.ssyevd, "cusolverDnSsyevd");
  lib.bind(api.dsyevd, "cusolverDnDsyevd");
  lib.bind(api.sgeqrf_buffer_size, "cusolverDnSgeqrf_bufferSize");
  lib.bind(api.dgeqrf_buffer_size, "cusolverDnDgeqrf_bufferSize");
  lib.bind(api.sgeqrf, "cusolverDnSgeqrf");
  lib.bind(api.dgeqrf, "cusolverDnDgeqrf");
  lib.bind(api.sorgqr_buffer_size, "cusolverDnSorgqr_bufferSize");
  lib.bind(api.dorgqr_buffer_size, "cusolverDnDorgqr_bufferSize");
  lib.bind(api.sorgqr, "cusolverDnSorgqr");
  lib.bind(api.dorgqr, "cusolverDnDorgqr");
  lib.bind(api.spotrf_buffer_size, "cusolverDnSpotrf_bufferSize");
  lib.bind(api.dpotrf_buffer_size, "cusolverDnDpotrf_bufferSize");
  lib.bind(api.spotrf, "cusolverDnSpotrf");
  lib.bind(api.dpotrf, "cusolverDnDpotrf");
  lib.bind(api.sgetrf_buffer_size, "cusolverDnSgetrf_bufferSize");
  lib.bind(api.dgetrf_buffer_size, "cusolverDnDgetrf_bufferSize");
  lib.bind(api.sgetrf, "cusolverDnSgetrf");
  lib.bind(api.dgetrf, "cusolverDnDgetrf");
  lib.bind(api.sgetrs, "cusolverDnSgetrs");
  lib.bind(api.dgetrs, "cusolverDnDgetrs");
  return api;
}

}  // namespace

const CusolverApi& cusolver() {
  static const CusolverApi api = load();
  return api;
}

}  // namespace ember::cuda
