// CUDA kernels of the matrix factorisations (core/kernels/linalg.h): cuSOLVER's gesvd, syevd,
// geqrf + orgqr, potrf, getrf and getrs, cuBLAS's trsm, one call per matrix of the batch, all queued on
// the device's stream (the handles are bound to it), never waited for. cuSOLVER and cuBLAS are column-major and the
// tensors row-major: a row-major [r, c] buffer is the column-major c x r matrix, the transpose, and
// each kernel is worked out in those terms so as to rearrange as little as it can. What must be
// rearranged is, for the whole batch at once, a strided copy (copy_data) of views of the buffers.
#include <algorithm>
#include <climits>
#include <type_traits>

#include "ember/core/copy.h"
#include "ember/core/kernels/linalg.h"
#include "ember/core/strided.h"
#include "ember/cuda/check.h"
#include "ember/cuda/cublas_api.h"
#include "ember/cuda/cusolver_api.h"
#include "ember/cuda/handles.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

// The float entry point of a pair, or the double one.
template <typename T, typename F, typename D>
auto pick(F f, D d) {
  if constexpr (std::is_same_v<T, float>)
    return f;
  else
    return d;
}

void check_dtype(const Tensor& a, const char* op) {
  EMBER_CHECK_TYPE(a.dtype() == kFloat32 || a.dtype() == kFloat64, op,
                   ": the CUDA kernel takes float32 and float64 matrices; got ", a.dtype());
}

// cuSOLVER's LAPACK-style calls take int sizes.
int as_int(int64_t v, const char* op) {
  EMBER_CHECK_AS(NotImplementedError, v <= INT_MAX, op,
                 ": matrix sizes past 2^31 - 1 are not supported by the CUDA kernel; got ", v);
  return static_cast<int>(v);
}

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

int* info_ptr(const Tensor& info) { return static_cast<int*>(info.data_ptr()); }

// A view of t's storage, `offset` elements past t's own start.
Tensor view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset = 0) {
  return as_strided_data(t, sizes, strides, t.storage_offset() + offset);
}

// An uninitialised contiguous [batch, rows, cols] tensor of a's dtype on a's device.
Tensor stack_like(const Tensor& a, int64_t batch, int64_t rows, int64_t cols) {
  return empty({batch, rows, cols}, TensorOptions(a.dtype()).device(a.device()));
}

template <typename T>
T* workspace(TensorScratch& scratch, int64_t count) {
  return static_cast<T*>(scratch.get(static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T)));
}

// gesvd factors rows x cols matrices with rows >= cols, A = U S V^T, U rows x (rows or cols) and
// V^T (cols x cols), column-major.
// - Wide a (n >= m): its buffer is the column-major n x m matrix A^T = U' S V'^T, so A = V' S U'^T,
//   with no copy in or out: U' written column-major with ld n is vh row-major ([kv, n]), and V'^T
//   (m x m) written column-major is V' row-major, u.
// - Tall a (m > n): A itself, transposed into a column-major copy; U and V^T come out column-major
//   and are transposed into u and vh.
template <typename T>
void svd(const On& on, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info, const Tensor& a) {
  const int64_t batch = a.size(0), m = a.size(1), n = a.size(2), k = std::min(m, n);
  const bool vectors = u.defined(), full = vectors && u.size(2) == m && vh.size(1) == n;
  const bool wide = n >= m;
  const int64_t rows = wide ? n : m, cols = wide ? m : n;
  const int r = as_int(rows, "linalg.svd"), c = as_int(cols, "linalg.svd");
  // NB: thin and full differ only in U's columns (V^T is cols x cols either way, cols = k)
  const signed char job = !vectors ? 'N' : full ? 'A' : 'S';

  Tensor w = stack_like(a, batch, cols, rows);  // gesvd's input, column-major rows x cols; overwritten
  if (wide)
    copy_data(w, a);
  else
    copy_data(view(w, {batch, m, n}, {m * n, 1, m}), a);

  Tensor uc, vc;  // tall: U (m x ku) and V^T (n x n), column-major
  T* u_out = nullptr;
  T* vt_out = nullptr;
  int64_t u_step = 0, vt_step = 0;
  if (vectors && wide) {
    u_out = ptr<T>(vh);
    u_step = vh.size(1) * n;
    vt_out = ptr<T>(u);
    vt_step = m * u.size(2);
  } else if (vectors) {
    uc = stack_like(a, batch, u.size(2), m);
    vc = stack_like(a, batch, n, n);
    u_out = ptr<T>(uc);
    u_step = u.size(2) * m;
    vt_out = ptr<T>(vc);
    vt_step = n * n;
  }

  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(pick<T>(api.sgesvd_buffer_size, api.dgesvd_buffer_size)(handle, r, c, &lwork));
  TensorScratch scratch(a.device());
  T* work = workspace<T>(scratch, lwork);
  T* rwork = workspace<T>(scratch, k);  // the unconverged superdiagonal where info > 0
  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(pick<T>(api.sgesvd, api.dgesvd)(
        handle, job, job, r, c, ptr<T>(w) + b * rows * cols, r, ptr<T>(s) + b * k, u_out ? u_out + b * u_step : nullptr,
        r, vt_out ? vt_out + b * vt_step : nullptr, c, work, lwork, rwork, info_ptr(info) + b));

  if (vectors && !wide) {
    const int64_t ku = u.size(2);
    copy_data(u, view(uc, {batch, m, ku}, {ku * m, 1, m}));
    copy_data(vh, view(vc, {batch, n, n}, {n * n, 1, n}));
  }
}

// a's buffer read column-major is A^T: the triangle a names is the other one to syevd (the
// symmetric matrix is the same). The eigenvectors come out column-major, and are transposed.
template <typename T>
void eigh(const On& on, const Tensor& values, const Tensor& vectors, const Tensor& info, const Tensor& a, bool upper) {
  const int64_t batch = a.size(0), n = a.size(1);
  const int nn = as_int(n, "linalg.eigh");
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  const cusolverEigMode_t jobz = vectors.defined() ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  Tensor w = stack_like(a, batch, n, n);  // overwritten by syevd (with the eigenvectors)
  copy_data(w, a);

  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(pick<T>(api.ssyevd_buffer_size, api.dsyevd_buffer_size)(handle, jobz, uplo, nn, ptr<T>(w), nn,
                                                                               ptr<T>(values), &lwork));
  TensorScratch scratch(a.device());
  T* work = workspace<T>(scratch, lwork);
  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(pick<T>(api.ssyevd, api.dsyevd)(handle, jobz, uplo, nn, ptr<T>(w) + b * n * n, nn,
                                                         ptr<T>(values) + b * n, work, lwork, info_ptr(info) + b));
  if (vectors.defined()) copy_data(vectors, view(w, {batch, n, n}, {n * n, 1, n}));
}

// a's lower triangle, read column-major, is the upper triangle of A^T = A: potrf with the upper
// triangle factors A = U^T U in place, and U column-major is L row-major. No transposes; the other
// triangle keeps a's entries (the contract leaves it unspecified).
template <typename T>
void cholesky(const On& on, const Tensor& l, const Tensor& info, const Tensor& a) {
  const int64_t batch = a.size(0), n = a.size(1);
  const int nn = as_int(n, "linalg.cholesky");
  copy_data(l, a);
  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(pick<T>(api.spotrf_buffer_size, api.dpotrf_buffer_size)(handle, CUBLAS_FILL_MODE_UPPER, nn,
                                                                               ptr<T>(l), nn, &lwork));
  TensorScratch scratch(a.device());
  T* work = workspace<T>(scratch, lwork);
  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(pick<T>(api.spotrf, api.dpotrf)(handle, CUBLAS_FILL_MODE_UPPER, nn, ptr<T>(l) + b * n * n, nn,
                                                         work, lwork, info_ptr(info) + b));
}

// geqrf on a column-major copy of A (m x n, ld m), transposed back into out; tau written in place.
template <typename T>
void geqrf(const On& on, const Tensor& out, const Tensor& tau, const Tensor& a) {
  const int64_t batch = a.size(0), m = a.size(1), n = a.size(2), k = std::min(m, n);
  const int mm = as_int(m, "geqrf"), nn = as_int(n, "geqrf");
  Tensor w = stack_like(a, batch, n, m);
  copy_data(view(w, {batch, m, n}, {m * n, 1, m}), a);
  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  TensorScratch scratch(a.device());
  int* status = workspace<int>(scratch, 1);  // NB: only invalid arguments make geqrf fail
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(pick<T>(api.sgeqrf_buffer_size, api.dgeqrf_buffer_size)(handle, mm, nn, ptr<T>(w), mm, &lwork));
  T* work = workspace<T>(scratch, lwork);
  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(pick<T>(api.sgeqrf, api.dgeqrf)(handle, mm, nn, ptr<T>(w) + b * m * n, mm, ptr<T>(tau) + b * k,
                                                         work, lwork, status));
  copy_data(out, view(w, {batch, m, n}, {m * n, 1, m}));
}

// geqrf on a column-major copy of A (m x cols, ld m), R out of its upper triangle, then orgqr in
// place for Q's kq columns. cols = max(n, kq): a complete Q of a tall A (kq = m > n) is generated
// in an m x m matrix whose first n columns hold the reflectors and the rest zeros.
template <typename T>
void qr(const On& on, const Tensor& q, const Tensor& r, const Tensor& a) {
  const int64_t batch = a.size(0), m = a.size(1), n = a.size(2), k = std::min(m, n), kq = q.size(2);
  const int64_t cols = std::max(n, kq), step = m * cols;
  const int mm = as_int(m, "linalg.qr"), nn = as_int(n, "linalg.qr"), kk = static_cast<int>(k),
            kqq = as_int(kq, "linalg.qr");
  Tensor w = stack_like(a, batch, cols, m);
  if (cols > n) fill_data(view(w, {batch, cols - n, m}, {step, m, 1}, n * m), 0.0);
  copy_data(view(w, {batch, m, n}, {step, 1, m}), a);

  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  TensorScratch scratch(a.device());
  T* tau = workspace<T>(scratch, batch * k);
  int* status = workspace<int>(scratch, 1);  // NB: only invalid arguments make geqrf or orgqr fail
  int lwork_r = 0, lwork_q = 0;
  EMBER_CUSOLVER_CHECK(
      pick<T>(api.sgeqrf_buffer_size, api.dgeqrf_buffer_size)(handle, mm, nn, ptr<T>(w), mm, &lwork_r));
  EMBER_CUSOLVER_CHECK(
      pick<T>(api.sorgqr_buffer_size, api.dorgqr_buffer_size)(handle, mm, kqq, kk, ptr<T>(w), mm, tau, &lwork_q));
  const int lwork = std::max(lwork_r, lwork_q);
  T* work = workspace<T>(scratch, lwork);
  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(
        pick<T>(api.sgeqrf, api.dgeqrf)(handle, mm, nn, ptr<T>(w) + b * step, mm, tau + b * k, work, lwork, status));

  // R: rows [0, k) from w's upper trapezoid, rows [k, kq) zero. Its strictly lower part, below the
  // diagonal of rows [0, k), is the strictly upper triangle of the column-major n x kq matrix R^T,
  // that is the upper triangle of its (k-1) x (k-1) block from column 1, which tpttr overwrites with
  // a packed triangle of zeros.
  copy_data(view(r, {batch, k, n}, {kq * n, n, 1}), view(w, {batch, k, n}, {step, 1, m}));
  if (kq > k) fill_data(view(r, {batch, kq - k, n}, {kq * n, n, 1}, k * n), 0.0);
  if (k > 1) {
    const CublasApi& blas = cublas();
    cublasHandle_t blas_handle = cublas_handle(on.index);
    T* zeros = workspace<T>(scratch, (k - 1) * k / 2);
    EMBER_CUDA_CHECK(cudaMemsetAsync(zeros, 0, static_cast<size_t>((k - 1) * k / 2) * sizeof(T), on.stream));
    for (int64_t b = 0; b < batch; ++b)
      EMBER_CUBLAS_CHECK(pick<T>(blas.stpttr, blas.dtpttr)(blas_handle, CUBLAS_FILL_MODE_UPPER, kk - 1, zeros,
                                                           ptr<T>(r) + b * kq * n + n, nn));
  }

  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(pick<T>(api.sorgqr, api.dorgqr)(handle, mm, kqq, kk, ptr<T>(w) + b * step, mm, tau + b * k,
                                                         work, lwork, status));
  copy_data(q, view(w, {batch, m, kq}, {step, 1, m}));
}

// x [rows, cols] row-major is the column-major cols x rows X^T, and a's buffer the column-major
// A^T, whose triangle is the other one. Left, A X = B is X^T A^T = B^T: a right-side solve of the
// column-major X^T with a's buffer, untransposed. Right, X A = B is A^T X^T = B^T: a left-side one.
template <typename T>
void solve_triangular(const On& on, const Tensor& x, const Tensor& a, const Tensor& b, bool upper, bool left,
                      bool unit) {
  const int64_t batch = a.size(0), n = a.size(1), rows = x.size(1), cols = x.size(2);
  if (x.data_ptr() != b.data_ptr()) copy_data(x, b);  // trsm solves in place
  const CublasApi& api = cublas();
  cublasHandle_t handle = cublas_handle(on.index);
  const T one = 1;
  for (int64_t i = 0; i < batch; ++i)
    EMBER_CUBLAS_CHECK(pick<T>(api.strsm, api.dtrsm)(
        handle, left ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
        CUBLAS_OP_N, unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, cols, rows, &one, ptr<T>(a) + i * n * n, n,
        ptr<T>(x) + i * rows * cols, cols));
}

// getrf's pivots are row swaps of the matrix it factors, which must then be A itself rather than
// the A^T that a's buffer reads as: a is transposed into a column-major copy, factored there
// (pivots and info straight into theirs), and the column-major factors transposed back into lu.
template <typename T>
void lu_factor(const On& on, const Tensor& lu, const Tensor& pivots, const Tensor& info, const Tensor& a) {
  const int64_t batch = a.size(0), n = a.size(1);
  const int nn = as_int(n, "lu_factor");
  Tensor w = stack_like(a, batch, n, n);  // A column-major, overwritten by its factors
  const Tensor w_t = view(w, {batch, n, n}, {n * n, 1, n});
  copy_data(w_t, a);

  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(pick<T>(api.sgetrf_buffer_size, api.dgetrf_buffer_size)(handle, nn, nn, ptr<T>(w), nn, &lwork));
  TensorScratch scratch(a.device());
  T* work = workspace<T>(scratch, lwork);
  for (int64_t b = 0; b < batch; ++b)
    EMBER_CUSOLVER_CHECK(pick<T>(api.sgetrf, api.dgetrf)(handle, nn, nn, ptr<T>(w) + b * n * n, nn, work,
                                                         ptr<int>(pivots) + b * n, info_ptr(info) + b));
  copy_data(lu, w_t);
}

// getrs takes the factors as getrf leaves them, column-major (lu's buffer is their transpose,
// which getrs cannot take: with trans it transposes A, not the packed factors), and B column-major
// n x k: both are transposed into copies, and the solution back into x. A single right-hand side
// (k = 1) is the same buffer either way and is solved in x.
template <typename T>
void lu_solve(const On& on, const Tensor& x, const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  const int64_t batch = lu.size(0), n = lu.size(1), k = x.size(2);
  const int nn = as_int(n, "lu_solve"), kk = as_int(k, "lu_solve");
  Tensor f = stack_like(lu, batch, n, n);
  copy_data(view(f, {batch, n, n}, {n * n, 1, n}), lu);
  const Tensor w = k == 1 ? x : stack_like(lu, batch, k, n);  // B, then X, column-major n x k
  if (k != 1)
    copy_data(view(w, {batch, n, k}, {n * k, 1, n}), b);
  else if (x.data_ptr() != b.data_ptr())
    copy_data(x, b);

  const CusolverApi& api = cusolver();
  cusolverDnHandle_t handle = cusolver_handle(on.index);
  TensorScratch scratch(lu.device());
  int* status = workspace<int>(scratch, 1);  // NB: only invalid arguments make getrs fail
  for (int64_t i = 0; i < batch; ++i)
    EMBER_CUSOLVER_CHECK(pick<T>(api.sgetrs, api.dgetrs)(handle, CUBLAS_OP_N, nn, kk, ptr<T>(f) + i * n * n, nn,
                                                         ptr<int>(pivots) + i * n, ptr<T>(w) + i * n * k, nn, status));
  if (k != 1) copy_data(x, view(w, {batch, n, k}, {n * k, 1, n}));
}

void cuda_svd(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info, const Tensor& a) {
  check_dtype(a, "linalg.svd");
  On on(a);
  visit_floating_dtype(a.dtype(), "linalg.svd", [&]<typename T>(type_tag<T>) { svd<T>(on, u, s, vh, info, a); });
}

void cuda_eigh(const Tensor& values, const Tensor& vectors, const Tensor& info, const Tensor& a, bool upper) {
  check_dtype(a, "linalg.eigh");
  On on(a);
  visit_floating_dtype(a.dtype(), "linalg.eigh",
                       [&]<typename T>(type_tag<T>) { eigh<T>(on, values, vectors, info, a, upper); });
}

void cuda_geqrf(const Tensor& out, const Tensor& tau, const Tensor& a) {
  check_dtype(a, "geqrf");
  On on(a);
  visit_floating_dtype(a.dtype(), "geqrf", [&]<typename T>(type_tag<T>) { geqrf<T>(on, out, tau, a); });
}

void cuda_cholesky(const Tensor& l, const Tensor& info, const Tensor& a) {
  check_dtype(a, "linalg.cholesky");
  On on(a);
  visit_floating_dtype(a.dtype(), "linalg.cholesky", [&]<typename T>(type_tag<T>) { cholesky<T>(on, l, info, a); });
}

void cuda_qr(const Tensor& q, const Tensor& r, const Tensor& a) {
  check_dtype(a, "linalg.qr");
  On on(a);
  visit_floating_dtype(a.dtype(), "linalg.qr", [&]<typename T>(type_tag<T>) { qr<T>(on, q, r, a); });
}

void cuda_solve_triangular(const Tensor& x, const Tensor& a, const Tensor& b, bool upper, bool left, bool unit) {
  check_dtype(a, "linalg.solve_triangular");
  if (x.numel() == 0) return;
  On on(a);
  visit_floating_dtype(a.dtype(), "linalg.solve_triangular",
                       [&]<typename T>(type_tag<T>) { solve_triangular<T>(on, x, a, b, upper, left, unit); });
}

void cuda_lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info, const Tensor& a) {
  check_dtype(a, "lu_factor");
  On on(a);
  visit_floating_dtype(a.dtype(), "lu_factor", [&]<typename T>(type_tag<T>) { lu_factor<T>(on, lu, pivots, info, a); });
}

void cuda_lu_solve(const Tensor& x, const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  check_dtype(lu, "lu_solve");
  if (x.numel() == 0) return;
  On on(lu);
  visit_floating_dtype(lu.dtype(), "lu_solve", [&]<typename T>(type_tag<T>) { lu_solve<T>(on, x, lu, pivots, b); });
}

}  // namespace

EMBER_REGISTER_KERNEL(svd_stub, DeviceType::CUDA, &cuda_svd);
EMBER_REGISTER_KERNEL(eigh_stub, DeviceType::CUDA, &cuda_eigh);
EMBER_REGISTER_KERNEL(qr_stub, DeviceType::CUDA, &cuda_qr);
EMBER_REGISTER_KERNEL(geqrf_stub, DeviceType::CUDA, &cuda_geqrf);
EMBER_REGISTER_KERNEL(solve_triangular_stub, DeviceType::CUDA, &cuda_solve_triangular);
EMBER_REGISTER_KERNEL(cholesky_stub, DeviceType::CUDA, &cuda_cholesky);
EMBER_REGISTER_KERNEL(lu_factor_stub, DeviceType::CUDA, &cuda_lu_factor);
EMBER_REGISTER_KERNEL(lu_solve_stub, DeviceType::CUDA, &cuda_lu_solve);

}  // namespace ember::cuda
