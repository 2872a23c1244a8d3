"""torch.linalg composed of Ember's ops: det, slogdet, inv, solve (on the LU factorisation of
_lu.py), cholesky (its column recurrence), vector_norm, matrix_norm and norm. The SVD/eigen family
(svd, svdvals, eigh, eigvalsh, qr, matrix_exp) runs NumPy's LAPACK on the host (_svd.py, _qr.py,
_matrix_exp.py) with hand-written gradients (first order only); pinv, matrix_rank, cond, lstsq,
matrix_power (_linalg_spectral.py) and the spectral matrix norms are composed of them. Every function takes
any leading batch dims, float32 or float64; gradients are autograd's through the factorisations,
which are PyTorch's analytic ones (det A * A^-T, -A^-T G A^-T, ...) away from singular matrices.
NB: at an exactly singular matrix whose zero pivot is not the last one, det's gradient comes from
a factorisation that stops early and may differ from PyTorch's adjugate.

Errors are PyTorch's: singular matrices make inv and solve raise LinAlgError (a RuntimeError)
naming the first zero diagonal element of U, a matrix that is not positive-definite makes cholesky
name the leading minor that is not. Checking them reads the result on the host, as PyTorch does."""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Tuple

import numpy as _np

from . import _C
from . import _lu
from .autograd import is_grad_enabled
from ._C import Tensor
from ._autograd_function import Function
from ._autocast_op import autocast_op


class LinAlgError(RuntimeError):
    """A matrix the factorisation cannot handle (torch.linalg.LinAlgError)."""


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


def _batched(a: Tensor) -> Tensor:
    """a [..., n, n] as [B, n, n]."""
    return a.reshape(int(_np.prod(a.shape[:-2], dtype=_np.int64)), a.shape[-2], a.shape[-1])


def _empty(A: Tensor, shape: Any, fill: float = 0.0) -> Tensor:  # noqa: N803
    """A result with no factorisation to run (0 x 0 matrices, an empty batch), in A's graph."""
    return _C.full(tuple(shape), fill, dtype=A.dtype, device=A.device) + A.sum() * 0


def _raise_first(bad: Tensor, batch_shape: Tuple[int, ...], message: Any) -> None:
    """Raises LinAlgError(message(k)) for the first batch element with a bad entry ([B, n]), k its
    first bad column (1-based, as LAPACK's info), prefixed as PyTorch does for a batch."""
    flags = bad.any(1)
    if not bool(flags.any()):
        return
    b = int(_C.argmax(flags.to(_C.int64), 0))
    k = int(_C.argmax(bad[b].to(_C.int64), 0)) + 1
    prefix = f"(Batch element {b}): " if len(batch_shape) else ""
    raise LinAlgError(message(prefix, k))


def det(A: Tensor) -> Tensor:  # noqa: N803  (PyTorch's argument name)
    """The determinant of each matrix of A [..., n, n]: the sign of the row permutation times the
    product of U's diagonal (0 for a singular matrix)."""
    _check_square(A, "linalg.det")
    if A.numel() == 0:
        return _empty(A, A.shape[:-2], 1.0)
    lu = _lu.lu_factor(_batched(A))
    sign = 1 - 2 * (lu.swaps % 2)
    return (_C.prod(_lu.diagonal(lu), 1) * sign.to(A.dtype)).reshape(*A.shape[:-2])


def slogdet(A: Tensor) -> SlogdetResult:  # noqa: N803
    """(sign, logabsdet): det A = sign * exp(logabsdet); sign 0 and logabsdet -inf when singular."""
    _check_square(A, "linalg.slogdet")
    batch = tuple(A.shape[:-2])
    if A.numel() == 0:
        return SlogdetResult(_C.ones(*batch, dtype=A.dtype, device=A.device), _empty(A, batch))
    lu = _lu.lu_factor(_batched(A))
    diag = _lu.diagonal(lu)
    sign = _C.prod(_C.sign(diag), 1) * (1 - 2 * (lu.swaps % 2)).to(A.dtype)  # its gradient is 0, as torch's
    return SlogdetResult(sign.reshape(*batch), _C.log(diag.abs()).sum(1).reshape(*batch))


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    """log det A (torch.logdet): NaN where det < 0, -inf where it is 0."""
    sign, logabs = slogdet(input)
    return _C.where(sign < 0, _C.full_like(logabs, math.nan), logabs)


def _solve_batched(A: Tensor, B: Tensor, singular: Any) -> Tensor:  # noqa: N803
    """X with A X = B for A [..., n, n] and B [..., n, k], batch dims broadcast; singular(prefix, k)
    is the message for a singular A."""
    batch = tuple(_np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    n, k = A.shape[-1], B.shape[-1]
    if n == 0 or 0 in batch:
        return _empty(A, (*batch, n, k)) + B.sum() * 0
    a = _batched(A.expand(*batch, n, n))
    b = B.expand(*batch, n, k).reshape(a.shape[0], n, k)
    lu = _lu.lu_factor(a)
    _raise_first(_lu.diagonal(lu).detach() == 0, batch, singular)
    return _lu.lu_solve(lu, b).reshape(*batch, n, k)


@autocast_op("linalg_inv")
def inv(A: Tensor) -> Tensor:  # noqa: N803
    """The inverse of each matrix of A [..., n, n]; LinAlgError for a singular one."""
    _check_square(A, "linalg.inv")
    return _Inv.apply(A)


class _Inv(Function):
    """A^-1 by LU, with PyTorch's gradient -A^-H (grad A^-H), multiplied in its order: the inverses'
    product first (autograd's way through the LU solve) gave inf * 0 = NaN for a 1e38-sized inverse
    and a zero cotangent, where PyTorch's gives 0."""

    @staticmethod
    def forward(ctx, A):  # noqa: N803
        eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        out = _solve_batched(A, eye, lambda prefix, k: (
            f"linalg.inv: {prefix}The diagonal element {k} is zero, the inversion could not be completed "
            "because the input matrix is singular."))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, out = ctx.saved_tensors  # noqa: N806
        inverse_h = (inv(A) if is_grad_enabled() else out).mT  # NB: differentiable again under create_graph
        return -(inverse_h @ (grad @ inverse_h))


@autocast_op("linalg_solve")
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803
    """X with A X = B (X A = B when left=False). B is [..., n, k], or a batch of vectors [..., n]
    when it is 1-D or has A's shape without its last dim; batch dims broadcast."""
    _check_square(A, "linalg.solve")
    _check_float(B, "linalg.solve")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_dtype_name(A.dtype)} and B of type {_dtype_name(B.dtype)} instead")
    vector = left and (B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1])))
    rhs = B.unsqueeze(-1) if vector else B
    n = A.shape[-1]
    if rhs.dim() < 2 or rhs.shape[-1 if not left else -2] != n:
        shape = f"{rhs.shape[-2]}x{rhs.shape[-1]}" if rhs.dim() >= 2 else f"{rhs.shape[-1]}x1"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shape})")

    def singular(prefix: str, k: int) -> str:
        return f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular."
    if left:
        x = _solve_batched(A, rhs, singular)
        return x.squeeze(-1) if vector else x
    return _solve_batched(A.mT, rhs.mT, singular).mT


def _symmetric_lower(A: Tensor) -> Tensor:  # noqa: N803
    """A's lower triangle (all that cholesky reads), whose gradient is split evenly between each
    off-diagonal entry and its mirror, as PyTorch's cholesky gradient is symmetric."""
    lower = _C.tril(A.detach())
    if not (is_grad_enabled() and A.requires_grad):
        return lower
    s = _C.tril((A + A.mT) * 0.5)
    return lower + (s - s.detach())


@autocast_op("linalg_cholesky")
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    """L with A = L L^T (lower-triangular, positive diagonal) for symmetric positive-definite A,
    reading its lower triangle; U = L^T when upper. LinAlgError names the first leading minor
    that is not positive-definite."""
    _check_square(A, "linalg.cholesky")
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    a = _symmetric_lower(_batched(A))
    columns, pivots = [], []
    for j in range(n):
        c = a[:, j:, j]  # [B, n - j]
        if j:
            done = _C.stack([col[:, j:] for col in columns], 2)  # rows j.. of L's columns so far
            c = c - _C.matmul(done, done[:, 0, :].unsqueeze(2)).squeeze(2)
        pivots.append(c[:, 0].detach())
        d = _C.sqrt(c[:, 0:1])
        zeros = _C.zeros(c.shape[0], j, dtype=A.dtype, device=A.device)
        columns.append(_C.cat([zeros, d, c[:, 1:] / d], 1))
    if n:
        bad = _C.logical_not(_C.stack(pivots, 1) > 0)  # NB: NaN fails too
        _raise_first(bad, batch, lambda prefix, k: (
            f"linalg.cholesky: {prefix}The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {k} is not positive-definite)."))
        lower = _C.stack(columns, 2).reshape(*A.shape)
    else:
        lower = _empty(A, A.shape)
    return lower.mT if upper else lower


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
    svd, svdvals, svd_legacy, eigh, eigvalsh, qr, qr_legacy, pinv, pinverse, matrix_rank, cond, lstsq,
    matrix_exp, matrix_power)

__all__ = ["LinAlgError", "det", "slogdet", "inv", "solve", "cholesky", "vector_norm", "matrix_norm", "norm",
           "svd", "svdvals", "eigh", "eigvalsh", "qr", "pinv", "matrix_rank", "cond", "lstsq", "matrix_exp",
           "matrix_power"]
