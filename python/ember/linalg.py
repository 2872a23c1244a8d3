"""torch.linalg. The factorisations are C++ ops (ops/linalg.cpp; Eigen on the CPU, cuSOLVER on CUDA;
PyTorch's backward formulas in differentiable ops, so double backward works): solve, inv, det and
slogdet (LU with partial pivoting), cholesky, svd, svdvals, eigh, eigvalsh, qr, solve_triangular
and matrix_exp; pinv, matrix_rank, cond, lstsq, matrix_power and the spectral matrix norms are
composed of them. Every function takes any leading batch dims, float32
or float64; gradients are PyTorch's analytic ones (det A * A^-T, -A^-T G A^-T, ...) away from
singular matrices, and det's is the cofactor matrix at a singular one (PyTorch 2.15's is 0).

Errors are PyTorch's: singular matrices make inv and solve raise LinAlgError (a RuntimeError)
naming the first zero diagonal element of U, a matrix that is not positive-definite makes cholesky
name the leading minor that is not. Checking them reads the result on the host, as PyTorch does."""
from __future__ import annotations

from typing import Any, Optional

from . import _C
from ._C import Tensor


def torch_type_name(dtype: Any) -> str:
    """PyTorch's name of a dtype in its messages: Long, Float, Half, ..."""
    return {_C.int64: "Long", _C.int32: "Int", _C.int16: "Short", _C.int8: "Char", _C.uint8: "Byte",
            _C.bool: "Bool", _C.float16: "Half", _C.bfloat16: "BFloat16", _C.float32: "Float",
            _C.float64: "Double"}.get(dtype, str(dtype))

LinAlgError = _C.LinAlgError  # a RuntimeError; the C++ factorisations raise it too


SlogdetResult = _C.return_types.linalg_slogdet


def _check_float(a: Tensor, op: str) -> None:
    if a.dtype in (_C.float32, _C.float64):
        return
    if a.dtype in (_C.complex64, _C.complex128):
        raise NotImplementedError(f"{op}: complex inputs are not supported by Ember. Got {a.dtype}")
    if a.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"{op}: Low precision dtypes not supported. Got {torch_type_name(a.dtype)}")
    raise NotImplementedError(f"{op}: Expected a floating point or complex tensor as input. Got {torch_type_name(a.dtype)}")


def _check_square(a: Tensor, op: str) -> None:
    if a.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    _check_float(a, op)


def det(A: Tensor) -> Tensor:  # noqa: N803  (PyTorch's argument name)
    """The determinant of each matrix of A [..., n, n]: the sign of the row permutation times the
    product of U's diagonal (0 for a singular matrix)."""
    return _C._linalg_det(A)


def slogdet(A: Tensor) -> SlogdetResult:  # noqa: N803
    """(sign, logabsdet): det A = sign * exp(logabsdet); sign 0 and logabsdet -inf when singular."""
    return SlogdetResult(*_C._linalg_slogdet(A))


def inv(A: Tensor) -> Tensor:  # noqa: N803
    """The inverse of each matrix of A [..., n, n]; LinAlgError for a singular one."""
    return _C._linalg_inv(A)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803
    """X with A X = B (X A = B when left=False). B is [..., n, k], or a batch of vectors [..., n]
    when it is 1-D or has A's shape without its last dim; batch dims broadcast."""
    return _C._linalg_solve(A, B, left=left)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    """L with A = L L^T (lower-triangular, positive diagonal) for symmetric positive-definite A,
    reading its lower triangle; U = L^T when upper. LinAlgError names the first leading minor
    that is not positive-definite."""
    return _C._linalg_cholesky(A, upper=upper)


vector_norm = _C._linalg_vector_norm
matrix_norm = _C._linalg_matrix_norm
norm = _C._linalg_norm


# ---- the SVD and eigen family: svd, svdvals, eigh, eigvalsh and qr bind the C++ ops and wrap their
# results in PyTorch's named tuples; pinv (with PyTorch's own pinv_backward), matrix_rank, cond, lstsq
# and matrix_power are composed of them. Vectors carry LAPACK's sign freedom, so U, V and Q may differ
# from PyTorch's by the sign of a column (A = U S Vh holds either way). Gradients exist where
# PyTorch's do: distinct singular values and eigenvalues, full-rank QR.

SVDResult = _C.return_types.linalg_svd
EighResult = _C.return_types.linalg_eigh
QRResult = _C.return_types.linalg_qr
LstsqResult = _C.return_types.linalg_lstsq



def _check_matrix(A: Tensor, op: str) -> None:  # noqa: N803
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _check_float(A, op)


def svd(A: Tensor, full_matrices: bool = True, *, driver: Optional[str] = None) -> SVDResult:  # noqa: N803
    """A = U diag(S) Vh for A [..., m, n]: S [..., k] descending and non-negative (k = min(m, n)),
    U [..., m, k] and Vh [..., k, n] orthonormal (m x m and n x n when full_matrices). driver (a
    CUDA option in PyTorch) is ignored."""
    return SVDResult(*_C._linalg_svd(A, bool(full_matrices)))


def svdvals(A: Tensor, *, driver: Optional[str] = None) -> Tensor:  # noqa: N803
    """The singular values of A [..., m, n], descending ([..., min(m, n)])."""
    return _C._linalg_svdvals(A)


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:  # noqa: N803
    """A = V diag(L) V^T for symmetric A [..., n, n], reading only its lower (UPLO='L') or upper
    triangle: eigenvalues L ascending, eigenvectors the columns of V (orthonormal)."""
    return EighResult(*_C._linalg_eigh(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    """eigh's eigenvalues alone (ascending)."""
    return _C._linalg_eigvalsh(A, UPLO)


def qr(A: Tensor, mode: str = "reduced") -> QRResult:  # noqa: N803
    """A = Q R for A [..., m, n], R upper triangular (LAPACK's signs: its diagonal may be negative).
    'reduced': Q [..., m, k], R [..., k, n] (k = min(m, n)); 'complete': Q m x m, R m x n; 'r': R alone
    and an empty Q. Differentiable for 'reduced', and 'complete' when m <= n."""
    return QRResult(*_C._linalg_qr(A, mode))


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> Tensor:
    """X with A X = B (X A = B when not left) for triangular A, reading only the triangle upper
    names (and not the diagonal when unitriangular); batch dims broadcast."""
    return _C._linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def pinv(A: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
         rtol: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse [..., n, m] of A [..., m, n] (C++: ops/linalg_composite.h):
    V diag(1/S) U^T over the singular values above max(atol, rtol * max S) (eigh's |eigenvalues|
    when hermitian); rcond, PyTorch's older positional argument, is rtol. PyTorch's gradient, to
    any order."""
    return _C._linalg_pinv(A, rcond, hermitian, atol, rtol)


def matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
                rtol: Any = None) -> Tensor:
    """How many singular values (|eigenvalues| when hermitian) of each matrix are above pinv's
    cut-off (int64, A's batch shape); tol (PyTorch's older positional argument) is atol with rtol 0."""
    return _C._linalg_matrix_rank(A, tol, hermitian, atol, rtol)


cond = _C._linalg_cond


def lstsq(A: Tensor, B: Tensor, rcond: Optional[float] = None, *, driver: Optional[str] = None) -> LstsqResult:  # noqa: N803
    """The least-squares (minimum-norm, for rank-deficient A) solution X of A X = B, batch dims
    broadcast (C++: ops/linalg_composite.h): X = pinv(A) B whatever the driver; rank, residuals
    and singular_values as PyTorch's CPU drivers give them (an empty tensor where not computed)."""
    return LstsqResult(*_C._linalg_lstsq(A, B, rcond, driver))


def matrix_exp(A: Tensor) -> Tensor:  # noqa: N803
    """exp(A) = sum A^k / k! of each matrix of A [..., n, n] (scaling and squaring, [13/13] Pade)."""
    return _C._linalg_matrix_exp(A)


def matrix_power(A: Tensor, n: int) -> Tensor:  # noqa: N803
    """A^n by repeated squaring for any integer n: the identity for 0, inv(A)^|n| for n < 0
    (C++: ops/linalg_composite.h)."""
    return _C._linalg_matrix_power(A, n)


__all__ = ["LinAlgError", "det", "slogdet", "inv", "solve", "cholesky", "vector_norm", "matrix_norm", "norm",
           "svd", "svdvals", "eigh", "eigvalsh", "qr", "solve_triangular", "pinv", "matrix_rank", "cond", "lstsq", "matrix_exp",
           "matrix_power"]
