"""ember.optim.ASGD: torch.optim.ASGD (averaged stochastic gradient descent), written in Python on
ember.optim.Optimizer: SGD with a decaying step eta = lr / (1 + lambd lr t)^alpha and a weight decay
of lambd eta, and a running average `ax` of the iterates that starts at step t0. State per
parameter: step, eta, mu and ax, as PyTorch's."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import _C
from ..autograd import no_grad
from . import Optimizer

__all__ = ["ASGD"]


def _float32(x: float) -> float:
    return float(np.float32(x))


class ASGD(Optimizer):
    """torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, *,
    maximize=False)."""

    def __init__(self, params: Any, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: Any = None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize))

    def step(self, closure: Any = None) -> Any:
        loss = None
        if closure is not None:
            from ..autograd import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if not state:
                        state["step"] = _C.zeros((), dtype=_C.float32)
                        # NB: numbers rounded to float32, as PyTorch's float32 scalar tensors round
                        # them; numbers, so that loading a checkpoint (which casts floating state
                        # tensors to the parameter's dtype) keeps them, and a resume is exact.
                        state["eta"] = _float32(lr)
                        state["mu"] = 1.0
                        state["ax"] = _C.zeros_like(p)
                    state["step"] += 1
                    step = float(state["step"])
                    if group["weight_decay"] != 0:
                        grad = grad + p * group["weight_decay"]
                    eta = state["eta"]
                    p.mul_(1 - lambd * eta)
                    p.add_(grad, alpha=-eta)
                    mu = state["mu"]
                    if mu != 1:
                        state["ax"].add_((p - state["ax"]) * mu)
                    else:
                        state["ax"].copy_(p)
                    state["eta"] = _float32(lr / ((1 + lambd * lr * step) ** alpha))
                    state["mu"] = _float32(1 / max(1, step - t0))
        return loss
