"""ember.optim: optimizers with PyTorch's constructor signatures (torch.optim).

Ember keys parameters and optimizer state by NAME, never by position, so a checkpoint lands on the
right parameter after the model gained, lost or reordered parameters. So an optimizer takes named
parameters:

    opt = ember.optim.Adam(model.named_parameters(), lr=1e-3)
    opt = ember.optim.SGD([{"params": model.body.named_parameters(prefix="body"), "lr": 0.1},
                           {"params": [("head.w", w)]}], lr=0.01, momentum=0.9)

`params` is an iterable of (name, tensor) pairs (what Module.named_parameters() yields, or a
dict name -> tensor), or a list of param-group dicts whose "params" is such an iterable. Plain
tensors work too, as in PyTorch: those of Module.parameters() carry their structured names, so

    opt = ember.optim.SGD(model.parameters(), lr=0.1)        # state keyed "fc.weight", ...
    opt = ember.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)

key state by name as well. Where a name is missing (a tensor made by hand) or two tensors would
share one (groups from model.a.parameters() and model.b.parameters() both hold "weight"), every
parameter is keyed by its position instead, "#0", "#1", ... over all groups, as PyTorch keys
them; state_dict() then says "keyed_by": "position", and loading such state into an optimizer
whose parameters differ in number or shape is a ValueError, never a silent swap.

opt.param_groups is a list of dict-like views: opt.param_groups[0]["lr"] = 0.01 writes the new lr
into the optimizer. state_dict() is {"type", "param_groups": [{..., "params": [names]}], "state":
{name: {"step": ..., ...}}}, plain containers that ember.io.save writes as they are.
opt.state[p] (or opt.state["fc.weight"]) reads a parameter's state.

Every built-in optimizer also takes master_weights=True (off by default; not in PyTorch): each
float16 or bfloat16 parameter then steps through a float32 copy kept in its state as "master", with
float32 moments, and receives the copy rounded once per step, so updates smaller than half the
parameter's ulp accumulate instead of rounding away (pure-bf16 training):

    model.to(ember.bfloat16)
    opt = ember.optim.AdamW(model.parameters(), lr=1e-4, master_weights=True)

Checkpoints save "master" by name like any other state; a parameter written by anything but the
optimizer (load_state_dict of the model, an in-place edit) restarts its master from its values.

An optimizer written in Python subclasses Optimizer as in PyTorch:

    class MySGD(ember.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        @ember.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self.state[p]["steps"] = self.state[p].get("steps", 0) + 1
                        p.add_(p.grad, alpha=-group["lr"])

Its state is a dict per parameter keyed by the tensor itself (a tensor is one Python object), and
state_dict() keys it by parameter name like the built-in optimizers' (see Optimizer.__init__).
"""
from __future__ import annotations

import collections
import numbers
from collections.abc import Mapping, MutableMapping
from typing import Any, Callable, Iterable

from .. import _C
from .._C import Tensor
from . import lr_scheduler  # noqa: F401

_PLAIN = object()  # the name of a tensor given without one, until _resolve_names finds it


def _named(params: Any, who: str) -> list:
    """[(name, tensor)]: pairs keep their name; a plain tensor gets one from _resolve_names."""
    if isinstance(params, Tensor):
        raise TypeError(f"{who}: params must be an iterable of tensors or of (name, tensor) pairs, got a "
                        "Tensor (pass [t] or model.parameters())")
    if isinstance(params, Mapping):
        params = params.items()
    out = []
    for item in params:
        if isinstance(item, Tensor):
            out.append((_PLAIN, item))
            continue
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], Tensor)):
            raise TypeError(f"{who}: expected tensors or (name, tensor) pairs, got {type(item).__name__}")
        out.append((item[0], item[1]))
    return out


def _traversed_names(tensors: list, prefer: int | None = None) -> tuple[list, int | None]:
    """Names for plain tensors that Module.parameters() / named_parameters() yielded: each such
    traversal records, on every tensor, its name relative to the module traversed (a tensor is
    one object, reachable from several modules). The names come from a module every one of the
    tensors was reached from: `prefer` if it is one, else the one traversed last; None each when
    there is none (the tensors are then keyed by position). Returns (names, that module)."""
    tags = [getattr(t, "_ember_names", None) or {} for t in tensors]
    common = set(tags[0]).intersection(*tags[1:]) if tags else set()
    if not common:
        return [None] * len(tensors), None
    root = prefer if prefer in common else max(common, key=lambda r: min(tag[r][0] for tag in tags))
    return [tag[root][1] for tag in tags], root


_POSITION = "#"


def _resolve_names(groups: list, first_position: int = 0, prefer: int | None = None) -> tuple[list, bool, Any]:
    """The groups with every name filled in, whether they are keyed by position (some name
    missing or repeated: then every parameter is named "#<position over all groups>"), and the
    module the plain tensors' names are relative to (see _traversed_names)."""
    plain = [t for params, _ in groups for n, t in params if n is _PLAIN]
    found, root = _traversed_names(plain, prefer)
    found = iter(found)
    groups = [([(next(found) if n is _PLAIN else n, t) for n, t in params], options) for params, options in groups]
    names = [n for params, _ in groups for n, _ in params]
    positional = any(n is None for n in names) or len(set(names)) != len(names)
    if not positional:
        return groups, False, root
    out, i = [], first_position
    for params, options in groups:
        renamed = []
        for _, t in params:
            renamed.append((f"{_POSITION}{i}", t))
            i += 1
        out.append((renamed, options))
    return out, True, None


def _hyper(options: Mapping, who: str) -> dict:
    # Values go to C++ as they are (a bool is a flag, a pair the betas, the rest numbers), which
    # checks each key and kind against the optimizer's; PyTorch's implementation switches are
    # accepted when off.
    out = {}
    for key, value in options.items():
        if key in ("foreach", "fused", "differentiable", "capturable"):
            if value:
                raise ValueError(f"{who}: {key}=True is not supported")
            continue
        out[key] = value
    return out


def _groups(params: Any, who: str) -> list:
    if isinstance(params, Tensor):
        raise TypeError(f"{who}: params must be an iterable of tensors, of (name, tensor) pairs or of "
                        "param-group dicts, got a Tensor (pass [t] or model.parameters())")
    if not isinstance(params, Mapping):
        params = list(params)
        if params and all(isinstance(g, Mapping) for g in params):
            groups = []
            for g in params:
                if "params" not in g:
                    raise KeyError(f"{who}: a parameter group needs a 'params' entry")
                rest = {k: v for k, v in g.items() if k != "params"}
                groups.append((_named(g["params"], who), _hyper(rest, who)))
            return groups
    named = _named(params, who)
    if not named:
        raise ValueError(f"{who}: got an empty parameter list")
    return [(named, {})]


def _init(opt: Any, cls: Any, params: Any, options: dict, who: str) -> None:
    groups, positional, root = _resolve_names(_groups(params, who))
    cls.__init__(opt, groups, options)
    opt._keyed_by_position, opt._names_root = positional, root


class ParamGroup(MutableMapping):
    """A live view of one parameter group: reading and writing hyperparameters ("lr", ...) reads
    and writes the optimizer's. "params" holds the tensors and "param_names" their names. In an
    optimizer written in Python, entries the C++ half cannot hold (None, strings, ...) live in the
    view's Python dict, and any key may be added."""

    def __init__(self, optimizer: Optimizer, index: int):
        self._opt, self._index = optimizer, index

    def _options(self) -> dict:
        return self._opt._group_options(self._index)

    def _extras(self) -> dict | None:
        extras = self._opt._extras
        return None if extras is None else extras[self._index]

    def __getitem__(self, key: str) -> Any:
        if key == "params":
            return [t for _, t in self._opt._group_params(self._index)]
        if key == "param_names":
            return [n for n, _ in self._opt._group_params(self._index)]
        options = self._options()
        if key in options:
            value = options[key]
            # NB: C++ holds numbers as doubles; an int hyperparameter (max_iter) reads back an int.
            if key in self._opt._int_keys and float(value).is_integer():
                return int(value)
            return value
        extras = self._extras()
        if extras is not None and key in extras:
            return extras[key]
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key in ("params", "param_names"):
            raise TypeError(f"can't set '{key}' of a parameter group (use add_param_group)")
        extras = self._extras()
        if extras is not None and not _goes_to_cpp(self._opt, key, value, self._options()):
            extras[key] = value
            return
        if not _is_native(value):
            raise TypeError(f"{self._opt._name}: hyperparameter '{key}' must be a number, a bool or a pair of "
                            f"numbers, got {type(value).__name__}")
        for k, v in _hyper({key: value}, self._opt._name).items():
            self._opt._set_group_option(self._index, k, v)

    def __delitem__(self, key: str) -> None:
        extras = self._extras()
        if extras is not None and key in extras:
            del extras[key]
            return
        raise TypeError("can't delete hyperparameters of a parameter group")

    def __iter__(self):
        yield "params"
        yield "param_names"
        yield from self._options()
        yield from self._extras() or ()

    def __len__(self) -> int:
        return len(self._options()) + len(self._extras() or ()) + 2

    def __repr__(self) -> str:
        return repr({k: self[k] for k in self if k != "params"})


def _is_native(value: Any) -> bool:
    """Whether the C++ half can hold a hyperparameter: a bool, a number (a one-element tensor
    too) or a pair of numbers."""
    def number(v: Any) -> bool:
        return isinstance(v, numbers.Real) and not isinstance(v, bool)

    if isinstance(value, bool) or number(value):
        return True
    if isinstance(value, Tensor):
        return value.numel() == 1
    return isinstance(value, (tuple, list)) and len(value) == 2 and all(number(v) for v in value)


def _goes_to_cpp(opt: Any, key: str, value: Any, options: dict) -> bool:
    # An optimizer written in Python: its C++ half holds the keys whose defaults it holds, and the
    # ones LR schedulers add (initial_lr, ...), so the schedulers see them.
    return key in options or (_C.optim._is_scheduler_key(key) and _is_native(value))


class _StateView(Mapping):
    """A built-in optimizer's state, by parameter (the tensor, as in PyTorch) or by name: a
    snapshot of the C++ state's entries, whose tensors are the live state tensors."""

    def __init__(self, optimizer: Optimizer):
        self._state = _C.optim.Optimizer.state.fget(optimizer)
        self._names = {id(t): n for g in optimizer.param_groups for n, t in zip(g["param_names"], g["params"])}
        self._params = {n: t for g in optimizer.param_groups for n, t in zip(g["param_names"], g["params"])}

    def _name(self, key: Any) -> str:
        if isinstance(key, Tensor):
            if id(key) not in self._names:
                raise KeyError("the tensor is not a parameter of this optimizer")
            return self._names[id(key)]
        return key

    def __getitem__(self, key: Any) -> dict:
        return self._state[self._name(key)]

    def __contains__(self, key: Any) -> bool:
        try:
            return self._name(key) in self._state
        except KeyError:
            return False

    def __iter__(self):
        """The parameters that have state (tensors, as PyTorch's keys)."""
        return (self._params[n] for n in self._state if n in self._params)

    def __len__(self) -> int:
        return len(self._state)

    def names(self) -> list[str]:
        """The names of the parameters that have state."""
        return list(self._state)


_Report = collections.namedtuple("OptimizerLoadReport", ["missing", "unexpected", "moved"])


class Optimizer(_C.optim.Optimizer):
    """The base of Ember's optimizers (torch.optim.Optimizer's API over the C++ optimizer): the
    live param_groups views, add_param_group, step(closure), load_state_dict's report and repr.
    Each optimizer below derives from it and from its C++ class; an optimizer written in Python
    derives from it alone and calls Optimizer.__init__ (see the module docstring)."""

    _keyed_by_position = False
    _names_root: Any = None       # the module the names of plain tensors are relative to
    _extras: list | None = None   # per group, the entries of a Python optimizer that C++ can't hold
    _int_keys: frozenset = frozenset()

    def __init__(self, params: Any, defaults: Mapping[str, Any]) -> None:
        """torch.optim.Optimizer(params, defaults), for optimizers written in Python: params as the
        built-in optimizers take them, defaults the hyperparameters every group starts from.
        The C++ half holds the groups and the hyperparameters that are bools, numbers or pairs of
        numbers (so the LR schedulers and checkpoints see them); any other value (None, a
        string, ...) and any key a group adds live in the group's Python dict. self.state is a
        dict per parameter, keyed by the tensor; state_dict() keys it by parameter name."""
        who = type(self).__name__
        defaults = dict(defaults)
        native = {k: v for k, v in defaults.items() if _is_native(v)}
        if isinstance(params, Tensor):
            raise TypeError(f"{who}: params must be an iterable of tensors, of (name, tensor) pairs or of "
                            "param-group dicts, got a Tensor (pass [t] or model.parameters())")
        items = list(params.items()) if isinstance(params, Mapping) else list(params)
        if not items:
            raise ValueError(f"{who}: got an empty parameter list")
        group_dicts = items if all(isinstance(g, Mapping) for g in items) else [{"params": items}]
        split = [self._split_group(g, native, who) for g in group_dicts]
        groups, positional, root = _resolve_names([(named, opts) for named, opts, _ in split])
        _C.optim.Optimizer.__init__(self, who, groups, native)
        self._keyed_by_position, self._names_root = positional, root
        self._extras = [{**{k: v for k, v in defaults.items() if k not in native}, **extra}
                        for _, _, extra in split]
        self._int_keys = frozenset(k for k, v in native.items() if isinstance(v, int) and not isinstance(v, bool))
        self._defaults = defaults
        self._state = collections.defaultdict(dict)

    @staticmethod
    def _split_group(group: Mapping, native: Mapping, who: str) -> tuple:
        # (named params, the C++ half's entries, the Python dict's entries)
        if "params" not in group:
            raise KeyError(f"{who}: a parameter group needs a 'params' entry")
        opts, extra = {}, {}
        for k, v in group.items():
            if k == "params":
                continue
            if k in native or (_C.optim._is_scheduler_key(k) and _is_native(v)):
                opts[k] = v
            else:
                extra[k] = v
        return _named(group["params"], who), opts, extra

    def _is_python(self) -> bool:
        return self._extras is not None

    @property
    def defaults(self) -> dict:
        return dict(self._defaults) if self._is_python() else _C.optim.Optimizer.defaults.fget(self)

    @property
    def state(self) -> Mapping:
        """Per-parameter state: opt.state[p] (p a parameter; a built-in optimizer also takes its
        name). An optimizer written in Python keeps a defaultdict(dict) here, as PyTorch's."""
        return self._state if self._is_python() else _StateView(self)

    @state.setter
    def state(self, value: Mapping) -> None:
        if not self._is_python():
            raise AttributeError(f"{self._name}.state is the C++ optimizer's; load state with load_state_dict")
        self._state = value

    @property
    def param_groups(self) -> list:
        return [ParamGroup(self, i) for i in range(self._num_groups())]

    def add_param_group(self, param_group: Mapping) -> None:
        """Adds a group {"params": named parameters, hyperparameter: value, ...}."""
        if self._is_python():
            named, rest, extra = self._split_group(param_group, self._group_options(0), self._name)
        else:
            rest = {k: v for k, v in param_group.items() if k != "params"}
            named = _named(param_group["params"], self._name)
        existing = [n for g in self.param_groups for n in g["param_names"]]
        if self._keyed_by_position:
            [(named, _)], _, _ = _resolve_names([([(None, t) for _, t in named], {})], len(existing))
        else:
            # NB: names relative to the module the optimizer's own came from, when they can be
            found = iter(_traversed_names([t for n, t in named if n is _PLAIN], self._names_root)[0])
            named = [(next(found) if n is _PLAIN else n, t) for n, t in named]
            if any(n is None or n in existing for n, _ in named) or len({n for n, _ in named}) != len(named):
                raise ValueError(f"{self._name}.add_param_group: the optimizer keys its state by name, and these "
                                 "parameters have no names of their own or repeat one; pass (name, tensor) pairs")
        if self._is_python():
            self._add_param_group(named, rest)
            self._extras.append({**{k: v for k, v in self._defaults.items() if not _is_native(v)}, **extra})
            return
        self._add_param_group(named, _hyper(rest, self._name))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; with a closure, calls it (under
        enable_grad) first and returns its loss."""
        if self._is_python():
            raise NotImplementedError(f"{self._name}: an optimizer written in Python must override step()")
        loss = None
        if closure is not None:
            from ..autograd import enable_grad
            with enable_grad():
                loss = closure()
        _C.optim.Optimizer.step(self)
        return loss

    def state_dict(self) -> dict:
        """{"param_groups", "state"} keyed by parameter name (plus "keyed_by": "position" when
        the parameters had no names: see the module docstring)."""
        state = _C.optim.Optimizer.state_dict(self)
        if self._is_python():
            for saved, extra in zip(state["param_groups"], self._extras):
                saved.update(extra)
            names = {id(t): n for g in self.param_groups for n, t in zip(g["param_names"], g["params"])}
            state["state"] = {names[id(p)]: dict(entry) for p, entry in self._state.items()
                              if id(p) in names and entry}
        if self._keyed_by_position:
            state["keyed_by"] = "position"
        return state

    def load_state_dict(self, state_dict: Mapping, strict: bool = False):
        """Restores state by parameter name (see the C++ Optimizer::load_state_dict): returns
        (missing, unexpected, moved) names; strict makes unexpected names an error. State keyed by
        position loads only into an optimizer keyed by position whose parameters match it in
        number and shape (a ValueError says which differs)."""
        state_dict = dict(state_dict)
        names = [n for g in state_dict.get("param_groups", []) for n in g.get("params", [])]
        saved_positional = state_dict.pop("keyed_by", "name") == "position" or (
            bool(names) and all(isinstance(n, str) and n.startswith(_POSITION) for n in names))
        if saved_positional or self._keyed_by_position:
            self._check_positions(state_dict, saved_positional)
        if self._is_python():
            return self._load_python_state(state_dict, strict)
        return _Report(*_C.optim.Optimizer.load_state_dict(self, state_dict, strict))

    def _load_python_state(self, state_dict: dict, strict: bool) -> _Report:
        # The C++ half loads (and checks) the groups' hyperparameters it holds; the groups' other
        # entries and the per-parameter state are this side's.
        saved_groups = state_dict.get("param_groups", [])
        native_keys = [set(self._group_options(i)) for i in range(self._num_groups())]
        cpp_groups = [{k: v for k, v in g.items() if k == "params" or k in native_keys[min(i, len(native_keys) - 1)]
                       or _C.optim._is_scheduler_key(k)} for i, g in enumerate(saved_groups)]
        cpp_state = {k: v for k, v in state_dict.items() if k != "state"}
        cpp_state["param_groups"], cpp_state["state"] = cpp_groups, {}
        _, _, moved = _C.optim.Optimizer.load_state_dict(self, cpp_state, False)
        params = {n: t for g in self.param_groups for n, t in zip(g["param_names"], g["params"])}
        saved = state_dict.get("state", {})
        unexpected = sorted(str(n) for n in saved if n not in params)
        if strict and unexpected:
            raise KeyError(f"{self._name}.load_state_dict: state for parameters this optimizer does not have: "
                           f"{unexpected}")
        for extra, group, cpp in zip(self._extras, saved_groups, cpp_groups):
            extra.clear()
            extra.update({k: v for k, v in group.items() if k not in cpp})
        self._state = collections.defaultdict(dict)
        for name, entry in saved.items():
            if name in params:
                self._state[params[name]] = {k: _state_value(k, v, params[name]) for k, v in entry.items()}
        missing = [n for n in params if n not in saved]
        return _Report(missing, unexpected, list(moved))

    def _check_positions(self, state_dict: Mapping, saved_positional: bool) -> None:
        who = f"{self._name}.load_state_dict"
        if saved_positional != self._keyed_by_position:
            mine = "position" if self._keyed_by_position else "name"
            theirs = "position" if saved_positional else "name"
            raise ValueError(f"{who}: the state is keyed by {theirs} but this optimizer keys its parameters "
                             f"by {mine}; build both from the same kind of parameters (model.parameters() or "
                             "model.named_parameters())")
        saved = [len(g["params"]) for g in state_dict.get("param_groups", [])]
        mine = [len(g["param_names"]) for g in self.param_groups]
        if saved != mine:
            raise ValueError(f"{who}: state keyed by position holds groups of {saved} parameters, this optimizer "
                             f"has {mine}: the model changed, so positions would land on other parameters")
        params = [t for g in self.param_groups for t in g["params"]]
        for key, entry in state_dict.get("state", {}).items():
            digits = str(key)[len(_POSITION):]
            if not (str(key).startswith(_POSITION) and digits.isdigit() and int(digits) < len(params)):
                raise ValueError(f"{who}: state keyed by position has an entry {key!r}, not one of "
                                 f"{_POSITION}0..{_POSITION}{len(params) - 1}")
            pos = int(digits)
            for field, value in entry.items():
                if isinstance(value, Tensor) and value.dim() > 0 and list(value.shape) != list(params[pos].shape):
                    raise ValueError(f"{who}: state '{field}' of parameter {key} has shape {list(value.shape)}, "
                                     f"the parameter at that position {list(params[pos].shape)}: the model changed, "
                                     "so positions would land on other parameters")

    def __repr__(self) -> str:
        lines = [f"{self._name} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g._options()):
                lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines + [")"])


def _state_value(key: str, value: Any, param: Tensor) -> Any:
    # As PyTorch loads optimizer state: floating tensors take the parameter's dtype, "step" stays
    # as saved; copies, so that the loaded dict and the optimizer share nothing.
    if not isinstance(value, Tensor):
        return value
    if key != "step" and value.is_floating_point() and param.is_floating_point():
        value = value.to(param.dtype)
    return value.clone()


class SGD(Optimizer, _C.optim.SGD):
    """torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov, maximize); every
    built-in optimizer also takes master_weights (see the module docstring)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False,
                 master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, master_weights=master_weights, **unsupported), "SGD")
        _init(self, _C.optim.SGD, params, d, "SGD")


class Adam(Optimizer, _C.optim.Adam):
    """torch.optim.Adam(params, lr, betas, eps, weight_decay, amsgrad, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False,
                 master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, master_weights=master_weights, **unsupported), "Adam")
        _init(self, _C.optim.Adam, params, d, "Adam")


class AdamW(Optimizer, _C.optim.AdamW):
    """torch.optim.AdamW(params, lr, betas, eps, weight_decay=0.01, amsgrad, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, master_weights=master_weights, **unsupported), "AdamW")
        _init(self, _C.optim.AdamW, params, d, "AdamW")


class RMSprop(Optimizer, _C.optim.RMSprop):
    """torch.optim.RMSprop(params, lr=0.01, alpha, eps, weight_decay, momentum, centered, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False, *,
                 maximize: bool = False, master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                        centered=centered, maximize=maximize, master_weights=master_weights, **unsupported),
                   "RMSprop")
        _init(self, _C.optim.RMSprop, params, d, "RMSprop")


class Adagrad(Optimizer, _C.optim.Adagrad):
    """torch.optim.Adagrad(params, lr=0.01, lr_decay, weight_decay, initial_accumulator_value, eps,
    maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *, maximize: bool = False,
                 master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, eps=eps, maximize=maximize,
                        master_weights=master_weights, **unsupported), "Adagrad")
        _init(self, _C.optim.Adagrad, params, d, "Adagrad")


class Adadelta(Optimizer, _C.optim.Adadelta):
    """torch.optim.Adadelta(params, lr=1.0, rho, eps, weight_decay, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0.0, *, maximize: bool = False, master_weights: bool = False,
                 **unsupported):
        d = _hyper(dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        master_weights=master_weights, **unsupported), "Adadelta")
        _init(self, _C.optim.Adadelta, params, d, "Adadelta")


class Adamax(Optimizer, _C.optim.Adamax):
    """torch.optim.Adamax(params, lr=2e-3, betas, eps, weight_decay, maximize)."""

    def __init__(self, params: Iterable, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, *, maximize: bool = False, master_weights: bool = False,
                 **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        master_weights=master_weights, **unsupported), "Adamax")
        _init(self, _C.optim.Adamax, params, d, "Adamax")


class NAdam(Optimizer, _C.optim.NAdam):
    """torch.optim.NAdam(params, lr=2e-3, betas, eps, weight_decay, momentum_decay,
    decoupled_weight_decay, maximize)."""

    def __init__(self, params: Iterable, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False,
                 *, maximize: bool = False, master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        master_weights=master_weights, **unsupported), "NAdam")
        _init(self, _C.optim.NAdam, params, d, "NAdam")


class RAdam(Optimizer, _C.optim.RAdam):
    """torch.optim.RAdam(params, lr=1e-3, betas, eps, weight_decay, decoupled_weight_decay, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *, maximize: bool = False,
                 master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        master_weights=master_weights, **unsupported), "RAdam")
        _init(self, _C.optim.RAdam, params, d, "RAdam")


class Rprop(Optimizer, _C.optim.Rprop):
    """torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)."""

    def __init__(self, params: Iterable, lr: float = 1e-2, etas: tuple = (0.5, 1.2), step_sizes: tuple = (1e-6, 50),
                 *, maximize: bool = False, master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, etas=tuple(float(e) for e in etas), step_sizes=tuple(float(s) for s in step_sizes),
                        maximize=maximize, master_weights=master_weights, **unsupported), "Rprop")
        _init(self, _C.optim.Rprop, params, d, "Rprop")


class ASGD(Optimizer, _C.optim.ASGD):
    """torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, *, maximize=False)."""

    def __init__(self, params: Iterable, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0.0, *, maximize: bool = False, master_weights: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, maximize=maximize,
                        master_weights=master_weights, **unsupported), "ASGD")
        _init(self, _C.optim.ASGD, params, d, "ASGD")


class LBFGS(Optimizer, _C.optim.LBFGS):
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None (max_iter * 5 // 4), tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None or 'strong_wolfe', *, maximize=False);
    step(closure) is required. One parameter group, whose line search shows as the flag "strong_wolfe"."""

    def __init__(self, params: Iterable, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None, *, maximize: bool = False):
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        d = _hyper(dict(lr=float(lr), max_iter=float(max_iter), max_eval=float(max_eval),
                        tolerance_grad=float(tolerance_grad), tolerance_change=float(tolerance_change),
                        history_size=float(history_size), strong_wolfe=line_search_fn == "strong_wolfe",
                        maximize=maximize), "LBFGS")
        _init(self, _C.optim.LBFGS, params, d, "LBFGS")

    def add_param_group(self, param_group: Mapping) -> None:
        raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        """One optimization step: up to max_iter iterations, each calling closure() (which zeroes the
        gradients, computes the loss, calls backward and returns it) as often as the line search needs.
        Returns the loss of the first evaluation."""
        if closure is None:
            raise RuntimeError("LBFGS.step needs a closure that reevaluates the model and returns the loss")
        return _C.optim.LBFGS.step(self, closure)


from . import swa_utils  # noqa: E402,F401  (AveragedModel, SWALR, update_bn)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "LBFGS", "Rprop", "ASGD", "ParamGroup", "lr_scheduler", "swa_utils"]
