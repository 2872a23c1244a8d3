"""The QR decomposition for ember.linalg.qr, by NumPy's LAPACK (geqrf + orgqr) on the host, batched,
in the input's dtype; plus what parametrizations.orthogonal needs: geqrf's raw reflectors and a
differentiable product of Householder reflectors (torch.linalg.householder_product).

QR's gradient is an ember.autograd.Function computed in NumPy; for A = QR with m >= n it is
(gQ + Q sym(tril(R gR^T - gQ^T Q))) R^-T (the formula of PyTorch's linalg_qr_backward; sym copies
the lower triangle to the upper one), defined where R is invertible (A of full rank). For m < n,
A = [X | Y] with X square: Y's gradient is Q gR_Y and X's the square case with gQ + Y gR_Y^T.
Double backward is not supported."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as _np

from . import _C
from ._C import Tensor
from ._autograd_function import Function, once_differentiable
from ._svd import host, to_tensor
from ._autocast_op import autocast_op


def qr_arrays(a: _np.ndarray, mode: str) -> Tuple[_np.ndarray, _np.ndarray]:
    """Q, R of a [..., m, n] (mode 'reduced' or 'complete'; 'r' computes Q too, the caller drops it)."""
    *batch, m, n = a.shape
    k = m if mode == "complete" else min(m, n)
    if a.size == 0:
        q = _np.broadcast_to(_np.eye(m, k, dtype=a.dtype), (*batch, m, k)).copy()
        return q, _np.zeros((*batch, k, n), a.dtype)
    q, r = _np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    return q, r


def _square_backward(gQ: _np.ndarray, gR: _np.ndarray, Q: _np.ndarray, R: _np.ndarray) -> _np.ndarray:  # noqa: N803
    """The gradient of A = QR for Q [.., m, n], R [.., n, n] upper triangular (m >= n)."""
    mT = lambda x: _np.swapaxes(x, -1, -2)  # noqa: E731
    M = R @ mT(gR) - mT(gQ) @ Q  # noqa: N806
    low = _np.tril(M)
    sym = low + mT(_np.tril(M, -1))
    # (gQ + Q sym) R^-T: solve R X^T = (gQ + Q sym)^T
    return mT(_np.linalg.solve(R, mT(gQ + Q @ sym)))


def qr_backward(gQ: Optional[_np.ndarray], gR: Optional[_np.ndarray],  # noqa: N803
                Q: _np.ndarray, R: _np.ndarray) -> _np.ndarray:  # noqa: N803
    m, n = Q.shape[-2], R.shape[-1]
    gQ = _np.zeros_like(Q) if gQ is None else gQ  # noqa: N806
    gR = _np.zeros_like(R) if gR is None else gR  # noqa: N806
    if m >= n:
        return _square_backward(gQ, gR, Q, R)
    # A = [X | Y]: R = [R_X | Q^T Y]
    Y = Q @ R[..., :, m:]  # noqa: N806
    gY = Q @ gR[..., :, m:]  # noqa: N806
    gX = _square_backward(gQ + Y @ _np.swapaxes(gR[..., :, m:], -1, -2), gR[..., :, :m], Q, R[..., :, :m])  # noqa: N806
    return _np.concatenate([gX, gY], -1)


class QR(Function):
    """(Q, R) = QR(A [..., m, n]) for mode 'reduced' or 'complete'."""

    @staticmethod
    def forward(ctx, A: Tensor, mode: str):  # noqa: N803
        ctx.set_materialize_grads(False)
        q, r = qr_arrays(host(A), mode)
        Q, R = to_tensor(q, A), to_tensor(r, A)  # noqa: N806
        ctx.mode = mode
        ctx.save_for_backward(Q, R)
        return Q, R

    @staticmethod
    @once_differentiable
    def backward(ctx, gQ, gR):  # noqa: N803
        Q, R = ctx.saved_tensors  # noqa: N806
        if gQ is None and gR is None:
            return None, None
        if ctx.mode == "complete" and Q.shape[-2] > R.shape[-1]:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        gq = None if gQ is None else host(gQ)
        gr = None if gR is None else host(gR)
        return to_tensor(qr_backward(gq, gr, host(Q), host(R)), Q), None


def geqrf(a: _np.ndarray) -> Tuple[_np.ndarray, _np.ndarray]:
    """LAPACK geqrf of a [..., m, n]: R on and above the diagonal, the Householder vectors below it
    (their leading 1 implied), and tau [..., min(m, n)] (torch.geqrf)."""
    *batch, m, n = a.shape
    flat = a.reshape(-1, m, n)
    out = _np.empty_like(flat)
    taus = _np.empty((flat.shape[0], min(m, n)), a.dtype)
    for b in range(flat.shape[0]):
        h, tau = _np.linalg.qr(flat[b], mode="raw")  # NB: 'raw' is not batched, and h is transposed
        out[b], taus[b] = h.T, tau
    return out.reshape(a.shape), taus.reshape(*batch, min(m, n))


@autocast_op("linalg_householder_product")
def householder_product(A: Tensor, tau: Tensor) -> Tensor:  # noqa: N803
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0, .., 0, 1, A[i+1:, i])
    (torch.linalg.householder_product), in tensor ops so autograd differentiates it."""
    m, n = A.shape[-2], A.shape[-1]
    batch = tuple(A.shape[:-2])
    x = _C.eye(m, n, dtype=A.dtype, device=A.device).expand(*batch, m, n)
    for i in reversed(range(tau.shape[-1])):
        parts = [_C.zeros(*batch, i, dtype=A.dtype, device=A.device),
                 _C.ones(*batch, 1, dtype=A.dtype, device=A.device), A[..., i + 1:, i]]
        v = _C.cat(parts, -1).unsqueeze(-1)  # [..., m, 1]
        x = x - tau[..., i:i + 1].unsqueeze(-1) * _C.matmul(v, _C.matmul(v.mT, x))
    return x
