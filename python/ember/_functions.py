"""torch.* functions that PyTorch scripts call and that are compositions of Ember's ops (so their
gradients are those ops'), with PyTorch's signatures and results: interpolation and fused
multiply-adds of optimizers written by hand (lerp, addcmul, addcdiv), comparisons with tolerance,
dim moves and tiling, and the switches scripts flip that Ember has no use for (compile,
set_float32_matmul_precision)."""
from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as _np

from . import _C, _promotion, _zero_grad
from ._promotion import torch_type_name
from .autograd.function import Function
from ._C import Tensor
from ._mode import _ValuesIndices, mode
from ._scatter_reduce import scatter_reduce as _scatter_reduce
from ._tensor import clamp as _clamp
from ._zero_dim import as_one_dim as _as_one_dim
from ._autocast_op import autocast_op

scatter_reduce = _as_one_dim(_scatter_reduce)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:  # noqa: A002  (PyTorch's names)
    """input + weight * (end - input) where |weight| < 0.5, else end - (end - input) * (1 - weight):
    PyTorch's two forms, each exact at its own end (lerp(a, b, 1) is b), and so infinite where that
    end is (lerp(inf, 1, 0.75) is inf, not inf - inf)."""
    if isinstance(weight, Tensor) and weight.dtype == _C.bool:
        weight = weight.to(input.dtype)  # NB: PyTorch takes a bool weight as 0 and 1
    if not isinstance(weight, Tensor):
        return _LerpScalar.apply(input, end, weight)
    if weight.dtype != input.dtype and weight.is_floating_point() and input.is_floating_point():
        weight = weight.to(_promotion.result_type(input, weight))  # NB: 1 - weight in the result's dtype, as PyTorch
    return _Lerp.apply(*broadcast_tensors(input, end, weight))


class _LerpScalar(Function):
    """lerp with a number weight, and PyTorch's gradients grad (1 - weight) and grad weight: autograd's
    way through input + weight (end - input) gave grad - grad weight = inf - inf = NaN to input for an
    infinite grad and a weight of 0."""

    @staticmethod
    def forward(ctx, input, end, weight):  # noqa: A002
        ctx.weight, ctx.shapes = weight, (input.shape, end.shape)
        if abs(weight) < 0.5:
            return input + weight * (end - input)
        return end - (end - input) * (1 - weight)

    @staticmethod
    def backward(ctx, grad):
        weight, (input_shape, end_shape) = ctx.weight, ctx.shapes
        return _sum_to(grad * (1 - weight), input_shape), _sum_to(grad * weight, end_shape), None


class _Lerp(Function):
    """lerp with a tensor weight (broadcast already), and PyTorch's gradients: grad (1 - weight),
    grad weight and grad (end - input). Through where() instead, the branch it drops sends
    0 * (end - input) = NaN to the weight where an end is infinite."""

    @staticmethod
    def forward(ctx, input, end, weight):  # noqa: A002
        ctx.save_for_backward(input, end, weight)
        return _C.where(_C.abs(weight) < 0.5, input + weight * (end - input), end - (end - input) * (1 - weight))

    @staticmethod
    def backward(ctx, grad):
        input, end, weight = ctx.saved_tensors  # noqa: A001
        return grad * (1 - weight), grad * weight, grad * (end - input)


def _truncated_value(value: Any, dtype: Any) -> Any:
    # NB: PyTorch casts the scalar to the op's dtype, so an integer op takes int(value): addcmul of
    # int64 tensors with value=0.5 adds 0.
    if isinstance(value, float) and not (dtype.is_floating_point or dtype.is_complex):
        return int(value)
    return value


@autocast_op("addcmul")
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    """input + value * tensor1 * tensor2, every operand first cast to the dtype the three promote to
    (value does not take part, as PyTorch's scalar; an integer dtype truncates it)."""
    dtype = _promotion.result_type(input, tensor1, tensor2)
    input, tensor1, tensor2 = (_promotion.as_dtype(t, dtype) for t in (input, tensor1, tensor2))
    value = _truncated_value(value, dtype)
    return _Addcmul.apply(input, tensor1, tensor2, value)


@autocast_op("addcdiv")
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    """input + value * tensor1 / tensor2, every operand first cast to the dtype the three promote to;
    integer tensor1 and tensor2 are refused, as PyTorch refuses them."""
    if all(isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex) for t in (tensor1, tensor2)):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                           "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                           "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    dtype = _promotion.result_type(input, tensor1, tensor2)
    input, tensor1, tensor2 = (_promotion.as_dtype(t, dtype) for t in (input, tensor1, tensor2))
    return _Addcdiv.apply(input, tensor1, tensor2, value)


def _sum_to(grad: Tensor, shape: Any) -> Tensor:
    return grad if tuple(grad.shape) == tuple(shape) else grad.sum_to_size(*shape) if len(shape) else grad.sum()


def _save_operands(ctx, tensor1: Tensor, tensor2: Tensor, divides: bool) -> None:
    """Saves what the gradients need, as PyTorch's derivatives: tensor1's needs tensor2, tensor2's
    tensor1 (and itself where it divides). NB: x.addcdiv_(x, y) writes the tensor1 a saved copy would
    check."""
    need = ctx.needs_input_grad
    ctx.save_for_backward(tensor1 if need[2] else None, tensor2 if need[1] or (divides and need[2]) else None)


class _Addcmul(Function):
    """input + value * tensor1 * tensor2 with PyTorch's gradients, each taken at the broadcast shape and
    then summed to its operand's (grad * tensor2 * value to tensor1): summed first, as the composite's
    autograd does, a sum of gradients of both signs times inf gave inf where PyTorch's gives NaN, and an
    empty broadcast 0 * inf = NaN where PyTorch's gives 0."""

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):  # noqa: A002
        _save_operands(ctx, tensor1, tensor2, divides=False)
        ctx.value, ctx.shapes = value, (input.shape, tensor1.shape, tensor2.shape)
        scaled = tensor1 if value == 1 else tensor1 * value
        if input.dtype in (_C.float32, _C.float16, _C.bfloat16):
            # NB: rounded once, as PyTorch's fused multiply-add (input + (value * tensor1) * tensor2, which
            # its compiler contracts): -2.5 + 2 * 1.1181382^2 is 4.66042e-4 so, 4.66108e-4 rounded twice.
            # The float32 product is exact in double; the double sum's rounding is far below float32's.
            return (input.double() + scaled.double() * tensor2.double()).to(input.dtype)
        return input + scaled * tensor2

    @staticmethod
    def backward(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        need, shapes = ctx.needs_input_grad, ctx.shapes
        return (_sum_to(grad, shapes[0]) if need[0] else None,
                _sum_to(grad * (tensor2 * ctx.value), shapes[1]) if need[1] else None,
                _sum_to(grad * (tensor1 * ctx.value), shapes[2]) if need[2] else None, None)


class _Addcdiv(Function):
    """input + value * tensor1 / tensor2 with PyTorch's gradients, taken at the broadcast shape as
    _Addcmul's: grad * (value / tensor2) to tensor1, -grad * (value * tensor1 / (tensor2 * tensor2))
    to tensor2."""

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):  # noqa: A002
        _save_operands(ctx, tensor1, tensor2, divides=True)
        ctx.value, ctx.shapes = value, (input.shape, tensor1.shape, tensor2.shape)
        return input + tensor1 / tensor2 if value == 1 else input + tensor1 * value / tensor2

    @staticmethod
    def backward(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        need, value, shapes = ctx.needs_input_grad, ctx.value, ctx.shapes
        return (_sum_to(grad, shapes[0]) if need[0] else None,
                _sum_to(grad * (value / tensor2), shapes[1]) if need[1] else None,
                _sum_to(-grad * (value * tensor1 / (tensor2 * tensor2)), shapes[2]) if need[2] else None, None)


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
    elif rtol != 0 or atol != 0:  # NB: as PyTorch's, integers within a tolerance compare in the default float dtype
        a, b = input.to(_C.get_default_dtype()), other.to(_C.get_default_dtype())
        close = close | (_C.abs(a - b) <= atol + rtol * _C.abs(b))
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
    x = input.detach()
    out = _C.where(_C.isnan(x), nan, x)
    out = _C.where(out == math.inf, hi, out)
    return _KeepWhere.apply(input, _C.isfinite(x), _C.where(out == -math.inf, lo, out))


class _KeepWhere(Function):
    """where(keep, x, other) for a constant other (a number, or a tensor that requires no grad), with the gradient grad * keep (PyTorch's for
    nan_to_num and nansum): a NaN or infinite gradient stays NaN where x was replaced (a where()
    would give 0 there)."""

    @staticmethod
    def forward(ctx, x, keep, other):
        ctx.save_for_backward(keep)
        return _C.where(keep, x, other)

    @staticmethod
    def backward(ctx, grad):
        keep, = ctx.saved_tensors
        return grad * keep, None, None


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    """The number of nonzero elements (along dim), as int64."""
    nonzero = (input != 0).to(_C.int64)
    return nonzero.sum() if dim is None else nonzero.sum(dim)


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A001,A002
    """clamp(input, min=min)."""
    return _clamp(input, min, None)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A001,A002
    """clamp(input, max=max)."""
    return _clamp(input, None, max)


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


@autocast_op("dot")
def dot(input: Tensor, tensor: Tensor) -> Tensor:  # noqa: A002
    """The inner product of two 1-D tensors (a 0-d tensor)."""
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{tensor.shape[0]}] to have the same number of elements, but got "
                           f"{input.shape[0]} and {tensor.shape[0]} elements respectively")
    return _C.matmul(input, tensor)


@autocast_op("mv")
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


def _wrap_dim(d: int, n: int) -> int:
    """d counted from the end when negative; a 0-d tensor takes 0 and -1, as PyTorch's."""
    rank = max(n, 1)
    if not -rank <= d < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d})")
    return d % rank


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:  # noqa: A002
    """input with dims `source` moved to positions `destination` (an int or a sequence each), the
    others keeping their order."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.dim()
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
                           f"the same number of dims as destination ({dst} dims)")
    src = [_wrap_dim(d, n) for d in src]
    dst = [_wrap_dim(d, n) for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in source or destination")
    if n == 0:
        return input.view_as(input)
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(*order)


moveaxis = movedim


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:  # noqa: A002
    """input with dim split into `sizes` (one of them may be -1, inferred from the others: the
    sizes are resolved here, so a zero-size dim splits too, as long as -1 is determined)."""
    if input.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.shape)
    d = _wrap_dim(dim, len(shape))
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0:
            raise RuntimeError(f"unflatten: cannot reshape tensor of {shape[d]} elements into shape {sizes} because "
                               "the unspecified dimension size -1 can be any value and is ambiguous")
        sizes[sizes.index(-1)] = shape[d] // known
    if math.prod(sizes) != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                           f"({shape[d]}) in the input tensor")
    return input.reshape(*shape[:d], *sizes, *shape[d + 1:])


def broadcast_tensors(*tensors: Tensor) -> tuple:
    """The tensors expanded (as views) to their common broadcast shape."""
    shape = _np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


class _Hypot(Function):
    """sqrt(a^2 + b^2) without overflow or underflow in between (computed in float64 for the
    narrower floating dtypes, scaled by max(|a|, |b|) in float64), inf where either is infinite
    (even against NaN, as C's hypot); PyTorch's gradient, a / r and b / r (NaN at r = 0)."""

    @staticmethod
    def forward(ctx, a, b):
        work = _C.float64 if a.dtype in (_C.float16, _C.bfloat16, _C.float32) else a.dtype
        x, y = _C.abs(a.to(work)), _C.abs(b.to(work))
        big, small = _C.maximum(x, y), _C.minimum(x, y)
        safe = _C.where(big == 0, _C.ones_like(big), big)  # NB: no 0 / 0 (nor inf / inf, below)
        ratio = small / safe
        r = _C.where(big == 0, _C.zeros_like(big), big * _C.sqrt(1 + ratio * ratio))
        r = _C.where(_C.isinf(x) | _C.isinf(y), _C.full_like(r, math.inf), r).to(a.dtype)
        ctx.save_for_backward(a, b, r)
        return r

    @staticmethod
    def backward(ctx, grad):
        a, b, r = ctx.saved_tensors
        return grad * a / r, grad * b / r


def hypot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """sqrt(input^2 + other^2), elementwise and broadcast, in the dtype the two promote to (both
    cast to it first, so a float32 operand does not round a float64 result); other must be a
    tensor, as PyTorch's."""
    if not isinstance(other, Tensor):
        raise TypeError(f"hypot(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    dtype = _promotion.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _C.get_default_dtype()
    a, b = (_promotion.as_dtype(x, dtype) if isinstance(x, Tensor) else _C.scalar_tensor(x, dtype=dtype)
            for x in (input, other))
    return _Hypot.apply(*broadcast_tensors(a, b))


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple:
    """(var, mean) over dim, as ember.var and ember.mean give them, but past a sum's overflow as PyTorch's
    one Welford pass gives them (_past_overflow)."""
    var, mean = _C.var(input, dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim=keepdim)
    return _past_overflow(input, dim, unbiased, keepdim, correction, var, mean, False)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple:
    """(std, mean) over dim, as ember.std and ember.mean give them (std's gradient is 0 where the
    values are all equal, as PyTorch's; sqrt of the variance would give 0 * inf = NaN there), and past a
    sum's overflow as var_mean."""
    std, mean = _C.std(input, dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim=keepdim)
    return _past_overflow(input, dim, unbiased, keepdim, correction, std, mean, True)


def _past_overflow(input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, spread: Tensor,  # noqa: A002
                   mean: Tensor, is_std: bool) -> tuple:
    """var_mean's (or std_mean's) results where a slice of finite values has a sum that overflows (18
    times -3.4e38 in float32, twice 1.8e308): PyTorch's Welford pass keeps the mean finite there (and
    the variance of equal values 0), so the mean is taken as the sum of x / n and the variance about
    it, in float64. Elsewhere, and where a slice holds inf or NaN, the results stay as they are."""
    if not input.is_floating_point() or input.dim() == 0 or bool(_C.isfinite(mean).all()):
        return spread, mean
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [d % input.dim() for d in dims]
    n = 1
    for d in dims:
        n *= input.shape[d]
    if correction is None:
        correction = 0 if unbiased is False else 1
    use = ~_C.isfinite(input.mean(dims, keepdim=True)) & ((~_C.isfinite(input)).sum(dims, keepdim=True) == 0)
    if not bool(use.any()):
        return spread, mean
    # NB: only the slices that use it see the data: the others' infinities would send 0 * inf = NaN back
    # through where()'s unused branch
    wide = _C.where(use, input.double() if input.dtype != _C.float64 else input, 0.0)
    centre = (wide / n).sum(dims, keepdim=True)
    centered = wide - centre
    var = (centered * centered).sum(dims, keepdim=keepdim) / max(0, n - correction)
    robust = (_C.sqrt(var) if is_std else var).to(spread.dtype), (centre if keepdim else centre.squeeze(dims) if dims
                                                                  else centre.reshape(())).to(mean.dtype)
    use = use if keepdim else use.squeeze(dims) if dims else use.reshape(())
    return _C.where(use, robust[0], spread), _C.where(use, robust[1], mean)


@autocast_op("trace")
def trace(input: Tensor) -> Tensor:  # noqa: A002
    """The sum of a matrix's diagonal."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return _C.diagonal(input).sum()


class _MedianAll(Function):
    """median() of every element; PyTorch's gradient: split evenly among the elements equal to the
    median (the NaNs, when the median is NaN)."""

    @staticmethod
    def forward(ctx, x, value):
        ctx.save_for_backward(x, value)
        return value.clone()

    @staticmethod
    def backward(ctx, grad):
        x, value = ctx.saved_tensors
        hit = _C.isnan(x) if bool(_C.isnan(value)) else x == value
        return _C.where(hit, grad / hit.sum(), _C.zeros_like(grad)), None


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The lower median, NaN where there is a NaN (PyTorch's rule): of all elements (a 0-d tensor;
    NaN for no elements), or along dim as (values, indices), the index of a NaN row its first NaN."""
    if input.dtype == _C.bool:
        raise NotImplementedError('"median_cpu" not implemented for \'Bool\'')
    if dim is None:
        flat = input.detach().reshape(-1)
        n = flat.numel()
        if n == 0:  # NB: as PyTorch: NaN, which an integer dtype holds as its lowest value
            fill = math.nan if input.is_floating_point() else int(_np.iinfo(str(input.dtype).split(".")[-1]).min)
            nan = _C.full((), fill, dtype=input.dtype, device=input.device)
            return input.sum() + nan if input.requires_grad else nan  # (its gradient: empty, as PyTorch's)
        value = _C.sort(flat)[0][(n - 1) // 2]
        if input.is_floating_point():
            value = _C.where(_C.isnan(flat).any(), _C.full_like(value, math.nan), value)
        return _MedianAll.apply(input, value) if input.requires_grad else value
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    index = _C.kthvalue(input.detach(), (n - 1) // 2 + 1, d, True)[1]
    if input.is_floating_point():
        nan = _C.isnan(input.detach())
        first_nan = _C.argmax(nan.to(_C.int64), d, keepdim=True)  # NB: argmax gives the first of equal maxima
        index = _C.where(nan.any(d, keepdim=True), first_nan, index)
    values = _C.gather(input, d, index)  # NB: the gradient goes to the median's element
    if not keepdim and input.dim():
        values, index = values.squeeze(d), index.squeeze(d)
    return _ValuesIndices(values, index)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    """sum with NaN counted as 0 (over every dim when dim is None, kept as size 1 with keepdim)."""
    clean = _KeepWhere.apply(input, ~_C.isnan(input), 0.0) if input.is_floating_point() else input
    if dim is None:
        total = clean.sum()
        return total.reshape(*([1] * input.dim())) if keepdim else total
    return clean.sum(dim, keepdim=keepdim)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    """mean over the elements that are not NaN (floating dtypes, as PyTorch)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{torch_type_name(input.dtype)}")
    count = (~_C.isnan(input)).to(input.dtype)
    return nansum(input, dim, keepdim) / nansum(count, dim, keepdim)


def signbit(input: Tensor) -> Tensor:  # noqa: A002
    """Whether the sign bit is set (true for -0.0 and negative NaN-free values)."""
    if not input.is_floating_point():
        return input < 0
    return (input < 0) | ((input == 0) & (1.0 / input < 0))


def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    """values where input is 0, else 1 where input > 0 and 0 elsewhere (NaN too, as PyTorch's
    input > 0); in the dtype the two promote to (int stays int, bool bool)."""
    dtype = _promotion.result_type(input, values)
    step = (input > 0).to(dtype)
    # NB: input gets a zero gradient (a step function's, almost everywhere); PyTorch's raises in backward
    return _zero_grad.with_zero_grad(_C.where(input == 0, _promotion.as_dtype(values, dtype), step), input)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """base ** linspace(start, end, steps)."""
    exponents = _C.linspace(start, end, steps, dtype=_C.float64)
    out = _C.pow(float(base), exponents).to(dtype or _C.float32)
    out = out if device is None else out.to(device)
    return out.requires_grad_() if requires_grad else out


@autocast_op("cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distances between the rows of x1 [*, P, M] and of x2 [*, R, M]: [*, P, R]."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == math.inf:
        return _C.abs(diff).amax(-1)
    if p == 0:  # the count of differing entries (NaN where one is NaN, as PyTorch's cdist, not its norm):
        # a zero gradient, as PyTorch's cdist (not None, as its norm)
        d = diff.detach()
        count = _C.where(_C.isnan(d).any(-1), math.nan, _C.norm(d, 0.0, [-1], False))
        return _zero_grad.with_zero_grad(count, x1, x2)
    if p == 1:
        return _CdistOne.apply(x1, x2, diff.detach())
    if p == 2:
        return _CdistTwo.apply(x1, x2, diff.detach())
    # NB: through the norm op, for PyTorch's gradients: 0 where a distance is 0
    return _C.norm(diff, float(p), [-1], False)


class _CdistTwo(Function):
    """cdist with p = 2, and PyTorch's gradient (_cdist_backward): grad * (x1 - x2) / dist, then 0 where the
    distance is 0 whatever the incoming gradient is (1 / cdist there sends inf; the norm op's backward,
    grad * 0, made that NaN)."""

    @staticmethod
    def forward(ctx, x1, x2, diff):
        dist = _C.norm(diff, 2.0, [-1], False)
        ctx.save_for_backward(diff, dist)
        ctx.shapes = (x1.shape, x2.shape)
        return dist

    @staticmethod
    def backward(ctx, grad):
        diff, dist = ctx.saved_tensors
        d = dist.unsqueeze(-1)
        g = _C.where(d == 0, _C.zeros_like(diff), grad.unsqueeze(-1) * (diff / d))
        return _sum_to(g.sum(-2), ctx.shapes[0]), _sum_to(-g.sum(-3), ctx.shapes[1]), None


class _CdistOne(Function):
    """cdist with p = 1, and PyTorch's gradient grad * sign(x1 - x2), which is NaN where the difference is
    (the norm op's sign gives 0 there)."""

    @staticmethod
    def forward(ctx, x1, x2, diff):
        ctx.save_for_backward(diff)
        ctx.shapes = (x1.shape, x2.shape)
        return _C.norm(diff, 1.0, [-1], False)

    @staticmethod
    def backward(ctx, grad):
        diff, = ctx.saved_tensors
        g = grad.unsqueeze(-1) * _C.where(_C.isnan(diff), diff, _C.sign(diff))
        return _sum_to(g.sum(-2), ctx.shapes[0]), _sum_to(-g.sum(-3), ctx.shapes[1]), None


def _search(seq: Tensor, values: Tensor, right: bool) -> Tensor:
    """For each row b, where each of values[b] [K] falls in seq[b] [N] (int64 [B, K]): PyTorch's binary
    search, all values at once. It moves right past a boundary unless boundary >= value (> with right),
    so a NaN value lands after every boundary, and a NaN boundary, sorted last, counts as below every
    value the search reaches it with: the answer is the search's, not a count of the boundaries below."""
    n = seq.shape[-1]
    start = _C.zeros(*values.shape, dtype=_C.int64, device=values.device)
    end = _C.full(tuple(values.shape), n, dtype=_C.int64, device=values.device)
    for _ in range(max(n, 1).bit_length() + 1):
        active = start < end
        mid = start + _C.floor_divide(end - start, 2)
        at_mid = _C.gather(seq, -1, _C.clamp(mid, None, max(n - 1, 0)))
        right_of = _C.logical_not(at_mid > values if right else at_mid >= values)
        start = _C.where(active & right_of, mid + 1, start)
        end = _C.where(active & _C.logical_not(right_of), mid, end)
    return start


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,  # noqa: A002
                 side: str | None = None, sorter: Any = None) -> Tensor:
    """Where each value would be inserted into the sorted last dim of sorted_sequence (the leftmost
    place, or with right=True / side="right" the rightmost); with sorter, the sequence is taken in the
    order its indices give along the last dim."""
    right = right or side == "right"
    values = input if isinstance(input, Tensor) else _C.scalar_tensor(input, dtype=sorted_sequence.dtype)
    if sorter is not None:
        sorted_sequence = _C.gather(sorted_sequence, -1, sorter)
    dtype = _C.int32 if out_int32 else _C.int64
    if sorted_sequence.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if sorted_sequence.dim() > 1 and tuple(sorted_sequence.shape[:-1]) != tuple(values.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor {list(values.shape)}")
    n = sorted_sequence.shape[-1]
    if n == 0 or values.numel() == 0:
        return _C.zeros(*values.shape, dtype=dtype, device=values.device)
    if sorted_sequence.dim() == 1:
        seq, rows = sorted_sequence.reshape(1, n), values.reshape(1, -1)
    else:
        seq, rows = sorted_sequence.reshape(-1, n), values.reshape(-1, values.shape[-1])
    return _search(seq, rows, right).reshape(*values.shape).to(dtype)


def bucketize(input: Tensor, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:  # noqa: A002
    """For each value, the index of the bucket of the sorted 1-D boundaries it falls in: the number of
    boundaries below it (right=False) or at or below it (right=True), found by searchsorted's binary
    search (NaN boundaries, sorted last, as PyTorch's); len(boundaries) for NaN."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """gather along dim, input and indices broadcast against each other outside it (flattened when
    dim is None)."""
    if dim is None:
        return input.reshape(-1)[indices.reshape(-1)]
    d = dim % input.dim()
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    shape_in[d] = shape_ix[d] = 1
    common = list(_np.broadcast_shapes(tuple(shape_in), tuple(shape_ix)))
    x_shape, i_shape = list(common), list(common)
    x_shape[d], i_shape[d] = input.shape[d], indices.shape[d]
    return _C.gather(input.expand(*x_shape), d, indices.expand(*i_shape))


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of the 1-D tensors' elements, one per row (itertools.product's order)."""
    if len(tensors) == 1:
        return tensors[0]
    from . import meshgrid
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The Kronecker product (the dims of the shorter one counted from the right)."""
    n = max(input.dim(), other.dim())
    a = input.reshape(*([1] * (n - input.dim())), *input.shape)
    b = other.reshape(*([1] * (n - other.dim())), *other.shape)
    # a[i] * b[j] at position i * b.shape + j: interleave the dims, then merge each pair.
    a_exp = a.reshape(*[s for d in a.shape for s in (d, 1)])
    b_exp = b.reshape(*[s for d in b.shape for s in (1, d)])
    return (a_exp * b_exp).reshape(*[x * y for x, y in zip(a.shape, b.shape)])


@autocast_op("cross")
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along dim (the first dim of size 3 when None)."""
    if dim is None:
        dim = next((d for d, n in enumerate(input.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("cross: no dimension of size 3 in input")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and "
                           f"{other.shape[dim]}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"linalg.cross: expected input and other to have the same dtype, got {input.dtype} and "
                           f"{other.dtype}")
    a0, a1, a2 = (input.narrow(dim, k, 1) for k in range(3))
    b0, b1, b2 = (other.narrow(dim, k, 1) for k in range(3))
    return _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:  # noqa: A002
    """Views of input split along dim: into n nearly equal parts (the first ones one longer), or at
    the given indices."""
    size = input.shape[dim]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        bounds = [k * (size // n) + min(k, size % n) for k in range(n + 1)]
    else:
        bounds = [0] + [max(0, min(int(i), size)) for i in indices_or_sections] + [size]
    return tuple(input.narrow(dim, lo, max(0, hi - lo)) for lo, hi in zip(bounds, bounds[1:]))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
           dim: int | None = None) -> Any:
    """The distinct values of input, ascending (for dim=None, the flattened input; else the distinct
    slices along dim, in lexicographic order), and optionally where each element (slice) sits among
    them (return_inverse) and how often each occurs (return_counts): a sort, then the places where the
    sorted values change."""
    if dim is not None:
        return _unique_dim(input, dim, return_inverse, return_counts)
    flat = input.reshape(-1)
    values, order = _C.sort(flat)
    n = values.numel()
    if n == 0:
        first = _C.zeros(0, dtype=_C.bool, device=input.device)
    else:
        first = _C.cat([_C.ones(1, dtype=_C.bool, device=input.device), values[1:] != values[:-1]], 0)
    uniq = _C.masked_select(values, first)
    results = [uniq]
    if return_inverse or return_counts:
        group = _C.cumsum(first.to(_C.int64), 0) - 1  # each sorted element's distinct value
        if return_inverse:
            inverse = _C.zeros(n, dtype=_C.int64, device=input.device)
            inverse = _C.scatter_add(inverse, 0, order, group)
            results.append(inverse.reshape(*input.shape))
        if return_counts:
            results.append(_C.bincount(group, minlength=uniq.numel()) if n else
                           _C.zeros(0, dtype=_C.int64, device=input.device))
    return results[0] if len(results) == 1 else tuple(results)


def _unique_dim(input: Tensor, dim: int, return_inverse: bool, return_counts: bool) -> Any:  # noqa: A002
    # The slices along dim as rows, sorted lexicographically by stable sorts from the last column to
    # the first (one argsort per column: fine for the narrow rows unique(dim=) is used on).
    if input.dim() == 0:
        raise IndexError(f"unique: dim {dim} out of range for a 0-d tensor")
    d = dim % input.dim()
    moved = input.movedim(d, 0)
    n = moved.shape[0]
    rows = moved.reshape(n, math.prod(moved.shape[1:]))  # NB: not -1, which an empty input leaves undetermined
    device = input.device
    order = _C.arange(n, device=device)
    for c in reversed(range(rows.shape[1])):
        keys = rows[:, c].index_select(0, order)
        order = order.index_select(0, _C.argsort(keys, stable=True))
    ranked = rows.index_select(0, order)
    if n == 0:
        first = _C.zeros(0, dtype=_C.bool, device=device)
    else:
        changes = (ranked[1:] != ranked[:-1]).any(1) if rows.shape[1] else _C.zeros(n - 1, dtype=_C.bool, device=device)
        first = _C.cat([_C.ones(1, dtype=_C.bool, device=device), changes], 0)
    picked = ranked.index_select(0, _C.nonzero(first).reshape(-1))
    results = [picked.reshape(picked.shape[0], *moved.shape[1:]).movedim(0, d)]
    group = _C.cumsum(first.to(_C.int64), 0) - 1
    if return_inverse:
        results.append(_C.scatter_add(_C.zeros(n, dtype=_C.int64, device=device), 0, order, group))
    if return_counts:
        results.append(_C.bincount(group, minlength=picked.shape[0]) if n else _C.zeros(0, dtype=_C.int64, device=device))
    return results[0] if len(results) == 1 else tuple(results)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype: Any = None,  # noqa: A002
                 device: Any = None, requires_grad: bool = False) -> Tensor:
    """randint(low, high) of input's shape (randint_like(t, high) with one bound), input's dtype."""
    if high is None:
        low, high = 0, low
    out = _C.randint(low, high, tuple(input.shape), dtype=dtype or input.dtype,
                     device=device if device is not None else input.device)
    return out.requires_grad_() if requires_grad else out


def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    """input's elements at the flat (row-major) positions index, in index's shape; a negative index
    counts from the end, as PyTorch's."""
    n = input.numel()
    flat = index.reshape(-1)
    outside = (flat >= n) | (flat < -n)
    if bool(outside.any()):
        bad = int(flat[outside][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    flat = _C.where(flat < 0, flat + n, flat)
    return input.reshape(-1).index_select(0, flat).reshape(*index.shape)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """The contraction of a's dims with b's: the last `dims` of a with the first `dims` of b, or the
    two lists of dims given."""
    if a.dtype != b.dtype:  # NB: before autocast's casts would make them equal, as PyTorch checks
        raise RuntimeError(f"tensordot: both inputs should have same dtype, got {a.dtype} and {b.dtype}")
    return _tensordot(a, b, dims)


@autocast_op("tensordot")
def _tensordot(a: Tensor, b: Tensor, dims: Any) -> Tensor:
    if isinstance(dims, int):
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    dims_a = [d % a.dim() for d in dims_a]
    dims_b = [d % b.dim() for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    # NB: every size given, none inferred: -1 is ambiguous where another size is 0
    out_a, out_b = [a.shape[d] for d in free_a], [b.shape[d] for d in free_b]
    k = math.prod(a.shape[d] for d in dims_a)
    left = a.permute(*free_a, *dims_a).reshape(math.prod(out_a), k)
    right = b.permute(*dims_b, *free_b).reshape(k, math.prod(out_b))
    return (left @ right).reshape(*out_a, *out_b)


@autocast_op("dist")
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """The p-norm of input - other, flattened."""
    d = _C.abs(input - other).reshape(-1)
    if p == math.inf:
        return d.amax()
    # NB: the norm op's gradient at a zero difference is 0, as PyTorch's; (sum d^p)^(1/p) would give 0 * inf.
    # p = 0 counts the differing entries, with a zero gradient.
    return _C.norm(input - other, float(p), None, False)


class _Sinc(Function):
    """sin(pi x) / (pi x), 1 at 0, with PyTorch's sinc_backward: (pi x cos(pi x) - sin(pi x)) / (pi x x),
    0 where pi x x is 0 (x = 0, and |x| so small that x x underflows). Its numerator cancels (10% off at
    x = -1.4e-4 in float32), so a float32 input's is computed in float64 and rounded once. Through
    autograd instead, the quotient rule's two terms of about 1 / x cancel into noise (-1.5e-6 at
    x = 1e-10 in float64)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        zero = x == 0
        safe = _C.where(zero, 1.0, x) * math.pi
        return _C.where(zero, 1.0, _C.sin(safe) / safe)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        wide = x.to(_C.float64)
        x_pi = wide * math.pi
        x_squared_pi = wide * wide * math.pi
        flat = x_squared_pi == 0
        d = (x_pi * _C.cos(x_pi) - _C.sin(x_pi)) / _C.where(flat, 1.0, x_squared_pi)
        return _C.where(flat, 0.0, grad * d.to(x.dtype))


def sinc(input: Tensor) -> Tensor:  # noqa: A002
    """sin(pi x) / (pi x), 1 at 0; integers in the default float dtype."""
    return _Sinc.apply(input if input.is_floating_point() else input * 1.0)


@autocast_op("quantile")
def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,  # noqa: A002
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles (q a number or a 1-D tensor in [0, 1]) of the flattened input or along dim,
    interpolated between the two nearest sorted values as `interpolation` says (linear, lower,
    higher, nearest, midpoint); NaN where the values include a NaN. A tensor q adds a leading dim."""
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    if dim is not None and input.dim() == 0:  # NB: as PyTorch, a 0-d input is 1-D of one entry
        if dim not in (0, -1):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
        input, dim, keepdim = input.reshape(1), 0, False  # noqa: A001  (a 0-d input's kept dims: none)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else dim % input.dim()
    qv = q.reshape(-1).to(_C.float64).tolist() if isinstance(q, Tensor) else [float(q)]
    if any(not 0 <= v <= 1 for v in qv):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    values = _C.sort(x, d)[0]
    n = x.shape[d]
    has_nan = _C.isnan(x).any(d, keepdim=True)
    nan_rows = bool(has_nan.any())
    q_flat = q.reshape(-1) if isinstance(q, Tensor) else None
    outs = []
    for k, v in enumerate(qv):
        pos = v * (n - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = int(_np.round(pos))  # NB: half to even, as PyTorch's round
        a, b = values.narrow(d, lo, 1), values.narrow(d, hi, 1)
        if nan_rows:  # NB: as PyTorch's, a slice holding NaN takes its last sorted value (a NaN) and its gradient
            last = values.narrow(d, n - 1, 1)
            a, b = _C.where(has_nan, last, a), _C.where(has_nan, last, b)
        out = a
        if interpolation in ("linear", "midpoint"):
            # NB: as PyTorch's, always through lerp (its two-sided form: lerp(-inf, 1, 0.6) is -inf), also
            # where both ends are one value: an infinite gradient's share grad * 0 is then NaN, as PyTorch's
            frac = 0.5 if interpolation == "midpoint" else pos - lo
            if interpolation == "linear" and q_flat is not None:
                frac = q_flat[k].to(values.dtype) * (n - 1) - lo  # NB: a tensor, so q gets its gradient too
            if nan_rows:  # NB: and the weight 0 there
                frac = _C.where(has_nan, _C.zeros_like(a), frac if isinstance(frac, Tensor) else _C.full_like(a, frac))
            out = lerp(a, b, frac)
        outs.append(out if keepdim and dim is not None else out.squeeze(d))
    if not isinstance(q, Tensor) or q.dim() == 0:
        result = outs[0]
        return result.reshape(()) if dim is None and not keepdim else \
            result.reshape(*([1] * input.dim())) if dim is None else result
    stacked = _C.stack(outs, 0)
    return stacked if dim is not None else stacked.reshape(len(outs), *([1] * input.dim() if keepdim else []))


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """The r-element combinations of a 1-D tensor's elements, one per row (itertools' order)."""
    import itertools
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return _C.empty(0, r, dtype=input.dtype, device=input.device) if r else _C.empty(0, dtype=input.dtype)
    index = _C.from_numpy(_np.asarray(rows, dtype=_np.int64).reshape(-1)).to(input.device)
    return input.index_select(0, index).reshape(len(rows), r)


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,  # noqa: A002
            reduce: str | None = None) -> Tensor:
    """input with src (a tensor or a number) written at index along dim (Tensor.scatter)."""
    return input.scatter(dim, index, src, value=value, reduce=reduce)


@autocast_op("index_put")
def index_put(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:  # noqa: A002
    """A copy of input with input[indices] = values, or += with accumulate (repeated indices add)."""
    out = input.clone()
    return out.index_put_(indices, values, accumulate)


def compile(model: Any = None, **options: Any) -> Any:  # noqa: A001  (PyTorch's name)
    """torch.compile: Ember runs eagerly, so the model or function comes back as it is (and used as a
    decorator, so does the function it decorates); the options are PyTorch's and change nothing."""
    if model is None:
        return lambda fn: fn
    return model


_matmul_precision = "highest"


class _Logit(Function):
    """log(p / (1 - p)), p = input clamped to [eps, 1 - eps] when eps is given; PyTorch's gradient
    grad / (x (1 - x)) (grad * inf at 0 and 1, where the quotient's chain rule gives 0 * inf = NaN), NaN
    outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it."""

    @staticmethod
    def forward(ctx, input, eps):  # noqa: A002
        ctx.save_for_backward(input)
        ctx.eps = eps
        p = input if eps is None else input.clamp(eps, 1.0 - eps)
        return _C.log(p / (1.0 - p))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # NB: at 0 and 1 grad * inf, as PyTorch's: the quotient gave -inf at -0
        inside = _C.where((x == 0) | (x == 1), grad * math.inf, grad / (x * (1.0 - x)))
        if ctx.eps is None:
            outside, fill = (x < 0) | (x > 1), math.nan
        else:
            outside, fill = (x < ctx.eps) | (x > 1.0 - ctx.eps), 0.0
        return _C.where(outside, _C.full_like(inside, fill), inside), None


def logit(input: Tensor, eps: Any = None) -> Tensor:  # noqa: A002
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given."""
    return _Logit.apply(input, eps)


def _xlogy_value(x: Tensor, y: Tensor) -> Tensor:
    product = x * _C.log(y)
    return _C.where((x == 0) & _C.logical_not(_C.isnan(y)), _C.zeros_like(product), product)


class _XLogY(Function):
    """x log(y), 0 where x is 0 unless y is NaN; PyTorch's gradients (derivatives.yaml):
    xlogy(grad, y) to x, 0 where x is 0 and y <= 0 (the derivative along x = 0, pytorch#80770),
    and grad x / y to y."""

    @staticmethod
    def forward(ctx, x, y, number_other=False):
        ctx.save_for_backward(x, y)
        ctx.number_other = number_other
        return _xlogy_value(x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = _XLogY.apply(grad, y)  # NB: itself, so that it differentiates again
            flat = y <= 0
            if ctx.number_other:  # NB: PyTorch's overload for a number other: 0 at x = 0 for a NaN one too
                flat = flat | _C.isnan(y)
            grad_x = _C.where((x == 0) & flat, _C.zeros_like(grad_x), grad_x)
        if ctx.needs_input_grad[1]:
            grad_y = grad * x / y
        return grad_x, grad_y, None


def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    """input * log(other), 0 where input is 0 unless other is NaN (PyTorch's convention for entropy
    terms: 0 log 0 = 0). Either side may be a number. Computed in the dtype the two promote to
    (integers to the default dtype; a 0-d float64 other leaves a float32 input float32), with
    PyTorch's gradients (_XLogY)."""
    dtype = _promotion.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _C.get_default_dtype()
    x = _promotion.as_dtype(input, dtype) if isinstance(input, Tensor) else _C.scalar_tensor(input, dtype=dtype)
    y = _promotion.as_dtype(other, dtype) if isinstance(other, Tensor) else _C.scalar_tensor(other, dtype=dtype)
    return _XLogY.apply(*broadcast_tensors(x, y), not isinstance(other, Tensor))


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


def msort(input: Tensor) -> Tensor:  # noqa: A002
    """input sorted along its first dim (sort(input, 0).values)."""
    return _C.sort(input, 0)[0]


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


__all__ = ["lerp", "addcmul", "addcdiv", "isclose", "nan_to_num", "count_nonzero", "clamp_min",
           "clamp_max", "detach", "is_floating_point", "is_complex", "get_default_dtype", "dot", "mv", "tile",
           "movedim", "moveaxis", "unflatten", "broadcast_tensors", "hypot",
           "compile", "set_float32_matmul_precision", "get_float32_matmul_precision", "var_mean", "std_mean",
           "trace", "median", "nansum", "nanmean", "signbit", "heaviside", "logspace", "cdist", "bucketize",
           "searchsorted", "take_along_dim", "cartesian_prod", "kron", "cross", "tensor_split", "unique",
           "randint_like", "take", "tensordot", "dist", "sinc", "quantile", "combinations", "scatter",
           "index_put", "result_type", "logit", "xlogy", "scatter_reduce", "mode", "msort"]
