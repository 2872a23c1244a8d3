"""ember.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint.

    y = checkpoint(block, x, use_reentrant=False)

block runs without recording in forward (its activations are not kept); backward runs it again with
recording, from the same inputs and the same random draws (the default generator's state is saved
and restored, so dropout masks repeat), and backpropagates through that recomputation: the inputs
get their gradients through the graph, the parameters block uses get theirs accumulated into
.grad. The recomputation runs under the autocast state the forward ran under. Both of PyTorch's variants take this one path (use_reentrant is accepted and ignored)."""
from __future__ import annotations

from typing import Any, Callable, Iterable, List

from .. import _C
from ..autograd.function import Function
from ..autograd import backward as _backward, enable_grad, no_grad
from ..random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential"]

_AUTOCAST_DEVICES = ("cpu", "cuda")


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx: Any, function: Callable, preserve_rng_state: bool, kwargs: dict, *args: Any) -> Any:
        ctx.function, ctx.kwargs, ctx.preserve = function, kwargs, preserve_rng_state
        ctx.autocast = {d: _C._autocast_state(d) for d in _AUTOCAST_DEVICES}
        if preserve_rng_state:
            ctx.rng_state = get_rng_state()
        tensors = [a for a in args if isinstance(a, _C.Tensor)]
        ctx.save_for_backward(*tensors)
        ctx.layout = [isinstance(a, _C.Tensor) for a in args]
        ctx.others = [None if isinstance(a, _C.Tensor) else a for a in args]
        with no_grad():
            return function(*args, **kwargs)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        saved = iter(ctx.saved_tensors)
        inputs: List[Any] = []
        for is_tensor, other in zip(ctx.layout, ctx.others):
            if is_tensor:
                t = next(saved)
                inputs.append(t.detach().requires_grad_(t.requires_grad))
            else:
                inputs.append(other)
        if ctx.preserve:
            now = get_rng_state()
            set_rng_state(ctx.rng_state)
        # the recomputation casts as the forward did (backward itself runs with autocast off)
        autocast_now = {d: _C._autocast_state(d) for d in _AUTOCAST_DEVICES}
        try:
            for d, state in ctx.autocast.items():
                _C._set_autocast_state(d, *state)
            with enable_grad():
                outputs = ctx.function(*inputs, **ctx.kwargs)
        finally:
            for d, state in autocast_now.items():
                _C._set_autocast_state(d, *state)
            if ctx.preserve:
                set_rng_state(now)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, _C.Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("checkpoint: none of the outputs requires grad: nothing to backpropagate")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, None) + tuple(x.grad if isinstance(x, _C.Tensor) else None for x in inputs)


def checkpoint(function: Callable, *args: Any, use_reentrant: Any = None, context_fn: Any = None,
               determinism_check: str = "default", debug: bool = False, preserve_rng_state: bool = True,
               **kwargs: Any) -> Any:
    """function(*args, **kwargs), recomputed in backward instead of keeping its activations."""
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn is not supported")
    return _Checkpoint.apply(function, preserve_rng_state, kwargs, *args)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: Any = None,  # noqa: A002
                          **kwargs: Any) -> Any:
    """Runs a Sequential (or a list of modules) in `segments` checkpointed chunks; the last chunk is
    not checkpointed, as in PyTorch."""
    modules = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(modules) // segments

    def run(chunk: Iterable) -> Callable:
        def forward(x: Any) -> Any:
            for m in chunk:
                x = m(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(modules[start:end + 1]), input, use_reentrant=use_reentrant, **kwargs)
    return run(modules[end + 1:])(input)
