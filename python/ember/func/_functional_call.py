"""functional_call: a module called with other tensors in place of its parameters and buffers."""
from __future__ import annotations

from typing import Any, Dict, Sequence, Union

from .._C import Tensor
from . import _modules
from ._batched import BatchedTensor


def _owner(module: Any, name: str):
    """The submodule holding `name` ("encoder.0.weight") and the entry's own name."""
    *path, leaf = name.split(".")
    owner = module
    for part in path:
        children = dict(owner.named_children())
        if part not in children:
            raise KeyError(f"functional_call: '{name}' names no parameter or buffer of {type(module).__name__} "
                           f"(no submodule '{part}')")
        owner = children[part]
    return owner, leaf


def functional_call(module: Any, parameter_and_buffer_dicts: Union[Dict[str, Tensor], Sequence[Dict[str, Tensor]]],
                    args: Any = None, kwargs: Dict[str, Any] = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """module(*args, **kwargs) with each named parameter or buffer replaced by the given tensor for
    the call (the module is restored afterwards, also when the call raises). Names are those of
    named_parameters()/named_buffers(); with tie_weights, a tensor given for one name of a tied
    parameter (a shared embedding and decoder) replaces it under every name. strict: every
    parameter and buffer must be given. A name the module does not have is a KeyError. Inside vmap,
    the tensors may be batched (an ensemble's parameters, one model per sample): the module's
    layers then run batched (ember/func/_modules.py)."""
    dicts = [parameter_and_buffer_dicts] if isinstance(parameter_and_buffer_dicts, dict) else list(
        parameter_and_buffer_dicts)
    given: Dict[str, Tensor] = {}
    for d in dicts:
        for name, t in d.items():
            if name in given:
                raise ValueError(f"functional_call: '{name}' appears in more than one of the dicts")
            if not isinstance(t, (Tensor, BatchedTensor)):
                raise TypeError(f"functional_call: '{name}' must be a tensor, got {type(t).__name__}")
            given[name] = t
    params = dict(module.named_parameters(remove_duplicate=False))
    buffers = dict(module.named_buffers(remove_duplicate=False))
    unknown = sorted(set(given) - set(params) - set(buffers))
    if unknown:
        raise KeyError(f"functional_call: {type(module).__name__} has no parameter or buffer named "
                       f"{', '.join(repr(n) for n in unknown)}")
    if tie_weights:  # every name of a tied tensor takes the tensor given for one of them
        names_of: Dict[int, list] = {}
        for name, t in list(params.items()) + list(buffers.items()):
            names_of.setdefault(id(t), []).append(name)
        for name in list(given):
            original = params.get(name, buffers.get(name))
            for other in names_of.get(id(original), []):
                if other not in given:
                    given[other] = given[name]
                elif given[other] is not given[name]:
                    raise ValueError(f"functional_call: '{name}' and '{other}' are tied but were given different "
                                     "tensors (tie_weights=False gives each its own)")
    if strict:
        missing = sorted((set(params) | set(buffers)) - set(given))
        if missing:
            raise RuntimeError(f"functional_call(strict=True): missing {', '.join(repr(n) for n in missing)}")
    swapped = []  # (owner, name, the original; None where a batched value went aside)
    try:
        for name, t in given.items():
            owner, leaf = _owner(module, name)
            if isinstance(t, BatchedTensor):
                _modules.substitute(owner, leaf, t)
                swapped.append((owner, leaf, None))
            else:
                swapped.append((owner, leaf, params[name] if name in params else buffers[name]))
                _modules.put(owner, leaf, t)
        args = () if args is None else (args if isinstance(args, tuple) else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for owner, leaf, original in reversed(swapped):
            if original is None:
                _modules.restore(owner, leaf)
            else:
                _modules.put(owner, leaf, original)


def stack_module_state(models: Sequence[Any]) -> tuple:
    """(params, buffers) of several models of one architecture, each entry the models' tensors
    stacked along a new dim 0: vmap over them with functional_call runs every model at once. The
    stacked parameters are new leaves that require grad where the models' do (PyTorch's)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kinds = {type(m) for m in models}
    if len(kinds) > 1:
        raise RuntimeError(f"stack_module_state: Expected all models to be of the same class, got "
                           f"{sorted(k.__name__ for k in kinds)}")
    from .. import _C
    params = {}
    for name, first in models[0].named_parameters():
        stacked = _C.stack([dict(m.named_parameters())[name].detach() for m in models])
        params[name] = stacked.requires_grad_(first.requires_grad)
    buffers = {name: _C.stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers
