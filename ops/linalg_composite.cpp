#include "ember/ops/linalg_composite.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
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

Tensor impl_linalg_householder_product(const Tensor& A, const Tensor& tau) {
  if (autocast::applies("linalg_householder_product", {A, tau}))
    return autocast::run("linalg_householder_product", {A, tau},
                         [&](const autocast::Cast& cast) { return linalg_householder_product(cast(A), cast(tau)); });
  constexpr const char* op = "linalg.householder_product";
  detail::check_linalg_matrix(A, op);
  EMBER_CHECK_VALUE(tau.dim() == A.dim() - 1, op, ": Expected tau to have one dimension less than input, but got ",
                    "tau.ndim equal to ", tau.dim(), " and input.ndim is equal to ", A.dim());
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  EMBER_CHECK_VALUE(m >= n, op, ": input.shape[-2] must be greater than or equal to input.shape[-1], got shape ",
                    A.sizes());
  EMBER_CHECK_VALUE(n >= k, op, ": input.shape[-1] must be greater than or equal to tau.shape[-1], got ", n, " and ",
                    k);
  EMBER_CHECK_TYPE(tau.dtype() == A.dtype(), op, ": tau dtype ", tau.dtype(), " does not match input dtype ",
                   A.dtype());
  const TensorOptions o = TensorOptions(A.dtype()).device(A.device());
  const DimVector batch(A.sizes().begin(), A.sizes().end() - 2);
  auto batch_and = [&](int64_t last) {
    DimVector s = batch;
    s.push_back(last);
    return s;
  };
  DimVector shape = batch_and(m);
  shape.push_back(n);
  // H_1 ... H_k applied to the first n columns of the identity, the last reflector first;
  // H_i = I - tau_i v_i v_i^T, v_i = (0, ..., 0, 1, A[i+1:, i]).
  Tensor x = eye(m, n, o).expand(shape);
  for (int64_t i = k - 1; i >= 0; --i) {
    Tensor v =
        unsqueeze(cat({zeros(batch_and(i), o), ones(batch_and(1), o), select(slice(A, -2, i + 1, m), -1, i)}, -1), -1);
    x = x - unsqueeze(slice(tau, -1, i, i + 1), -1) * matmul(v, matmul(transpose(v, -2, -1), x));
  }
  return x;
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

namespace {

// The two matrix dims of a matrix norm, wrapped and checked with PyTorch's messages.
std::pair<int64_t, int64_t> matrix_dims(const Tensor& A, IntArrayRef dim) {
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dim.size());
  const int64_t d0 = wrap_dim(dim[0], A.dim(), "linalg.matrix_norm"),
                d1 = wrap_dim(dim[1], A.dim(), "linalg.matrix_norm");
  EMBER_CHECK(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
  return {d0, d1};
}

enum class Spectral { Largest, Smallest, Sum };

// matrix_norm's 2, -2 and "nuc": the singular values of the matrices over dims (d0, d1).
Tensor spectral_norm(const Tensor& A, Spectral kind, int64_t d0, int64_t d1, bool keepdim) {
  DimVector order;
  for (int64_t d = 0; d < A.dim(); ++d)
    if (d != d0 && d != d1) order.push_back(d);
  order.push_back(d0), order.push_back(d1);
  const Tensor S = linalg_svdvals(A.permute(order));
  EMBER_CHECK(S.size(-1) > 0 || kind == Spectral::Sum,
              "linalg.matrix_norm: Expected a non-empty matrix for ord=", kind == Spectral::Largest ? "2" : "-2");
  const Tensor out = kind == Spectral::Sum ? sum(S, {-1}) : kind == Spectral::Largest ? amax(S, {-1}) : amin(S, {-1});
  return keepdim ? out.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1)) : out;
}

// The matrix norms of one order; the 16-bit dtypes are taken except by the SVD, as PyTorch's.
Tensor matrix_norm(const Tensor& A, double ord, std::string_view name, IntArrayRef dim, bool keepdim,
                   std::optional<DType> dtype) {
  const Tensor a = dtype ? A.to(*dtype) : A;
  const auto [d0, d1] = matrix_dims(a, dim);
  const bool by_svd = name == "nuc" || (name.empty() && std::abs(ord) == 2);
  if (!is_16bit_float(a.dtype()) || by_svd) detail::check_linalg_float(a, "linalg.matrix_norm");
  if (name == "fro") return norm(a, 2.0, {d0, d1}, keepdim);
  if (name == "nuc") return spectral_norm(a, Spectral::Sum, d0, d1, keepdim);
  EMBER_CHECK(name.empty(), "linalg.matrix_norm: Order ", name, " not supported.");
  if (by_svd) return spectral_norm(a, ord > 0 ? Spectral::Largest : Spectral::Smallest, d0, d1, keepdim);
  EMBER_CHECK(std::abs(ord) == 1 || std::isinf(ord), "linalg.matrix_norm: Order ", ord, " not supported.");
  // 1 / -1: the columns' sums of |A| (over d0), then their largest / smallest; inf / -inf: the rows'
  const int64_t summed = std::abs(ord) == 1 ? d0 : d1, across = std::abs(ord) == 1 ? d1 : d0;
  const Tensor sums = sum(abs(a), {summed}, true);
  const Tensor out = ord > 0 ? amax(sums, {across}, true) : amin(sums, {across}, true);
  return keepdim ? out : out.squeeze(std::max(d0, d1)).squeeze(std::min(d0, d1));
}

}  // namespace

Tensor linalg_vector_norm(const Tensor& x, double ord, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  if (autocast::applies("linalg_vector_norm", x))
    return autocast::run("linalg_vector_norm", {x}, [&](const autocast::Cast& cast) {
      return linalg_vector_norm(cast(x), ord, dim, keepdim, dtype);
    });
  const Tensor v = dtype ? x.to(*dtype) : x;
  EMBER_CHECK_AS(NotImplementedError, is_floating(v.dtype()) || is_complex(v.dtype()),
                 "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
                 torch_type_name(v.dtype()));
  return norm(v, ord, dim, keepdim);
}

Tensor linalg_matrix_norm(const Tensor& A, double ord, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  if (autocast::applies("linalg_matrix_norm", A))
    return autocast::run("linalg_matrix_norm", {A}, [&](const autocast::Cast& cast) {
      return linalg_matrix_norm(cast(A), ord, dim, keepdim, dtype);
    });
  return matrix_norm(A, ord, "", dim, keepdim, dtype);
}

Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<DType> dtype) {
  if (autocast::applies("linalg_matrix_norm", A))
    return autocast::run("linalg_matrix_norm", {A}, [&](const autocast::Cast& cast) {
      return linalg_matrix_norm(cast(A), ord, dim, keepdim, dtype);
    });
  EMBER_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord, " not supported.");
  return matrix_norm(A, 0, ord, dim, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& A, std::optional<double> ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                   std::optional<DType> dtype) {
  if (dim) {
    if (dim->size() == 1) return linalg_vector_norm(A, ord.value_or(2), *dim, keepdim, dtype);
    return ord ? linalg_matrix_norm(A, *ord, *dim, keepdim, dtype) : linalg_matrix_norm(A, "fro", *dim, keepdim, dtype);
  }
  if (!ord) return linalg_vector_norm(A, 2, {}, keepdim, dtype);
  EMBER_CHECK(A.dim() == 1 || A.dim() == 2,
              "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ", A.dim(), "D.");
  return A.dim() == 1 ? linalg_vector_norm(A, *ord, {}, keepdim, dtype)
                      : linalg_matrix_norm(A, *ord, {-2, -1}, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& A, std::string_view ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                   std::optional<DType> dtype) {
  EMBER_CHECK(dim || A.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ",
              A.dim(), "D.");
  return linalg_matrix_norm(A, ord, dim ? IntArrayRef(*dim) : IntArrayRef({-2, -1}), keepdim, dtype);
}

namespace {

// ||A||_p ||A^-1||_p for square A; inf where A is singular (an exact zero pivot), as PyTorch's: those
// matrices are inverted as the identity and their result replaced, not raised.
template <class Norm>
Tensor cond_by_norms(const Tensor& A, const char* p, const Norm& matrix_norm_of) {
  EMBER_CHECK(A.size(-1) == A.size(-2), "linalg.cond(ord=", p, "): A must be batches of square matrices, but they are ",
              A.size(-2), " by ", A.size(-1), " matrices");
  if (A.numel() == 0) return batch_zeros(A, A.dtype()) + sum(A) * 0;
  const int64_t n = A.size(-1);
  Tensor singular;
  {
    NoGradGuard no_grad;
    singular = eq(std::get<0>(linalg_slogdet(A.detach())), Scalar(0));
  }
  const Tensor eye_n = eye(n, std::nullopt, TensorOptions(A.dtype()).device(A.device())).expand(A.sizes());
  const Tensor safe = where(singular.unsqueeze(-1).unsqueeze(-1), eye_n, A);
  const Tensor out = matrix_norm_of(A) * matrix_norm_of(linalg_inv(safe));
  return where(singular, Scalar(INFINITY), out);
}

}  // namespace

Tensor linalg_cond(const Tensor& A, std::optional<double> p) {
  if (autocast::applies("linalg_cond", A))
    return autocast::run("linalg_cond", {A}, [&](const autocast::Cast& cast) { return linalg_cond(cast(A), p); });
  EMBER_CHECK(!p || std::abs(*p) == 1 || std::abs(*p) == 2 || std::isinf(*p),
              "linalg.cond got an invalid norm type: ", *p);
  detail::check_linalg_matrix(A, "linalg.cond");
  if (!p || std::abs(*p) == 2) {
    if (A.numel() == 0) return batch_zeros(A, A.dtype()) + sum(A) * 0;
    const Tensor S = linalg_svdvals(A);
    const Tensor largest = S.narrow(-1, 0, 1).squeeze(-1), smallest = S.narrow(-1, S.size(-1) - 1, 1).squeeze(-1);
    return p && *p < 0 ? smallest / largest : largest / smallest;
  }
  const std::string name = detail::str(*p);
  return cond_by_norms(A, name.c_str(), [&](const Tensor& M) { return linalg_matrix_norm(M, *p); });
}

Tensor linalg_cond(const Tensor& A, std::string_view p) {
  if (autocast::applies("linalg_cond", A))
    return autocast::run("linalg_cond", {A}, [&](const autocast::Cast& cast) { return linalg_cond(cast(A), p); });
  EMBER_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  detail::check_linalg_matrix(A, "linalg.cond");
  const std::string name(p);
  return cond_by_norms(A, name.c_str(), [&](const Tensor& M) { return linalg_matrix_norm(M, p); });
}

}  // namespace ember
