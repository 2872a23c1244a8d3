// CPU kernels of the matrix factorisations (core/kernels/linalg.h) on Eigen: BDCSVD (divide and
// conquer, Jacobi below 16 columns), SelfAdjointEigenSolver (tridiagonal QR), HouseholderQR,
// LLT, PartialPivLU and a triangular view's solve. The matrices of a batch are split over threads;
// each is factored on one.
#include <Eigen/Dense>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/linalg.h"

namespace ember::cpu {
namespace {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;

// The b-th matrix (or vector) of the contiguous, non-empty stack t.
template <typename T>
T* matrix(const Tensor& t, int64_t b) {
  return static_cast<T*>(t.data_ptr()) + b * (t.numel() / t.size(0));
}

// Splits the batch so that a thread gets at least about 32k matrix entries.
template <typename F>
void for_each_matrix(const Tensor& a, const F& f) {
  const int64_t batch = a.size(0), entries = std::max<int64_t>(1, a.size(1) * a.size(2));
  parallel_for(0, batch, std::max<int64_t>(1, kElementwiseGrain / entries), [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) f(b);
  });
}

void cpu_svd(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info, const Tensor& a) {
  const int64_t m = a.size(1), n = a.size(2);
  const bool vectors = u.defined(), full = vectors && (u.size(2) == m && vh.size(1) == n);
  const unsigned options = !vectors ? 0u
                           : full   ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                                    : (Eigen::ComputeThinU | Eigen::ComputeThinV);
  visit_floating_dtype(a.dtype(), "linalg.svd", [&]<typename T>(type_tag<T>) {
    for_each_matrix(a, [&](int64_t b) {
      // NB: BDCSVD refuses a non-finite matrix (InvalidInput), as LAPACK's gesdd reports it
      Eigen::BDCSVD<RowMatrix<T>> svd(ConstMatrixMap<T>(matrix<T>(a, b), m, n), options);
      static_cast<int32_t*>(info.data_ptr())[b] = svd.info() == Eigen::Success ? 0 : 1;
      if (svd.info() != Eigen::Success) return;
      Eigen::Map<Eigen::Vector<T, Eigen::Dynamic>>(matrix<T>(s, b), s.size(1)) = svd.singularValues();
      if (!vectors) return;
      MatrixMap<T>(matrix<T>(u, b), m, u.size(2)) = svd.matrixU();
      MatrixMap<T>(matrix<T>(vh, b), vh.size(1), n) = svd.matrixV().transpose();
    });
  });
}

void cpu_eigh(const Tensor& values, const Tensor& vectors, const Tensor& info, const Tensor& a, bool upper) {
  const int64_t n = a.size(1);
  visit_floating_dtype(a.dtype(), "linalg.eigh", [&]<typename T>(type_tag<T>) {
    for_each_matrix(a, [&](int64_t b) {
      ConstMatrixMap<T> in(matrix<T>(a, b), n, n);
      // The triangle named, mirrored: the other one is never read (it may hold anything, NaN too).
      RowMatrix<T> full = upper ? RowMatrix<T>(in.template selfadjointView<Eigen::Upper>())
                                : RowMatrix<T>(in.template selfadjointView<Eigen::Lower>());
      int32_t& status = static_cast<int32_t*>(info.data_ptr())[b];
      if (!full.allFinite()) {  // NB: the tridiagonal QR would iterate to its limit on NaN
        status = 1;
        return;
      }
      Eigen::SelfAdjointEigenSolver<RowMatrix<T>> eig(
          full, vectors.defined() ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
      status = eig.info() == Eigen::Success ? 0 : 1;
      if (status != 0) return;
      Eigen::Map<Eigen::Vector<T, Eigen::Dynamic>>(matrix<T>(values, b), n) = eig.eigenvalues();
      if (vectors.defined()) MatrixMap<T>(matrix<T>(vectors, b), n, n) = eig.eigenvectors();
    });
  });
}

void cpu_qr(const Tensor& q, const Tensor& r, const Tensor& a) {
  const int64_t m = a.size(1), n = a.size(2), kq = q.size(2);
  visit_floating_dtype(a.dtype(), "linalg.qr", [&]<typename T>(type_tag<T>) {
    for_each_matrix(a, [&](int64_t b) {
      Eigen::HouseholderQR<RowMatrix<T>> qr(ConstMatrixMap<T>(matrix<T>(a, b), m, n));
      MatrixMap<T>(matrix<T>(r, b), kq, n) = qr.matrixQR().topRows(kq).template triangularView<Eigen::Upper>();
      MatrixMap<T>(matrix<T>(q, b), m, kq) = qr.householderQ() * RowMatrix<T>::Identity(m, kq);
    });
  });
}

void cpu_geqrf(const Tensor& out, const Tensor& tau, const Tensor& a) {
  const int64_t m = a.size(1), n = a.size(2), k = std::min(m, n);
  visit_floating_dtype(a.dtype(), "geqrf", [&]<typename T>(type_tag<T>) {
    for_each_matrix(a, [&](int64_t b) {
      // NB: Eigen's reflectors are LAPACK's (dlarfg's beta = -sign(alpha) |x|, tau 0 for a zero tail)
      Eigen::HouseholderQR<RowMatrix<T>> qr(ConstMatrixMap<T>(matrix<T>(a, b), m, n));
      MatrixMap<T>(matrix<T>(out, b), m, n) = qr.matrixQR();
      Eigen::Map<Eigen::Vector<T, Eigen::Dynamic>>(matrix<T>(tau, b), k) = qr.hCoeffs();
    });
  });
}

template <typename T, unsigned Mode>
void solve_in_place(const ConstMatrixMap<T>& a, MatrixMap<T>& x, bool left) {
  if (left)
    a.template triangularView<Mode>().solveInPlace(x);
  else
    a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
}

void cpu_solve_triangular(const Tensor& x, const Tensor& a, const Tensor& b, bool upper, bool left, bool unit) {
  const int64_t n = a.size(1), rows = x.size(1), cols = x.size(2);
  visit_floating_dtype(a.dtype(), "linalg.solve_triangular", [&]<typename T>(type_tag<T>) {
    for_each_matrix(x, [&](int64_t i) {
      ConstMatrixMap<T> tri(matrix<T>(a, i), n, n);
      MatrixMap<T> out(matrix<T>(x, i), rows, cols);
      out = ConstMatrixMap<T>(matrix<T>(b, i), rows, cols);
      if (upper)
        unit ? solve_in_place<T, Eigen::UnitUpper>(tri, out, left) : solve_in_place<T, Eigen::Upper>(tri, out, left);
      else
        unit ? solve_in_place<T, Eigen::UnitLower>(tri, out, left) : solve_in_place<T, Eigen::Lower>(tri, out, left);
    });
  });
}

void cpu_cholesky(const Tensor& l, const Tensor& info, const Tensor& a) {
  const int64_t n = a.size(1);
  visit_floating_dtype(a.dtype(), "linalg.cholesky", [&]<typename T>(type_tag<T>) {
    for_each_matrix(a, [&](int64_t b) {
      MatrixMap<T> out(matrix<T>(l, b), n, n);
      out = ConstMatrixMap<T>(matrix<T>(a, b), n, n);
      // NB: LLT's own routine, for the column where it stops, which LLT::info() does not name
      const Eigen::Index failed = Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(out);
      int32_t order = failed < 0 ? 0 : static_cast<int32_t>(failed + 1);
      for (int64_t k = 0; k < n && order == 0; ++k)  // a NaN passes its "<= 0" test: potrf's does not
        if (std::isnan(out(k, k))) order = static_cast<int32_t>(k + 1);
      static_cast<int32_t*>(info.data_ptr())[b] = order;
    });
  });
}

// LAPACK's unblocked getf2 on the row-major n x n matrix a, in place: the first largest |entry| as
// the pivot, L's column divided by it, the rank-1 update as a multiply and a subtract. Returns
// the 1-based column of the first zero pivot (0: none). NB: Eigen's LU fuses the update's multiply
// and subtract (FMA), which leaves residues like 1e-17 where an exactly singular matrix has an
// exact 0 pivot under LAPACK's (and PyTorch's) rounding; this file is compiled with
// -ffp-contract=off (CMakeLists.txt) so that the compiler does not fuse them here either.
template <typename T>
int32_t unblocked_lu(T* a, int64_t n, int32_t* piv) {
  int32_t first_zero = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    piv[k] = static_cast<int32_t>(p + 1);
    if (p != k) std::swap_ranges(a + k * n, a + (k + 1) * n, a + p * n);
    const T pivot = a[k * n + k];
    if (pivot == T(0)) {
      if (first_zero == 0) first_zero = static_cast<int32_t>(k + 1);
      continue;  // the column below is 0 too: L's column stays 0, as getf2's
    }
    for (int64_t i = k + 1; i < n; ++i) {
      T* row = a + i * n;
      const T l = row[k] /= pivot;
      const T* top = a + k * n;
      for (int64_t j = k + 1; j < n; ++j) {
        row[j] -= l * top[j];
      }
    }
  }
  return first_zero;
}

// Up to this size the unblocked factorisation (exact pivots); past it Eigen's blocked one (speed).
constexpr int64_t kUnblockedLu = 64;

void cpu_lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info, const Tensor& a) {
  const int64_t n = a.size(1);
  visit_floating_dtype(a.dtype(), "lu_factor", [&]<typename T>(type_tag<T>) {
    for_each_matrix(a, [&](int64_t b) {
      int32_t* piv = matrix<int32_t>(pivots, b);
      int32_t& status = static_cast<int32_t*>(info.data_ptr())[b];
      if (n <= kUnblockedLu) {
        std::copy_n(matrix<T>(a, b), n * n, matrix<T>(lu, b));
        status = unblocked_lu(matrix<T>(lu, b), n, piv);
        return;
      }
      Eigen::PartialPivLU<RowMatrix<T>> plu(ConstMatrixMap<T>(matrix<T>(a, b), n, n));
      MatrixMap<T>(matrix<T>(lu, b), n, n) = plu.matrixLU();
      // P A = L U with P moving A's row i to row indices[i]: the row swaps that build that order
      // one step at a time are getrf's pivots.
      const auto& to = plu.permutationP().indices();
      std::vector<int64_t> from(n), at(n), row_of(n);  // from[k]: A's row that ends at k
      for (int64_t i = 0; i < n; ++i) from[to[i]] = i;
      for (int64_t i = 0; i < n; ++i) at[i] = row_of[i] = i;  // at[r]: where A's row r is now
      for (int64_t k = 0; k < n; ++k) {
        const int64_t j = at[from[k]];
        piv[k] = static_cast<int32_t>(j + 1);
        std::swap(row_of[k], row_of[j]);
        at[row_of[k]] = k;
        at[row_of[j]] = j;
      }
      status = 0;
      for (int64_t k = 0; k < n && status == 0; ++k)
        if (plu.matrixLU()(k, k) == T(0)) status = static_cast<int32_t>(k + 1);
    });
  });
}

void cpu_lu_solve(const Tensor& x, const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  const int64_t n = lu.size(1), k = x.size(2);
  visit_floating_dtype(lu.dtype(), "lu_solve", [&]<typename T>(type_tag<T>) {
    for_each_matrix(x, [&](int64_t i) {
      ConstMatrixMap<T> factors(matrix<T>(lu, i), n, n);
      MatrixMap<T> out(matrix<T>(x, i), n, k);
      out = ConstMatrixMap<T>(matrix<T>(b, i), n, k);
      const int32_t* piv = matrix<int32_t>(pivots, i);
      for (int64_t r = 0; r < n; ++r)
        if (piv[r] - 1 != r) out.row(r).swap(out.row(piv[r] - 1));
      factors.template triangularView<Eigen::UnitLower>().solveInPlace(out);
      // NB: the blocked solve multiplies by each pivot's reciprocal, inf for a subnormal pivot, and
      // 0 * inf is NaN where an exact 0 belongs; a vector's solve divides (LAPACK's getf2 divides
      // where the reciprocal would overflow, for the same reason)
      if (!(factors.diagonal().array().abs() < std::numeric_limits<T>::min()).any()) {
        factors.template triangularView<Eigen::Upper>().solveInPlace(out);
        return;
      }
      Eigen::Vector<T, Eigen::Dynamic> column(n);
      for (int64_t j = 0; j < k; ++j) {
        column = out.col(j);
        factors.template triangularView<Eigen::Upper>().solveInPlace(column);
        out.col(j) = column;
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(svd_stub, DeviceType::CPU, &cpu_svd);
EMBER_REGISTER_KERNEL(eigh_stub, DeviceType::CPU, &cpu_eigh);
EMBER_REGISTER_KERNEL(qr_stub, DeviceType::CPU, &cpu_qr);
EMBER_REGISTER_KERNEL(geqrf_stub, DeviceType::CPU, &cpu_geqrf);
EMBER_REGISTER_KERNEL(solve_triangular_stub, DeviceType::CPU, &cpu_solve_triangular);
EMBER_REGISTER_KERNEL(cholesky_stub, DeviceType::CPU, &cpu_cholesky);
EMBER_REGISTER_KERNEL(lu_factor_stub, DeviceType::CPU, &cpu_lu_factor);
EMBER_REGISTER_KERNEL(lu_solve_stub, DeviceType::CPU, &cpu_lu_solve);

}  // namespace ember::cpu
