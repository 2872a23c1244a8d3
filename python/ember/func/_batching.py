"""What the batching rules (_rules.py, _rules_nn.py) and the layers under vmap (_modules.py) share:
an op as a rule sees it, the values of batched tensors and back, and the fallback that runs an op
once per sample (which warns once per op, as PyTorch's vmap does)."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, Tuple

from .. import _C
from .._C import Tensor
from ._batched import BatchedTensor, level_info


class Op:
    """An op as a rule sees it: its table key and the op itself, called on physical values."""
    __slots__ = ("name", "call")

    def __init__(self, name: str, call: Callable):
        self.name, self.call = name, call


def max_level(args: Any, kwargs: Dict[str, Any]) -> int:
    level = 0
    for x in list(args) + list(kwargs.values()):
        if isinstance(x, BatchedTensor):
            level = max(level, x._level)
        elif isinstance(x, (list, tuple)):
            for y in x:
                if isinstance(y, BatchedTensor):
                    level = max(level, y._level)
    return level


def unwrap(x: Any, level: int) -> Any:
    """x's physical value (every sample, the batch first) if x is batched at `level`, else None."""
    return x._value if isinstance(x, BatchedTensor) and x._level == level else None


def is_batched(x: Any, level: int) -> bool:
    if isinstance(x, (list, tuple)):
        return any(is_batched(y, level) for y in x)
    return isinstance(x, BatchedTensor) and x._level == level


def rebuild(like: tuple, items: list) -> tuple:
    """A tuple of `like`'s type (a named tuple, or a structseq as torch.return_types) holding items."""
    if type(like) is tuple:
        return tuple(items)
    try:
        return type(like)(*items)
    except TypeError:
        return type(like)(items)


def wrap(out: Any, level: int) -> Any:
    """An op's physical results as batched tensors of `level` (tuples, named tuples and lists kept)."""
    if isinstance(out, (Tensor, BatchedTensor)):
        return BatchedTensor(out, level)
    if isinstance(out, tuple):
        return rebuild(out, [wrap(o, level) for o in out])
    if isinstance(out, list):
        return [wrap(o, level) for o in out]
    return out


def batch_size(level: int) -> int:
    return level_info(level).size


def expanded(x: Any, level: int) -> Any:
    """x's physical value at `level`, a tensor the same for every sample expanded along a new batch dim."""
    v = unwrap(x, level)
    if v is not None:
        return v
    return x.unsqueeze(0).expand(batch_size(level), *x.shape)


def sample(x: Any, level: int, b: int) -> Any:
    """Sample b of x at `level` (x itself where it is the same for every sample), into lists and tuples."""
    if isinstance(x, BatchedTensor) and x._level == level:
        return x._value[b]
    if isinstance(x, list):
        return [sample(y, level, b) for y in x]
    if type(x) is tuple:
        return tuple(sample(y, level, b) for y in x)
    if isinstance(x, dict):
        return {k: sample(v, level, b) for k, v in x.items()}
    return x


_warned = set()


def stack_samples(outs: list, level: int, what: str) -> Any:
    """One result per sample stacked into a batched result of the same structure."""
    first = outs[0]
    if isinstance(first, (Tensor, BatchedTensor)):
        shapes = {tuple(o.shape) for o in outs}
        if len(shapes) > 1:
            raise RuntimeError(f"vmap: {what} gave results of different shapes for different samples "
                               f"({', '.join(str(list(s)) for s in sorted(shapes))}); vmap needs one shape")
        return BatchedTensor(_C.stack(outs), level)
    if isinstance(first, (tuple, list)):
        parts = [stack_samples([o[i] for o in outs], level, what) for i in range(len(first))]
        return parts if isinstance(first, list) else rebuild(first, parts)
    if isinstance(first, dict):
        return {k: stack_samples([o[k] for o in outs], level, what) for k in first}
    if first is None and all(o is None for o in outs):
        return None
    raise RuntimeError(f"vmap: {what} returns a {type(first).__name__} per sample, not a tensor; vmap can only "
                       "return tensors (compute it outside vmap, or with tensor ops)")


def warn_fallback(name: str) -> None:
    """Once per op (or layer): it has no batching rule, so it runs once per sample."""
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"vmap: there is a performance drop because {name} has no batching rule yet: it runs once "
                      "per sample", UserWarning, stacklevel=5)


def loop(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """The fallback for an op without a batching rule: the op once per sample, the results stacked."""
    warn_fallback(op.name)
    inplace = op.name.endswith("_") and not op.name.endswith("__")
    if inplace and not is_batched(args[0], level):
        refuse_inplace(op, level)
    size = batch_size(level)
    outs = [op.call(*sample(list(args), level, b), **sample(kwargs, level, b)) for b in range(size)]
    if inplace:
        return args[0]  # in place: each sample was written through its view
    return stack_samples(outs, level, op.name)


def refuse_inplace(op: Op, level: int) -> None:
    raise RuntimeError(f"vmap: {op.name}(self, ...) would write values that differ per sample into a tensor that is "
                       "the same for every sample (self is not batched, another argument is); write into a batched "
                       "tensor, or use the out-of-place op")
