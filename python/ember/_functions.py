"""torch.* functions that stay in Python: the switches scripts flip that Ember has no use for
(compile, set_float32_matmul_precision), the thin forms of C++ ops whose Python call differs
(tensordot's dims), and a few compositions of views and factories."""
from __future__ import annotations

import builtins
from typing import Any

from . import _C
from ._C import Tensor


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """input.detach()."""
    return input.detach()


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:  # noqa: A002
    return input.is_complex()


def get_default_dtype() -> Any:
    """What ember.tensor gives Python floats and the factories create: float32 unless
    ember.set_default_dtype chose another floating dtype."""
    return _C.get_default_dtype()


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """The contraction of a's last `dims` dims with b's first `dims`, or of the two lists of dims given."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return _C._tensordot(a, b, list(range(a.dim() - dims, a.dim())), list(range(dims)))
    dims_a, dims_b = ([d] if isinstance(d, int) else [int(x) for x in d] for d in dims)
    return _C._tensordot(a, b, dims_a, dims_b)


def compile(model: Any = None, **options: Any) -> Any:  # noqa: A001  (PyTorch's name)
    """torch.compile: Ember runs eagerly, so the model or function comes back as it is (and used as a
    decorator, so does the function it decorates); the options are PyTorch's and change nothing."""
    if model is None:
        return lambda fn: fn
    return model


_matmul_precision = "highest"


def result_type(tensor1: Any, tensor2: Any) -> Any:
    """The dtype an arithmetic op of the two operands (tensors or Python numbers) computes in."""
    if not isinstance(tensor1, Tensor) and not isinstance(tensor2, Tensor):
        # Two numbers: as two 0-d tensors (bool, int64, or the default dtype), as torch does.
        return _C.result_type(_scalar_tensor(tensor1), _scalar_tensor(tensor2))
    return _C.result_type(tensor1, tensor2)


def _scalar_tensor(value: Any) -> Tensor:
    if isinstance(value, builtins.bool):
        return _C.scalar_tensor(value, dtype=_C.bool)
    if isinstance(value, builtins.int):
        return _C.scalar_tensor(value, dtype=_C.int64)
    if isinstance(value, builtins.complex):
        return _C.scalar_tensor(value, dtype=_complex_default())
    return _C.scalar_tensor(value, dtype=_C.get_default_dtype())


def _complex_default() -> Any:
    """The complex dtype of Python complex numbers: complex128 under a float64 default, else complex64."""
    return _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64


def set_float32_matmul_precision(precision: str) -> None:
    """Accepts PyTorch's "highest", "high" and "medium". Ember's float32 products always run at
    "highest" (no TF32 or bfloat16 rounding, on the CPU and on cuBLAS), which every setting allows."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: expected one of 'highest', 'high', 'medium'")
    _matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """What set_float32_matmul_precision was given ("highest" by default)."""
    return _matmul_precision


__all__ = ["detach", "is_floating_point", "is_complex", "get_default_dtype",
           "compile", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "tensordot",
           "result_type"]
