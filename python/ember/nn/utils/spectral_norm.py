"""torch.nn.utils.spectral_norm / remove_spectral_norm: the older, hook-based spectral
normalisation (parametrizations.spectral_norm is the newer form). module.<name> becomes
<name>_orig / sigma, sigma estimated by power iteration with the buffers <name>_u and <name>_v,
which a forward pre-hook advances n_power_iterations steps before each call in training mode
(v first, then u, as torch's hook does; none in eval mode). state_dict keys are torch's
(weight_orig, weight_u, weight_v). Ember hides the <name> slot instead of deleting it
(nn/_hidden_entries.py).
"""
from __future__ import annotations

from typing import Any

from ... import _C
from .. import _hidden_entries as _hidden
from .. import functional as F
from ..parameter import Parameter


class SpectralNorm:
    """The forward pre-hook (torch's SpectralNorm)."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Any, do_power_iteration: bool):
        from ...autograd import no_grad
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                w = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(_C.matmul(w.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_C.matmul(w, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = (u * _C.matmul(weight_mat, v)).sum()  # torch.dot(u, W v)
        return weight / sigma

    @staticmethod
    def apply(module: Any, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        if ("spectral_norm", name) in _hidden.extras(module):
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = getattr(module, name)
        from ...autograd import no_grad
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = F.normalize(_C.empty([h], dtype=weight.dtype, device=weight.device).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(_C.empty([w], dtype=weight.dtype, device=weight.device).normal_(0, 1), dim=0, eps=fn.eps)
        _hidden.register(module, name + "_orig", weight)
        # NB: the slot gets a tensor of its own (one tensor is traversed once, under its first name).
        module._replace_parameter(name, weight.detach().clone())
        _hidden.hide(module, name)
        _hidden.register(module, name + "_u", u, buffer=True)
        _hidden.register(module, name + "_v", v, buffer=True)
        _hidden.extras(module)[("spectral_norm", name)] = (fn, module.register_forward_pre_hook(fn))
        return fn

    def remove(self, module: Any) -> None:
        from ...autograd import no_grad
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False).detach().clone()
        for suffix in ("_u", "_v", "_orig"):
            _hidden.hide(module, self.name + suffix, _hidden.GONE)
        _hidden.unhide(module, self.name)
        module._replace_parameter(self.name, Parameter(weight))

    def __call__(self, module: Any, inputs: Any) -> None:
        module._replace_parameter(self.name, self.compute_weight(module, do_power_iteration=module.training))


def spectral_norm(module: Any, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Any:
    """Applies spectral normalisation to module.<name>; dim defaults to 1 for ConvTranspose layers,
    else 0. Returns module."""
    if dim is None:
        dim = 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Any, name: str = "weight") -> Any:
    """Undoes spectral_norm: module.<name> becomes a parameter holding weight_orig / sigma."""
    entry = _hidden.extras(module).pop(("spectral_norm", name), None)
    if entry is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    fn, handle = entry
    fn.remove(module)
    handle.remove()
    return module


__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]
