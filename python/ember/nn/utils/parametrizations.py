"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations
(parametrize.register_parametrization), with torch's names, so checkpoints match:

    weight_norm(linear)     # parametrizations.weight.original0 = g, .original1 = v
    spectral_norm(linear)   # parametrizations.weight.original, buffers parametrizations.weight.0._u, ._v

spectral_norm runs n_power_iterations steps of the power method on each access in training mode
(updating the _u, _v buffers) and none in eval mode, as torch's.
"""
from __future__ import annotations

from typing import Any

from ... import _C
from ..._C import Tensor
from .. import functional as F
from ..modules import Module
from . import parametrize


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    # torch.norm_except_dim(v, 2, dim): the 2-norm over every dim but `dim`, kept as size-1 dims
    # (dim == -1: the norm of the whole tensor, a 0-d tensor).
    if dim == -1:
        return v.norm()
    others = [d for d in range(v.dim()) if d != dim]
    return v.norm(2, dim=others, keepdim=True) if others else v.abs()


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    # torch._weight_norm: w = v * (g / ||v||), the norm taken over every dim but `dim`.
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """torch.nn.utils.parametrizations.weight_norm: module.<name> = g * v / ||v|| with g
    (original0) and v (original1) trained; dim=None normalises over the whole tensor."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            from ...autograd import no_grad
            with no_grad():
                weight_mat = self._reshape_weight_to_matrix(weight.detach())
                h, w = weight_mat.shape
                u = _C.empty([h], dtype=weight.dtype, device=weight.device).normal_(0, 1)
                v = _C.empty([w], dtype=weight.dtype, device=weight.device).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place into the buffers, without a graph, as torch's (out=self._u).
        from ...autograd import no_grad
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(_C.matmul(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_C.matmul(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * _C.matmul(weight_mat, v)).sum()  # torch.vdot(u, W v) (real tensors)
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Any, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Any:
    """torch.nn.utils.parametrizations.spectral_norm: module.<name> = W / sigma(W), sigma estimated
    by power iteration (u, v buffers). dim defaults to 1 for the ConvTranspose layers, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def orthogonal(module: Any, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Any:
    raise NotImplementedError("parametrizations.orthogonal is not supported by Ember yet (it needs matrix_exp "
                              "or a differentiable QR); nn.init.orthogonal_ initialises a weight orthogonally")


__all__ = ["weight_norm", "spectral_norm", "orthogonal"]
