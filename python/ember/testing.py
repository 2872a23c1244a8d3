"""ember.testing: assert_close, as torch.testing.assert_close (the same default tolerances per
dtype, the same rule |actual - expected| <= atol + rtol * |expected|, and the same AssertionError
text: the count of mismatched elements, the greatest absolute and relative differences and where
they are), over tensors, Python numbers, and sequences and mappings of them."""
from __future__ import annotations

import collections.abc
import math
from typing import Any, Callable

import numpy as np

from . import _C
from ._C import Tensor

# torch.testing's defaults (rtol, atol); integer and bool dtypes compare exactly.
_TOLERANCES = {
    _C.float16: (1e-3, 1e-5), _C.bfloat16: (1.6e-2, 1e-5), _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7), _C.complex64: (1.3e-6, 1e-5), _C.complex128: (1e-7, 1e-7),
}


def _tolerances(dtype: Any, rtol: float | None, atol: float | None) -> tuple:
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype, (0.0, 0.0))


def _diff_line(kind: str, diff: Any, index: Any, tol: float, equality: bool) -> str:
    line = f"{kind.title()} difference: {diff}" if index is None else f"Greatest {kind} difference: {diff} at index {index}"
    return line if equality else line + f" (up to {tol} allowed)"


def _message(identifier: str, equality: bool, extra: str, abs_part: tuple, rel_part: tuple, rtol: float,
             atol: float) -> str:
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", "", extra,
             _diff_line("absolute", *abs_part, atol, equality), _diff_line("relative", *rel_part, rtol, equality)]
    return "\n".join(lines)


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _message("Scalars", rtol == 0 and atol == 0, f"Expected {expected} but got {actual}.",
                    (abs_diff, None), (rel_diff, None), rtol, atol)


def _greatest(values: np.ndarray) -> tuple:
    # NB: as torch.max, a NaN is the greatest (the first one).
    nans = np.flatnonzero(np.isnan(values)) if values.dtype.kind in "fc" else np.array([], dtype=np.int64)
    flat = int(nans[0]) if nans.size else int(np.argmax(values))
    return values[flat].item(), flat


def _close(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    if a.dtype.kind in "biu":
        return a == e
    with np.errstate(invalid="ignore", over="ignore"):
        matches = (a == e) | (np.abs(a - e) <= atol + rtol * np.abs(e))
    return matches | (np.isnan(a) & np.isnan(e)) if equal_nan else matches


def _compare_tensors(actual: Tensor, expected: Tensor, rtol: Any, atol: Any, equal_nan: bool,
                     check_dtype: bool, check_device: bool) -> str | None:
    if tuple(actual.shape) != tuple(expected.shape):
        return f"The values for attribute 'shape' do not match: {tuple(actual.shape)} != {tuple(expected.shape)}."
    if check_device and actual.device != expected.device:
        return f"The values for attribute 'device' do not match: {actual.device} != {expected.device}."
    if actual.dtype != expected.dtype:
        if check_dtype:
            return f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}."
        common = _C.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    rtol, atol = _tolerances(actual.dtype, rtol, atol)
    if actual.dtype == _C.bfloat16:  # NumPy has no bfloat16: compare in float32, which holds it exactly
        actual, expected = actual.float(), expected.float()
    a, e = actual.detach().cpu().numpy(), expected.detach().cpu().numpy()
    matches = _close(a, e, rtol, atol, equal_nan)
    if matches.all():
        return None
    if a.ndim == 0:
        return _scalar_message(a.item(), e.item(), rtol, atol)
    a, e, matches = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if a.dtype.kind in "biu":
        # NB: as torch: differences in int64, their ratio in float32 (the default dtype).
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[matches] = 0
        rel_diff = abs_diff / np.abs(e) if a.dtype.kind in "fc" else \
            abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
    rel_diff[matches] = 0
    total, bad = matches.size, int(matches.size - matches.sum())
    unravel = lambda flat: tuple(int(i) for i in np.unravel_index(flat, actual.shape))  # noqa: E731
    max_abs, abs_at = _greatest(abs_diff)
    max_rel, rel_at = _greatest(rel_diff)
    return _message("Tensor-likes", rtol == 0 and atol == 0, f"Mismatched elements: {bad} / {total} ({bad / total:.1%})",
                    (max_abs, unravel(abs_at)), (max_rel, unravel(rel_at)), rtol, atol)


def _compare(actual: Any, expected: Any, path: list, rtol: Any, atol: Any, equal_nan: bool, check_dtype: bool,
             check_device: bool) -> tuple | None:
    """(message, path) of the first mismatch, or None."""
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        msg = _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, check_device)
        return (msg, path) if msg else None
    numbers = (int, float, complex, bool)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if check_dtype and type(actual) is not type(expected):
            return f"The (d)types do not match: {type(actual)} != {type(expected)}.", path
        dtype = {bool: _C.bool, int: _C.int64, float: _C.float64, complex: _C.complex128}[type(actual)]
        r, a = _tolerances(dtype, rtol, atol)
        close = actual == expected or abs(actual - expected) <= a + r * abs(expected) or (
            equal_nan and actual != actual and expected != expected)
        return None if close else (_scalar_message(actual, expected, r, a), path)
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            return (f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                    f"{sorted(set(expected) - set(actual), key=repr)}\nExtra keys in the actual mapping: "
                    f"{sorted(set(actual) - set(expected), key=repr)}", path)
        for key in actual:
            found = _compare(actual[key], expected[key], path + [key], rtol, atol, equal_nan, check_dtype, check_device)
            if found:
                return found
        return None
    sequences = (list, tuple)
    if isinstance(actual, sequences) and isinstance(expected, sequences):
        if len(actual) != len(expected):
            return f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path
        for i, (x, y) in enumerate(zip(actual, expected)):
            found = _compare(x, y, path + [i], rtol, atol, equal_nan, check_dtype, check_device)
            if found:
                return found
        return None
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raises AssertionError unless actual and expected (tensors, Python numbers, or sequences and
    mappings of them, nested alike) have the same shapes, dtypes (unless check_dtype=False) and
    devices, and |actual - expected| <= atol + rtol * |expected| elementwise (NaNs equal only with
    equal_nan). Without rtol and atol, the defaults of expected's dtype: float16 (1e-3, 1e-5),
    bfloat16 (1.6e-2, 1e-5), float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7), integers and bool exact.
    msg, a string, replaces the message; a callable gets the message and returns the one to raise."""
    found = _compare(actual, expected, [], rtol, atol, equal_nan, check_dtype, check_device)
    if found is None:
        return
    message, path = found
    if callable(msg):
        message = msg(message)
    elif msg is not None:
        message = msg
    elif path:
        message += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    raise AssertionError(message)


__all__ = ["assert_close"]
