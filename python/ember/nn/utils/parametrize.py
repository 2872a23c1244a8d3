"""torch.nn.utils.parametrize: a parameter (or buffer) computed from other tensors on access.

    parametrize.register_parametrization(linear, "weight", Symmetric())
    linear.weight                       # Symmetric()(linear.parametrizations.weight.original)
    list(linear.state_dict())           # ['bias', 'parametrizations.weight.original'], as torch

As PyTorch: the tensor registered under the name becomes `parametrizations.<name>.original` (the
same tensor object, so an optimizer built before still trains it; a parametrization's
right_inverse sets its value first), and the name reads as the parametrizations applied in turn.
PyTorch deletes the parameter and swaps the module's class for one with a property; Ember cannot
unregister a C++ slot, which the built-in layers read at each call, so the slot is hidden
(nn/_hidden_entries.py), reading the attribute computes the value as torch's property does, and a
forward pre-hook puts the computed value into the slot before each call (so Linear's C++ forward
uses it). The class is left as it is.
"""
from __future__ import annotations

import collections
import contextlib
from typing import Any, Sequence

from ... import _C
from ..._C import Tensor
from .. import _hidden_entries as _hidden

_cache_enabled = 0
_cache: dict = {}


@contextlib.contextmanager
def cached():
    """Within it, each parametrized tensor is computed once, on first access, and reused."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Any, name: str, x: Tensor) -> None:
    from ..parameter import Parameter
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _set_values(dest: Tensor, src: Tensor) -> None:
    # torch's `dest.set_(src)`: dest keeps its identity (and its optimizer) and takes src's values.
    if list(dest.shape) == list(src.shape):
        dest.data.copy_(src.detach())
    else:
        dest.data = src.detach().clone()


def _module_list_base():
    from ... import nn
    return nn.ModuleList


class ParametrizationList(_module_list_base()):
    """The parametrizations of one tensor (torch's ParametrizationList): modules applied in turn to
    `original` (or to original0, original1, ... when right_inverse returns several tensors)."""

    def __init__(self, modules: Sequence, original: Tensor, unsafe: bool = False):
        from ..parameter import Parameter
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(list(modules))
        self.unsafe = unsafe
        original_shape, original_dtype = list(original.shape), original.dtype
        from ...autograd import no_grad
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, (list, tuple)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if new is not original:
                _set_values(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     f"(list, tuple...). Got element {i} of the sequence with type "
                                     f"{type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali.detach().clone(), original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if list(z.shape) != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {list(z.shape)}")

    def right_inverse(self, value: Tensor) -> None:
        """Sets the originals so that the parametrized tensor reads `value` (module.weight = value)."""
        from ...autograd import no_grad
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _set_values(self.original, value)
            else:
                if not isinstance(value, (list, tuple)) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of {self.ntensors} tensors.")
                for i, tensor in enumerate(value):
                    _set_values(getattr(self, f"original{i}"), tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _parametrized_value(module: Any, name: str) -> Tensor:
    """What reading module.<name> gives (torch's injected property, with the cache of cached())."""
    parametrization = module.parametrizations[name]
    if _cache_enabled:
        key = (id(module), name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor
    return parametrization()


def _set_parametrized(module: Any, name: str, value: Tensor) -> None:
    module.parametrizations[name].right_inverse(value)


def _refresh_slots(module: Any, args: tuple) -> None:
    """The forward pre-hook: each parametrized slot holds the value computed now (a C++ layer's
    forward reads the slot, not the Python attribute)."""
    if not is_parametrized(module):  # a copy's hook, or one left after the last removal
        return
    for name in list(module.parametrizations.keys()):
        value = _parametrized_value(module, name)
        if module._has_parameter(name):
            module._replace_parameter(name, value)
        else:
            module._replace_buffer(name, value)


def register_parametrization(module: Any, tensor_name: str, parametrization: Any, *,
                             unsafe: bool = False) -> Any:
    """Registers `parametrization` on module.<tensor_name> (torch's signature and checks); a second
    call on the same name appends to its ParametrizationList. Returns module."""
    from ... import nn
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if list(x.shape) != list(y.shape):
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.shape: {list(y.shape)}\n"
                                 f"parametrization(module.{tensor_name}).shape: {list(x.shape)}")
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if not (module._has_parameter(tensor_name) or module._has_buffer(tensor_name)):
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    if not is_parametrized(module):
        dict_ = nn.ModuleDict()
        if module._has_child("parametrizations"):  # hidden since an earlier remove_parametrizations
            _hidden.unhide(module, "parametrizations")
            module._replace_module("parametrizations", dict_)
        else:
            module._register_module("parametrizations", dict_)
        _hidden.extras(module)["parametrize_hook"] = module.register_forward_pre_hook(_refresh_slots)
    module.parametrizations[tensor_name] = plist
    # NB: the slot must never hold a tensor that stays visible elsewhere (`original`): a traversal
    # yields a tensor once, under its first name, and the slot comes first.
    from ...autograd import no_grad
    with no_grad():
        value = plist().detach().clone()
    if module._has_parameter(tensor_name):
        module._replace_parameter(tensor_name, value)
    else:
        module._replace_buffer(tensor_name, value)
    _hidden.hide(module, tensor_name, _parametrized_value, _set_parametrized)
    return module


def is_parametrized(module: Any, tensor_name: str | None = None) -> bool:
    """Whether module has a parametrization (on tensor_name, when given)."""
    if _hidden.spec(module, "parametrizations") is not None or not module._has_child("parametrizations"):
        return False
    parametrizations = module.parametrizations
    if not isinstance(parametrizations, _C.nn.ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Any, tensor_name: str, leave_parametrized: bool = True) -> Any:
    """Undoes register_parametrization: module.<tensor_name> becomes `original` again, holding the
    parametrized value when leave_parametrized (torch's behaviour and errors). Returns module."""
    from ... import nn
    from ...autograd import no_grad
    from ..parameter import Parameter
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            _set_values(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        original = Parameter(t.detach().clone(), t.requires_grad) if t.requires_grad else t.detach().clone()
    _hidden.unhide(module, tensor_name)
    if module._has_parameter(tensor_name):
        if not isinstance(original, Parameter):
            original = Parameter._wrap(original) if original.is_leaf else Parameter(original)
        module._replace_parameter(tensor_name, original)
    else:
        module._replace_buffer(tensor_name, original)
    # NB: a ModuleDict cannot drop an entry, so the rest move to a new one; with none left the
    # child is hidden, as torch deletes it.
    rest = collections.OrderedDict((k, v) for k, v in module.parametrizations.items() if k != tensor_name)
    module._replace_module("parametrizations", nn.ModuleDict(rest))
    if not rest:
        _hidden.hide(module, "parametrizations", _hidden.GONE)
        handle = _hidden.extras(module).pop("parametrize_hook", None)
        if handle is not None:
            handle.remove()
    return module


def type_before_parametrizations(module: Any) -> type:
    """The module's class (Ember does not swap it for a parametrized one)."""
    return type(module)


def transfer_parametrizations_and_params(from_module: Any, to_module: Any, tensor_name: str | None = None) -> Any:
    raise NotImplementedError("parametrize.transfer_parametrizations_and_params is not supported by Ember")


__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "ParametrizationList", "type_before_parametrizations"]
