"""Composite functions over float16 and bfloat16 inputs: computed in float32 and rounded once.

A function written as several of Ember's ops would round to the 16-bit dtype after each of them
(hardsigmoid's x + 3 rounds 2.98 + 3 up to 6 in bfloat16, where its gradient is 0; hardswish's
x * 6 overflows float16 at 65504). PyTorch's kernels for these functions load, compute in float32
and round once, forward and backward; `in_float32` gives a composite the same: the input is
converted to float32 (a differentiable conversion, so the gradient is rounded once on its way back)
and the result to the input's dtype.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from . import _C

_SIXTEEN_BIT = (_C.float16, _C.bfloat16)


def in_float32(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn(input, ...), computed in float32 when input is float16 or bfloat16 and rounded back once."""

    @functools.wraps(fn)
    def wrapper(input, *args, **kwargs):  # noqa: A002  (PyTorch's name)
        dtype = getattr(input, "dtype", None)
        if dtype in _SIXTEEN_BIT:
            return fn(input.float(), *args, **kwargs).to(dtype)
        return fn(input, *args, **kwargs)

    return wrapper
