"""Ember: a small eager-mode deep-learning framework with a PyTorch-like API.

    import ember
    w = ember.randn(3, 1, requires_grad=True)
    x = ember.randn(8, 3)
    loss = ((x @ w - 1.0) ** 2).mean()
    loss.backward()             # w.grad holds d loss / d w
    with ember.no_grad():
        w -= 0.1 * w.grad

The tensors, ops and autograd engine are C++ (the extension module ember._C); this package
re-exports them under PyTorch's names and adds the conveniences that are simpler in Python.

NumPy: ember.from_numpy(a) and t.numpy() share memory with the array (no copy; writes through
either are seen by the other); ember.tensor(a) copies, as torch.tensor does.
"""
from __future__ import annotations

import numpy as _np

from . import _C
from ._C import (  # noqa: F401  (re-exported)
    Generator,
    Node,
    RemovableHandle,
    Tensor,
    abs,
    adaptive_avg_pool2d,
    add,
    amax,
    amin,
    arange,
    argmax,
    argmin,
    avg_pool2d,
    batch_norm,
    bfloat16,
    bmm,
    bool,
    broadcast_to,
    cat,
    chunk,
    clamp,
    clip,
    concat,
    conv2d,
    default_generator,
    device,
    div,
    divide,
    double,
    dropout,
    dtype,
    embedding,
    empty,
    empty_like,
    eq,
    erf,
    exp,
    eye,
    flatten,
    float,
    float16,
    float32,
    float64,
    from_numpy,
    full,
    full_like,
    gather,
    ge,
    gelu,
    gt,
    half,
    index_add,
    index_select,
    int,
    int32,
    int64,
    layer_norm,
    le,
    leaky_relu,
    linspace,
    log,
    log_softmax,
    logical_and,
    logical_not,
    logical_or,
    logsumexp,
    long,
    lt,
    manual_seed,
    masked_fill,
    matmul,
    max,
    max_pool2d,
    maximum,
    mean,
    min,
    minimum,
    mm,
    mul,
    multiply,
    narrow,
    ne,
    neg,
    negative,
    norm,
    ones,
    ones_like,
    permute,
    pow,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    relu,
    reshape,
    rsqrt,
    scalar_tensor,
    scatter_add,
    select,
    sigmoid,
    sign,
    softmax,
    split,
    sqrt,
    squeeze,
    stack,
    std,
    sub,
    subtract,
    sum,
    swapaxes,
    t,
    tanh,
    transpose,
    true_divide,
    uint8,
    unbind,
    unsqueeze,
    var,
    where,
    zeros,
    zeros_like,
)
from . import autograd  # noqa: E402
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402,F401
from . import nn, optim, io, data  # noqa: E402,F401

__version__ = "0.1.0"

# NB: ember.bool, ember.float and ember.int are dtypes (as in torch); the builtins stay reachable.
import builtins as _builtins  # noqa: E402


def tensor(data, *, dtype=None, requires_grad=False) -> Tensor:
    """A new tensor holding a copy of `data`: a number, nested lists of numbers, a NumPy array or
    a Tensor. The dtype is inferred as in PyTorch (bool, int64, or float32 for Python floats; a
    NumPy array or scalar keeps its dtype) unless `dtype` is given. Never shares memory with
    `data`; ember.from_numpy does."""
    if isinstance(data, Tensor):
        result = data.detach().clone()
    else:
        array = data if isinstance(data, _np.ndarray) else _np.asarray(data)
        if dtype is None and not isinstance(data, (_np.ndarray, _np.generic)) and array.dtype == _np.float64:
            # Python floats: the default dtype. NB: only without `dtype`, which they reach directly
            # (through float32, ember.tensor([1e-300], dtype=ember.float64) was 0).
            array = array.astype(_np.float32)
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("="))
        if not array.flags.c_contiguous:  # NB: not ascontiguousarray, which makes 0-d arrays 1-d
            array = array.copy(order="C")
        result = from_numpy(array).clone()
    if dtype is not None and result.dtype != dtype:
        result = result.to(dtype)
    if requires_grad:
        result.requires_grad_(True)
    return result


def as_tensor(data, dtype=None) -> Tensor:
    """`data` itself when it is a Tensor of `dtype`; a tensor sharing memory with a NumPy array of
    a supported dtype and layout; else a copy (torch.as_tensor)."""
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, _np.ndarray):
        try:
            t = from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype)
        return t if dtype is None or t.dtype == dtype else t.to(dtype)
    return tensor(data, dtype=dtype)


def is_tensor(obj) -> _builtins.bool:
    """True when obj is an ember.Tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> _builtins.int:  # noqa: A002  (PyTorch's argument name)
    """The number of elements of input."""
    return input.numel()


def allclose(input: Tensor, other: Tensor, rtol: _builtins.float = 1e-5,  # noqa: A002
             atol: _builtins.float = 1e-8, equal_nan: _builtins.bool = False) -> _builtins.bool:
    """|input - other| <= atol + rtol * |other| everywhere (NumPy's rule)."""
    return _builtins.bool(_np.allclose(input.numpy(force=True), other.numpy(force=True),
                                       rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> _builtins.bool:  # noqa: A002
    """True when both have the same shape and the same values."""
    return _builtins.bool(_np.array_equal(input.numpy(force=True), other.numpy(force=True)))
