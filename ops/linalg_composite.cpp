#include "ember/ops/linalg_composite.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/linalg_checks.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

double eps_of(DType t) {
  return t == kFloat64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

Tensor batch_zeros(const Tensor& A, DType dtype) {
  DimVector shape(A.sizes().begin(), A.sizes().end() - 2);
  return zeros(shape, TensorOptions(dtype).device(A.device()));
}

Tensor like(const Tensor& t, double v) { return full({}, v, TensorOptions(t.dtype()).device(t.device())); }

// PyTorch's cut-off for singular values S [..., k] of A: max(atol, rtol max S), kept dim last.
Tensor cutoff(const Tensor& A, const Tensor& S, const LinalgTolerance& tol) {
  const double fallback = eps_of(A.dtype()) * static_cast<double>(std::max(A.size(-2), A.size(-1)));
  const Tensor a = tol.atol ? tol.atol->to(S.dtype()) : like(S, 0.0);
  Tensor r;
  if (tol.rtol)
    r = tol.rtol->to(S.dtype());
  else if (!tol.atol)
    r = like(S, fallback);
  else
    r = where(gt(a, 0.0), like(S, 0.0), like(S, fallback));
  return maximum(a, r * amax(S, {-1})).unsqueeze(-1);
}

Tensor pinv_value(const Tensor& A, const LinalgTolerance& tol, bool hermitian) {
  const int64_t m = A.size(-2), n = A.size(-1);
  if (A.numel() == 0) {
    DimVector shape(A.sizes().begin(), A.sizes().end() - 2);
    shape.push_back(n), shape.push_back(m);
    return zeros(shape, TensorOptions(A.dtype()).device(A.device()));
  }
  if (hermitian) {
    auto [L, V] = linalg_eigh(A);
    const Tensor keep = gt(abs(L), cutoff(A, abs(L), tol));
    const Tensor inverse = where(keep, reciprocal(L), zeros_like(L));
    return matmul(V * inverse.unsqueeze(-2), V.transpose(-2, -1));
  }
  auto [U, S, Vh] = linalg_svd(A, false);
  const Tensor keep = gt(S, cutoff(A, S, tol));
  const Tensor inverse = where(keep, reciprocal(S), zeros_like(S));
  return matmul(Vh.transpose(-2, -1) * inverse.unsqueeze(-2), U.transpose(-2, -1));
}

}  // namespace

Tensor linalg_pinv(const Tensor& A, const LinalgTolerance& tol, bool hermitian) {
  if (autocast::applies("linalg_pinv", A))
    return autocast::run("linalg_pinv", {A},
                         [&](const autocast::Cast& cast) { return linalg_pinv(cast(A), tol, hermitian); });
  EMBER_CHECK(A.dim() >= 2 && (A.dtype() == kFloat32 || A.dtype() == kFloat64), "linalg.pinv(",
              torch_type_name(A.dtype()), "{", A.sizes(),
              "}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types");
  Tensor P;
  {
    NoGradGuard no_grad;
    P = pinv_value(A, tol, hermitian);
  }
  // PyTorch's pinv_backward (Golub and Pereyra's derivative of the pseudo-inverse), with P = pinv(A)
  // recomputed by this op, so the gradient is differentiable again:
  //   gA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)
  autograd::record_function(
      "LinalgPinvBackward", P, {A}, {A},
      [tol, hermitian](const autograd::TensorList& saved, const autograd::TensorList& grads, const autograd::Node&) {
        const Tensor& a = saved[0];
        const Tensor& g = grads[0];
        const Tensor p = linalg_pinv(a, tol, hermitian), pt = p.transpose(-2, -1), gt_ = g.transpose(-2, -1);
        const TensorOptions o = TensorOptions(a.dtype()).device(a.device());
        const Tensor eye_m = eye(a.size(-2), std::nullopt, o), eye_n = eye(a.size(-1), std::nullopt, o);
        return autograd::TensorList{-matmul(matmul(pt, g), pt) +
                                    matmul(matmul(eye_m - matmul(a, p), gt_), matmul(p, pt)) +
                                    matmul(matmul(pt, p), matmul(gt_, eye_n - matmul(p, a)))};
      });
  return P;
}

Tensor linalg_matrix_rank(const Tensor& A, const LinalgTolerance& tol, bool hermitian) {
  if (autocast::applies("linalg_matrix_rank", A))
    return autocast::run("linalg_matrix_rank", {A},
                         [&](const autocast::Cast& cast) { return linalg_matrix_rank(cast(A), tol, hermitian); });
  detail::check_linalg_matrix(A, "linalg.matrix_rank");
  NoGradGuard no_grad;
  const Tensor S = hermitian ? abs(linalg_eigvalsh(A)) : linalg_svdvals(A);
  if (S.size(-1) == 0) return batch_zeros(A, kInt64);
  return sum(gt(S, cutoff(A, S, tol)), {-1}, false, kInt64);
}

LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond, std::string_view driver) {
  if (autocast::applies("linalg_lstsq", {A, B}))
    return autocast::run("linalg_lstsq", {A, B},
                         [&](const autocast::Cast& cast) { return linalg_lstsq(cast(A), cast(B), rcond, driver); });
  EMBER_CHECK(A.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  EMBER_CHECK(B.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  detail::check_linalg_matrix(A, "torch.linalg.lstsq");
  EMBER_CHECK(A.dtype() == B.dtype(),
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype ",
              torch_type_name(A.dtype()), " and other's dtype ", torch_type_name(B.dtype()));
  EMBER_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss",
              "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EMBER_CHECK(A.dim() - B.dim() == 0 || A.dim() - B.dim() == 1,
              "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - "
              "other.dim()) <= 1");
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor rhs = vector ? B.unsqueeze(-1) : B;
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK(rhs.size(-2) == m, "torch.linalg.lstsq: input.size(-2) should match other.size(", vector ? -1 : -2, ")");
  const double rtol = !rcond || *rcond < 0 ? eps_of(A.dtype()) * static_cast<double>(std::max(m, n)) : *rcond;
  const LinalgTolerance tol{.rtol = like(A, rtol)};
  const Tensor x = matmul(linalg_pinv(A, tol), rhs);
  const TensorOptions o = TensorOptions(A.dtype()).device(A.device());
  // NB: PyTorch's empty residuals are still in the graph (they require grad)
  Tensor residuals = empty({0}, o) + (sum(A) + sum(B)) * 0.0;
  Tensor rank = empty({0}, TensorOptions(kInt64).device(A.device()));
  if (driver != "gels") rank = linalg_matrix_rank(A, tol);  // A's batch shape, not the broadcast one
  Tensor values = empty({0}, o);
  if (driver == "gelsd" || driver == "gelss") {
    NoGradGuard no_grad;
    values = linalg_svdvals(A);
  }
  const bool full_rank = driver == "gels" || all(eq(rank, n)).item<bool>();
  if (m > n && driver != "gelsy" && full_rank) {
    const Tensor r = matmul(A, x) - rhs;
    residuals = sum(r * r, {-2});
  }
  return {vector ? x.squeeze(-1) : x, residuals, rank, values};
}

Tensor linalg_matrix_power(const Tensor& A, int64_t n) {
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2), "linalg.matrix_power: A must be batches of square matrices, but they are ",
              A.size(-2), " by ", A.size(-1), " matrices");
  if (n == 0) {
    // As PyTorch: the identity copied into a clone of A, so a NaN in A stays out and A's gradient is 0.
    return A.clone().copy_(
        eye(A.size(-1), std::nullopt, TensorOptions(A.dtype()).device(A.device())).expand(A.sizes()));
  }
  Tensor base = n < 0 ? linalg_inv(A) : A;
  int64_t k = std::llabs(n);
  if (k == 3) return matmul(matmul(base, base), base);  // NB: PyTorch's order for 3, (A A) A
  Tensor result;
  while (k) {
    if (k & 1) result = result.defined() ? matmul(result, base) : base;
    k >>= 1;
    if (k) base = matmul(base, base);
  }
  return result.is_same(A) ? result.clone() : result;
}

}  // namespace ember
