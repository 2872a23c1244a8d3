"""torch.nn.utils.prune, the unstructured part: l1_unstructured, random_unstructured,
global_unstructured, custom_from_mask, remove, is_pruned, with torch's names: pruning
module.<name> registers the parameter <name>_orig (the same tensor, so an optimizer built before
keeps training it) and the buffer <name>_mask, and a forward pre-hook recomputes
module.<name> = <name>_orig * <name>_mask before each call. Pruning a tensor again prunes among
the entries still unpruned (`amount` counts those), as torch's PruningContainer does for
unstructured methods. Ember hides the <name> slot instead of deleting it (nn/_hidden_entries.py).
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable

from ... import _C
from .. import _hidden_entries as _hidden


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_pruning_amount(amount: Any, tensor_size: int | None = None) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")
    if tensor_size is not None and isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


class BasePruningMethod:
    """A pruning method: compute_mask(t, default_mask) says which entries stay (1) and go (0)."""
    PRUNING_TYPE = "unstructured"
    _tensor_name: str

    def __call__(self, module: Any, inputs: Any) -> None:
        module._replace_parameter(self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError

    def apply_mask(self, module: Any):
        orig = getattr(module, self._tensor_name + "_orig")
        return orig * getattr(module, self._tensor_name + "_mask")

    @classmethod
    def apply(cls, module: Any, name: str, *args, importance_scores=None, **kwargs) -> "BasePruningMethod":
        from ...autograd import no_grad
        method = cls(*args, **kwargs)
        method._tensor_name = name
        entry = _hidden.extras(module).get(("prune", name))
        orig = getattr(module, name + "_orig") if entry is not None else getattr(module, name)
        scores = importance_scores if importance_scores is not None else orig
        if list(scores.shape) != list(orig.shape):
            raise ValueError(f"importance_scores should have the same shape as parameter {name} of {module}")
        with no_grad():
            if entry is None:
                mask = method.compute_mask(scores.detach(), default_mask=_C.ones_like(orig))
            elif method.PRUNING_TYPE == "global":  # a mask over the whole tensor, times the one before
                mask = method.compute_mask(scores.detach(), default_mask=getattr(module, name + "_mask"))
            else:  # pruned before: prune among the entries still kept (torch's PruningContainer)
                old = getattr(module, name + "_mask")
                keep = old == 1
                mask = old.clone()
                mask[keep] = method.compute_mask(scores.detach()[keep], default_mask=old[keep])
        if entry is None:
            _hidden.register(module, name + "_orig", orig)
            _hidden.register(module, name + "_mask", mask, buffer=True)
            module._replace_parameter(name, method.apply_mask(module))
            _hidden.hide(module, name)
            _hidden.extras(module)[("prune", name)] = (method, module.register_forward_pre_hook(method))
        else:
            getattr(module, name + "_mask").copy_(mask)
            module._replace_parameter(name, method.apply_mask(module))
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """The tensor pruned (t * mask), without a module."""
        scores = importance_scores if importance_scores is not None else t
        default_mask = default_mask if default_mask is not None else _C.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module: Any) -> None:
        from ...autograd import no_grad
        name = self._tensor_name
        with no_grad():
            weight = self.apply_mask(module).detach().clone()
        orig = getattr(module, name + "_orig")
        orig.data.copy_(weight)
        _hidden.hide(module, name + "_orig", _hidden.GONE)
        _hidden.hide(module, name + "_mask", _hidden.GONE)
        _hidden.unhide(module, name)
        module._replace_parameter(name, orig)


class Identity(BasePruningMethod):
    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries (a count, or a fraction) of smallest absolute value."""

    def __init__(self, amount: Any):
        _validate_pruning_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        _validate_pruning_amount(self.amount, t.numel())
        k = _compute_nparams_toprune(self.amount, t.numel())
        mask = default_mask.clone()
        if k != 0:
            idx = _C.topk(t.abs().reshape(-1), k, largest=False).indices
            flat = mask.reshape(-1)
            flat[idx] = 0
            mask = flat.reshape(*mask.shape)
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries (a count, or a fraction) drawn at random."""

    def __init__(self, amount: Any):
        _validate_pruning_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        _validate_pruning_amount(self.amount, t.numel())
        k = _compute_nparams_toprune(self.amount, t.numel())
        mask = default_mask.clone()
        if k != 0:
            idx = _C.topk(_C.rand_like(t).reshape(-1), k).indices
            flat = mask.reshape(-1)
            flat[idx] = 0
            mask = flat.reshape(*mask.shape)
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module: Any, name: str) -> Any:
    Identity.apply(module, name)
    return module


def l1_unstructured(module: Any, name: str, amount: Any, importance_scores=None) -> Any:
    """Prunes the `amount` entries of module.<name> smallest in absolute value (or in
    importance_scores). Returns module."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_unstructured(module: Any, name: str, amount: Any) -> Any:
    """Prunes `amount` entries of module.<name> drawn at random. Returns module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def custom_from_mask(module: Any, name: str, mask) -> Any:
    """Prunes the entries of module.<name> where mask is 0. Returns module."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type, importance_scores: dict | None = None,
                        **kwargs) -> None:
    """Prunes the (module, name) pairs together: the method (L1Unstructured, ...) ranks all their
    entries at once, so `amount` counts over all of them."""
    from ... import nn
    parameters = list(parameters)
    if not parameters:
        raise TypeError("global_unstructured(): parameters must be a non-empty iterable of (module, name) tuples")
    importance_scores = importance_scores or {}
    scores = nn.utils.parameters_to_vector([importance_scores.get((m, n), getattr(m, n)).detach()
                                            for m, n in parameters])
    default = nn.utils.parameters_to_vector([getattr(m, n + "_mask") if ("prune", n) in _hidden.extras(m)
                                             else _C.ones_like(getattr(m, n)) for m, n in parameters])
    method = pruning_method(**kwargs)
    keep = default == 1
    final = default.clone()
    final[keep] = method.compute_mask(scores[keep], default_mask=default[keep])
    pointer = 0
    for m, n in parameters:
        count = getattr(m, n).numel()
        custom_from_mask(m, n, mask=final[pointer:pointer + count].reshape(*getattr(m, n).shape))
        pointer += count


def remove(module: Any, name: str) -> Any:
    """Makes the pruning permanent: module.<name> becomes a parameter again (the <name>_orig
    tensor, holding the pruned values); <name>_orig and <name>_mask go."""
    entry = _hidden.extras(module).pop(("prune", name), None)
    if entry is None:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")
    method, handle = entry
    method.remove(module)
    handle.remove()
    return module


def is_pruned(module: Any) -> bool:
    """Whether module or any descendant has a pruned tensor."""
    return any(key[0] == "prune" for _, m in module.named_modules() for key in _extras_keys(m))


def _extras_keys(module: Any) -> list:
    row = _hidden._row(module)
    return [k for k in row[2] if isinstance(k, tuple)] if row is not None else []


__all__ = ["BasePruningMethod", "Identity", "L1Unstructured", "RandomUnstructured", "CustomFromMask", "identity",
           "l1_unstructured", "random_unstructured", "custom_from_mask", "global_unstructured", "remove",
           "is_pruned"]
