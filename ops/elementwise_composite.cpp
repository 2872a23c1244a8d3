// Elementwise ops composed of other table ops (`composite = true` in ops/ops.toml): no kernel and no
// backward of their own; autograd differentiates the composition, as it does PyTorch's
// CompositeImplicitAutograd ops.
#include <numbers>

#include "ember/ops/ops.h"

namespace ember {

Tensor impl_polygamma(const Tensor& self, int64_t n) { return polygamma(n, self); }

Tensor impl_exp2(const Tensor& self) { return pow(Scalar(2.0), self); }

Tensor impl_deg2rad(const Tensor& self) { return mul(self, Scalar(std::numbers::pi / 180.0)); }

Tensor impl_rad2deg(const Tensor& self) { return mul(self, Scalar(180.0 / std::numbers::pi)); }

Tensor impl_logical_xor(const Tensor& self, const Tensor& other) {
  return ne(ne(self, Scalar(0)), ne(other, Scalar(0)));
}

namespace {

// maximum (minimum), except that a NaN loses to a number (two NaNs give self), and that where both
// are zeros the result is self's zero: PyTorch's fmax and fmin, where maximum's sign of zero depends on
// the element's position. A tie shares the gradient half and half (maximum's), a NaN operand gets
// none; self - (m - m) keeps m's gradient and has self's zero in value (-0 - +0 is -0).
Tensor nan_losing_extreme(const Tensor& self, const Tensor& other, bool max) {
  const Tensor m =
      where(isnan(other), self, where(isnan(self), other, max ? maximum(self, other) : minimum(self, other)));
  if (!is_floating(m.dtype())) return m;
  return where(logical_and(eq(self, Scalar(0)), eq(other, Scalar(0))), self.detach().to(m.dtype()) - (m.detach() - m),
               m);
}

}  // namespace

Tensor impl_fmax(const Tensor& self, const Tensor& other) { return nan_losing_extreme(self, other, true); }

Tensor impl_fmin(const Tensor& self, const Tensor& other) { return nan_losing_extreme(self, other, false); }

}  // namespace ember
