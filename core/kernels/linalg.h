#pragma once
// The kernel contracts of the matrix factorisations (ops/linalg.h). The ops flatten the batch dims
// and make the input contiguous, so a kernel sees a [B, m, n] row-major stack of float32 or float64
// matrices (B, m, n > 0) and writes contiguous results of the same dtype. A kernel reports a
// matrix it could not factor in `info` (int32 [B], contiguous, on the input's device): 0 where it
// succeeded, nonzero where it did not (LAPACK's info: a NaN in the matrix, no convergence); the op
// reads info and raises, so a kernel never synchronises or throws for bad values.
#include <cstdint>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: A = U diag(S) Vh for each a [B, m, n], k = min(m, n): s [B, k] descending and
/// non-negative; when u and vh are defined, u [B, m, ku] and vh [B, kv, n] with orthonormal
/// columns (rows), ku = kv = k for the thin SVD and ku = m, kv = n for the full one (the sizes of
/// u and vh tell which). Undefined u and vh: singular values only.
using SvdFn = void (*)(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info, const Tensor& a);
EMBER_DECLARE_STUB(svd_stub, SvdFn);

/// Kernel: A = V diag(L) V^T for each symmetric a [B, n, n], reading only its lower triangle (or
/// its upper one when `upper`): values [B, n] ascending; when vectors is defined, vectors [B, n, n]
/// holds the orthonormal eigenvectors as columns.
using EighFn = void (*)(const Tensor& values, const Tensor& vectors, const Tensor& info, const Tensor& a, bool upper);
EMBER_DECLARE_STUB(eigh_stub, EighFn);

/// Kernel: A = Q R for each a [B, m, n] by Householder reflections (LAPACK's geqrf + orgqr, so R's
/// diagonal may be negative): q [B, m, kq] with orthonormal columns, kq = min(m, n) (reduced) or
/// m (complete, the sizes tell), and r [B, kq, n] upper triangular (zeros below the diagonal).
using QrFn = void (*)(const Tensor& q, const Tensor& r, const Tensor& a);
EMBER_DECLARE_STUB(qr_stub, QrFn);

/// Kernel: LAPACK's geqrf of each a [B, m, n]: out [B, m, n] holds R on and above the diagonal and
/// the Householder vectors below it (their leading 1 implied), tau [B, min(m, n)] their scales, so
/// that Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^T.
using GeqrfFn = void (*)(const Tensor& out, const Tensor& tau, const Tensor& a);
EMBER_DECLARE_STUB(geqrf_stub, GeqrfFn);

/// Kernel: x [B, n, k] = A^-1 b for each triangular a [B, n, n] and b [B, n, k] (left), or
/// x [B, k, n] = b A^-1 for b [B, k, n] (!left). Only a's upper (or lower) triangle is read, and
/// not its diagonal when `unit` (taken as ones). A zero on the diagonal gives inf/NaN, as LAPACK's
/// trtrs without its check: the op decides whether that is an error.
using SolveTriangularFn = void (*)(const Tensor& x, const Tensor& a, const Tensor& b, bool upper, bool left, bool unit);
EMBER_DECLARE_STUB(solve_triangular_stub, SolveTriangularFn);

/// Kernel: the Cholesky factor of each symmetric positive-definite a [B, n, n], reading only its
/// lower triangle: l [B, n, n] holds L on and below the diagonal (A = L L^T, positive diagonal); its
/// entries above the diagonal are unspecified (the op zeroes them). info[b] is the order of the
/// first leading minor that is not positive-definite (LAPACK's potrf; 0: none).
using CholeskyFn = void (*)(const Tensor& l, const Tensor& info, const Tensor& a);
EMBER_DECLARE_STUB(cholesky_stub, CholeskyFn);

/// Kernel: LU with partial pivoting of each square a [B, n, n] (LAPACK's getrf): lu [B, n, n] holds
/// L below the diagonal (its unit diagonal implied) and U on and above it, pivots (int32 [B, n])
/// the 1-based row that row i was swapped with at step i, and info[b] the 1-based index of U's first
/// zero on the diagonal (0: none; the factorisation still completes, as getrf's).
using LuFactorFn = void (*)(const Tensor& lu, const Tensor& pivots, const Tensor& info, const Tensor& a);
EMBER_DECLARE_STUB(lu_factor_stub, LuFactorFn);

/// Kernel: x [B, n, k] = A^-1 b for b [B, n, k], from A's lu and pivots as lu_factor writes them
/// (LAPACK's getrs): the rows of b swapped as the pivots say, then L's and U's triangular solves.
using LuSolveFn = void (*)(const Tensor& x, const Tensor& lu, const Tensor& pivots, const Tensor& b);
EMBER_DECLARE_STUB(lu_solve_stub, LuSolveFn);

}  // namespace ember
