"""ember.nn.functional: the layers as functions and the losses (torch.nn.functional).

Activations, convolution, pooling and normalisation are ember's ops; linear and the losses are
ember._C.nn.functional. Losses take reduction='mean' | 'sum' | 'none'.
"""
from __future__ import annotations

from .. import _C
from .._C import (  # noqa: F401  (re-exported)
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    conv2d,
    dropout,
    gelu,
    layer_norm,
    leaky_relu,
    log_softmax,
    max_pool2d,
    relu,
    sigmoid,
    softmax,
    tanh,
)
from .._C.nn.functional import (  # noqa: F401
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    linear,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)


def embedding(input, weight, padding_idx=None):  # noqa: A002  (PyTorch's names)
    """Rows of weight [V, D] for the integer indices `input` (torch.nn.functional.embedding)."""
    return _C.embedding(weight, input, padding_idx)


def silu(input):  # noqa: A002
    """input * sigmoid(input)."""
    return input * _C.sigmoid(input)


def flatten(input, start_dim: int = 0, end_dim: int = -1):  # noqa: A002
    return _C.flatten(input, start_dim, end_dim)


__all__ = [name for name in dir() if not name.startswith("_")]
