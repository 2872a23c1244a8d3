"""copy.deepcopy(module), as PyTorch's: a new module tree with copies of every parameter and
buffer (requires_grad kept, tied tensors stay tied through `memo`), the Python attributes deep
copied, the training flags and the forward hooks kept. torch.optim.swa_utils.AveragedModel is
built on it.

A module written in Python is rebuilt without calling its __init__ (as pickling does): a bare
Module of its class gets its entries registered again, in their order. A built-in container
(Sequential, ModuleList, ModuleDict) is built anew over copies of its children. Any other
built-in layer has constructor arguments Python cannot see, so it is copied through
ember.io.save_module / load_module (its architecture and state); a built-in layer with a child written in Python cannot be copied that way, nor a Python subclass of
a built-in layer: they raise TypeError naming it.
"""
from __future__ import annotations

import copy
import os
import tempfile
from typing import Any

from .. import _C
from . import _hidden_entries as _hidden
from .parameter import Parameter


def deepcopy_module(module: Any, memo: dict, base_init: Any) -> Any:
    """A deep copy of module; base_init(new, type_name) sets up a bare C++ Module (the one
    ember.nn.Module.__init__ calls)."""
    cls = type(module)
    containers = (_C.nn.Sequential, _C.nn.ModuleList, _C.nn.ModuleDict)
    if cls in containers:
        new = _copy_container(module, memo)
    elif cls.__module__.startswith("ember._C"):
        new = _copy_builtin(module)
    else:
        new = cls.__new__(cls)
        memo[id(module)] = new
        builtin = next(c for c in cls.__mro__ if c.__module__.startswith("ember._C"))
        if builtin is not _C.nn.Module and builtin not in containers:
            raise TypeError(f"copy.deepcopy: cannot copy a {cls.__name__}, a Python subclass of the built-in "
                            f"{builtin.__name__} (its constructor arguments are not known)")
        base = next((c for c in cls.__mro__ if c in containers), None)
        if base is None:
            base_init(new, module._type_name)
        else:  # a Python subclass of a container (parametrize's ParametrizationList): empty, then filled
            base.__init__(new)
        new.train(module.training)
        for name, t in module._named_parameters("", False):
            # NB: a slot a utility took over holds a computed tensor (not a leaf): its values.
            value = copy.deepcopy(Parameter._wrap(t), memo) if t.is_leaf else Parameter(t.detach().clone())
            new._register_parameter(name, value, t.requires_grad)
        for name, b in module._named_buffers("", False):
            new._register_buffer(name, copy.deepcopy(b, memo) if b.is_leaf else b.detach().clone(),
                                 module._is_persistent_buffer(name))
        for name, child in module._named_children():
            child = copy.deepcopy(child, memo)
            if base is _C.nn.ModuleDict:
                new[name] = child
            elif base is not None:
                new.append(child)
            else:
                new._register_module(name, child)
    memo[id(module)] = new
    if hasattr(module, "__dict__"):
        new.__dict__.update(copy.deepcopy(dict(module.__dict__), memo))
    for name, (how, setter) in _hidden.specs(module).items():  # what parametrize, prune, ... hid
        _hidden.hide(new, name, how, setter)
    _copy_hooks(module, new)
    return new


def _copy_container(module: Any, memo: dict) -> Any:
    children = [(n, copy.deepcopy(c, memo)) for n, c in module._named_children()]
    if isinstance(module, _C.nn.ModuleDict):
        new = type(module)(dict(children))
    else:
        new = type(module)([c for _, c in children]) if isinstance(module, _C.nn.ModuleList) \
            else type(module)(*[c for _, c in children])
    new.train(module.training)
    for (_, old), (_, c) in zip(module._named_children(), children):
        c.train(old.training)
    return new


def _copy_builtin(module: Any) -> Any:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "module.ember")
        try:
            _C.io.save_module(module, path)
        except Exception as e:  # noqa: BLE001  (said again with the module's name)
            raise TypeError(f"copy.deepcopy: cannot copy the built-in {type(module).__name__} "
                            f"({e})") from None
        new = _C.io.load_module(path)
    # NB: load_module rebuilds in the default dtype: convert, then copy the values exactly.
    tensors = [t for _, t in module._named_parameters("", True)] + [b for _, b in module._named_buffers("", True)]
    floating = [t for t in tensors if t.is_floating_point()]
    if floating:
        new.to(floating[0].dtype)
        new.to(floating[0].device)
    new._load_state_dict([(k, v) for k, v, _ in module._state_dict()], False)
    new.train(module.training)
    for (_, old), (_, p) in zip(module._named_parameters("", True), new._named_parameters("", True)):
        p.requires_grad_(old.requires_grad)
    return new


def _copy_hooks(module: Any, new: Any) -> None:
    pre_hooks, forward_hooks, _ = module._hook_lists()
    for hook, with_kwargs in pre_hooks:
        new.register_forward_pre_hook(hook, with_kwargs=with_kwargs)
    for hook, with_kwargs, always_call in forward_hooks:
        new.register_forward_hook(hook, with_kwargs=with_kwargs, always_call=always_call)
