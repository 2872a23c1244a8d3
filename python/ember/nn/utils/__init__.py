"""ember.nn.utils: gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_) and, in
ember.nn.utils.rnn, the packing of sequences of different lengths."""
from __future__ import annotations

from typing import Iterable, Union

from ... import _C
from ..._C import Tensor
from . import rnn  # noqa: F401

_Params = Union[Tensor, Iterable[Tensor], Iterable["tuple[str, Tensor]"]]


def _tensors(parameters: _Params) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    out = []
    for p in parameters:  # tensors, or (name, tensor) pairs from named_parameters()
        out.append(p[1] if isinstance(p, tuple) else p)
    return out


def clip_grad_norm_(parameters: _Params, max_norm: float, norm_type: float | str = 2.0,
                    error_if_nonfinite: bool = False) -> Tensor:
    """Scales all gradients so that their joint norm is at most max_norm; returns the norm before
    clipping as a 0-d tensor. norm_type may be float('inf') or 'inf'."""
    return _C.optim.clip_grad_norm_(_tensors(parameters), float(max_norm), float(norm_type),
                                    error_if_nonfinite)


def clip_grad_value_(parameters: _Params, clip_value: float) -> None:
    """Clamps every gradient element to [-clip_value, clip_value]."""
    _C.optim.clip_grad_value_(_tensors(parameters), float(clip_value))


__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: _Params) -> Tensor:
    """The parameters flattened and joined into one 1-D tensor (a differentiable copy)."""
    return _C.cat([p.reshape(-1) for p in _tensors(parameters)], 0)


def vector_to_parameters(vec: Tensor, parameters: _Params) -> None:
    """Copies consecutive slices of the 1-D vec into the parameters, in order (as PyTorch's, the
    parameters' data: no graph is recorded)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in _tensors(parameters):
        n = p.numel()
        p.data.copy_(vec[offset:offset + n].reshape(*p.shape))
        offset += n
    if offset != vec.numel():
        raise ValueError(f"vector_to_parameters: the vector has {vec.numel()} elements, the parameters {offset}")


# Reparametrisations and pruning (each in its own file; the function names shadow their files', as torch's).
from . import parametrize, parametrizations, prune  # noqa: E402,F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402,F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401

__all__ += ["parametrize", "parametrizations", "prune", "weight_norm", "remove_weight_norm", "spectral_norm",
            "remove_spectral_norm"]
