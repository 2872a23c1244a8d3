// PyTorch's older linalg functions (torch.det, torch.svd, torch.qr, ...; also Tensor methods) as
// composites of the linalg ops: their argument spellings (svd's some and compute_uv, qr's some,
// pinverse's rcond) and results (svd's V rather than Vh, logdet's NaN for a negative determinant).
#include <cmath>
#include <tuple>

#include "ember/core/factory.h"
#include "ember/ops/linalg_checks.h"
#include "ember/ops/ops.h"

namespace ember {

Tensor impl_det(const Tensor& self) { return linalg_det(self); }

Tensor impl_logdet(const Tensor& self) {
  const auto [sign, logabsdet] = linalg_slogdet(self);
  return where(lt(sign, Scalar(0)), full_like(logabsdet, Scalar(NAN)), logabsdet);
}

std::tuple<Tensor, Tensor> impl_slogdet(const Tensor& self) { return linalg_slogdet(self); }

Tensor impl_inverse(const Tensor& self) {
  if (autocast::applies("inverse", self))
    return autocast::run("inverse", {self}, [&](const autocast::Cast& cast) { return inverse(cast(self)); });
  return linalg_inv(self);
}

Tensor impl_cholesky(const Tensor& self, bool upper) { return linalg_cholesky(self, upper); }

std::tuple<Tensor, Tensor, Tensor> impl_svd(const Tensor& self, bool some, bool compute_uv) {
  detail::check_linalg_matrix(self, "svd");
  if (!compute_uv) {  // U and V zero-filled, m x m and n x n, as PyTorch's
    DimVector u_shape(self.sizes().begin(), self.sizes().end()), v_shape = u_shape;
    u_shape.back() = self.size(-2);
    v_shape[v_shape.size() - 2] = self.size(-1);
    const TensorOptions like = TensorOptions(self.dtype()).device(self.device());
    return {zeros(u_shape, like), linalg_svdvals(self), zeros(v_shape, like)};
  }
  const auto [U, S, Vh] = linalg_svd(self, !some);
  return {U, S, Vh.transpose(-2, -1)};
}

std::tuple<Tensor, Tensor> impl_qr(const Tensor& self, bool some) {
  return linalg_qr(self, some ? "reduced" : "complete");
}

Tensor impl_matrix_exp(const Tensor& self) { return linalg_matrix_exp(self); }

Tensor impl_matrix_power(const Tensor& self, int64_t n) { return linalg_matrix_power(self, n); }

Tensor impl_pinverse(const Tensor& self, double rcond) {
  if (autocast::applies("pinverse", self))
    return autocast::run("pinverse", {self}, [&](const autocast::Cast& cast) { return pinverse(cast(self), rcond); });
  const Tensor rtol = full({}, Scalar(rcond), TensorOptions(self.dtype()).device(self.device()));
  return linalg_pinv(self, LinalgTolerance{std::nullopt, rtol}, false);
}

}  // namespace ember
