"""The SVD and the symmetric eigendecomposition for ember.linalg (svd, svdvals, eigh, eigvalsh and
what is built on them), computed by NumPy's LAPACK (gesdd, syevd) on the host, batched, in the
input's dtype (float32 or float64); results go back to the input's device.

Gradients are ember.autograd.Functions with PyTorch's formulas (FunctionsManual's svd_backward and
linalg_eig_backward for a Hermitian matrix), computed in NumPy as well. They are defined only where
the singular values (eigenvalues) are distinct and, for the vectors of a tall/wide SVD, nonzero:
elsewhere they hold inf/NaN, as PyTorch's. Double backward is not supported (the backward is
@once_differentiable and raises if differentiated)."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as _np

from . import _C
from ._C import Tensor
from ._autograd_function import Function, once_differentiable

_NUMPY = {_C.float32: _np.float32, _C.float64: _np.float64}


def host(t: Tensor) -> _np.ndarray:
    """t's values as a NumPy array of its dtype (a copy when t lives on a device)."""
    return t.detach().cpu().numpy()


def to_tensor(x: _np.ndarray, like: Tensor, dtype: Optional[object] = None) -> Tensor:
    """x as a tensor of like's dtype (or dtype) on like's device (its own memory: from_numpy shares)."""
    dtype = like.dtype if dtype is None else dtype
    x = _np.array(x, dtype=_NUMPY.get(dtype, None), order="C", copy=True)
    return _C.from_numpy(x).to(like.device)


def _eye(rows: int, cols: int, batch: Tuple[int, ...], dtype: object) -> _np.ndarray:
    return _np.broadcast_to(_np.eye(rows, cols, dtype=dtype), (*batch, rows, cols)).copy()


def svd_arrays(a: _np.ndarray, full_matrices: bool) -> Tuple[_np.ndarray, _np.ndarray, _np.ndarray]:
    """U, S, Vh of a [..., m, n]; empty matrices and batches get PyTorch's shapes (U and Vh the
    identity where they have columns/rows but A has no entries)."""
    *batch, m, n = a.shape
    k = min(m, n)
    if a.size == 0:
        cu, rv = (m, n) if full_matrices else (k, k)
        return _eye(m, cu, tuple(batch), a.dtype), _np.zeros((*batch, k), a.dtype), _eye(rv, n, tuple(batch), a.dtype)
    u, s, vh = _np.linalg.svd(a, full_matrices=full_matrices)
    return u, s.astype(a.dtype, copy=False), vh


def svd_backward(gU: Optional[_np.ndarray], gS: Optional[_np.ndarray], gVh: Optional[_np.ndarray],  # noqa: N803
                 U: _np.ndarray, S: _np.ndarray, Vh: _np.ndarray) -> _np.ndarray:  # noqa: N803
    """PyTorch's svd_backward (real case) for the thin factors U [.., m, k], S [.., k], Vh [.., k, n]:
    missing cotangents (None) contribute nothing."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        # S alone: no division by gaps, defined at repeated singular values too.
        g = _np.zeros(S.shape, S.dtype) if gS is None else gS
        return U @ (g[..., :, None] * Vh)
    mT = lambda x: _np.swapaxes(x, -1, -2)  # noqa: E731
    S2 = S * S
    gap = S2[..., None, :] - S2[..., :, None] + _np.eye(S.shape[-1], dtype=S.dtype)  # diagonal 1: it is never read
    inner = _np.zeros(gap.shape, S.dtype)
    if gU is not None:
        UtgU = mT(U) @ gU
        inner = inner + (UtgU - mT(UtgU)) * S[..., None, :]
    if gVh is not None:
        VtgV = Vh @ mT(gVh)
        inner = inner + S[..., :, None] * (VtgV - mT(VtgV))
    inner = inner / gap
    if gS is not None:
        inner = inner + gS[..., :, None] * _np.eye(S.shape[-1], dtype=S.dtype)
    if m > n and gU is not None:
        # the part of gU outside U's column space: (I - U U^T) gU S^-1, through Vh
        gUSinv = gU / S[..., None, :]
        return (U @ inner + gUSinv - U @ (mT(U) @ gUSinv)) @ Vh
    if m < n and gVh is not None:
        SinvgVh = gVh / S[..., :, None]
        return U @ (inner @ Vh + SinvgVh - (SinvgVh @ mT(Vh)) @ Vh)
    return U @ inner @ Vh


def _grad(g: Optional[Tensor]) -> Optional[_np.ndarray]:
    return None if g is None else host(g)


class SVD(Function):
    """(U, S, Vh) = SVD(A [..., m, n]); with full_matrices U is m x m and Vh n x n, whose extra
    columns/rows get no gradient (PyTorch narrows them away too)."""

    @staticmethod
    def forward(ctx, A: Tensor, full_matrices: bool):  # noqa: N803
        ctx.set_materialize_grads(False)
        u, s, vh = svd_arrays(host(A), full_matrices)
        U, S, Vh = to_tensor(u, A), to_tensor(s, A), to_tensor(vh, A)  # noqa: N806
        ctx.full_matrices = full_matrices
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    @once_differentiable
    def backward(ctx, gU, gS, gVh):  # noqa: N803
        U, S, Vh = ctx.saved_tensors  # noqa: N806
        if gU is None and gS is None and gVh is None:
            return None, None
        u, s, vh, gu, gvh = host(U), host(S), host(Vh), _grad(gU), _grad(gVh)
        k = s.shape[-1]
        if ctx.full_matrices:
            u, vh = u[..., :k], vh[..., :k, :]
            gu = None if gu is None else gu[..., :k]
            gvh = None if gvh is None else gvh[..., :k, :]
        return to_tensor(svd_backward(gu, _grad(gS), gvh, u, s, vh), U), None


class SVDVals(Function):
    """S = the singular values of A, descending; its gradient is U diag(gS) Vh."""

    @staticmethod
    def forward(ctx, A: Tensor):  # noqa: N803
        u, s, vh = svd_arrays(host(A), False)
        S = to_tensor(s, A)  # noqa: N806
        ctx.save_for_backward(to_tensor(u, A), to_tensor(vh, A))
        return S

    @staticmethod
    @once_differentiable
    def backward(ctx, gS):  # noqa: N803
        U, Vh = ctx.saved_tensors  # noqa: N806
        return to_tensor(svd_backward(None, host(gS), None, host(U), None, host(Vh)), U)


def eigh_arrays(a: _np.ndarray, uplo: str) -> Tuple[_np.ndarray, _np.ndarray]:
    """Ascending eigenvalues and orthonormal eigenvectors (columns) of a [..., n, n], reading the
    triangle uplo names."""
    *batch, n, _ = a.shape
    if a.size == 0:
        return _np.zeros((*batch, n), a.dtype), _eye(n, n, tuple(batch), a.dtype)
    w, v = _np.linalg.eigh(a, UPLO=uplo)
    return w.astype(a.dtype, copy=False), v


def eigh_backward(gL: Optional[_np.ndarray], gV: Optional[_np.ndarray],  # noqa: N803
                  L: _np.ndarray, V: _np.ndarray) -> _np.ndarray:  # noqa: N803
    """PyTorch's linalg_eig_backward for a real symmetric matrix: V (skew(V^T gV) / gaps + diag gL) V^T
    (symmetric, although eigh reads one triangle, as PyTorch's)."""
    n = L.shape[-1]
    mT = lambda x: _np.swapaxes(x, -1, -2)  # noqa: E731
    inner = _np.zeros((*L.shape, n), L.dtype)
    if gV is not None:
        VtgV = mT(V) @ gV
        gap = L[..., None, :] - L[..., :, None] + _np.eye(n, dtype=L.dtype)
        inner = 0.5 * (VtgV - mT(VtgV)) / gap
    if gL is not None:
        inner = inner + gL[..., :, None] * _np.eye(n, dtype=L.dtype)
    return V @ inner @ mT(V)


class Eigh(Function):
    """(L, V) = eigh(A), A = V diag(L) V^T."""

    @staticmethod
    def forward(ctx, A: Tensor, uplo: str):  # noqa: N803
        ctx.set_materialize_grads(False)
        w, v = eigh_arrays(host(A), uplo)
        L, V = to_tensor(w, A), to_tensor(v, A)  # noqa: N806
        ctx.save_for_backward(L, V)
        return L, V

    @staticmethod
    @once_differentiable
    def backward(ctx, gL, gV):  # noqa: N803
        L, V = ctx.saved_tensors  # noqa: N806
        if gL is None and gV is None:
            return None, None
        return to_tensor(eigh_backward(_grad(gL), _grad(gV), host(L), host(V)), L), None
