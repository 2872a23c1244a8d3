"""torch.linalg. The factorisations are C++ ops (ops/linalg.cpp; Eigen on the CPU, cuSOLVER on CUDA;
PyTorch's backward formulas in differentiable ops, so double backward works): solve, inv, det and
slogdet (LU with partial pivoting), cholesky, svd, svdvals, eigh, eigvalsh, qr, solve_triangular
and matrix_exp; pinv, matrix_rank, cond, lstsq, matrix_power (_linalg_spectral.py) and the
spectral matrix norms are composed of them. Every function takes any leading batch dims, float32
or float64; gradients are PyTorch's analytic ones (det A * A^-T, -A^-T G A^-T, ...) away from
singular matrices, and det's is the cofactor matrix at a singular one (PyTorch 2.15's is 0).

Errors are PyTorch's: singular matrices make inv and solve raise LinAlgError (a RuntimeError)
naming the first zero diagonal element of U, a matrix that is not positive-definite makes cholesky
name the leading minor that is not. Checking them reads the result on the host, as PyTorch does."""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Tuple

from . import _C
from ._C import Tensor
from ._autocast_op import autocast_op


LinAlgError = _C.LinAlgError  # a RuntimeError; the C++ factorisations raise it too


SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])


def _dtype_name(dtype: Any) -> str:
    return {_C.int64: "Long", _C.int32: "Int", _C.int16: "Short", _C.int8: "Char", _C.uint8: "Byte",
            _C.bool: "Bool", _C.float16: "Half", _C.bfloat16: "BFloat16", _C.float32: "Float", _C.float64: "Double"}.get(dtype, str(dtype))


def _check_float(a: Tensor, op: str) -> None:
    if a.dtype in (_C.float32, _C.float64):
        return
    if a.dtype in (_C.complex64, _C.complex128):
        raise NotImplementedError(f"{op}: complex inputs are not supported by Ember. Got {a.dtype}")
    if a.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"{op}: Low precision dtypes not supported. Got {_dtype_name(a.dtype)}")
    raise NotImplementedError(f"{op}: Expected a floating point or complex tensor as input. Got {_dtype_name(a.dtype)}")


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
                                  f"Got {_dtype_name(x.dtype)}")
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


from ._linalg_spectral import (  # noqa: E402  (they use the functions above)
    svd, svdvals, svd_legacy, eigh, eigvalsh, qr, qr_legacy, solve_triangular, pinv, pinverse, matrix_rank, cond,
    lstsq, matrix_exp, matrix_power)

__all__ = ["LinAlgError", "det", "slogdet", "inv", "solve", "cholesky", "vector_norm", "matrix_norm", "norm",
           "svd", "svdvals", "eigh", "eigvalsh", "qr", "solve_triangular", "pinv", "matrix_rank", "cond", "lstsq", "matrix_exp",
           "matrix_power"]
