"""vmap: a function of one sample run on a batch of samples at once.

    per_sample_grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)

The mapped inputs become batched tensors (_batched.py) whose ops run once on the whole batch
through batching rules (_rules.py, _rules_nn.py); the outputs get the batch back at out_dims."""
from __future__ import annotations

import functools
import itertools
import threading
from typing import Any, Callable, List, Optional, Tuple, Union

from .. import _C
from .._C import Tensor
from ..autograd._tree import flatten, unflatten
from . import _batched
from . import _rules_nn  # noqa: F401  (registers nn.functional's rules)
from ._batched import BatchedTensor, _Level
from ._batching import expanded
from ._dispatch import dispatch

_InDims = Union[int, None, Tuple[Any, ...]]
_next_level = itertools.count(1)
_installed = False


def _install() -> None:
    global _installed
    if not _installed:
        _C._install_batched_dispatch(BatchedTensor, dispatch)
        _installed = True


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, BatchedTensor))


def _dims_per_leaf(dims: Any, tree: Any, where: str, what: str = "in_dims") -> List[Any]:
    """dims (in_dims or out_dims) broadcast over tree's structure: one entry per leaf of
    flatten(tree). A non-tensor value that an int maps is an error (only tensors have dims)."""
    if dims is None or isinstance(dims, int):
        if dims is not None:
            for value in _non_tensors(tree):
                raise ValueError(f"vmap({where}, {what}={dims}, ...)(<inputs>): Got {what[:-1]}={dims} for an input "
                                 f"but the input is of type {type(value)}. We cannot vmap over non-Tensor arguments, "
                                 f"please use None as the respective {what[:-1]}")
        return [dims] * len(flatten(tree)[0])
    if isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(dims) != len(tree):
            raise ValueError(f"vmap({where}, {what}={dims!r}, ...)(<inputs>): {what} is not compatible with the "
                             f"structure of `{'inputs' if what == 'in_dims' else 'outputs'}`. {what} has structure "
                             f"{len(dims)} entries but it has {len(tree)}")
        return [d for sub_dims, sub in zip(dims, tree) for d in _dims_per_leaf(sub_dims, sub, where, what)]
    if isinstance(dims, dict) and isinstance(tree, dict) and set(dims) == set(tree):
        return [d for k in tree for d in _dims_per_leaf(dims[k], tree[k], where, what)]
    raise ValueError(f"vmap({where}, {what}={dims!r}, ...): {what} is not compatible with the structure of "
                     f"`{'inputs' if what == 'in_dims' else 'outputs'}`: {what} has structure {type(dims).__name__} "
                     f"but it has structure {type(tree).__name__}")


def _non_tensors(tree: Any) -> List[Any]:
    """The values of tree (tuples, lists and dicts of them) that are not tensors."""
    if _is_tensor(tree):
        return []
    if isinstance(tree, (tuple, list)):
        return [x for item in tree for x in _non_tensors(item)]
    if isinstance(tree, dict):
        return [x for item in tree.values() for x in _non_tensors(item)]
    return [tree]


def _name(func: Callable) -> str:
    return getattr(func, "__name__", type(func).__name__)


def vmap(func: Callable, in_dims: _InDims = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Optional[int] = None) -> Callable:
    """func mapped over dim in_dims of its inputs (an int or None for all, or one entry per
    positional argument, nested as the argument is; None: the same for every sample), its outputs
    stacked along out_dims. Keyword arguments are not mapped. randomness: "error" (random ops
    raise), "different" (each sample draws its own) or "same" (one draw for all). chunk_size: run
    that many samples at a time (less memory)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _install()
        where = _name(func)
        if not (in_dims is None or isinstance(in_dims, (int, tuple, list))):
            raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...): expected `in_dims` to be int or a (potentially "
                             f"nested) tuple matching the structure of inputs, got: {type(in_dims).__name__}.")
        dims = _dims_per_leaf(tuple(in_dims) if isinstance(in_dims, list) else in_dims, tuple(args), where)
        leaves, spec = flatten(tuple(args))
        sizes = []
        for leaf, d in zip(leaves, dims):
            if d is None:
                continue
            n = leaf.dim()
            if not -max(n, 1) <= d < max(n, 1) or n == 0:
                raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for some input, "
                                 f"but that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
                                 f"-{n} <= in_dim < {n}.")
            sizes.append(leaf.shape[d])
        if not sizes:
            raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...)(<inputs>): at least one input must be mapped "
                             "over (got in_dims=None for all inputs)")
        if len(set(sizes)) > 1:
            raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...)(<inputs>): Expected all tensors to have the "
                             f"same size in the mapped dimension, got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        moved = [leaf.movedim(d, 0) if d is not None else leaf for leaf, d in zip(leaves, dims)]
        if chunk_size is None or chunk_size >= size:
            return _run(func, where, moved, dims, spec, kwargs, size, out_dims, randomness)
        parts = []
        for start in range(0, size, chunk_size):
            n = min(chunk_size, size - start)
            chunk = [m.narrow(0, start, n) if d is not None else m for m, d in zip(moved, dims)]
            parts.append(_run(func, where, chunk, dims, spec, kwargs, n, out_dims, randomness))
        return _concat(parts, out_dims)
    return wrapped


def _run(func: Callable, where: str, moved: List[Any], dims: List[Any], spec: Any, kwargs: dict, size: int,
         out_dims: Any, randomness: str) -> Any:
    level = next(_next_level)
    _batched.running().append(_Level(level, size, randomness))
    _count_running(+1)
    try:
        inputs = [BatchedTensor(m, level) if d is not None else m for m, d in zip(moved, dims)]
        out = func(*unflatten(inputs, spec), **kwargs)
        return _unbatch(out, level, out_dims, where)
    finally:
        _batched.running().pop()
        _count_running(-1)


_all_running = 0  # vmaps running on every thread: Module.__call__ asks the dispatcher while any does
_all_running_lock = threading.Lock()


def _count_running(change: int) -> None:
    global _all_running
    with _all_running_lock:
        _all_running += change
        _C._set_vmap_depth(_all_running)


def _unbatch(out: Any, level: int, out_dims: Any, where: str) -> Any:
    leaves, spec = flatten(out)
    bad = _non_tensors(out) if isinstance(out, (tuple, list, dict)) else ([] if _is_tensor(out) else [out])
    if bad:
        raise ValueError(f"vmap({where}, ...): `{where}` must only return Tensors, got type {type(bad[0])}. Did you "
                         "mean to set out_dims= to None for output?")
    dims = _dims_per_leaf(out_dims, out, where, "out_dims")
    result = []
    for leaf, d in zip(leaves, dims):
        batched = isinstance(leaf, BatchedTensor) and leaf._level == level
        if d is None:
            if batched:
                raise ValueError(f"vmap({where}, ..., out_dims=None): the output is batched (it differs per sample), "
                                 "so out_dims cannot be None for it")
            result.append(leaf)
            continue
        value = expanded(leaf, level)
        n = value.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({where}, ..., out_dims={out_dims!r}): Dimension out of range for an output of "
                             f"{n - 1} dims (expected out_dim in [{-n}, {n - 1}], got {d})")
        result.append(value.movedim(0, d) if d % n != 0 else value)
    return unflatten(result, spec)


def _concat(parts: List[Any], out_dims: Any) -> Any:
    """The chunks' outputs joined along their out_dims."""
    _, spec = flatten(parts[0])
    dims = _dims_per_leaf(out_dims, parts[0], "vmap", "out_dims")
    columns = zip(*[flatten(p)[0] for p in parts])
    return unflatten([leaves[0] if d is None else _C.cat(list(leaves), d) for d, leaves in zip(dims, columns)], spec)
