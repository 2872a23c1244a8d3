"""What parametrizations.orthogonal needs beside linalg.qr and geqrf (C++ ops): a differentiable
product of Householder reflectors (torch.linalg.householder_product)."""
from __future__ import annotations

from . import _C
from ._C import Tensor
from ._autocast_op import autocast_op


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
