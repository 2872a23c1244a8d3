#include "ember/cuda/host_copy.h"

#include <array>
#include <cstring>
#include <mutex>

#include "ember/cuda/check.h"
#include "ember/cuda/runtime.h"

namespace ember::cuda {
namespace {

constexpr size_t kChunk = size_t{4} << 20;
constexpr int kMaxDevices = 64;

// Two pinned buffers per device, each with the event of the last transfer that used it.
struct Staging {
  std::mutex mutex;
  bool ready = false, pinned = false;
  std::array<char*, 2> buffer{};
  std::array<cudaEvent_t, 2> done{};
  std::array<bool, 2> pending{};

  void init() {
    if (ready) return;
    ready = true;
    for (int k = 0; k < 2; ++k) {
      void* p = nullptr;
      if (cudaHostAlloc(&p, kChunk, cudaHostAllocDefault) != cudaSuccess) {
        cudaGetLastError();  // no pinned memory to be had: plain copies instead
        return;
      }
      buffer[static_cast<size_t>(k)] = static_cast<char*>(p);
      EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&done[static_cast<size_t>(k)], cudaEventDisableTiming));
    }
    pinned = true;
  }
  // Waits until buffer k is no longer read or written by a queued transfer.
  void wait(int k) {
    if (pending[static_cast<size_t>(k)]) EMBER_CUDA_CHECK(cudaEventSynchronize(done[static_cast<size_t>(k)]));
    pending[static_cast<size_t>(k)] = false;
  }
  void record(int k, cudaStream_t s) {
    EMBER_CUDA_CHECK(cudaEventRecord(done[static_cast<size_t>(k)], s));
    pending[static_cast<size_t>(k)] = true;
  }
};

Staging& staging(int index) {
  static auto* s = new std::array<Staging, kMaxDevices>;  // never destroyed: pinned memory lives to exit
  return (*s)[static_cast<size_t>(index)];
}

}  // namespace

void copy_to_device(void* dst, const void* src, size_t n, int index) {
  if (n == 0) return;
  DeviceGuard guard(index);
  cudaStream_t s = stream(index);
  Staging& st = staging(index);
  std::lock_guard<std::mutex> lock(st.mutex);
  st.init();
  if (!st.pinned) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s));
    return;
  }
  int k = 0;
  for (size_t off = 0; off < n; off += kChunk, k ^= 1) {
    const size_t len = n - off < kChunk ? n - off : kChunk;
    st.wait(k);
    std::memcpy(st.buffer[static_cast<size_t>(k)], static_cast<const char*>(src) + off, len);
    EMBER_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, st.buffer[static_cast<size_t>(k)], len,
                                     cudaMemcpyHostToDevice, s));
    st.record(k, s);
  }
}

void copy_to_host(void* dst, const void* src, size_t n, int index) {
  if (n == 0) return;
  DeviceGuard guard(index);
  cudaStream_t s = stream(index);
  Staging& st = staging(index);
  std::lock_guard<std::mutex> lock(st.mutex);
  st.init();
  if (!st.pinned) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  const size_t chunks = (n + kChunk - 1) / kChunk;
  auto issue = [&](size_t c) {
    const int k = static_cast<int>(c & 1);
    const size_t off = c * kChunk, len = n - off < kChunk ? n - off : kChunk;
    st.wait(k);
    EMBER_CUDA_CHECK(cudaMemcpyAsync(st.buffer[static_cast<size_t>(k)], static_cast<const char*>(src) + off, len,
                                     cudaMemcpyDeviceToHost, s));
    st.record(k, s);
  };
  issue(0);
  for (size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) issue(c + 1);  // the next chunk's transfer overlaps this chunk's memcpy
    const int k = static_cast<int>(c & 1);
    const size_t off = c * kChunk, len = n - off < kChunk ? n - off : kChunk;
    st.wait(k);
    std::memcpy(static_cast<char*>(dst) + off, st.buffer[static_cast<size_t>(k)], len);
  }
}

}  // namespace ember::cuda
