"""ember.optim.Rprop: torch.optim.Rprop (resilient backpropagation), written in Python on
ember.optim.Optimizer: each element keeps a step size that grows by etas[1] while its gradient keeps
its sign and shrinks by etas[0] when the sign flips (skipping that update), clamped to step_sizes;
the parameter moves by the step size against the gradient's sign. State per parameter: step, prev
(the last gradient used) and step_size, as PyTorch's, so checkpoints carry it."""
from __future__ import annotations

from typing import Any

from .. import _C
from ..autograd import no_grad
from . import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)."""

    def __init__(self, params: Any, lr: float = 1e-2, etas: tuple = (0.5, 1.2), step_sizes: tuple = (1e-6, 50), *,
                 foreach: Any = None, capturable: bool = False, differentiable: bool = False,
                 maximize: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), maximize=maximize))

    def step(self, closure: Any = None) -> Any:
        loss = None
        if closure is not None:
            from ..autograd import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                eta_minus, eta_plus = group["etas"]
                lo, hi = group["step_sizes"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if not state:
                        state["step"] = _C.zeros((), dtype=_C.float32)
                        state["prev"] = _C.zeros_like(p)
                        state["step_size"] = _C.full_like(grad, group["lr"])
                    state["step"] += 1
                    agreement = (grad * state["prev"]).sign()
                    factor = _C.where(agreement > 0, eta_plus, _C.where(agreement < 0, eta_minus, _C.ones_like(p)))
                    step_size = state["step_size"]
                    step_size.mul_(factor).clamp_(lo, hi)
                    # where the sign flipped, no step, and the next comparison starts afresh
                    grad = _C.where(agreement < 0, 0.0, grad).to(p.dtype)
                    p.addcmul_(grad.sign(), step_size, value=-1)
                    state["prev"].copy_(grad)
        return loss
