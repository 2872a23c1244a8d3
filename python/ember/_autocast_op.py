"""autocast_op(name): the autocast policy of an op written in Python, from the lists the C++ ops use
(ops/autocast_policy.cpp): under ember.autocast its tensor arguments (and lists of them) are cast as
the policy says and the body runs with autocast off, so its own inner ops keep the dtypes chosen."""
from __future__ import annotations

import functools
from typing import Callable

from . import _C


def autocast_op(name: str) -> Callable[[Callable], Callable]:
    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if _C._autocast_any_enabled():
                return _C._autocast_call(name, fn, *args, **kwargs)
            return fn(*args, **kwargs)
        return wrapper
    return decorate
