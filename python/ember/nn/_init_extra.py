"""The torch.nn.init functions the C++ init lacks, with torch's signatures: orthogonal_, sparse_,
dirac_, eye_, and torch's deprecated names without the underscore (uniform, normal, ...). Each
fills the tensor without recording a graph and returns it. orthogonal_ draws its normal matrix on
the tensor with `generator` (Ember's, so seeding reproduces it) and takes the QR on the host with
NumPy, as init runs once."""
from __future__ import annotations

import math
import warnings

from .. import _C
from ..autograd import no_grad


def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fills tensor (2-D or more; trailing dims flattened) with a (semi-)orthogonal matrix times
    gain: rows orthonormal when rows <= cols, columns when rows > cols (torch's QR with R's
    diagonal signs folded into Q)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        a = _C.empty([rows, cols], dtype=_C.float64).normal_(0, 1, generator=generator)
        if rows < cols:
            a = a.mT
        q, r = _C._linalg_qr(a, "reduced")
        q = q * _C.sign(r.diagonal(0, -2, -1)).unsqueeze(-2)  # unique: R's diagonal made positive
        if rows < cols:
            q = q.mT
        tensor.copy_((q * gain).reshape(*tensor.shape).to(dtype=tensor.dtype, device=tensor.device))
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fills the 2-D tensor from N(0, std) and zeroes ceil(sparsity * rows) entries of each column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = _C.randperm(rows, generator=generator)[:num_zeros]
            for i in zero_indices.tolist():
                tensor[i, col_idx] = 0
    return tensor


def dirac_(tensor, groups: int = 1):
    """Fills the 3-, 4- or 5-D tensor with the Dirac delta: a convolution that keeps its input
    channels (per group)."""
    dims = tensor.dim()
    if dims not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                index = [g * out_chans_per_grp + d, d] + [s // 2 for s in sizes[2:]]
                tensor[tuple(index)] = 1
    return tensor


def eye_(tensor):
    """Fills the 2-D tensor with the identity (ones on the diagonal of a rectangle too)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_C.eye(tensor.shape[0], tensor.shape[1]).to(dtype=tensor.dtype, device=tensor.device))
    return tensor


def _deprecated(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)
    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"{old_name}(...)\n\n.. warning::\n    This method is now deprecated in favor of :func:`torch.nn.init.{new_name}`."
    return deprecated_init
