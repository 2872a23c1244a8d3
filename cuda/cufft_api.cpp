#include "ember/cuda/cufft_api.h"

#include <string>

#include "ember/core/error.h"
#include "ember/cuda/library_loader.h"

namespace ember::cuda {
namespace {

// The soname of the cuFFT this backend was compiled against (libcufft.so.12 for CUDA 13).
std::string soname() { return "libcufft.so." + std::to_string(CUFFT_VER_MAJOR); }

CufftApi load() {
  const LibraryLoader lib("cuFFT", soname());
  CufftApi api{};
  lib.bind(api.create, "cufftCreate");
  lib.bind(api.destroy, "cufftDestroy");
  lib.bind(api.set_stream, "cufftSetStream");
  lib.bind(api.make_plan_many, "cufftMakePlanMany64");
  lib.bind(api.exec_c2c, "cufftExecC2C");
  lib.bind(api.exec_z2z, "cufftExecZ2Z");
  lib.bind(api.exec_r2c, "cufftExecR2C");
  lib.bind(api.exec_d2z, "cufftExecD2Z");
  lib.bind(api.exec_c2r, "cufftExecC2R");
  lib.bind(api.exec_z2d, "cufftExecZ2D");
  return api;
}

}  // namespace

const CufftApi& cufft() {
  static const CufftApi api = load();
  return api;
}

void check_cufft(cufftResult status, const char* what) {
  EMBER_CHECK(status == CUFFT_SUCCESS, "cuFFT: ", what, " failed with status ", static_cast<int>(status),
              status == CUFFT_ALLOC_FAILED ? " (out of GPU memory)" : "");
}

}  // namespace ember::cuda
