"""torch.autograd.functional: Jacobians, Hessians and their products with vectors, of a function
of tensors (or tuples of tensors), on the mechanism of ember.func (ember/autograd/_products.py).

    jac = ember.autograd.functional.jacobian(f, x)                 # shape f(x).shape + x.shape
    out, hv = ember.autograd.functional.hvp(loss, params, v)

Results are detached unless create_graph=True; strict=True raises where an output does not depend
on an input (PyTorch's message), instead of giving zeros. vectorize and strategy are accepted:
both strategies give the same values (forward mode is reverse mode twice here).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence, Tuple

from .._C import Tensor
from . import _products as _core

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(what: str, name: str, x: Any) -> Tuple[Tuple[Tensor, ...], bool]:
    is_tuple = isinstance(x, (tuple, list))
    items = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: the {name} must be a tensor or a tuple of tensors, but {name} {i} is a "
                            f"{type(t).__name__}")
    return items, is_tuple


def _shaped(items: Tuple[Any, ...], is_tuple: bool) -> Any:
    return items if is_tuple else items[0]


def _call(what: str, func: Callable, inputs: Any, create_graph: bool):
    xs, inputs_tuple = _as_tuple(what, "inputs", inputs)
    tracked = []
    for x in xs:
        t, _ = _core.track(x, what)
        if not create_graph and x.requires_grad:  # a fresh leaf: nothing flows back to the caller's graph
            t = x.detach().requires_grad_()
        tracked.append(t)
    out = _core.run(func, tracked, {})
    outs, outputs_tuple = _as_tuple(what, "outputs of the user-provided function", out)
    return tracked, inputs_tuple, outs, outputs_tuple


def _check_strict(what: str, outs, strict: bool) -> None:
    for i, o in enumerate(outs):
        if strict and not o.requires_grad:
            raise RuntimeError(f"{what}: output {i} of the user-provided function is independent of input 0. This is "
                               "not allowed in strict mode.")


def _finish(items, create_graph: bool):
    return tuple(t if create_graph else t.detach() for t in items)


def _vectors(what: str, v: Any, like: Sequence[Tensor], of: str) -> list:
    """v as a list shaped like `like` (the outputs or the inputs); None stands for ones where `like`
    is a single one-element tensor."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"{what}: v can be None only when {of} is a single one-element tensor")
        return [like[0].new_ones(like[0].shape)]
    vs, _ = _as_tuple(what, "v", v)
    vs = list(vs)
    _core.check_like(what, "v", vs, list(like))
    return vs


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v . d func / d inputs); v may be None for an output of one element."""
    xs, inputs_tuple, outs, outputs_tuple = _call("vjp", func, inputs, create_graph)
    vs = _vectors("vjp", v, outs, "the function's output")
    _check_strict("vjp", outs, strict)
    grads = _core.vjp_leaves(list(outs), xs, vs, create_graph)
    return _shaped(_finish(outs, create_graph), outputs_tuple), _shaped(_finish(grads, create_graph), inputs_tuple)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), d func / d inputs . v); v may be None for an input of one element."""
    xs, inputs_tuple, outs, outputs_tuple = _call("jvp", func, inputs, create_graph)
    vs = _vectors("jvp", v, xs, "the input")
    _check_strict("jvp", outs, strict)
    products = _core.jvp_leaves(list(outs), xs, vs, create_graph)
    return _shaped(_finish(outs, create_graph), outputs_tuple), _shaped(_finish(products, create_graph), outputs_tuple)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """d func / d inputs: for one input and one output a tensor of shape output + input; a tuple
    per input where inputs is a tuple, inside a tuple per output where the function returns one."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f'jacobian: strategy must be "reverse-mode" or "forward-mode", got {strategy!r}')
    xs, inputs_tuple, outs, outputs_tuple = _call("jacobian", func, inputs, create_graph)
    _check_strict("jacobian", outs, strict)
    blocks = _core.jacobian_blocks(list(outs), xs, create_graph, forward=strategy == "forward-mode")
    rows = tuple(_shaped(_finish(row, create_graph), inputs_tuple) for row in blocks)
    return _shaped(rows, outputs_tuple)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of func's one-element output: for one input of shape I a tensor of shape I + I;
    for a tuple of inputs a tuple of tuples (block [i][j] of shape I_i + I_j)."""
    xs, inputs_tuple, outs, _ = _call("hessian", func, inputs, True)
    if len(outs) != 1 or outs[0].numel() != 1:
        raise RuntimeError("hessian: the function given to hessian should return a single one-element tensor")
    _check_strict("hessian", outs, strict)
    grads = _core.vjp_leaves([outs[0]], xs, [outs[0].new_ones(outs[0].shape)], True)
    blocks = _core.jacobian_blocks(grads, xs, create_graph, forward=outer_jacobian_strategy == "forward-mode")
    rows = tuple(_finish(row, create_graph) for row in blocks)
    return rows if inputs_tuple else rows[0][0]


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v . H), H the Hessian of func's one-element output."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H . v); H is symmetric, so the same values as vhp."""
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(what: str, func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool):
    xs, inputs_tuple = _as_tuple(what, "inputs", inputs)
    tracked = [x.detach().requires_grad_() if not create_graph or not x.requires_grad else x.view_as(x) for x in xs]
    out = _core.run(func, tracked, {})
    if not isinstance(out, Tensor) or out.numel() != 1:
        raise RuntimeError(f"{what}: the function should return a single one-element tensor")
    vs = _vectors(what, v, tracked, "the input")
    if strict and not out.requires_grad:
        raise RuntimeError(f"{what}: output 0 of the user-provided function is independent of input 0. This is "
                           "not allowed in strict mode.")
    grads = _core.vjp_leaves([out], tracked, [out.new_ones(out.shape)], True)
    products = _core.vjp_leaves(grads, tracked, vs, create_graph)
    return (out if create_graph else out.detach()), _shaped(_finish(products, create_graph), inputs_tuple)
