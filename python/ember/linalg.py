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

import math
from collections import namedtuple
from typing import Any, Optional, Tuple

from . import _C
from ._C import Tensor
from ._autocast_op import autocast_op
from ._promotion import torch_type_name


LinAlgError = _C.LinAlgError  # a RuntimeError; the C++ factorisations raise it too


SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])


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


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    """log det A (torch.logdet): NaN where det < 0, -inf where it is 0."""
    sign, logabs = slogdet(input)
    return _C.where(sign < 0, _C.full_like(logabs, math.nan), logabs)


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


@autocast_op("linalg_vector_norm")
def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Tensor:
    """(sum |x|^ord)^(1/ord) over dim (every dim when None); ord inf / -inf is max / min |x|, 0 the
    count of nonzeros."""
    if dtype is not None:
        x = x.to(dtype)
    if not x.is_floating_point():
        raise NotImplementedError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                                  f"Got {torch_type_name(x.dtype)}")
    if isinstance(dim, int):
        dim = (dim,)
    return _C.norm(x, float(ord), None if dim is None else list(dim), keepdim)


def _matrix_dims(A: Tensor, dim: Any) -> Tuple[int, int]:  # noqa: N803
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if isinstance(dim, int) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim if isinstance(dim, int) else len(dim)}")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


@autocast_op("linalg_matrix_norm")
def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,  # noqa: N803,A002
                dtype: Any = None) -> Tensor:
    """The matrix norm over the two dims: 'fro' (the entries' 2-norm), 1 / -1 (the largest /
    smallest column sum of |A|), inf / -inf (the same of row sums), 'nuc' (the sum of the singular
    values), 2 / -2 (the largest / smallest singular value)."""
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _matrix_dims(A, dim)
    if A.dtype not in (_C.float16, _C.bfloat16) or ord in ("nuc", 2, -2):  # as PyTorch: 16 bits but by SVD
        _check_float(A, "linalg.matrix_norm")
    if ord == "fro":
        return _C.norm(A, 2.0, [d0, d1], keepdim)
    if ord in ("nuc", 2, -2):
        return _spectral_norm(A, ord, d0, d1, keepdim)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    summed, across = (d0, d1) if ord in (1, -1) else (d1, d0)
    sums = A.abs().sum(summed, keepdim=True)
    out = sums.amax(across, keepdim=True) if ord > 0 else sums.amin(across, keepdim=True)
    return out if keepdim else out.squeeze(max(d0, d1)).squeeze(min(d0, d1))


def _spectral_norm(A: Tensor, ord: Any, d0: int, d1: int, keepdim: bool) -> Tensor:  # noqa: N803,A002
    """matrix_norm's 'nuc', 2 and -2: the singular values of the matrices over dims (d0, d1)."""
    rest = [d for d in range(A.dim()) if d not in (d0, d1)]
    S = svdvals(A.permute(*rest, d0, d1))  # noqa: N806
    if S.shape[-1] == 0 and ord != "nuc":
        raise RuntimeError(f"linalg.matrix_norm: Expected a non-empty matrix for ord={ord}")
    out = S.sum(-1) if ord == "nuc" else (S.amax(-1) if ord == 2 else S.amin(-1))
    return out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1)) if keepdim else out


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803,A002
         dtype: Any = None) -> Tensor:
    """torch.linalg.norm: a vector norm over one dim, a matrix norm over two; with neither dim nor
    ord, the 2-norm of every entry; with ord alone, A must be 1-D (vector) or 2-D (matrix)."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 1 and not isinstance(ord, str):
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)


@autocast_op("inverse")
def inverse(input: Tensor) -> Tensor:  # noqa: A002
    """torch.inverse: linalg.inv."""
    return inv(input)


def cholesky_legacy(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """torch.cholesky(A, upper=False) of PyTorch before 2.x removed it: linalg.cholesky."""
    return cholesky(input, upper=upper)


# ---- the SVD and eigen family: svd, svdvals, eigh, eigvalsh and qr bind the C++ ops and wrap their
# results in PyTorch's named tuples; pinv (with PyTorch's own pinv_backward), matrix_rank, cond, lstsq
# and matrix_power are composed of them. Vectors carry LAPACK's sign freedom, so U, V and Q may differ
# from PyTorch's by the sign of a column (A = U S Vh holds either way). Gradients exist where
# PyTorch's do: distinct singular values and eigenvalues, full-rank QR.

SVDResult = namedtuple("linalg_svd", ["U", "S", "Vh"])
LegacySVDResult = namedtuple("svd", ["U", "S", "V"])
EighResult = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("linalg_qr", ["Q", "R"])
LegacyQRResult = namedtuple("qr", ["Q", "R"])
LstsqResult = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])



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


def svd_legacy(input: Tensor, some: bool = True, compute_uv: bool = True) -> LegacySVDResult:  # noqa: A002
    """torch.svd: (U, S, V) with V = Vh^T (not Vh); some=False gives the full U and V. Without
    compute_uv, U and V are zero-filled m x m and n x n matrices, as PyTorch's."""
    _check_matrix(input, "svd")
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        zeros = [_C.zeros(*batch, r, r, dtype=input.dtype, device=input.device) for r in (m, n)]
        return LegacySVDResult(zeros[0], svdvals(input), zeros[1])
    U, S, Vh = _C._linalg_svd(input, not some)  # noqa: N806
    return LegacySVDResult(U, S, Vh.mT)


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


def qr_legacy(input: Tensor, some: bool = True) -> LegacyQRResult:  # noqa: A002
    """torch.qr: linalg.qr with mode 'reduced' (some) or 'complete'."""
    return LegacyQRResult(*qr(input, "reduced" if some else "complete"))


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


@autocast_op("pinverse")
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """torch.pinverse: pinv with rtol = rcond."""
    return _C._linalg_pinv(input, None, False, None, rcond)


def matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
                rtol: Any = None) -> Tensor:
    """How many singular values (|eigenvalues| when hermitian) of each matrix are above pinv's
    cut-off (int64, A's batch shape); tol (PyTorch's older positional argument) is atol with rtol 0."""
    return _C._linalg_matrix_rank(A, tol, hermitian, atol, rtol)


@autocast_op("linalg_cond")
def cond(A: Tensor, p: Any = None) -> Tensor:  # noqa: N803
    """The condition number of each matrix: S_max / S_min for p None or 2 (any shape), S_min / S_max
    for -2, and ||A||_p ||A^-1||_p for 'fro', 'nuc', inf, -inf, 1, -1 (square A; inf where A is
    singular)."""
    if p not in (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _check_matrix(A, "linalg.cond")
    if p in (None, 2, -2):
        if A.numel() == 0:
            return _C.zeros(*A.shape[:-2], dtype=A.dtype, device=A.device) + A.sum() * 0
        S = svdvals(A)  # noqa: N806
        return S[..., 0] / S[..., -1] if p != -2 else S[..., -1] / S[..., 0]
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.numel() == 0:
        return _C.zeros(*A.shape[:-2], dtype=A.dtype, device=A.device) + A.sum() * 0
    # NB: PyTorch's cond is inf for a singular matrix (an exact zero pivot), not an error: those
    # matrices are inverted as the identity and their result replaced.
    n = A.shape[-1]
    flat = A.detach().reshape(-1, n, n)
    singular = (_C._linalg_slogdet(flat)[0] == 0).reshape(*A.shape[:-2])  # an exact zero pivot
    eye = _C.eye(n, dtype=A.dtype, device=A.device)
    safe = _C.where(singular.unsqueeze(-1).unsqueeze(-1), eye.expand(*A.shape), A)
    out = matrix_norm(A, p) * matrix_norm(inv(safe), p)
    return _C.where(singular, _C.full_like(out, math.inf), out)


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
