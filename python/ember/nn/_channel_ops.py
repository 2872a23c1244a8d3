"""nn.functional's channel-wise ops, composed of Ember's ops: channel_shuffle, and the dropout forms
that drop whole channels (dropout1d, dropout3d, feature_alpha_dropout; dropout2d is in
functional.py). A channel's mask is one draw broadcast over its spatial dims."""
from __future__ import annotations

from .. import _C
from ._activation_functions import _SELU_ALPHA, _SELU_SCALE


def channel_shuffle(input, groups: int):  # noqa: A002  (PyTorch's names)
    """[N, C, *] with its channels, seen as [groups, C / groups], transposed to [C / groups, groups]
    (ShuffleNet's shuffle)."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, rest = input.shape[0], input.shape[1], list(input.shape[2:])
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _channel_keep(input, spatial: int):  # noqa: A002
    """Ones of input's shape with its `spatial` last dims 1: the shape of a per-channel mask."""
    shape = list(input.shape[:input.dim() - spatial]) + [1] * spatial
    return _C.ones(*shape, dtype=input.dtype, device=input.device)


def _feature_dropout(input, p: float, training: bool, spatial: int):  # noqa: A002
    _check_p(p)
    if not training or p == 0:
        return input
    return input * _C.dropout(_channel_keep(input, spatial), p, True)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    """Zeroes whole channels of [N, C, L] (or [C, L]) input with probability p when training, scaling
    the rest by 1 / (1 - p)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, 1)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    """Zeroes whole channels of [N, C, D, H, W] (or [C, D, H, W]) input with probability p when
    training, scaling the rest by 1 / (1 - p)."""
    # NB: PyTorch only warns for other ranks and then guesses the layout; Ember refuses.
    if input.dim() not in (4, 5):
        raise RuntimeError(f"dropout3d: Expected 4D or 5D input, but received a {input.dim()}D input")
    return _feature_dropout(input, p, training, 3)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):  # noqa: A002
    """alpha_dropout over whole channels of [N, C, *]: a dropped channel takes SELU's negative
    saturation value, then the affine map that keeps mean 0 and variance 1 (PyTorch's a and b)."""
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0.0
    alpha_prime = -_SELU_ALPHA * _SELU_SCALE
    shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    keep = (_C.rand(*shape, device=input.device) >= p).to(input.dtype)
    a = ((1 - p) * (1 + p * alpha_prime ** 2)) ** -0.5
    b = -a * alpha_prime * p
    return (input * keep + alpha_prime * (1 - keep)) * a + b


__all__ = ["channel_shuffle", "dropout1d", "dropout3d", "feature_alpha_dropout"]
