"""Tensor methods of PyTorch that Ember composes in Python.

- In-place forms: t.op_(...) is t.copy_(op(t, ...)), written through every view of t. autograd
  sees a copy into t, so an in-place op on a leaf that requires grad is refused, as PyTorch
  refuses it (use torch.no_grad() or .data, as in PyTorch); in a recorded graph op reads a copy of
  t, which its backward may need. As PyTorch, a result whose dtype t's cannot hold without
  changing category is refused ("result type Float can't be cast to the desired output type
  Long" for an int64 t.sqrt_()), not truncated.
- Random fills (normal_, uniform_, bernoulli_, exponential_, cauchy_, log_normal_, geometric_):
  drawn from the default generator or the one given, in t's dtype, on t's device.
- Methods that forward to a function: t.lerp(end, w) is ember.lerp(t, end, w), and so on."""
from __future__ import annotations

from typing import Any

import numpy as _np

from . import _C
from . import _zero_grad
from . import _functions as fn
from . import linalg as _linalg
from .autograd import is_grad_enabled, no_grad
from ._C import Tensor
from ._promotion import check_castable


def _fill_from(self: Tensor, values: Tensor) -> Tensor:
    return self.copy_(values)


def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills with N(mean, std^2) draws."""
    draws = _C.randn(*self.shape, generator=generator, dtype=self.dtype, device=self.device)
    return _fill_from(self, draws * std + mean)


def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills with U[a, b) draws (PyTorch's from_ and to)."""
    draws = _C.rand(*self.shape, generator=generator, dtype=self.dtype, device=self.device)
    return _fill_from(self, draws * (b - a) + a)


def _bernoulli_(self: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    """Fills with 1 where a U[0, 1) draw is below p, else 0."""
    draws = _C.rand(*self.shape, generator=generator, dtype=_C.float64, device=self.device)
    return _fill_from(self, (draws < p).to(self.dtype))


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills with Exp(lambd) draws: -log(1 - u) / lambd."""
    draws = _C.rand(*self.shape, generator=generator, dtype=self.dtype, device=self.device)
    return _fill_from(self, -_C.log1p(-draws) / lambd)


def _cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills with Cauchy(median, sigma) draws: median + sigma tan(pi (u - 1/2))."""
    draws = _C.rand(*self.shape, generator=generator, dtype=_C.float64, device=self.device)
    return _fill_from(self, (_C.tan((draws - 0.5) * _np.pi) * sigma + median).to(self.dtype))


def _log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Fills with exp(N(mean, std^2)) draws."""
    draws = _C.randn(*self.shape, generator=generator, dtype=self.dtype, device=self.device)
    return _fill_from(self, _C.exp(draws * std + mean))


def _geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fills with the number of Bernoulli(p) trials up to the first success (1, 2, ...):
    ceil(log(u) / log(1 - p)) for u uniform in (0, 1]."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = 1 - _C.rand(*self.shape, generator=generator, dtype=_C.float64, device=self.device)
    return _fill_from(self, _C.ceil(_C.log(u) / _np.log1p(-p)).clamp(1, None).to(self.dtype))


def _fill_diagonal(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """self with its main diagonal (the elements whose indices are all equal) set to fill_value; for
    a tall matrix with wrap=True the diagonal starts again every columns + 1 rows, as PyTorch's (it
    steps through the flat storage by columns + 1)."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    step = sum(_np.cumprod([1] + list(self.shape[:0:-1])))  # the flat distance between (i, i, ..) and (i+1, ..)
    count = min(self.shape)
    if wrap and self.dim() == 2 and self.shape[0] > self.shape[1]:
        count = (self.numel() - 1) // step + 1
    positions = _C.arange(count, dtype=_C.int64, device=self.device) * int(step)
    return _C.index_fill(self.reshape(-1), 0, positions, fill_value).reshape(*self.shape)


def _diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
          append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along dim (prepend and append joined first); of a bool tensor,
    whether neighbours differ (logical_xor), as PyTorch's."""
    x = self
    if n == 0:
        return self.clone()  # a copy, as PyTorch's; prepend and append are not joined either
    if prepend is not None or append is not None:
        x = _C.cat([t for t in (prepend, x, append) if t is not None], dim)
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        later, earlier = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = _C.logical_xor(later, earlier) if x.dtype == _C.bool else later - earlier
    return x


def _index_put_(self: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """self[indices] = values (+= with accumulate, where repeated indices add up), in place."""
    if isinstance(values, Tensor) and values.dtype != self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {self.dtype} for the "
                           f"destination and {values.dtype} for the source.")
    indices = tuple(indices)
    if not accumulate:
        self[indices] = values
        return self
    if not all(isinstance(i, Tensor) for i in indices):
        raise NotImplementedError("index_put_: accumulate takes a tuple of index tensors")
    # The indexed leading dims as one flat position each, their values added at it.
    lead = list(self.shape[:len(indices)])
    for d, (i, n) in enumerate(zip(indices, lead)):  # NB: an index past its dim could land inside the flat one
        outside = (i < -n) | (i >= n)
        if bool(outside.any()):
            bad = int(i[outside].reshape(-1)[0].item())
            raise IndexError(f"index_put_: index {bad} is out of bounds for dimension {d} with size {n}")
    shape = _np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    flat = _C.zeros(*shape, dtype=_C.int64, device=self.device)
    for i, n in zip(indices, lead):
        flat = flat * n + _C.where(i < 0, i + n, i).to(_C.int64).expand(*shape)
    rest = list(self.shape[len(indices):])
    vals = values if isinstance(values, Tensor) else _C.full((), values, dtype=self.dtype, device=self.device)
    vals = vals.to(self.dtype).expand(*shape, *rest).reshape(-1, *rest)
    updated = _C.index_add(self.reshape(-1, *rest), 0, flat.reshape(-1), vals)
    return self.copy_(updated.reshape(*self.shape))


def _random_(self: Tensor, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Tensor:
    """Fills with integers drawn uniformly from [from_, to - 1] (to: the dtype's largest exact integer
    + 1 when None; random_(to) is random_(0, to))."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        to = {_C.float32: 2 ** 24, _C.float64: 2 ** 53, _C.int32: 2 ** 31, _C.uint8: 256}.get(self.dtype, 2 ** 63)
    draws = _C.randint(from_, to, tuple(self.shape), generator=generator, dtype=_C.int64, device=self.device)
    return self.copy_(draws.to(self.dtype))


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """A view of the windows of `size` elements every `step` along dimension: that dim counts the
    windows, a new last dim holds each one's elements (an as_strided view, as PyTorch's; windows that
    overlap share elements, so write into a clone)."""
    d = dimension % max(self.dim(), 1)
    length = self.shape[d] if self.dim() else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    windows = (length - size) // step + 1
    if self.dim() == 0:
        return self.as_strided((size,), (1,))
    sizes, strides = list(self.shape), list(self.stride())
    sizes[d], strides[d] = windows, strides[d] * step
    return self.as_strided(sizes + [size], strides + [self.stride(d)], self.storage_offset())


def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """self summed to `size`, which it broadcasts to (the dims that are 1 there, and leading ones)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    lead = self.dim() - len(shape)
    out = self.sum(tuple(range(lead))) if lead > 0 else self
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and out.shape[d] != 1)
    return out.sum(dims, keepdim=True) if dims else out


_METHODS = {
    "clamp_min": fn.clamp_min,
    "clamp_max": fn.clamp_max,
    "unique": fn.unique,
    "split_with_sizes": lambda self, split_sizes, dim=0: self.split(list(split_sizes), dim),
    "sum_to_size": _sum_to_size,
    "unfold": _unfold,
    "index_put": fn.index_put,
    "diff": _diff,
    "polygamma": lambda self, n: _C.polygamma(n, self),
    "det": _linalg.det,
    "logdet": _linalg.logdet,
    "slogdet": _linalg.slogdet,
    "inverse": _linalg.inv,
    "cholesky": _linalg.cholesky_legacy,
    "svd": _linalg.svd_legacy,
    "qr": _linalg.qr_legacy,
    "matrix_exp": _linalg.matrix_exp,
    "matrix_power": _linalg.matrix_power,
    "pinverse": _linalg.pinverse,
    "allclose": lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: bool(
        _C.isclose(self, other, rtol, atol, equal_nan).all()),
    "equal": lambda self, other: tuple(self.shape) == tuple(other.shape) and bool((self == other).all()),
}

# In-place forms composed here: the out-of-place op, copied into self. (The table's ops have theirs
# from C++: `inplace` in ops/ops.toml.)
_INPLACE = {
    "clamp_min_": fn.clamp_min, "clamp_max_": fn.clamp_max,
    "polygamma_": lambda self, n: _C.polygamma(n, self),
    # arithmetic under PyTorch's other names
    "multiply_": _C.mul, "divide_": _C.div, "true_divide_": _C.true_divide, "clip_": _C.clamp,
    "fill_diagonal_": _fill_diagonal,
}


def _subtract(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return _C.sub(self, other, alpha=alpha) if isinstance(other, Tensor) else _C.sub(self, other * alpha)


_INPLACE["subtract_"] = _subtract

# apply_ / map_ / map2_ (a Python callable per element) live in a file of their own.
from . import _apply  # noqa: E402
_METHODS.update({"apply_": _apply.apply_, "map_": _apply.map_, "map2_": _apply.map2_})


def _records(self: Tensor, args: Any, kwargs: Any) -> bool:
    """Whether op(self, *args) will be recorded in a graph."""
    if not is_grad_enabled():
        return False
    return any(isinstance(a, Tensor) and a.requires_grad for a in (self, *args, *kwargs.values()))


def _inplace(op):
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        # NB: while a graph is recorded, op reads a copy of self: op may save its input for its
        # backward (clamp; pow_(b) saves self for b's gradient even when self needs none), and the
        # copy_ below changes self (PyTorch keeps the original too).
        source = self.clone() if _records(self, args, kwargs) else self
        result = op(source, *args, **kwargs)
        check_castable(result, self)
        return self.copy_(result)
    method.__doc__ = f"In place: self.copy_({getattr(op, '__name__', 'op')}(self, ...))."
    return method


def _untracked_inplace(op):
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        result = op(self, *args, **kwargs)
        check_castable(result, self)
        with no_grad():
            return self.copy_(result)
    method.__doc__ = (f"In place, outside the graph: self.copy_({getattr(op, '__name__', 'op')}(self, ...)). As "
                      "PyTorch's ops without a derivative: self keeps its history (a leaf that requires grad "
                      "stays one), so a gradient passes through as if the op were not there.")
    return method


def _comparison_inplace(op):
    def method(self: Tensor, other: Any) -> Tensor:
        # NB: as PyTorch's, the result (1 and 0 in self's dtype) depends on both operands with a zero
        # gradient: self's history and other get zeros, and self requires grad when other does.
        return self.copy_(_zero_grad.with_zero_grad(op(self, other).to(self.dtype), other))
    method.__doc__ = (f"In place: self.copy_({op.__name__}(self, other)), 1 and 0 in self's dtype; both operands "
                      "get a zero gradient, as PyTorch's.")
    return method


_COMPARISONS_INPLACE = {
    "eq_": _C.eq, "ne_": _C.ne, "lt_": _C.lt, "le_": _C.le, "gt_": _C.gt, "ge_": _C.ge, "not_equal_": _C.ne,
    "less_": _C.lt, "less_equal_": _C.le, "greater_": _C.gt, "greater_equal_": _C.ge,
}


_UNTRACKED_INPLACE = {"logical_and_": _C.logical_and, "logical_or_": _C.logical_or, "logical_not_": _C.logical_not}


def _bitwise_inplace(op):
    def method(self: Tensor, other: Any) -> Tensor:
        result = op(self, other)
        check_castable(result, self)
        return self.copy_(result)
    method.__doc__ = f"In place: self.copy_({op.__name__}(self, other)) (integer and bool tensors)."
    return method


_BITWISE_INPLACE = {
    ("bitwise_and_", "__iand__"): _C.bitwise_and,
    ("bitwise_or_", "__ior__"): _C.bitwise_or,
    ("bitwise_xor_", "__ixor__"): _C.bitwise_xor,
    ("bitwise_left_shift_", "__ilshift__"): _C.bitwise_left_shift,
    ("bitwise_right_shift_", "__irshift__"): _C.bitwise_right_shift,
}


def install() -> None:
    """Adds the methods Tensor lacks (a C++ method of the same name is kept)."""
    for name, f in _METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, f)
    for name, op in _INPLACE.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _inplace(op))
    for name, op in {**_UNTRACKED_INPLACE, "logical_xor_": _C.logical_xor}.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _untracked_inplace(op))
    for name, op in _COMPARISONS_INPLACE.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _comparison_inplace(op))
    for names, op in _BITWISE_INPLACE.items():
        for name in names:
            setattr(Tensor, name, _bitwise_inplace(op))
    Tensor.bitwise_not_ = _inplace(_C.bitwise_not)
    for name, f in (("normal_", _normal_), ("uniform_", _uniform_), ("bernoulli_", _bernoulli_),
                    ("exponential_", _exponential_), ("cauchy_", _cauchy_), ("log_normal_", _log_normal_),
                    ("geometric_", _geometric_), ("random_", _random_), ("index_put_", _index_put_)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, f)


install()
from . import _memory_methods  # noqa: E402,F401  (pin_memory, is_pinned, share_memory_, is_shared)
