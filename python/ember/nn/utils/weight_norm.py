"""torch.nn.utils.weight_norm / remove_weight_norm: the older, hook-based weight normalisation
(parametrizations.weight_norm is the newer form). module.<name> becomes g * v / ||v||, with the
parameters <name>_g and <name>_v, recomputed by a forward pre-hook before each call; state_dict
keys are torch's (weight_g, weight_v). Ember hides the <name> slot instead of deleting it
(nn/_hidden_entries.py).
"""
from __future__ import annotations

from typing import Any

from .. import _hidden_entries as _hidden
from ..parameter import Parameter
from .parametrizations import _norm_except_dim, _weight_norm


class WeightNorm:
    """The forward pre-hook (torch's WeightNorm): sets module.<name> from <name>_g and <name>_v."""

    def __init__(self, name: str, dim: int | None):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Any):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Any, name: str, dim: int | None) -> "WeightNorm":
        if ("weight_norm", name) in _hidden.extras(module):
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        _hidden.register(module, name + "_g", Parameter(_norm_except_dim(weight, fn.dim).detach().clone()))
        _hidden.register(module, name + "_v", Parameter(weight.detach().clone()))
        module._replace_parameter(name, fn.compute_weight(module))
        _hidden.hide(module, name)
        _hidden.extras(module)[("weight_norm", name)] = (fn, module.register_forward_pre_hook(fn))
        return fn

    def remove(self, module: Any) -> None:
        from ...autograd import no_grad
        with no_grad():
            weight = self.compute_weight(module).detach().clone()
        _hidden.hide(module, self.name + "_g", _hidden.GONE)
        _hidden.hide(module, self.name + "_v", _hidden.GONE)
        _hidden.unhide(module, self.name)
        module._replace_parameter(self.name, Parameter(weight))

    def __call__(self, module: Any, inputs: Any) -> None:
        module._replace_parameter(self.name, self.compute_weight(module))


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """Applies weight normalisation to module.<name> (dim: the dim kept by the norm; None: the
    norm of the whole tensor). Returns module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Any, name: str = "weight") -> Any:
    """Undoes weight_norm: module.<name> becomes a parameter holding the normalised weight."""
    entry = _hidden.extras(module).pop(("weight_norm", name), None)
    if entry is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    fn, handle = entry
    fn.remove(module)
    handle.remove()
    return module


__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]
