#include "ember/cuda/handles.h"

#include <array>
#include <mutex>
#include <vector>

#include "ember/cuda/check.h"
#include "ember/cuda/cublas_api.h"
#include "ember/cuda/cusolver_api.h"
#include "ember/cuda/runtime.h"

namespace ember::cuda {
namespace {

constexpr int kMaxDevices = 64;

template <typename Handle>
struct Pool {
  std::mutex mutex;
  std::array<std::vector<Handle>, kMaxDevices> free;
};

template <typename Handle>
Pool<Handle>& pool() {
  static auto* p = new Pool<Handle>;  // never destroyed
  return *p;
}

// One thread's handles; given back to the pool when the thread ends.
template <typename Handle>
struct ThreadHandles {
  std::array<Handle, kMaxDevices> handles{};
  ~ThreadHandles() {
    Pool<Handle>& p = pool<Handle>();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (size_t i = 0; i < handles.size(); ++i)
      if (handles[i]) p.free[i].push_back(handles[i]);
  }
};

// The thread's handle for device `index`: its own, one from the pool, or a new one (`create`).
template <typename Handle, typename Create>
Handle get(int index, const Create& create) {
  thread_local ThreadHandles<Handle> mine;
  Handle& h = mine.handles[static_cast<size_t>(index)];
  if (h) return h;
  {
    Pool<Handle>& p = pool<Handle>();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto& free = p.free[static_cast<size_t>(index)];
    if (!free.empty()) {
      h = free.back();
      free.pop_back();
      return h;
    }
  }
  h = create();
  return h;
}

}  // namespace

cublasHandle_t cublas_handle(int index) {
  return get<cublasHandle_t>(index, [index] {
    const CublasApi& api = cublas();
    cublasHandle_t h = nullptr;
    EMBER_CUBLAS_CHECK(api.create(&h));
    EMBER_CUBLAS_CHECK(api.set_stream(h, stream(index)));
    // NB: full float32 precision, as on the CPU (no TF32 tensor-core rounding of the inputs).
    EMBER_CUBLAS_CHECK(api.set_math_mode(h, CUBLAS_DEFAULT_MATH));
    return h;
  });
}

cusolverDnHandle_t cusolver_handle(int index) {
  return get<cusolverDnHandle_t>(index, [index] {
    const CusolverApi& api = cusolver();
    cusolverDnHandle_t h = nullptr;
    EMBER_CUSOLVER_CHECK(api.create(&h));
    EMBER_CUSOLVER_CHECK(api.set_stream(h, stream(index)));
    return h;
  });
}

cudnnHandle_t cudnn_handle(int index) {
  return get<cudnnHandle_t>(index, [index] {
    cudnnHandle_t h = nullptr;
    EMBER_CUDNN_CHECK(cudnnCreate(&h));
    EMBER_CUDNN_CHECK(cudnnSetStream(h, stream(index)));
    return h;
  });
}

}  // namespace ember::cuda
