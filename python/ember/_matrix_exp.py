"""The matrix exponential for ember.linalg.matrix_exp: Higham's scaling and squaring with the
[13/13] Pade approximant (Higham 2005, "The scaling and squaring method for the matrix exponential
revisited"), in NumPy float64 on the host, batched; float32 inputs are computed in float64 and
rounded once.

The gradient is an ember.autograd.Function: for L = <G, exp(A)>, dL/dA is the top-right block of
exp([[A^T, G], [0, A^T]]) (the Frechet derivative of exp at A^T in the direction G), as PyTorch's.
Double backward is not supported."""
from __future__ import annotations

import numpy as _np

from ._C import Tensor
from ._autograd_function import Function, once_differentiable
from ._svd import host, to_tensor

# Pade [13/13] coefficients b_0..b_13 and the largest 1-norm it handles at double precision.
_B = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
      10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def expm(a: _np.ndarray) -> _np.ndarray:
    """exp of each matrix of a [..., n, n] (float64)."""
    a = _np.asarray(a, dtype=_np.float64)
    n = a.shape[-1]
    if a.size == 0:
        return _np.broadcast_to(_np.eye(n), a.shape).copy()
    norm1 = _np.abs(a).sum(-2).max(-1)  # [...]
    finite = _np.isfinite(norm1)
    # per matrix: the squarings s that bring its norm under theta_13
    s = _np.where(finite & (norm1 > _THETA13), _np.ceil(_np.log2(_np.where(finite, _np.maximum(norm1, _THETA13), 1.0) / _THETA13)), 0)
    s = s.astype(_np.int64)
    x = _np.where(finite[..., None, None], a, 0.0) / (2.0 ** s)[..., None, None]  # NaN/inf give NaN below
    eye = _np.broadcast_to(_np.eye(n), a.shape)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    b = _B
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = _np.linalg.solve(v - u, v + u)
    # NB: matrices in the batch need different numbers of squarings: square those still short.
    for step in range(int(s.max(initial=0))):
        more = s > step
        r = _np.where(more[..., None, None], r @ r, r)
    return _np.where(finite[..., None, None], r, _np.nan)


def expm_backward(a: _np.ndarray, g: _np.ndarray) -> _np.ndarray:
    """The top-right n x n block of exp([[A^T, G], [0, A^T]])."""
    n = a.shape[-1]
    at = _np.swapaxes(a, -1, -2).astype(_np.float64)
    block = _np.zeros((*a.shape[:-2], 2 * n, 2 * n))
    block[..., :n, :n] = at
    block[..., n:, n:] = at
    block[..., :n, n:] = g
    return expm(block)[..., :n, n:]


class MatrixExp(Function):
    @staticmethod
    def forward(ctx, A: Tensor):  # noqa: N803
        ctx.save_for_backward(A.detach())
        return to_tensor(expm(host(A)), A)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors  # noqa: N806
        return to_tensor(expm_backward(host(A), host(grad)), A)
