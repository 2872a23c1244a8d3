"""The containers of tensors the function transforms take and give (tensors in tuples, lists and
dicts, to any depth), flattened to a list of leaves and rebuilt from one."""
from __future__ import annotations

from typing import Any, List, Tuple

from .._C import Tensor


def flatten(tree: Any) -> Tuple[List[Tensor], Any]:
    """The tensors of `tree` in order, and its spec for unflatten. Non-tensor leaves stay in the spec."""
    leaves: List[Tensor] = []

    def walk(node: Any) -> Any:
        if isinstance(node, Tensor) or getattr(type(node), "_ember_batched", False):  # a vmap's batched tensor too
            leaves.append(node)
            return ("tensor",)
        if isinstance(node, (tuple, list)):
            return (type(node), [walk(x) for x in node])
        if isinstance(node, dict):
            return (dict, list(node.keys()), [walk(x) for x in node.values()])
        return ("const", node)

    return leaves, walk(tree)


def unflatten(leaves: List[Any], spec: Any) -> Any:
    it = iter(leaves)

    def build(s: Any) -> Any:
        if s[0] == "tensor":
            return next(it)
        if s[0] == "const":
            return s[1]
        if s[0] is dict:
            return {k: build(v) for k, v in zip(s[1], s[2])}
        items = [build(x) for x in s[1]]
        return s[0](items) if s[0] in (tuple, list) else s[0](*items)  # namedtuples take fields

    return build(spec)
