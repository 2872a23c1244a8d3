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


def _dims_per_leaf(in_dims: Any, tree: Any, where: str) -> List[Any]:
    """in_dims broadcast over one argument's structure: one entry per leaf of flatten(tree)."""
    if in_dims is None or isinstance(in_dims, int):
        leaves, _ = flatten(tree)
        return [in_dims] * len(leaves)
    if isinstance(in_dims, (tuple, list)) and isinstance(tree, (tuple, list)) and len(in_dims) == len(tree):
        return [d for sub_dims, sub in zip(in_dims, tree) for d in _dims_per_leaf(sub_dims, sub, where)]
    if isinstance(in_dims, dict) and isinstance(tree, dict) and set(in_dims) == set(tree):
        return [d for k in tree for d in _dims_per_leaf(in_dims[k], tree[k], where)]
    raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...): in_dims is not compatible with the structure of "
                     f"`inputs`: in_dims has structure {type(in_dims).__name__} but inputs has structure "
                     f"{type(tree).__name__}")


def _non_tensor_leaves(tree: Any) -> List[Any]:
    """The non-tensor values flatten leaves in the spec (an in_dim for one of them is an error)."""
    out = []

    def walk(node: Any) -> None:
        if _is_tensor(node):
            return
        if isinstance(node, (tuple, list)):
            for x in node:
                walk(x)
        elif isinstance(node, dict):
            for x in node.values():
                walk(x)
        else:
            out.append(node)
    walk(tree)
    return out


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
        if isinstance(in_dims, (tuple, list)):
            if len(in_dims) != len(args):
                raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not compatible with "
                                 f"the structure of `inputs`. in_dims has structure {len(in_dims)} entries but "
                                 f"inputs has {len(args)} positional arguments")
            dims = _dims_per_leaf(tuple(in_dims), tuple(args), where)
        elif in_dims is None or isinstance(in_dims, int):
            dims = _dims_per_leaf(in_dims, tuple(args), where)
        else:
            raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...): expected `in_dims` to be int or a (potentially "
                             f"nested) tuple matching the structure of inputs, got: {type(in_dims).__name__}.")
        leaves, spec = flatten(tuple(args))
        if isinstance(in_dims, (tuple, list)):
            _check_non_tensors(in_dims, args, where)
        elif isinstance(in_dims, int) and _non_tensor_leaves(args):
            bad = _non_tensor_leaves(args)[0]
            raise ValueError(f"vmap({where}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dims} for an input but "
                             f"the input is of type {type(bad)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
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


def _check_non_tensors(in_dims: Any, args: Any, where: str) -> None:
    for d, a in zip(in_dims, args):
        if isinstance(d, int) and not _is_tensor(a) and not isinstance(a, (tuple, list, dict)):
            raise ValueError(f"vmap({where}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for an input but the "
                             f"input is of type {type(a)}. We cannot vmap over non-Tensor arguments, please use None "
                             "as the respective in_dim")


def _run(func: Callable, where: str, moved: List[Any], dims: List[Any], spec: Any, kwargs: dict, size: int,
         out_dims: Any, randomness: str) -> Any:
    level = next(_next_level)
    _batched.running().append(_Level(level, size, randomness))
    _count_running(+1)
    try:
        inputs = [BatchedTensor(m, level) if d is not None else m for m, d in zip(moved, dims)]
        out = func(*unflatten(inputs, spec), **kwargs)
        return _unbatch(out, level, size, out_dims, where)
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


def _unbatch(out: Any, level: int, size: int, out_dims: Any, where: str) -> Any:
    leaves, spec = flatten(out)
    if not leaves and not isinstance(out, (tuple, list, dict)) or _non_tensor_leaves(out):
        bad = out if not _non_tensor_leaves(out) else _non_tensor_leaves(out)[0]
        raise ValueError(f"vmap({where}, ...): `{where}` must only return Tensors, got type {type(bad)}. Did you mean "
                         "to set out_dims= to None for output?")
    if isinstance(out_dims, (tuple, list)) and isinstance(out, (tuple, list)):
        if len(out_dims) != len(out):
            raise ValueError(f"vmap({where}, ..., out_dims={out_dims!r})(<inputs>): out_dims is not compatible with "
                             f"the structure of `outputs`. out_dims has structure {len(out_dims)} entries but "
                             f"outputs has {len(out)}")
        dims = [d for sub_dims, sub in zip(out_dims, out) for d in _dims_per_leaf(sub_dims, sub, where)]
    elif out_dims is None or isinstance(out_dims, int):
        dims = [out_dims] * len(leaves)
    else:
        dims = _dims_per_leaf(out_dims, out, where)
    result = []
    for leaf, d in zip(leaves, dims):
        batched = isinstance(leaf, BatchedTensor) and leaf._level == level
        if d is None:
            if batched:
                raise ValueError(f"vmap({where}, ..., out_dims=None): the output is batched (it differs per sample), "
                                 "so out_dims cannot be None for it")
            result.append(leaf)
            continue
        value = leaf._value if batched else leaf.unsqueeze(0).expand(size, *leaf.shape)
        n = value.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({where}, ..., out_dims={out_dims!r}): Dimension out of range for an output of "
                             f"{n - 1} dims (expected out_dim in [{-n}, {n - 1}], got {d})")
        result.append(value.movedim(0, d) if d % n != 0 else value)
    return unflatten(result, spec)


def _concat(parts: List[Any], out_dims: Any) -> Any:
    first_leaves, spec = flatten(parts[0])
    all_leaves = [flatten(p)[0] for p in parts]
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(first_leaves)
    else:
        dims = [d for sub_dims, sub in zip(out_dims, parts[0]) for d in _dims_per_leaf(sub_dims, sub, "vmap")]
    joined = [leaves[0] if d is None else _C.cat(list(leaves), d) for d, leaves in zip(dims, zip(*all_leaves))]
    return unflatten(joined, spec)
