"""ember.optim: optimizers with PyTorch's constructor signatures (torch.optim).

Ember keys parameters and optimizer state by NAME, never by position, so a checkpoint lands on the
right parameter after the model gained, lost or reordered parameters. So an optimizer takes named
parameters:

    opt = ember.optim.Adam(model.named_parameters(), lr=1e-3)
    opt = ember.optim.SGD([{"params": model.body.named_parameters(prefix="body"), "lr": 0.1},
                           {"params": [("head.w", w)]}], lr=0.01, momentum=0.9)

`params` is an iterable of (name, tensor) pairs (what Module.named_parameters() yields, or a
dict name -> tensor), or a list of param-group dicts whose "params" is such an iterable. Plain
tensors (model.parameters()) are refused with a TypeError: Ember does not invent names for them.

opt.param_groups is a list of dict-like views: opt.param_groups[0]["lr"] = 0.01 writes the new lr
into the optimizer. state_dict() is {"type", "param_groups": [{..., "params": [names]}], "state":
{name: {"step": ..., ...}}}, plain containers that ember.io.save writes as they are.
"""
from __future__ import annotations

import collections
from collections.abc import Mapping, MutableMapping
from typing import Any, Callable, Iterable

from .. import _C
from .._C import Tensor
from . import lr_scheduler  # noqa: F401

def _named(params: Any, who: str) -> list:
    if isinstance(params, Tensor):
        raise TypeError(f"{who}: params must be an iterable of (name, tensor) pairs, got a Tensor")
    if isinstance(params, Mapping):
        params = params.items()
    out = []
    for item in params:
        if isinstance(item, Tensor):
            raise TypeError(
                f"{who}: got a plain tensor where a (name, tensor) pair was expected. Ember keys "
                f"optimizer state by parameter name, so pass model.named_parameters() instead of "
                f"model.parameters() (or (name, tensor) pairs, or a dict name -> tensor).")
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], Tensor)):
            raise TypeError(f"{who}: expected (name, tensor) pairs, got {type(item).__name__}")
        out.append((item[0], item[1]))
    return out


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
        raise TypeError(f"{who}: params must be named parameters or param-group dicts, got a Tensor")
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


class ParamGroup(MutableMapping):
    """A live view of one parameter group: reading and writing hyperparameters ("lr", ...) reads
    and writes the optimizer's. "params" holds the tensors and "param_names" their names."""

    def __init__(self, optimizer: Optimizer, index: int):
        self._opt, self._index = optimizer, index

    def _options(self) -> dict:
        return self._opt._group_options(self._index)

    def __getitem__(self, key: str) -> Any:
        if key == "params":
            return [t for _, t in self._opt._group_params(self._index)]
        if key == "param_names":
            return [n for n, _ in self._opt._group_params(self._index)]
        return self._options()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key in ("params", "param_names"):
            raise TypeError(f"can't set '{key}' of a parameter group (use add_param_group)")
        for k, v in _hyper({key: value}, self._opt._name).items():
            self._opt._set_group_option(self._index, k, v)

    def __delitem__(self, key: str) -> None:
        raise TypeError("can't delete hyperparameters of a parameter group")

    def __iter__(self):
        yield "params"
        yield "param_names"
        yield from self._options()

    def __len__(self) -> int:
        return len(self._options()) + 2

    def __repr__(self) -> str:
        return repr({k: self[k] for k in self if k != "params"})


_Report = collections.namedtuple("OptimizerLoadReport", ["missing", "unexpected", "moved"])


class Optimizer(_C.optim.Optimizer):
    """The base of Ember's optimizers (torch.optim.Optimizer's API over the C++ optimizer): the
    live param_groups views, add_param_group, step(closure), load_state_dict's report and repr.
    Each optimizer below derives from it and from its C++ class."""

    @property
    def param_groups(self) -> list:
        return [ParamGroup(self, i) for i in range(self._num_groups())]

    def add_param_group(self, param_group: Mapping) -> None:
        """Adds a group {"params": named parameters, hyperparameter: value, ...}."""
        rest = {k: v for k, v in param_group.items() if k != "params"}
        self._add_param_group(_named(param_group["params"], self._name), _hyper(rest, self._name))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; with a closure, calls it (under
        enable_grad) first and returns its loss."""
        loss = None
        if closure is not None:
            from ..autograd import enable_grad
            with enable_grad():
                loss = closure()
        _C.optim.Optimizer.step(self)
        return loss

    def load_state_dict(self, state_dict: Mapping, strict: bool = False):
        """Restores state by parameter name (see the C++ Optimizer::load_state_dict): returns
        (missing, unexpected, moved) names; strict makes unexpected names an error."""
        return _Report(*_C.optim.Optimizer.load_state_dict(self, state_dict, strict))

    def __repr__(self) -> str:
        lines = [f"{self._name} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g._options()):
                lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines + [")"])


class SGD(Optimizer, _C.optim.SGD):
    """torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, **unsupported), "SGD")
        _C.optim.SGD.__init__(self, _groups(params, "SGD"), d)


class Adam(Optimizer, _C.optim.Adam):
    """torch.optim.Adam(params, lr, betas, eps, weight_decay, amsgrad, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, **unsupported), "Adam")
        _C.optim.Adam.__init__(self, _groups(params, "Adam"), d)


class AdamW(Optimizer, _C.optim.AdamW):
    """torch.optim.AdamW(params, lr, betas, eps, weight_decay=0.01, amsgrad, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, **unsupported), "AdamW")
        _C.optim.AdamW.__init__(self, _groups(params, "AdamW"), d)


class RMSprop(Optimizer, _C.optim.RMSprop):
    """torch.optim.RMSprop(params, lr=0.01, alpha, eps, weight_decay, momentum, centered, maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False, *,
                 maximize: bool = False, **unsupported):
        d = _hyper(dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                        centered=centered, maximize=maximize, **unsupported), "RMSprop")
        _C.optim.RMSprop.__init__(self, _groups(params, "RMSprop"), d)


class Adagrad(Optimizer, _C.optim.Adagrad):
    """torch.optim.Adagrad(params, lr=0.01, lr_decay, weight_decay, initial_accumulator_value, eps,
    maximize)."""

    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *, maximize: bool = False,
                 **unsupported):
        d = _hyper(dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, eps=eps, maximize=maximize,
                        **unsupported), "Adagrad")
        _C.optim.Adagrad.__init__(self, _groups(params, "Adagrad"), d)


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "ParamGroup", "lr_scheduler"]
