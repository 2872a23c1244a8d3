#include "ember/ops/count.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"

namespace ember {

Tensor impl_bincount(const Tensor& self, const Tensor& weights, int64_t minlength) {
  EMBER_CHECK_TYPE(!is_floating(self.dtype()) && self.dtype() != kBool,
                   "bincount: expected a tensor of non-negative integers, got ", self.dtype());
  EMBER_CHECK_VALUE(self.dim() == 1, "bincount: only supports 1-d non-negative integral inputs, got shape ",
                    self.sizes());
  EMBER_CHECK_VALUE(minlength >= 0, "bincount: minlength should be >= 0, got ", minlength);
  EMBER_CHECK_VALUE(!weights.defined() || (weights.dim() == 1 && weights.size(0) == self.size(0)),
                    "bincount: weights should be 1-d and have the same length as input, got shapes ",
                    weights.defined() ? weights.sizes() : IntArrayRef{}, " and ", self.sizes());
  autograd::NoGradGuard no_grad;
  Tensor index = self.to(kInt64);
  int64_t length = minlength;
  if (self.numel() > 0) {
    EMBER_CHECK_VALUE(min(index).item<int64_t>() >= 0, "bincount: only supports 1-d non-negative integral inputs, got ",
                      min(index).item<int64_t>());
    length = std::max(length, max(index).item<int64_t>() + 1);
  }
  // Counts in int64; weights sum in float32 when they are float32, else in float64 (PyTorch's). As
  // PyTorch's, an empty input gives int64 zeros even with weights.
  if (!weights.defined() || self.numel() == 0)
    return index_add(zeros({length}, TensorOptions(kInt64).device(self.device())), 0, index, ones_like(index));
  const DType dtype = weights.dtype() == kFloat32 ? kFloat32 : kFloat64;
  return index_add(zeros({length}, TensorOptions(dtype).device(self.device())), 0, index, weights.to(dtype));
}

Tensor impl_histc(const Tensor& self, int64_t bins, Scalar min_, Scalar max_) {
  EMBER_CHECK_TYPE(is_floating(self.dtype()), "histc: expected a floating tensor, got ", self.dtype());
  check_floating_compute(self.dtype(), "histc");
  EMBER_CHECK_VALUE(bins > 0, "histc: bins must be > 0, got ", bins);
  autograd::NoGradGuard no_grad;
  double lo = min_.to<double>(), hi = max_.to<double>();
  if (lo == hi && self.numel() > 0) {
    lo = min(self).item<double>();
    hi = max(self).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK_VALUE(std::isfinite(lo) && std::isfinite(hi), "histc: range of [", lo, ", ", hi, "] is not finite");
  EMBER_CHECK_VALUE(lo < hi, "histc: max must be larger than min, got min ", lo, " and max ", hi);
  // NB: PyTorch's arithmetic in the input's dtype: the edges rounded to it, then
  // (x - lo) * bins / (hi - lo) truncated, the right edge belonging to the last bin.
  if (self.dtype() == kFloat32) {
    lo = static_cast<float>(lo);
    hi = static_cast<float>(hi);
  }
  const double width = self.dtype() == kFloat32 ? static_cast<double>(static_cast<float>(hi) - static_cast<float>(lo))
                                                : hi - lo;
  Tensor x = self.reshape({-1});
  Tensor inside = logical_and(ge(x, lo), le(x, hi));
  Tensor bin = trunc(div(mul(sub(x, lo), bins), width));
  bin = where(inside, bin, 0).to(kInt64);
  bin = where(eq(bin, bins), bins - 1, bin);
  return index_add(zeros({bins}, self.options()), 0, bin, inside.to(self.dtype()));
}

}  // namespace ember
