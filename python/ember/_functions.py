"""torch.* functions that PyTorch scripts call and that are compositions of Ember's ops (so their
gradients are those ops'), with PyTorch's signatures and results: interpolation and fused
multiply-adds of optimizers written by hand (lerp, addcmul, addcdiv), comparisons with tolerance,
dim moves and tiling, and the switches scripts flip that Ember has no use for (compile,
set_float32_matmul_precision)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as _np

from . import _C
from ._C import Tensor


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:  # noqa: A002  (PyTorch's names)
    """input + weight * (end - input)."""
    return input + weight * (end - input)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    """input + value * tensor1 * tensor2."""
    return input + tensor1 * tensor2 * value if value != 1 else input + tensor1 * tensor2


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    """input + value * tensor1 / tensor2."""
    return input + tensor1 / tensor2 * value if value != 1 else input + tensor1 / tensor2


def isclose(input: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise (equal infinities are close, NaN only with
    equal_nan), as PyTorch's."""
    other = other if isinstance(other, Tensor) else _C.full_like(input, other)
    close = _C.eq(input, other)
    if input.is_floating_point() or other.is_floating_point():
        finite = _C.isfinite(input) & _C.isfinite(other)
        close = close | (finite & (_C.abs(input - other) <= atol + rtol * _C.abs(other)))
        if equal_nan:
            close = close | (_C.isnan(input) & _C.isnan(other))
    return close


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,  # noqa: A002
               neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by nan, posinf and neginf (the dtype's largest and lowest values
    when None); integer tensors come back unchanged."""
    if not input.is_floating_point():
        return input.clone()
    info = _np.finfo(_np.float64 if input.dtype == _C.float64 else _np.float32)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    out = _C.where(_C.isnan(input), nan, input)
    out = _C.where(out == math.inf, hi, out)
    return _C.where(out == -math.inf, lo, out)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    """The number of nonzero elements (along dim), as int64."""
    nonzero = (input != 0).to(_C.int64)
    return nonzero.sum() if dim is None else nonzero.sum(dim)


def logical_xor(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """(input != 0) xor (other != 0)."""
    return _C.ne(input != 0, other != 0)


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A001,A002
    """clamp(input, min=min)."""
    from ._tensor import clamp
    return clamp(input, min, None)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A001,A002
    """clamp(input, max=max)."""
    from ._tensor import clamp
    return clamp(input, None, max)


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """input.detach()."""
    return input.detach()


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:  # noqa: A002
    return input.is_complex()


def get_default_dtype() -> Any:
    """float32: what ember.tensor gives Python floats and the factories create."""
    return _C.float32


def dot(input: Tensor, tensor: Tensor) -> Tensor:  # noqa: A002
    """The inner product of two 1-D tensors (a 0-d tensor)."""
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{tensor.shape[0]}] to have the same number of elements, but got "
                           f"{input.shape[0]} and {tensor.shape[0]} elements respectively")
    return _C.matmul(input, tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:  # noqa: A002
    """[n, m] @ [m] -> [n]."""
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"mv: expected a matrix and a vector, got {input.dim()}-D and {vec.dim()}-D tensors")
    return _C.matmul(input, vec)


def tile(input: Tensor, dims: Sequence[int]) -> Tensor:  # noqa: A002
    """input repeated dims[i] times along each dim; dims shorter than input.dim() count from the
    right (PyTorch's rule), longer ones add leading dims."""
    dims = tuple(dims) if not isinstance(dims, int) else (dims,)
    dims = (1,) * max(0, input.dim() - len(dims)) + dims
    return input.repeat(*dims)


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:  # noqa: A002
    """input with dims `source` moved to positions `destination` (an int or a sequence each), the
    others keeping their order."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.dim()
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
                           f"the same number of dims as destination ({dst} dims)")
    src = [d % n if n else d for d in src]
    dst = [d % n if n else d for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in source or destination")
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(*order)


moveaxis = movedim


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:  # noqa: A002
    """input with dim split into `sizes` (one of them may be -1)."""
    shape = list(input.shape)
    d = dim % len(shape)
    return input.reshape(*shape[:d], *sizes, *shape[d + 1:])


def broadcast_tensors(*tensors: Tensor) -> tuple:
    """The tensors expanded (as views) to their common broadcast shape."""
    shape = _np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


def exp2(input: Tensor) -> Tensor:  # noqa: A002
    """2 ** input."""
    return _C.pow(2.0, input)


def hypot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """sqrt(input^2 + other^2)."""
    return _C.sqrt(input * input + other * other)


def deg2rad(input: Tensor) -> Tensor:  # noqa: A002
    return input * (math.pi / 180.0)


def rad2deg(input: Tensor) -> Tensor:  # noqa: A002
    return input * (180.0 / math.pi)


def erfc(input: Tensor) -> Tensor:  # noqa: A002
    """1 - erf(input)."""
    return 1.0 - _C.erf(input)


def compile(model: Any = None, **options: Any) -> Any:  # noqa: A001  (PyTorch's name)
    """torch.compile: Ember runs eagerly, so the model or function comes back as it is (and used as a
    decorator, so does the function it decorates); the options are PyTorch's and change nothing."""
    if model is None:
        return lambda fn: fn
    return model


_matmul_precision = "highest"


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


__all__ = ["lerp", "addcmul", "addcdiv", "isclose", "nan_to_num", "count_nonzero", "logical_xor", "clamp_min",
           "clamp_max", "detach", "is_floating_point", "is_complex", "get_default_dtype", "dot", "mv", "tile",
           "movedim", "moveaxis", "unflatten", "broadcast_tensors", "exp2", "hypot", "deg2rad", "rad2deg", "erfc",
           "compile", "set_float32_matmul_precision", "get_float32_matmul_precision"]
