"""ember.autograd.Function: an op with a hand-written backward, written the PyTorch way.

    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

forward runs without recording; when an input requires grad, one graph node (python/src/
autograd_function.cpp) is recorded over the tensor inputs, and the engine calls backward with one
gradient per output (zeros where none arrived, unless ctx.set_materialize_grads(False)). backward
returns one gradient (or None) per forward argument. Ops in backward are recorded when the graph is
built with create_graph=True, so double backward works unless backward is @once_differentiable. The
newer style (forward without ctx plus setup_context(ctx, inputs, output)) works too."""
from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional, Tuple

from .. import _C
from .._C import Tensor
from .._C import _autograd as _impl
from .grad_mode import no_grad

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
          "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
          "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
          "or if you need to access saved tensors after calling backward.")


class FunctionCtx:
    """What forward (or setup_context) leaves for backward."""

    def __init__(self) -> None:
        self._saved: Optional[Tuple[Optional[Tensor], ...]] = ()
        self._versions: Tuple[int, ...] = ()
        self._freed = False
        self._non_differentiable: List[Tensor] = []
        self._dirty: List[Tensor] = []
        self.materialize_grads = True
        self.needs_input_grad: Tuple[bool, ...] = ()

    def save_for_backward(self, *tensors: Optional[Tensor]) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {tensors.index(t)} is of "
                                f"type {type(t).__name__}")
        self._saved = tensors
        self._versions = tuple(t._version if t is not None else 0 for t in tensors)

    @property
    def saved_tensors(self) -> Tuple[Optional[Tensor], ...]:
        if self._freed:
            raise RuntimeError(_FREED)
        for i, (t, version) in enumerate(zip(self._saved, self._versions)):
            if t is not None and t._version != version:
                raise RuntimeError(f"one of the variables needed for gradient computation has been modified by an "
                                   f"inplace operation: saved tensor {i} of shape {list(t.shape)} is at version "
                                   f"{t._version}; expected version {version} instead.")
        return self._saved

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable.extend(tensors)

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty.extend(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def _release(self) -> None:
        self._saved, self._freed = None, True


def _contains(tensors: List[Tensor], t: Tensor) -> bool:
    return any(t is u for u in tensors)


class Function:
    """Subclass it with static forward(ctx, *args) (or forward(*args) plus setup_context(ctx, inputs,
    output)) and backward(ctx, *grads); call it as MyFunction.apply(*args)."""

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if _batched_apply is not None and any(getattr(type(a), "_ember_batched", False) for a in args):
            return _batched_apply(cls, args, kwargs)  # inside vmap: once per sample (ember/func/_modules.py)
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        new_style = cls.setup_context is not Function.setup_context
        with no_grad():
            if new_style:
                output = cls.forward(*args, **kwargs)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if new_style:
            cls.setup_context(ctx, args, output)
        if not (_impl.is_grad_enabled() and any(ctx.needs_input_grad)):
            return output
        return _record(cls, ctx, args, output)


# How apply runs on a vmap's batched tensors, set by ember.func (which sits above autograd): the
# function's forward and backward are the user's, with no batching rule, so it runs per sample.
_batched_apply: Optional[Any] = None


def _record(cls: type, ctx: FunctionCtx, args: Tuple[Any, ...], output: Any) -> Any:
    single = not isinstance(output, tuple)
    outputs = list((output,) if single else output)
    inputs = [a for a in args if isinstance(a, Tensor)]
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    for i, out in enumerate(outputs):
        # NB: an input returned as it is becomes a new tensor over the same storage, so that this
        # node's history does not overwrite the input's (PyTorch returns a view too).
        if isinstance(out, Tensor) and _contains(inputs, out) and not _contains(ctx._dirty, out):
            outputs[i] = out.view_as(out) if out.requires_grad else out.detach()
    recorded = [o for o in outputs if isinstance(o, Tensor) and o.is_floating_point()
                and not _contains(ctx._non_differentiable, o)]
    # What backward needs to zero-fill a missing gradient: each output's shape, dtype and device.
    specs = [(tuple(o.shape), o.dtype, o.device) if isinstance(o, Tensor) else None for o in outputs]
    slot_of = [next((k for k, r in enumerate(recorded) if r is o), None) for o in outputs]

    def backward(*grads: Optional[Tensor]) -> List[Optional[Tensor]]:
        per_output = []
        for spec, slot in zip(specs, slot_of):
            g = grads[slot] if slot is not None else None
            if g is None and spec is not None and ctx.materialize_grads:
                g = _C.zeros(spec[0], dtype=spec[1], device=spec[2])
            per_output.append(g)
        result = cls.backward(ctx, *per_output)
        result = (result,) if not isinstance(result, tuple) else result
        if len(result) < len(args) or any(r is not None for r in result[len(args):]):
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                               f"(expected {len(args)}, got {len(result)})")
        out = []
        for i in positions:
            g, a = result[i], args[i]
            if g is not None and not a.requires_grad:
                g = None  # as PyTorch: a gradient for an input that needs none is dropped
            if g is not None:
                if not isinstance(g, Tensor):
                    raise TypeError(f"function {cls.__name__}Backward returned a gradient of type "
                                    f"{type(g).__name__} at index {i}; expected a Tensor or None")
                if tuple(g.shape) != tuple(a.shape):
                    if g.numel() != a.numel() and _broadcasts(tuple(a.shape), tuple(g.shape)):
                        g = g.sum_to_size(*a.shape)
                    elif g.numel() == a.numel():
                        g = g.reshape(a.shape)
                    else:
                        raise RuntimeError(f"Function {cls.__name__}Backward returned an invalid gradient at index "
                                           f"{i} - got {list(g.shape)} but expected shape compatible with "
                                           f"{list(a.shape)}")
            out.append(g)
        return out

    _impl._record_function(f"{cls.__name__}Backward", inputs, recorded, ctx._dirty, backward, ctx._release)
    return outputs[0] if single else tuple(outputs)


def _broadcasts(target: Tuple[int, ...], shape: Tuple[int, ...]) -> bool:
    """Whether a tensor of `target`'s shape broadcasts to `shape` (its gradient sums back)."""
    if len(target) > len(shape):
        return False
    return all(t == 1 or t == s for t, s in zip(target[::-1], shape[::-1]))


def once_differentiable(fn: Callable) -> Callable:
    """Marks a backward that cannot itself be differentiated: it runs without recording, and a
    double backward through it raises instead of returning a wrong (zero) second derivative."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        grad_inputs = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        needs_graph = _impl.is_grad_enabled() and bool(grad_inputs)
        with no_grad():
            result = fn(ctx, *args)
        if not needs_graph:
            return result
        results = list(result) if isinstance(result, tuple) else [result]
        results = [r.detach() if isinstance(r, Tensor) else r for r in results]
        differentiable = [r for r in results if isinstance(r, Tensor) and r.is_floating_point()]

        def fail(*grads: Any) -> Any:
            raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")

        _impl._record_function("DelayedErrorBackward", grad_inputs, differentiable, [], fail, lambda: None)
        return tuple(results) if isinstance(result, tuple) else results[0]

    return wrapper
