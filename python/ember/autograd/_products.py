"""The one mechanism under every transform of ember.func and ember.autograd.functional: inputs
tracked as fresh graph leaves (or, where they already take part in a graph, as views of themselves,
so an outer transform or backward() differentiates through the inner one), the function run with
grad mode on, and autograd.grad on the result. Forward-mode products (jvp) are reverse-mode twice:
g = J^T u for a dummy u, then d(g . t)/du = J t, so every op with a double backward has one."""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from .. import _C
from .._C import Tensor
from .grad_mode import enable_grad


def _grad(outputs, inputs, grad_outputs, retain_graph: bool, create_graph: bool, allow_unused: bool):
    return _C._autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


def track(t: Any, what: str) -> Tuple[Tensor, bool]:
    """A leaf to differentiate by, and whether t was in a graph already (then results keep theirs)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: expected tensors to differentiate by, got {type(t).__name__}")
    if not (t.is_floating_point() or t.is_complex()):
        raise TypeError(f"{what}: only floating-point tensors can be differentiated by, got one of dtype {t.dtype}")
    if t.requires_grad:
        return t.view_as(t), True
    return t.detach().requires_grad_(), False


def track_all(leaves: Sequence[Any], what: str) -> Tuple[List[Tensor], bool]:
    tracked, nested = [], False
    for leaf in leaves:
        t, n = track(leaf, what)
        tracked.append(t)
        nested = nested or n
    return tracked, nested


def run(func: Any, args: Sequence[Any], kwargs: dict) -> Any:
    with enable_grad():  # NB: a transform differentiates even under an outer no_grad, as PyTorch's
        return func(*args, **kwargs)


def vjp_leaves(outputs: List[Tensor], inputs: List[Tensor], cotangents: List[Tensor], keep_graph: bool) -> List[Tensor]:
    """sum_i cotangent_i . d outputs_i / d inputs, with zeros for inputs the outputs do not reach."""
    live = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not live:
        return [_C.zeros_like(x) for x in inputs]
    grads = _grad([o for o, _ in live], inputs, [c for _, c in live], True, keep_graph, True)
    return [_C.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def jvp_leaves(outputs: List[Tensor], inputs: List[Tensor], tangents: List[Tensor], keep_graph: bool) -> List[Tensor]:
    """d outputs / d inputs . tangents, by reverse mode twice (the module docstring)."""
    live = [o for o in outputs if o.requires_grad]
    if not live:
        return [_C.zeros_like(o) for o in outputs]
    dummies = [_C.zeros_like(o).requires_grad_() for o in live]
    transposed = _grad(live, inputs, dummies, True, True, True)
    pairs = [(g, t) for g, t in zip(transposed, tangents) if g is not None and g.requires_grad]
    if not pairs:
        products = [None] * len(dummies)
    else:
        products = list(_grad([g for g, _ in pairs], dummies, [t for _, t in pairs], True, keep_graph, True))
    out, k = [], 0
    for o in outputs:
        if o.requires_grad:
            p = products[k]
            k += 1
            out.append(_C.zeros_like(o) if p is None else p)
        else:
            out.append(_C.zeros_like(o))
    return out


def check_like(what: str, name: str, given: List[Tensor], like: List[Tensor]) -> None:
    if len(given) != len(like):
        raise ValueError(f"{what}: expected {len(like)} {name} (one per tensor), got {len(given)}")
    for i, (g, x) in enumerate(zip(given, like)):
        if not isinstance(g, Tensor) and not getattr(type(g), "_ember_batched", False):
            raise TypeError(f"{what}: {name} {i} must be a tensor, got {type(g).__name__}")
        if tuple(g.shape) != tuple(x.shape):
            raise ValueError(f"{what}: {name} {i} has shape {list(g.shape)}, but the tensor it goes with has shape "
                             f"{list(x.shape)}")


def jacobian_blocks(outputs: List[Tensor], inputs: List[Tensor], keep_graph: bool, forward: bool,
                    batch_dims: int = 0) -> List[List[Tensor]]:
    """d outputs[o] / d inputs[k] as blocks [o][k] of shape outputs[o].shape + inputs[k].shape: one
    vjp per output element (reverse) or one jvp per input element (forward). With batch_dims, the
    first that many dims of every tensor index independent samples (a vmap's, ember/func/_lift.py):
    each product runs on all of them at once, and the blocks are [*batch, *output, *input]."""
    blocks = [[None] * len(inputs) for _ in outputs]
    if not outputs:
        return blocks
    batch = tuple((outputs + inputs)[0].shape[:batch_dims])
    if not forward:
        for o, out in enumerate(outputs):
            flat = out.reshape(*batch, -1)
            rows = [[] for _ in inputs]
            for i in range(flat.shape[-1]):
                basis = _C.zeros_like(flat)
                basis[(Ellipsis, i)] = 1.0
                for k, g in enumerate(vjp_leaves([flat], inputs, [basis], keep_graph)):
                    rows[k].append(g.reshape(*batch, -1))
            for k, x in enumerate(inputs):
                size = 1
                for s in x.shape[batch_dims:]:
                    size *= s
                block = _C.stack(rows[k], batch_dims) if rows[k] else _C.zeros(*batch, 0, size, dtype=x.dtype)
                blocks[o][k] = block.reshape(*batch, *out.shape[batch_dims:], *x.shape[batch_dims:])
        return blocks
    columns = [[[] for _ in inputs] for _ in outputs]
    for k, x in enumerate(inputs):
        per_sample = 1
        for s in x.shape[batch_dims:]:
            per_sample *= s
        for j in range(per_sample):
            tangents = [_C.zeros_like(t) for t in inputs]
            tangents[k].reshape(*batch, -1)[(Ellipsis, j)] = 1.0
            for o, p in enumerate(jvp_leaves(outputs, inputs, tangents, keep_graph)):
                columns[o][k].append(p.reshape(*batch, -1))
    for o, out in enumerate(outputs):
        for k, x in enumerate(inputs):
            cols = columns[o][k]
            size = 1
            for s in out.shape[batch_dims:]:
                size *= s
            block = _C.stack(cols, batch_dims + 1) if cols else _C.zeros(*batch, size, 0, dtype=out.dtype)
            blocks[o][k] = block.reshape(*batch, *out.shape[batch_dims:], *x.shape[batch_dims:])
    return blocks
