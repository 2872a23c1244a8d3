#pragma once
// The CUDA libraries the backend opens on first use rather than links (cuBLAS, cuSOLVER, cuFFT:
// cuda/cublas_api.h says why): one library by its soname, and its entry points by name.
#include <dlfcn.h>

#include <string>
#include <utility>

#include "ember/core/error.h"

namespace ember::cuda {

/// An opened library (never closed); throws an ember::Error naming `what` and the loader's error.
class LibraryLoader {
 public:
  LibraryLoader(const char* what, std::string soname) : what_(what), soname_(std::move(soname)) {
    lib_ = dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
    EMBER_CHECK(lib_ != nullptr, what_, ": cannot open ", soname_, " (", dlerror(),
                "); it comes with the CUDA Toolkit: is its library folder on the loader's path?");
  }

  /// fn = the library's entry point `name`; throws where the library has none.
  template <typename Fn>
  void bind(Fn& fn, const char* name) const {
    fn = reinterpret_cast<Fn>(dlsym(lib_, name));
    EMBER_CHECK(fn != nullptr, what_, ": ", soname_, " has no ", name);
  }

 private:
  const char* what_;
  std::string soname_;
  void* lib_ = nullptr;
};

}  // namespace ember::cuda
