#include "ember/nn/transformer_mask.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::nn {

Tensor square_subsequent_mask(int64_t sz, DType dtype) {
  EMBER_CHECK_VALUE(sz >= 0, "generate_square_subsequent_mask: sz must not be negative, got ", sz);
  EMBER_CHECK_TYPE(dtype == kBool || is_floating(dtype), "generate_square_subsequent_mask: dtype must be "
                   "bool or floating, got ", dtype);
  autograd::NoGradGuard no_grad;
  Scalar fill = dtype == kBool ? Scalar(true) : Scalar(-std::numeric_limits<double>::infinity());
  return triu(full({sz, sz}, fill, dtype), 1);
}

namespace detail {

bool detect_is_causal_mask(const Tensor& mask, std::optional<bool> is_causal, int64_t size) {
  if (is_causal.has_value()) return *is_causal;
  if (!mask.defined() || mask.dim() != 2 || mask.size(0) != size || mask.size(1) != size) return false;
  if (mask.dtype() != kBool && !mask.is_floating_point()) return false;
  autograd::NoGradGuard no_grad;
  return all(eq(mask, square_subsequent_mask(size, mask.dtype()))).item<bool>();
}

int64_t sequence_length(const Tensor& x, bool batch_first) {
  if (x.dim() < 3) return x.size(0);
  return x.size(batch_first ? 1 : 0);
}

}  // namespace detail
}  // namespace ember::nn
