"""The named tuples ops return (torch.return_types)."""
from __future__ import annotations
import typing
from ember._C import Tensor

class cummax(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class cummin(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class geqrf(typing.NamedTuple):
    a: Tensor
    tau: Tensor

class kthvalue(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class linalg_eigh(typing.NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor

class linalg_lstsq(typing.NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor

class linalg_qr(typing.NamedTuple):
    Q: Tensor
    R: Tensor

class linalg_slogdet(typing.NamedTuple):
    sign: Tensor
    logabsdet: Tensor

class linalg_svd(typing.NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor

class max(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class median(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class min(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class mode(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class qr(typing.NamedTuple):
    Q: Tensor
    R: Tensor

class slogdet(typing.NamedTuple):
    sign: Tensor
    logabsdet: Tensor

class sort(typing.NamedTuple):
    values: Tensor
    indices: Tensor

class svd(typing.NamedTuple):
    U: Tensor
    S: Tensor
    V: Tensor

class topk(typing.NamedTuple):
    values: Tensor
    indices: Tensor
