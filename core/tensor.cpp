#include "ember/core/tensor.h"

#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/tracing.h"

namespace ember {

// NB: wrap_dim takes dim 0 of a 0-d tensor as valid (ops treat it as a dim of size 1), but it has
// no size to read: refused, as in PyTorch, rather than read past the end.
int64_t Tensor::size(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "size: dimension ", dim, " specified, but the tensor has no dimensions");
  return sizes()[static_cast<size_t>(wrap_dim(dim, this->dim(), "size"))];
}

int64_t Tensor::stride(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "stride: dimension ", dim, " specified, but the tensor has no dimensions");
  return strides()[static_cast<size_t>(wrap_dim(dim, this->dim(), "stride"))];
}

template <typename T>
T Tensor::item() const {
  if (tracing::recording()) [[unlikely]]
    tracing::note_data_dependence("Tensor.item()");
  EMBER_CHECK_VALUE(numel() == 1, "item: a tensor with ", numel(),
                    " elements cannot be converted to a scalar");
  Tensor cpu = device().is_cpu() ? *this : copy_as(*this, dtype(), Device());
  return visit_dtype(dtype(), [&]<typename S>(type_tag<S>) {
    return convert<T>(*static_cast<const S*>(cpu.data_ptr()));
  });
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  if (tracing::recording()) [[unlikely]]
    tracing::note_data_dependence("Tensor.to_vector()");
  Tensor c = copy_as(*this, dtype_of<T>, Device());
  const T* p = static_cast<const T*>(c.data_ptr());
  return std::vector<T>(p, p + numel());
}

#define EMBER_INSTANTIATE(T)                  \
  template T Tensor::item<T>() const;         \
  template std::vector<T> Tensor::to_vector<T>() const;
EMBER_INSTANTIATE(uint8_t)
EMBER_INSTANTIATE(int8_t)
EMBER_INSTANTIATE(int16_t)
EMBER_INSTANTIATE(int32_t)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
EMBER_INSTANTIATE(Half)
EMBER_INSTANTIATE(BFloat16)
EMBER_INSTANTIATE(std::complex<float>)
EMBER_INSTANTIATE(std::complex<double>)
#undef EMBER_INSTANTIATE
template bool Tensor::item<bool>() const;

template <>
std::vector<bool> Tensor::to_vector<bool>() const {
  std::vector<uint8_t> bytes = copy_as(*this, kBool, Device()).to_vector<uint8_t>();
  return std::vector<bool>(bytes.begin(), bytes.end());
}

// Tensor::str and operator<< are in autograd/tensor_print.cpp (the printout names the grad_fn).

std::string describe(const Tensor& t) {
  if (!t.defined()) return "undefined tensor";
  return detail::str(t.dtype(), ' ', t.sizes());
}

}  // namespace ember
