"""The vmap dispatcher: an op called with batched tensors (_batched.py) runs once on the whole
batch through its batching rule (_rules.py), or, where an op has none, once per sample (the loop
fallback, which warns once per op, as PyTorch's vmap does).

dispatch(name, args, kwargs) is what the bindings call (python/src/batched_dispatch.cpp) with the
op's qualified binding name: "sin", "Tensor.sum", "nn.functional.linear", "linalg.inv",
"Tensor.__add__". The rule gets the op's name (the table key) and a callable of the op on the
physical values (every sample at once, the batch first)."""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Dict, Tuple

from .. import _C
from . import _batched
from ._batching import Op, max_level
from ._modules import call_module
from ._rules import rule_for


# Tensor operators: the rule key of each, and the operator itself (which also reflects, so a
# physical value that is a batched tensor of an outer vmap works too).
_OPERATORS: Dict[str, Tuple[str, Callable]] = {
    "add": ("add", operator.add), "sub": ("sub", operator.sub), "mul": ("mul", operator.mul),
    "truediv": ("div", operator.truediv), "floordiv": ("floor_divide", operator.floordiv),
    "mod": ("remainder", operator.mod), "pow": ("pow", operator.pow), "matmul": ("matmul", operator.matmul),
    "and": ("bitwise_and", operator.and_), "or": ("bitwise_or", operator.or_),
    "xor": ("bitwise_xor", operator.xor), "lshift": ("bitwise_left_shift", operator.lshift),
    "rshift": ("bitwise_right_shift", operator.rshift),
}
_INPLACE_OPERATORS = {"add": operator.iadd, "sub": operator.isub, "mul": operator.imul, "truediv": operator.itruediv,
                      "floordiv": operator.ifloordiv, "mod": operator.imod, "pow": operator.ipow,
                      "matmul": operator.imatmul, "and": operator.iand, "or": operator.ior, "xor": operator.ixor,
                      "lshift": operator.ilshift, "rshift": operator.irshift}
_UNARY_OPERATORS = {"neg": ("neg", operator.neg), "pos": ("positive", operator.pos), "abs": ("abs", operator.abs),
                    "invert": ("bitwise_not", operator.invert)}
_COMPARISONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
                "ge": operator.ge}


def _method(name: str) -> Callable:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, name)(*args, **kwargs)
    return call


@functools.lru_cache(maxsize=None)
def resolve(qualified: str) -> Tuple[Op, bool]:
    """The op behind a binding name, and whether its first two arguments come swapped (x.__rsub__(y) is y - x)."""
    if qualified.startswith("Tensor."):
        name = qualified[len("Tensor."):]
        if name.startswith("__") and name.endswith("__"):
            core = name[2:-2]
            if core in ("getitem", "setitem"):
                return Op(name, getattr(operator, core)), False
            if core in _OPERATORS:
                key, fn = _OPERATORS[core]
                return Op(key, fn), False
            if core.startswith("r") and core[1:] in _OPERATORS:
                key, fn = _OPERATORS[core[1:]]
                return Op(key, fn), True
            if core.startswith("i") and core[1:] in _INPLACE_OPERATORS:
                return Op(_OPERATORS[core[1:]][0] + "_", _INPLACE_OPERATORS[core[1:]]), False
            if core in _UNARY_OPERATORS:
                key, fn = _UNARY_OPERATORS[core]
                return Op(key, fn), False
            if core in _COMPARISONS:
                return Op(core, _COMPARISONS[core]), False
        return Op(name, _method(name)), False
    module, _, name = qualified.rpartition(".")
    owner = _C
    for part in module.split(".") if module else []:
        owner = getattr(owner, part)
    key = name if module in ("", "nn.functional") else qualified
    return Op(key, getattr(owner, name)), False


def dispatch(qualified: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if qualified == "Module.__call__":
        return call_module(args[0], args[1:], kwargs)
    op, swapped = resolve(qualified)
    if swapped:
        args = (args[1], args[0]) + tuple(args[2:])
    level = max_level(args, kwargs)
    if level == 0:  # NB: nothing batched (a batched tensor of this vmap's own making was unwrapped)
        return op.call(*args, **kwargs)
    return rule_for(op.name)(op, level, args, kwargs)


_batched.dispatcher = dispatch  # what a batched tensor's methods and operators call
