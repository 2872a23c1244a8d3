"""Module hooks as PyTorch runs them when a module is called from Python (Module.__call__):
forward pre-hooks hook(module, args) -> new args or None (with_kwargs: hook(module, args, kwargs)
-> (new_args, new_kwargs) or None), forward hooks hook(module, args, output) -> new output or None
(with_kwargs: hook(module, args, kwargs, output)), and full backward hooks
hook(module, grad_input, grad_output) -> new grad_input or None.

The hooks live in the C++ module (python/src/module_hooks.cpp), so a C++ container calling its
children (a Sequential) runs them as well, with one tensor as args; this file is the Python
caller's side, with any arguments.

Backward hooks wire the call's tensors through identity views whose gradients reach the hook:
grad_input has one entry per tensor argument (None for those that need no gradient), grad_output
one per tensor output. Ember supports at most one argument that requires grad (a module with
several raises NotImplementedError when called); the hook then runs once that argument's gradient
is known, or, when no argument requires grad, once the gradients of all outputs that require
grad have arrived.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from .. import _C
from .._C import Tensor


def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    pre_hooks, forward_hooks, backward_hooks = module._hook_lists()
    for hook, with_kwargs in pre_hooks:
        if with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result!r}.")
                args, kwargs = result
                args = tuple(args)
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)

    backward = None
    if backward_hooks and _C._autograd.is_grad_enabled():
        backward = _BackwardCall(module, backward_hooks)
        args = backward.wrap_inputs(args)

    output = None
    ran: set[int] = set()
    try:
        output = module.forward(*args, **kwargs)
        for i, (hook, with_kwargs, _) in enumerate(forward_hooks):
            ran.add(i)
            result = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
            if result is not None:
                output = result
    except Exception:
        # As PyTorch: the always_call hooks that have not run yet run now; what they raise gives
        # way to the error already going on (with a warning).
        for i, (hook, with_kwargs, always_call) in enumerate(forward_hooks):
            if not always_call or i in ran:
                continue
            try:
                result = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
                if result is not None:
                    output = result
            except Exception as e:  # noqa: BLE001
                warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                              f"silenced as another error was raised in forward: {e}")
        raise
    if backward is not None:
        output = backward.wrap_outputs(output)
    return output


class _BackwardCall:
    """The full backward hooks of one call: grad_output is gathered from the outputs' identity
    views (computed first: the input's gradient depends on them), then the hooks run when the
    input's gradient is known."""

    def __init__(self, module: Any, hooks: list[Callable]):
        self.module, self.hooks = module, hooks
        self.tensor_positions: list[int] = []   # the tensor arguments: grad_input's entries
        self.input_slot: int | None = None       # which of them requires grad
        self.grad_outputs: list = []
        self.pending_outputs = 0

    def wrap_inputs(self, args: tuple) -> tuple:
        self.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        needing = [i for i in self.tensor_positions if args[i].requires_grad]
        if len(needing) > 1:
            raise NotImplementedError(
                f"register_full_backward_hook: {type(self.module).__name__} was called with {len(needing)} "
                "tensor arguments that require grad; Ember's module backward hooks support at most one")
        if not needing:
            return args
        i = needing[0]
        self.input_slot = self.tensor_positions.index(i)
        x = args[i].view_as(args[i])
        x.register_hook(self._input_hook)
        return args[:i] + (x,) + args[i + 1:]

    def wrap_outputs(self, output: Any) -> Any:
        single = isinstance(output, Tensor)
        outputs = [output] if single else list(output) if isinstance(output, (tuple, list)) else []
        self.grad_outputs = [None] * len(outputs)
        wrapped = []
        for k, out in enumerate(outputs):
            if isinstance(out, Tensor) and out.requires_grad:
                out = out.view_as(out)
                out.register_hook(self._output_hook(k))
                self.pending_outputs += 1
            wrapped.append(out)
        if single:
            return wrapped[0]
        return type(output)(wrapped) if isinstance(output, (tuple, list)) else output

    def _output_hook(self, k: int) -> Callable:
        def hook(grad: Tensor) -> None:
            self.grad_outputs[k] = grad
            self.pending_outputs -= 1
            if self.input_slot is None and self.pending_outputs == 0:
                self._run(None)
        return hook

    def _input_hook(self, grad: Tensor) -> Tensor:
        return self._run(grad)

    def _run(self, grad: Tensor | None) -> Tensor | None:
        grad_input = [None] * len(self.tensor_positions)
        if self.input_slot is not None:
            grad_input[self.input_slot] = grad
        for hook in self.hooks:
            result = hook(self.module, tuple(grad_input), tuple(self.grad_outputs))
            if result is None:
                continue
            result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
            if len(result) != len(grad_input):
                raise RuntimeError(f"backward hook returned an invalid number of grad_input, got {len(result)}, "
                                   f"but expected {len(grad_input)}")
            if self.input_slot is None:
                if any(r is not None for r in result):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
                continue
            grad_input = list(result)
        return None if self.input_slot is None else grad_input[self.input_slot]
