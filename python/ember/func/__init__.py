"""ember.func: torch.func's function transforms, composable with each other and with backward().

    from ember.func import grad, jacrev, functional_call
    g = grad(lambda x: (x.sin() ** 2).sum())(x)             # d/dx, a function of x
    hess = jacrev(jacrev(f))(x)                              # nested transforms differentiate each other
    loss = lambda p: F.mse_loss(functional_call(model, p, (x,)), y)
    grads = grad(loss)(dict(model.named_parameters()))       # gradients by parameter name

Arguments and results may be tensors or tuples, lists and dicts of them (argnums picks the
arguments to differentiate by). A transform differentiates whether or not its inputs require grad,
and under no_grad; where they are part of a graph already (an outer transform, or tensors you call
backward() through later), the results stay differentiable. Forward mode (jvp, jacfwd) is computed
by reverse mode twice (ember/autograd/_products.py), so it needs what double backward needs and costs about
two backward passes per product. jacrev and jacfwd take one product per output (per input) element.

vmap runs a function of one sample on a batch at once (per-sample gradients, ensembles of models):

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)   # one gradient per sample
    preds = vmap(lambda p: functional_call(model, p, (x,)))(stack_module_state(models)[0])

Its ops run once on the whole batch through batching rules (_rules.py, _rules_nn.py); an op without
one runs once per sample and warns. The transforms above work inside it (_lift.py), and it nests.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, Tuple, Union

from .._C import Tensor
from ..autograd import _products as _core
from ..autograd._tree import flatten, unflatten
from ._batching import batch_size, sample, stack_samples, warn_fallback
from ._functional_call import functional_call, stack_module_state
from ._lift import active_levels, from_physical, to_physical
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functional_call", "vmap",
           "stack_module_state"]

_Argnums = Union[int, Tuple[int, ...]]


def _argnums(argnums: _Argnums, nargs: int, what: str) -> Tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or not all(isinstance(n, int) for n in nums):
        raise ValueError(f"{what}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError(f"{what}: argnums {n} is out of range for a function called with {nargs} positional "
                             "arguments")
    return tuple(n % nargs for n in nums)


def _prepare(what: str, args: Sequence[Any], argnums: _Argnums):
    """args with the differentiated ones tracked: (new args, tracked leaves, per-argnum (spec, count),
    nested, levels). Inside a vmap (levels), the tracked leaves are the physical tensors of every
    sample (_lift.py) and the function sees them batched again."""
    nums = _argnums(argnums, len(args), what)
    levels = active_levels()
    args = list(args)
    tracked, layout, nested = [], [], False
    for n in nums:
        leaves, spec = flatten(args[n])
        t, nest = _core.track_all([to_physical(x, levels) for x in leaves], what)
        args[n] = unflatten([from_physical(x, levels) for x in t], spec)
        tracked += t
        layout.append((spec, len(t)))
        nested = nested or nest
    return args, tracked, layout, nested, levels


def _per_argnum(values: Sequence[Any], layout, argnums: _Argnums, levels=()) -> Any:
    out, k = [], 0
    for spec, count in layout:
        out.append(unflatten([from_physical(v, levels) for v in values[k:k + count]], spec))
        k += count
    return out[0] if isinstance(argnums, int) else tuple(out)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor) or getattr(type(x), "_ember_batched", False)


def _split_aux(what: str, out: Any, has_aux: bool) -> Tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"{what}(f, has_aux=True): f must return a pair (output, aux), got {type(out).__name__}")
    return out


def _detached(tree: Any, keep: bool) -> Any:
    if keep:
        return tree
    leaves, spec = flatten(tree)
    return unflatten([x.detach() for x in leaves], spec)


def grad_and_value(func: Callable, argnums: _Argnums = 0, has_aux: bool = False) -> Callable:
    """A function returning (gradient of func's scalar output by the argnums arguments, output),
    or ((gradient, (output, aux))) with has_aux."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        new_args, tracked, layout, nested, levels = _prepare("grad", args, argnums)
        out, aux = _split_aux("grad", _core.run(func, new_args, kwargs), has_aux)
        if not _is_tensor(out) or out.numel() != 1:
            what = type(out).__name__ if not _is_tensor(out) else f"a tensor of shape {list(out.shape)}"
            raise RuntimeError(f"grad(f)(*args): expected f(*args) to return a one-element tensor, got {what}")
        physical = to_physical(out, levels)
        grads = _core.vjp_leaves([physical], tracked, [physical.new_ones(physical.shape)], nested)
        value = from_physical(physical if nested else physical.detach(), levels)
        result = _per_argnum(grads, layout, argnums, levels)
        return (result, (value, _detached(aux, nested))) if has_aux else (result, value)
    return wrapper


def grad(func: Callable, argnums: _Argnums = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of func's one-element output by its argnums arguments
    (the same structure as those), with (gradient, aux) when has_aux."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> Tuple[Any, ...]:
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives cotangents . d out / d primals,
    one entry per primal (the function may be called many times)."""
    everything = tuple(range(len(primals)))
    new_args, tracked, layout, nested, levels = _prepare("vjp", primals, everything)
    out, aux = _split_aux("vjp", _core.run(func, new_args, {}), has_aux)
    out_leaves, out_spec = flatten(out)
    physical = [to_physical(o, levels) for o in out_leaves]

    def vjp_fn(*cotangents: Any) -> Tuple[Any, ...]:
        tree = cotangents[0] if len(cotangents) == 1 else cotangents
        leaves, _ = flatten(tree)
        _core.check_like("vjp_fn", "cotangent", leaves, out_leaves)
        deeper = _deeper_level(leaves, levels)
        if deeper is not None:  # called under a vmap that vjp was not: once per cotangent of that vmap
            return _per_sample(deeper, "vjp_fn", vjp_fn, cotangents)
        keep = nested or any(c.requires_grad for c in leaves)
        grads = _core.vjp_leaves(physical, tracked, [to_physical(c, levels) for c in leaves], keep)
        return _per_argnum(grads, layout, everything, levels)

    value = unflatten([from_physical(o if nested else o.detach(), levels) for o in physical], out_spec)
    return (value, vjp_fn, _detached(aux, nested)) if has_aux else (value, vjp_fn)


def _deeper_level(leaves: Sequence[Any], levels: Sequence[Any]) -> Any:
    """The innermost running vmap level, not among `levels`, at which a leaf is batched, or None."""
    known = {lv.level for lv in levels}
    found = None
    for lv in active_levels():
        if lv.level not in known and any(_batched_at(x, lv.level) for x in leaves):
            found = lv.level
    return found


def _batched_at(x: Any, level: int) -> bool:
    while getattr(type(x), "_ember_batched", False):
        if x._level == level:
            return True
        x = x._value
    return False


def _per_sample(level: int, what: str, fn: Callable, args: Tuple[Any, ...]) -> Any:
    warn_fallback(what + " under a vmap it was not made in")
    outs = [fn(*sample(list(args), level, b)) for b in range(batch_size(level))]
    return stack_samples(outs, level, what)


def jvp(func: Callable, primals: Sequence[Any], tangents: Sequence[Any], *, strict: bool = False,
        has_aux: bool = False) -> Tuple[Any, ...]:
    """(func(*primals), d func / d primals . tangents[, aux]); primals and tangents are tuples of the same structure."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ValueError("jvp: primals and tangents must be tuples (of the function's positional arguments)")
    new_args, tracked, layout, nested, levels = _prepare("jvp", primals, tuple(range(len(primals))))
    tangent_leaves, _ = flatten(tuple(tangents))
    _core.check_like("jvp", "tangent", tangent_leaves, flatten(tuple(primals))[0])
    out, aux = _split_aux("jvp", _core.run(func, new_args, {}), has_aux)
    out_leaves, out_spec = flatten(out)
    physical = [to_physical(o, levels) for o in out_leaves]
    keep = nested or any(t.requires_grad for t in tangent_leaves)
    products = _core.jvp_leaves(physical, tracked, [to_physical(t, levels) for t in tangent_leaves], keep)
    value = unflatten([from_physical(o if nested else o.detach(), levels) for o in physical], out_spec)
    result = (value, unflatten([from_physical(p, levels) for p in products], out_spec))
    return result + (_detached(aux, nested),) if has_aux else result


def _jacobian(what: str, func: Callable, argnums: _Argnums, has_aux: bool, forward: bool) -> Callable:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        new_args, tracked, layout, nested, levels = _prepare(what, args, argnums)
        out, aux = _split_aux(what, _core.run(func, new_args, kwargs), has_aux)
        out_leaves, out_spec = flatten(out)
        physical = [to_physical(o, levels) for o in out_leaves]
        blocks = _core.jacobian_blocks(physical, tracked, nested, forward, len(levels))
        result = unflatten([_per_argnum(row, layout, argnums, levels) for row in blocks], out_spec)
        return (result, _detached(aux, nested)) if has_aux else result
    return wrapper


def jacrev(func: Callable, argnums: _Argnums = 0, *, has_aux: bool = False, chunk_size: Any = None) -> Callable:
    """The Jacobian of func by its argnums arguments, by reverse mode: one vjp per output element.
    For an output of shape O and an input of shape I, a tensor of shape O + I (tuples follow the
    outputs, then the argnums)."""
    return _jacobian("jacrev", func, argnums, has_aux, forward=False)


def jacfwd(func: Callable, argnums: _Argnums = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """The Jacobian of func by its argnums arguments, by forward mode: one jvp per input element;
    the same result and layout as jacrev."""
    return _jacobian("jacfwd", func, argnums, has_aux, forward=True)


def hessian(func: Callable, argnums: _Argnums = 0) -> Callable:
    """The Hessian of func's one-element output by its argnums arguments (the Jacobian of its
    gradient), of shape I + I for an input of shape I. NB: reverse over reverse, where PyTorch's is
    forward over reverse: the same values, and forward mode here is itself reverse mode twice."""
    return jacrev(jacrev(func, argnums), argnums)
