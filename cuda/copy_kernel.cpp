// Copies that involve a CUDA tensor (core/copy.h sends every such copy here), and fill. On one
// device: cudaMemcpyAsync when nothing is converted or rearranged, else the elementwise conversion
// kernel (any dtypes, any layouts). Between host and device: the host side made contiguous in its
// own dtype, moved through pinned staging buffers (cuda/host_copy.h), converted or rearranged on
// the side that needs it. Between two devices: through a contiguous copy and cudaMemcpyPeer.
#include <cstring>

#include "ember/core/copy.h"
#include "ember/cuda/check.h"
#include "ember/cuda/host_copy.h"
#include "ember/cuda/scalar_bits.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

bool plain(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous();
}

void copy_on_device(const Tensor& dst, const Tensor& src) {
  On on(dst);
  if (plain(dst, src)) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice, on.stream));
    return;
  }
  launch_convert(elementwise_args<2>({&dst, &src}, "copy"), dst.dtype(), src.dtype(), on.stream);
}

void copy_between_devices(const Tensor& dst, const Tensor& src) {
  Tensor from = contiguous_data(src);
  Tensor to = plain(dst, from) ? dst : empty(src.sizes(), TensorOptions(src.dtype()).device(dst.device()));
  synchronize_device(src.device().index);  // `from` is complete, and `to` free to overwrite
  synchronize_device(dst.device().index);
  EMBER_CUDA_CHECK(cudaMemcpyPeer(to.data_ptr(), dst.device().index, from.data_ptr(), src.device().index, from.nbytes()));
  if (!to.is_same(dst)) copy_on_device(dst, to);
}

void copy_to_cuda(const Tensor& dst, const Tensor& src) {
  const Tensor host = contiguous_data(src);
  On on(dst);
  if (plain(dst, host)) {
    copy_to_device(dst.data_ptr(), host.data_ptr(), host.nbytes(), on.index);
    return;
  }
  Tensor staged = empty(src.sizes(), TensorOptions(src.dtype()).device(dst.device()));
  copy_to_device(staged.data_ptr(), host.data_ptr(), host.nbytes(), on.index);
  copy_on_device(dst, staged);
}

void copy_to_cpu(const Tensor& dst, const Tensor& src) {
  const Tensor dense = contiguous_data(src);  // on the device
  On on(dense);
  if (plain(dst, dense)) {
    copy_to_host(dst.data_ptr(), dense.data_ptr(), dense.nbytes(), on.index);
    return;
  }
  Tensor host = empty(src.sizes(), TensorOptions(src.dtype()));
  copy_to_host(host.data_ptr(), dense.data_ptr(), dense.nbytes(), on.index);
  copy_stub(DeviceType::CPU, dst, host);  // conversion and layout on the host
}

void cuda_copy(const Tensor& dst, const Tensor& src) {
  const bool to_cuda = dst.device().is_cuda(), from_cuda = src.device().is_cuda();
  if (to_cuda && from_cuda)
    src.device() == dst.device() ? copy_on_device(dst, src) : copy_between_devices(dst, src);
  else if (to_cuda)
    copy_to_cuda(dst, src);
  else
    copy_to_cpu(dst, src);
}

void cuda_fill(const Tensor& dst, const Scalar& value) {
  On on(dst);
  launch_fill(elementwise_args<1>({&dst}, "fill"), static_cast<int>(dst.itemsize()), scalar_bits(value, dst.dtype()),
              on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(copy_stub, DeviceType::CUDA, &cuda_copy);
EMBER_REGISTER_KERNEL(fill_stub, DeviceType::CUDA, &cuda_fill);

}  // namespace ember::cuda
