#include "ember/core/copy.h"

#include "ember/core/factory.h"

namespace ember {

EMBER_DEFINE_STUB(copy_stub, CopyFn);
EMBER_DEFINE_STUB(fill_stub, FillFn);

void copy_data(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK_VALUE(dst.sizes() == src.sizes(), "copy: destination shape ", dst.sizes(),
                    " differs from source shape ", src.sizes());
  if (dst.numel() == 0) return;
  DeviceType d = dst.device().is_cuda() || src.device().is_cuda() ? DeviceType::CUDA : DeviceType::CPU;
  copy_stub(d, dst, src);
}

void fill_data(const Tensor& dst, const Scalar& value) {
  if (dst.numel() == 0) return;
  fill_stub(dst.device().type, dst, value);
}

Tensor copy_as(const Tensor& t, DType dtype, Device device) {
  Tensor out = empty(t.sizes(), TensorOptions(dtype).device(device));
  copy_data(out, t);
  return out;
}

Tensor contiguous_data(const Tensor& t) {
  return t.is_contiguous() ? t : copy_as(t, t.dtype(), t.device());
}

}  // namespace ember
