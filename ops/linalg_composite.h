#pragma once
// The linalg functions composed of the factorisations (ops/linalg.cpp), as torch.linalg's:
// pinv (with PyTorch's own gradient, differentiable again), matrix_rank, lstsq (the minimum-norm
// solution, pinv(A) B, whatever the driver), matrix_power, the vector and matrix norms and cond.
// float32 and float64 (the norms that need no SVD take 16-bit floats too), any batch dims.
//
// The cut-off for "nonzero" singular values S (|eigenvalues| when hermitian) is PyTorch's:
// max(atol, rtol * max S), rtol defaulting to eps * max(m, n) when atol is not given or not
// positive and to 0 otherwise; atol and rtol are numbers or tensors of A's batch shape.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

struct LinalgTolerance {
  std::optional<Tensor> atol = std::nullopt;
  std::optional<Tensor> rtol = std::nullopt;
};

/// The Moore-Penrose pseudo-inverse [..., n, m] of A [..., m, n]: V diag(1/S) U^T over the singular
/// values above the cut-off (eigh of A's lower triangle when hermitian).
Tensor linalg_pinv(const Tensor& A, const LinalgTolerance& tolerance = {}, bool hermitian = false);
/// How many singular values of each matrix are above the cut-off (int64, A's batch shape); no gradient.
Tensor linalg_matrix_rank(const Tensor& A, const LinalgTolerance& tolerance = {}, bool hermitian = false);

/// linalg_lstsq's results; a part the driver does not compute is an empty tensor.
struct LstsqResult {
  Tensor solution, residuals, rank, singular_values;
};
/// The least-squares (minimum-norm, for rank-deficient A) solution X of A X = B, batch dims
/// broadcast; B [..., m] is a batch of vectors when it has one dim fewer than A. As PyTorch on the
/// CPU: rank for every driver but "gels" (default "gelsy"), singular_values for "gelsd"/"gelss",
/// residuals (squared 2-norms of A X - B's columns) when m > n, every matrix has full rank and the
/// driver is not "gelsy". Singular values below rcond * S_max (default eps * max(m, n)) count as 0.
LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
                         std::string_view driver = "gelsy");

/// A^n by repeated squaring for any integer n: the identity for 0, inv(A)^|n| for n < 0 (floating
/// only); integer matrices for n >= 0.
Tensor linalg_matrix_power(const Tensor& A, int64_t n);

/// torch.linalg.vector_norm: (sum |x|^ord)^(1/ord) over dim (every dim when empty), inf / -inf the
/// largest / smallest |x|, 0 the count of nonzeros; x cast to dtype first when given. Floating only.
Tensor linalg_vector_norm(const Tensor& x, double ord = 2, IntArrayRef dim = {}, bool keepdim = false,
                          std::optional<DType> dtype = std::nullopt);
/// torch.linalg.matrix_norm over the two dims: 1 / -1 (the largest / smallest column sum of |A|),
/// inf / -inf (the same of row sums), 2 / -2 (the largest / smallest singular value).
Tensor linalg_matrix_norm(const Tensor& A, double ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<DType> dtype = std::nullopt);
/// The named matrix norms: "fro" (the entries' 2-norm) and "nuc" (the sum of the singular values).
Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<DType> dtype = std::nullopt);
/// torch.linalg.norm: a vector norm over one dim, a matrix norm over two; with neither dim nor ord,
/// the 2-norm of every entry; with ord alone, A must be 1-D (a vector norm) or 2-D (a matrix norm).
Tensor linalg_norm(const Tensor& A, std::optional<double> ord = std::nullopt,
                   std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& A, std::string_view ord, std::optional<std::vector<int64_t>> dim = std::nullopt,
                   bool keepdim = false, std::optional<DType> dtype = std::nullopt);

/// The condition number of each matrix: S_max / S_min for p 2 (None) and S_min / S_max for -2 (any
/// shape); ||A||_p ||A^-1||_p for 1, -1, inf, -inf, "fro" and "nuc" (square A), inf where A is
/// singular (an exact zero pivot), as PyTorch's.
Tensor linalg_cond(const Tensor& A, std::optional<double> p = std::nullopt);
Tensor linalg_cond(const Tensor& A, std::string_view p);

}  // namespace ember
