#include "ember/cuda/cufft_api.h"

#include <dlfcn.h>

#include <string>

#include "ember/core/error.h"

namespace ember::cuda {
namespace {

// The soname of the cuFFT this backend was compiled against (libcufft.so.12 for CUDA 13).
std::string soname() { return "libcufft.so." + std::to_string(CUFFT_VER_MAJOR); }

template <typename Fn>
void bind(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  EMBER_CHECK(fn != nullptr, "cuFFT: ", soname(), " has no ", name);
}

CufftApi load() {
  void* lib = dlopen(soname().c_str(), RTLD_NOW | RTLD_LOCAL);  // NB: never closed
  EMBER_CHECK(lib != nullptr, "cuFFT: cannot open ", soname(), " (", dlerror(),
              "); it comes with the CUDA Toolkit: is its library folder on the loader's path?");
  CufftApi api{};
  bind(lib, api.create, "cufftCreate");
  bind(lib, api.destroy, "cufftDestroy");
  bind(lib, api.set_stream, "cufftSetStream");
  bind(lib, api.make_plan_many, "cufftMakePlanMany64");
  bind(lib, api.exec_c2c, "cufftExecC2C");
  bind(lib, api.exec_z2z, "cufftExecZ2Z");
  bind(lib, api.exec_r2c, "cufftExecR2C");
  bind(lib, api.exec_d2z, "cufftExecD2Z");
  bind(lib, api.exec_c2r, "cufftExecC2R");
  bind(lib, api.exec_z2d, "cufftExecZ2D");
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
