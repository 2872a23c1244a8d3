// CUDA kernel for discrete Fourier transforms (core/kernels/fft.h) on cuFFT: one batched plan per
// (device, kind, precision, length, rows), kept in a cache as PyTorch keeps its plans (a plan holds
// its work area; making one costs more than most transforms). cuFFT does not scale, so a scale
// other than 1 is a second pass; its complex-to-real transforms overwrite their input, so they get
// a copy. A transform of length 1 is the identity (a conversion), without cuFFT.
#include <cufft.h>

#include <map>
#include <mutex>
#include <tuple>

#include "ember/core/factory.h"
#include "ember/core/kernels/fft.h"
#include "ember/cuda/cufft_api.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

using PlanKey = std::tuple<int, FftKind, bool, int64_t, int64_t>;  // device, kind, double, n, rows

// NB: a plan is used on its device's one stream, so ops that share one queue in order; the mutex
// guards the map, as threads may transform on several devices.
class PlanCache {
 public:
  cufftHandle get(const PlanKey& key, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = plans_.find(key);
    if (found == plans_.end()) {
      if (plans_.size() >= kMaxPlans) clear_locked();
      found = plans_.emplace(key, make(key)).first;
    }
    check_cufft(cufft().set_stream(found->second, stream), "cufftSetStream");
    return found->second;
  }

 private:
  static constexpr size_t kMaxPlans = 256;

  static cufftHandle make(const PlanKey& key) {
    const auto [device, kind, is_double, n, rows] = key;
    cufftType type = CUFFT_C2C;
    switch (kind) {
      case FftKind::C2C:
        type = is_double ? CUFFT_Z2Z : CUFFT_C2C;
        break;
      case FftKind::R2C:
        type = is_double ? CUFFT_D2Z : CUFFT_R2C;
        break;
      case FftKind::C2R:
        type = is_double ? CUFFT_Z2D : CUFFT_C2R;
        break;
    }
    // Rows of n points (n/2 + 1 for the half spectrum), one after the other.
    long long length = n;
    const long long in_len = kind == FftKind::C2R ? n / 2 + 1 : n, out_len = kind == FftKind::R2C ? n / 2 + 1 : n;
    long long in_embed = in_len, out_embed = out_len;
    cufftHandle plan = 0;
    check_cufft(cufft().create(&plan), "cufftCreate");
    size_t work = 0;
    const cufftResult made = cufft().make_plan_many(plan, 1, &length, &in_embed, 1, in_len, &out_embed, 1, out_len,
                                                    type, static_cast<long long>(rows), &work);
    if (made != CUFFT_SUCCESS) cufft().destroy(plan);
    check_cufft(made, "cufftMakePlanMany64");
    return plan;
  }

  void clear_locked() {
    for (auto& entry : plans_) cufft().destroy(entry.second);
    plans_.clear();
  }

  std::mutex mutex_;
  std::map<PlanKey, cufftHandle> plans_;
};

PlanCache& plans() {
  static PlanCache* cache = new PlanCache();  // NB: never destroyed: plans outlive static teardown
  return *cache;
}

void cuda_fft(FftKind kind, const Tensor& out, const Tensor& in, int64_t n, bool forward, double scale) {
  const DType complex = kind == FftKind::C2R ? in.dtype() : out.dtype();
  EMBER_INTERNAL_ASSERT(complex == kComplex64 || complex == kComplex128, "fft kernel with a ", complex, " spectrum");
  const bool is_double = complex == kComplex128;
  const int64_t in_len = in.size(-1);
  const int64_t rows = in_len == 0 ? 0 : in.numel() / in_len;
  On on(out);
  if (n == 1) {  // the identity: a copy, a real number as complex, or a complex one's real part
    launch_convert(elementwise_args<2>({&out, &in}, "fft"), out.dtype(), in.dtype(), on.stream);
  } else if (rows > 0) {
    const cufftHandle plan = plans().get(PlanKey{on.index, kind, is_double, n, rows}, on.stream);
    const CufftApi& api = cufft();
    void* x = in.data_ptr();
    void* y = out.data_ptr();
    Tensor copy;
    if (kind == FftKind::C2R) {  // NB: cuFFT's complex-to-real transforms overwrite their input
      copy = empty(in.sizes(), TensorOptions(in.dtype()).device(in.device()));
      check_cuda(cudaMemcpyAsync(copy.data_ptr(), x, static_cast<size_t>(in.numel()) * in.itemsize(),
                                 cudaMemcpyDeviceToDevice, on.stream),
                 "fft: copying the spectrum");
      x = copy.data_ptr();
    }
    const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
    switch (kind) {
      case FftKind::C2C:
        check_cufft(is_double
                        ? api.exec_z2z(plan, static_cast<cufftDoubleComplex*>(x), static_cast<cufftDoubleComplex*>(y),
                                       direction)
                        : api.exec_c2c(plan, static_cast<cufftComplex*>(x), static_cast<cufftComplex*>(y), direction),
                    "cufftExecC2C");
        break;
      case FftKind::R2C:
        check_cufft(is_double
                        ? api.exec_d2z(plan, static_cast<cufftDoubleReal*>(x), static_cast<cufftDoubleComplex*>(y))
                        : api.exec_r2c(plan, static_cast<cufftReal*>(x), static_cast<cufftComplex*>(y)),
                    "cufftExecR2C");
        break;
      case FftKind::C2R:
        check_cufft(is_double
                        ? api.exec_z2d(plan, static_cast<cufftDoubleComplex*>(x), static_cast<cufftDoubleReal*>(y))
                        : api.exec_c2r(plan, static_cast<cufftComplex*>(x), static_cast<cufftReal*>(y)),
                    "cufftExecC2R");
        break;
    }
  }
  if (scale != 1.0) {
    const int64_t reals = out.numel() * (is_complex(out.dtype()) ? 2 : 1);
    launch_scale(out.data_ptr(), reals, is_double ? DType::Float64 : DType::Float32, scale, on.stream);
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(fft_stub, DeviceType::CUDA, &cuda_fft);

}  // namespace ember::cuda
