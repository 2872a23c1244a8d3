"""The random and normalising functions of torch.nn.functional still written in Python over Ember's
ops (gumbel_softmax, local_response_norm); the activations are C++
(nn/activation_functional.h), logsigmoid re-exported from there."""
from __future__ import annotations

from .. import _C
from .._C.nn.functional import logsigmoid  # noqa: F401  (C++: nn/activation_functional.h)



def gumbel_softmax(logits, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """softmax((logits + g) / tau) with Gumbel(0, 1) noise g; hard=True returns the one-hot of its
    argmax, whose gradient is the soft sample's (straight-through)."""
    u = _C.rand(*logits.shape, dtype=logits.dtype, device=logits.device)
    gumbels = -_C.log(-_C.log(u + eps) + eps)  # NB: eps keeps log(0) out for u == 0
    soft = _C.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = _C.zeros_like(soft).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):  # noqa: A002
    """input / (k + alpha * mean over `size` neighbouring channels of input^2)^beta, the channels dim 1
    (AlexNet's normalisation, as PyTorch computes it)."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    n, c = input.shape[0], input.shape[1]
    squares = (input * input).reshape(n, 1, c, -1)  # channels as rows of a plane
    squares = _C.pad(squares, [0, 0, size // 2, (size - 1) // 2])
    div = _C.avg_pool2d(squares, (size, 1), 1).reshape(*input.shape)
    return input / (div * alpha + k) ** beta



__all__ = ["logsigmoid", "gumbel_softmax", "local_response_norm"]
