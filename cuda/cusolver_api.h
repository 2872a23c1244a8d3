#pragma once
// cuSOLVER's dense API, opened on first use with dlopen rather than linked, as cuBLAS is
// (cuda/cublas_api.h): libcusolver is over a hundred megabytes that only the linalg kernels use.
// Only the calls Ember makes are looked up.
#include <cusolverDn.h>

namespace ember::cuda {

struct CusolverApi {
  decltype(&cusolverDnCreate) create;
  decltype(&cusolverDnSetStream) set_stream;
  decltype(&cusolverDnSgesvd_bufferSize) sgesvd_buffer_size;
  decltype(&cusolverDnDgesvd_bufferSize) dgesvd_buffer_size;
  decltype(&cusolverDnSgesvd) sgesvd;
  decltype(&cusolverDnDgesvd) dgesvd;
  decltype(&cusolverDnSsyevd_bufferSize) ssyevd_buffer_size;
  decltype(&cusolverDnDsyevd_bufferSize) dsyevd_buffer_size;
  decltype(&cusolverDnSsyevd) ssyevd;
  decltype(&cusolverDnDsyevd) dsyevd;
  decltype(&cusolverDnSgeqrf_bufferSize) sgeqrf_buffer_size;
  decltype(&cusolverDnDgeqrf_bufferSize) dgeqrf_buffer_size;
  decltype(&cusolverDnSgeqrf) sgeqrf;
  decltype(&cusolverDnDgeqrf) dgeqrf;
  decltype(&cusolverDnSorgqr_bufferSize) sorgqr_buffer_size;
  decltype(&cusolverDnDorgqr_bufferSize) dorgqr_buffer_size;
  decltype(&cusolverDnSorgqr) sorgqr;
  decltype(&cusolverDnDorgqr) dorgqr;
  decltype(&cusolverDnSpotrf_bufferSize) spotrf_buffer_size;
  decltype(&cusolverDnDpotrf_bufferSize) dpotrf_buffer_size;
  decltype(&cusolverDnSpotrf) spotrf;
  decltype(&cusolverDnDpotrf) dpotrf;
  decltype(&cusolverDnSgetrf_bufferSize) sgetrf_buffer_size;
  decltype(&cusolverDnDgetrf_bufferSize) dgetrf_buffer_size;
  decltype(&cusolverDnSgetrf) sgetrf;
  decltype(&cusolverDnDgetrf) dgetrf;
  decltype(&cusolverDnSgetrs) sgetrs;
  decltype(&cusolverDnDgetrs) dgetrs;
};

/// The loaded library's entry points; throws an ember::Error saying what is missing when
/// libcusolver cannot be opened.
const CusolverApi& cusolver();

}  // namespace ember::cuda
