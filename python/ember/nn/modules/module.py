"""ember.nn.Module (ember.nn.Parameter is parameter.py's).

The Python half of Module's API is the mixin class ModuleMethods below: attribute registration,
the traversals that return generators, state_dict as an OrderedDict, __call__. ember.nn.Module is
the C++ class ember._C.nn.Module with these methods; it has to be that one class, not a Python
subclass of it, because modules built in C++ (the built-in layers, the children a
TransformerEncoderLayer makes, what ember.io.load_module rebuilds) reach Python as instances of the
C++ classes and must be nn.Module instances with the whole API, as in PyTorch. So the methods are
installed on it once, by _install() at the end of this file. The containers' indexing and
iteration and the layers' own properties are bound in C++ (python/src/nn.cpp), beside the classes.
Subclass Module as in PyTorch:

    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = ember.nn.Linear(4, 2)               # registered child
            self.scale = ember.nn.Parameter(ember.ones(2))  # registered parameter
            self.register_buffer("mean", ember.zeros(2))   # registered buffer (saved, moved)

        def forward(self, x):
            return self.fc(x) * self.scale - self.mean

Registration rules (PyTorch's): assigning a Parameter registers (or replaces) a parameter, a Module
registers (or replaces) a child, a Tensor assigned to a buffer's name replaces the buffer.
Assigning a plain Tensor to any other name keeps it as an ordinary attribute, which is neither
saved by state_dict() nor moved by to(): Ember warns (UserWarning) and points to register_buffer.
A plain list or dict of modules is not registered either (use ModuleList / ModuleDict): Ember
warns there too, where PyTorch is silent.

A module written in Python and held by a C++ container (a Sequential, a ModuleList, a parent
module) is kept alive, Python attributes included, as long as the container holds it.
"""
from __future__ import annotations

import collections
import itertools
import typing
import warnings
from typing import Any, Callable, Iterator

from ... import _C
from ..._C import Tensor
from ..._C.nn import RemovableHandle  # noqa: F401  (what register_*_hook return)
from .. import hooks as _hooks
from .. import _hidden_entries as _hidden
from .. import _module_copy
from ..parameter import Parameter

_CModule = _C.nn.Module
_traversals = itertools.count(1)  # stamps named_parameters() traversals, later ones higher


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns (PyTorch's named tuple)."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _holds_modules(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return any(isinstance(v, _CModule) for v in items)


class ModuleMethods:
    """The Python half of ember.nn.Module (installed onto the C++ class by _install below)."""

    def __init__(self, *args, **kwargs) -> None:
        # NB: the printed and saved type name is the Python class name ("Net(...)").
        _base_init(self, type(self).__name__)

    def __call__(self, *args, **kwargs):
        if self._has_hooks():
            return _hooks.call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # ---- hooks (ember/nn/hooks.py); each returns a handle whose remove() unregisters it
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> "RemovableHandle":
        """hook(module, args) -> None or new args, before each forward (with_kwargs:
        hook(module, args, kwargs) -> None or (new_args, new_kwargs))."""
        return self._register_forward_pre_hook(hook, prepend, with_kwargs)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> "RemovableHandle":
        """hook(module, args, output) -> None or a new output, after each forward (with_kwargs:
        hook(module, args, kwargs, output)); always_call also runs it when forward raises."""
        return self._register_forward_hook(hook, prepend, with_kwargs, always_call)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> "RemovableHandle":
        """hook(module, grad_input, grad_output) -> None or a new grad_input, when the gradients
        with respect to the module's inputs are computed (see ember/nn/hooks.py for the limits)."""
        return self._register_full_backward_hook(hook, prepend)

    def register_backward_hook(self, hook: Callable) -> "RemovableHandle":
        """PyTorch's deprecated form; Ember runs it as register_full_backward_hook."""
        return self._register_full_backward_hook(hook, False)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> "RemovableHandle":
        raise NotImplementedError("register_full_backward_pre_hook is not supported by Ember; "
                                  "register_full_backward_hook sees grad_output too")

    # ---- attributes
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, (Tensor, _CModule)) and not _initialized(self):
            what = "module" if isinstance(value, _CModule) else "parameter or tensor"
            raise AttributeError(f"cannot assign {what} '{name}' before Module.__init__() call")
        cls = type(self).__name__
        hidden = _hidden.spec(self, name)
        if hidden is not None:  # an entry parametrize, weight_norm, ... took over (_hidden_entries.py)
            if hidden[1] is not None:
                return hidden[1](self, name, value)
            if hidden[0] is _hidden.SLOT and isinstance(value, Tensor):
                return self._replace_parameter(name, value)
            _hidden.unhide(self, name)
        if isinstance(value, Parameter):
            _drop_plain(self, name)
            if self._has_parameter(name):
                self._replace_parameter(name, value)
            elif self._has_buffer(name) or self._has_child(name):
                raise KeyError(f"attribute '{name}' already exists (a buffer or child module)")
            else:
                self._register_parameter(name, value, value.requires_grad)
            return
        if isinstance(value, _CModule):
            _drop_plain(self, name)
            if self._has_child(name):
                self._replace_module(name, value)
            elif self._has_parameter(name) or self._has_buffer(name):
                raise KeyError(f"attribute '{name}' already exists (a parameter or buffer)")
            else:
                self._register_module(name, value)
            return
        if _initialized(self):
            if self._has_buffer(name):
                if not isinstance(value, Tensor):
                    raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                    "(ember.Tensor expected)")
                self._replace_buffer(name, value)
                return
            if self._has_parameter(name):
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(ember.nn.Parameter expected)")
            if self._has_child(name):
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(ember.nn.Module expected)")
            if isinstance(value, Tensor):
                warnings.warn(
                    f"{cls}.{name} is a plain Tensor: it is not registered, so state_dict() does not "
                    f"save it and to() does not move or convert it. Use "
                    f"self.register_buffer('{name}', tensor) for state (or nn.Parameter for a "
                    f"trainable tensor).", UserWarning, stacklevel=2)
            elif isinstance(value, (list, tuple, dict)) and _holds_modules(value):
                kind = "ModuleDict" if isinstance(value, dict) else "ModuleList"
                warnings.warn(
                    f"{cls}.{name} is a plain {type(value).__name__} holding modules: they are not "
                    f"registered, so their parameters are not in parameters() or state_dict(). Use "
                    f"ember.nn.{kind}.", UserWarning, stacklevel=2)
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Called only when ordinary lookup fails: parameters, buffers and children.
        if not name.startswith("__") and _initialized(self):
            hidden = _hidden.spec(self, name)
            if hidden is not None:
                return _hidden.read(self, name, hidden[0])
            entry = self._entry(name)
            if entry is not None:
                kind, value = entry
                return Parameter._wrap(value) if kind == _C.nn.EntryKind.Parameter else value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if _initialized(self) and self._entry(name) is not None:
            raise AttributeError(f"can't delete '{name}': Ember modules can't unregister entries")
        object.__delattr__(self, name)

    def __dir__(self):
        names = set(object.__dir__(self))
        names.update(k.split(".")[0] for k, _ in self._named_parameters("", False))
        names.update(k for k, _ in self._named_buffers("", False))
        names.update(k for k, _ in self._named_children())
        return sorted(names)

    # ---- registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Registers `param` as parameter `name` (None: an attribute that reads None)."""
        if param is None:
            object.__setattr__(self, name, None)
            return
        if not isinstance(param, Tensor):
            raise TypeError(f"cannot assign '{type(param).__name__}' as parameter '{name}'")
        self._register_parameter(name, param, param.requires_grad)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Registers a buffer: state that is not trained but is moved by to() and, when
        persistent, saved by state_dict() (running statistics, masks, ...)."""
        if tensor is None:
            object.__setattr__(self, name, None)
            return
        if not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' as buffer '{name}' (ember.Tensor expected)")
        _drop_plain(self, name)
        self._register_buffer(name, tensor, persistent)

    def add_module(self, name: str, module: "Module") -> None:
        """Registers `module` as child `name`."""
        self._register_module(name, module)

    register_module = add_module

    def get_submodule(self, target: str) -> "Module":
        """The descendant at a dotted path ("encoder.layers.0")."""
        m = self
        for part in target.split(".") if target else []:
            m = m._entry(part)[1] if m._has_child(part) else _missing(m, part)
        return m

    # ---- traversal
    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(structured name, parameter) pairs in registration order, each tensor once."""
        # NB: each parameter records its name relative to this module, per module traversed (a
        # tensor is one object, which several modules may reach): an optimizer built from plain
        # tensors keys their state by these names (ember.optim._traversed_names).
        root, stamp = _C.nn._address(self), next(_traversals)
        hidden = [f"{prefix}.{h}" if prefix else h for h in _hidden.under(self)]
        for name, t in self._named_parameters(prefix, recurse):
            if hidden and _hidden.is_under(name, hidden):
                continue
            p = Parameter._wrap(t)
            p.__dict__.setdefault("_ember_names", {})[root] = (stamp, name)
            yield name, p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of named_parameters(); each carries its structured name (relative to
        this module), under which an optimizer built from them keys its state."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        hidden = [f"{prefix}.{h}" if prefix else h for h in _hidden.under(self)]
        for name, b in self._named_buffers(prefix, recurse):
            if not (hidden and _hidden.is_under(name, hidden)):
                yield name, b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers("", recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        hidden = _hidden.names(self)
        for name, m in self._named_children():
            if name not in hidden:
                yield name, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        """This module and every descendant, depth first, each once (PyTorch's order)."""
        if memo is None:
            memo = set()
        # NB: keyed by the C++ module: a built-in child may reach Python as a new object each time.
        key = _C.nn._address(self)
        if key in memo:
            return
        if remove_duplicate:
            memo.add(key)
        yield prefix, self
        for name, child in self.named_children():
            yield from child.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """fn(module) on every descendant, then on this module; returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- state
    def state_dict(self, *, prefix: str = "", keep_vars: bool = False) -> "collections.OrderedDict[str, Tensor]":
        """Persistent parameters and buffers by structured name, in registration order, as an
        OrderedDict; the tensors share memory with the module's (detached unless keep_vars)."""
        out = collections.OrderedDict()
        hidden = _hidden.under(self)
        for name, t, is_parameter in self._state_dict():
            if hidden and _hidden.is_under(name, hidden):
                continue
            out[prefix + name] = (Parameter._wrap(t) if is_parameter else t) if keep_vars else t.detach()
        return out

    def load_state_dict(self, state_dict: typing.Mapping[str, Tensor], strict: bool = True) -> _IncompatibleKeys:
        """Copies values in place. strict: any missing or unexpected key is a RuntimeError and
        nothing changes; otherwise they are returned as (missing_keys, unexpected_keys). A shape
        mismatch is always a RuntimeError (as in PyTorch)."""
        items = []
        for k, v in state_dict.items():
            if not isinstance(v, Tensor):
                raise TypeError(f"load_state_dict: '{k}' is a {type(v).__name__}, expected a Tensor")
            items.append((k, v))
        try:
            if _hidden.under(self):
                missing, unexpected, mismatches = _hidden.load_state_dict(self, items, strict)
            else:
                missing, unexpected, mismatches = self._load_state_dict(items, strict)
        except KeyError as e:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n"
                               f"{e.args[0] if e.args else e}") from None
        if mismatches:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n{mismatches}")
        return _IncompatibleKeys(missing, unexpected)

    def __deepcopy__(self, memo: dict) -> "Module":
        """copy.deepcopy(model), as PyTorch's (see _module_copy.py for how and its limits)."""
        return _module_copy.deepcopy_module(self, memo, _base_init)

    # ---- modes and conversions
    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def float(self) -> "Module":
        return self.to(_C.float32)

    def double(self) -> "Module":
        return self.to(_C.float64)

    def half(self) -> "Module":
        return self.to(_C.float16)

    def bfloat16(self) -> "Module":
        return self.to(_C.bfloat16)

    def cpu(self) -> "Module":
        return self.to("cpu")

    def cuda(self, device: "int | str | None" = None) -> "Module":
        return self.to(_C._cuda_target(device))


def _initialized(m) -> bool:
    try:
        return m._initialized()
    except TypeError:
        return False


def _drop_plain(m, name: str) -> None:
    d = getattr(m, "__dict__", None)
    if d is not None:
        d.pop(name, None)


def _missing(m, part: str):
    raise AttributeError(f"{type(m).__name__} has no submodule '{part}'")


_base_init = _CModule.__init__


def _install(cls, mixin) -> None:
    """Puts the methods `mixin` defines onto the C++ class `cls` (see the module docstring)."""
    for name, value in vars(mixin).items():
        if name not in ("__module__", "__dict__", "__weakref__", "__doc__", "__qualname__"):
            setattr(cls, name, value)


_install(_CModule, ModuleMethods)

if typing.TYPE_CHECKING:
    class Module(_CModule, ModuleMethods):  # what editors and type checkers see
        ...
else:
    Module = _CModule
