#pragma once
// cuFFT, opened on first use with dlopen rather than linked, as cuBLAS is (cuda/cublas_api.h): a
// process that never transforms on a GPU maps none of it. Only the calls Ember makes are looked up.
#include <cufft.h>

namespace ember::cuda {

struct CufftApi {
  decltype(&cufftCreate) create;
  decltype(&cufftDestroy) destroy;
  decltype(&cufftSetStream) set_stream;
  decltype(&cufftMakePlanMany64) make_plan_many;
  decltype(&cufftExecC2C) exec_c2c;
  decltype(&cufftExecZ2Z) exec_z2z;
  decltype(&cufftExecR2C) exec_r2c;
  decltype(&cufftExecD2Z) exec_d2z;
  decltype(&cufftExecC2R) exec_c2r;
  decltype(&cufftExecZ2D) exec_z2d;
};

/// The loaded library's entry points; throws an ember::Error saying what is missing when libcufft
/// cannot be opened.
const CufftApi& cufft();

/// Throws an ember::Error naming `what` and the cuFFT status unless it is CUFFT_SUCCESS.
void check_cufft(cufftResult status, const char* what);

}  // namespace ember::cuda
