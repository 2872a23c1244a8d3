"""PyTorch's type promotion over any number of operands, for the ops composed in Python that take
more than two (addcmul, addcdiv): the dtype they compute in, so that each operand is cast to it
first and no part of the result is computed in a narrower dtype (a float32 product added to a
float64 tensor loses float64's precision).

The rule is torch's ResultTypeState: operands fall in three classes, tensors with dims, 0-d
tensors and Python numbers; each class promotes within itself, and a lower class only raises the
result's category (bool < integer < floating < complex), never its width within the category:
float32 [n] with a 0-d float64 computes in float32, int64 [n] with 2.5 in the default dtype."""
from __future__ import annotations

import builtins
from typing import Any, Optional

from . import _C
from ._C import Tensor


def _number_dtype(value: Any) -> Any:
    if isinstance(value, builtins.bool):
        return _C.bool
    if isinstance(value, builtins.int):
        return _C.int64
    if isinstance(value, builtins.complex):
        return _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64
    return _C.get_default_dtype()


def _promote(a: Optional[Any], b: Any) -> Any:
    return b if a is None else _C.promote_types(a, b)


def _is_float(dtype: Any) -> bool:
    return dtype is not None and dtype.is_floating_point


def _is_complex(dtype: Any) -> bool:
    return dtype is not None and dtype.is_complex


def _combine(higher: Optional[Any], lower: Optional[Any]) -> Optional[Any]:
    """torch's combine_categories: `lower` (a later class) only lifts `higher`'s category."""
    if higher is None:
        return lower
    if lower is None or _is_complex(higher):
        return higher
    if _is_complex(lower):
        # a floating `higher` keeps its width, as the complex dtype of that width
        if higher == _C.float64:
            return _C.complex128
        return _C.complex64 if _is_float(higher) else lower
    if _is_float(higher):
        return higher
    if higher == _C.bool or _is_float(lower):
        return _C.promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> Any:
    """The dtype an op over all `operands` (tensors or Python numbers) computes in."""
    dims = zero = numbers = None
    for x in operands:
        if isinstance(x, Tensor):
            if x.dim() > 0:
                dims = _promote(dims, x.dtype)
            else:
                zero = _promote(zero, x.dtype)
        elif x is not None:
            numbers = _promote(numbers, _number_dtype(x))
    return _combine(dims, _combine(zero, numbers))


def as_dtype(x: Any, dtype: Any) -> Any:
    """x cast to dtype when it is a tensor of another dtype (numbers are left to the op)."""
    return x.to(dtype) if isinstance(x, Tensor) and x.dtype != dtype else x


def torch_type_name(dtype: Any) -> str:
    """PyTorch's name of a dtype in its messages: Long, Float, Half, ..."""
    return {_C.int64: "Long", _C.int32: "Int", _C.int16: "Short", _C.int8: "Char", _C.uint8: "Byte",
            _C.bool: "Bool", _C.float16: "Half", _C.bfloat16: "BFloat16", _C.float32: "Float",
            _C.float64: "Double"}.get(dtype, str(dtype))


def check_castable(result: Tensor, self: Tensor) -> None:
    """An in-place op's result must fit self's dtype: as PyTorch, a result that self's dtype holds only
    by changing category (a float into an int64 tensor, an int into a bool one) is refused rather than
    truncated."""
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"result type {torch_type_name(result.dtype)} can't be cast to the desired output "
                           f"type {torch_type_name(self.dtype)}")
