"""Batching rules of the tensor ops: each runs an op once on every sample of a vmap level, on the
physical values (the batch first), and gives batched results. An op without a rule runs once per
sample (_dispatch.loop). The rules of nn.functional's ops are in _rules_nn.py.

The kinds, by how an op sees its dims:
- pointwise: every tensor argument broadcasts; a batched one gets its batch dim in front of the
  broadcast rank (its value padded with size-1 dims), an unbatched one broadcasts from the right.
- dims: the op's `dim`-like arguments name dims of one sample, so they move one to the right; a
  reduction over every dim (dim=None) reduces each sample's values.
- views and shapes: sizes get the batch size in front, permutations the batch dim first.
- matmul and einsum: the batch dim is a batch dim of the product."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from .. import _C
from .._C import Tensor
from .._op_db import CASES
from ._batched import BatchedTensor, level_info
from ._batching import Op, expanded, is_batched, loop, refuse_inplace, unwrap, wrap

Rule = Callable[[Op, int, Tuple[Any, ...], Dict[str, Any]], Any]
RULES: Dict[str, Rule] = {}
_MISSING = object()


class _Fallback(Exception):
    """A rule that cannot batch this call (a 0-d sample, say) passes it to the loop."""


def _tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, BatchedTensor))


_chosen: Dict[str, Rule] = {}  # rule_for's answers, made once per op


def rule_for(name: str) -> Rule:
    """The rule of the op `name`, which falls back to the loop where it cannot batch a call."""
    rule = _chosen.get(name)
    if rule is None:
        if name in RULES:
            rule = _guarded(RULES[name])
        elif name.endswith("_") and not name.endswith("__") and RULES.get(name[:-1]) is pointwise:
            rule = _guarded(pointwise_inplace)
        else:
            rule = loop
        _chosen[name] = rule
    return rule


def _guarded(rule: Rule) -> Rule:
    def run(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        try:
            return rule(op, level, args, kwargs)
        except _Fallback:
            return loop(op, level, args, kwargs)
    return run


def register(names: Sequence[str], rule: Rule) -> None:
    for n in names:
        RULES[n] = rule


# ---- pointwise

def _padder(level: int, rank: int) -> Callable[[Any], Any]:
    def pad(x: Any) -> Any:
        v = unwrap(x, level)
        if v is None:
            if isinstance(x, (list, tuple)) and any(isinstance(y, BatchedTensor) for y in x):
                raise _Fallback()
            return x
        missing = rank - (v.dim() - 1)
        return v[(slice(None),) + (None,) * missing] if missing > 0 else v
    return pad


def pointwise(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    ranks = [x.dim() for x in list(args) + list(kwargs.values()) if _tensor(x)]
    pad = _padder(level, max(ranks))
    return wrap(op.call(*[pad(a) for a in args], **{k: pad(v) for k, v in kwargs.items()}), level)


def pointwise_inplace(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    self = args[0]
    if not is_batched(self, level):
        refuse_inplace(op, level)
    pad = _padder(level, self.dim())
    op.call(*[pad(a) for a in args], **{k: pad(v) for k, v in kwargs.items()})
    return self


# Every elementwise op of the op table: its `test` entries (the op database the property tests loop
# over, generated into ember._op_db) are elementwise, except max and min (a reduction too: below).
register(sorted({n for case in CASES for n in case.python_names} - {"max", "min"}), pointwise)
# and the elementwise ops the op database does not list
register([
    "isclose", "where", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv", "masked_fill", "heaviside",
    "polar", "complex", "logit", "nan_to_num", "conj", "conj_physical", "real", "imag", "angle", "view_as_real",
    "view_as_complex", "relu6", "silu", "mish", "elu", "selu", "celu", "hardswish", "hardsigmoid", "hardshrink",
    "softshrink", "softsign", "softplus", "tanhshrink", "threshold", "logsigmoid",
    "positive", "bitwise_left_shift", "bitwise_right_shift",  # the keys of +x, << and >> (_dispatch.py)
    # conversions, copies, *_like
    "to", "type", "type_as", "float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte", "bool",
    "cpu", "cuda", "contiguous", "clone", "detach", "zeros_like", "ones_like", "empty_like", "full_like",
    "retain_grad",
], pointwise)
register(["copy_", "zero_", "fill_"], pointwise_inplace)


def _on_self(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """An op that changes a tensor's own flags, batched as its value: returns the batched tensor itself."""
    op.call(unwrap(args[0], level), *args[1:], **kwargs)
    return args[0]


register(["detach_", "requires_grad_"], _on_self)


# ---- dims

def _shift(d: Any, rank: int, new: bool = False) -> Any:
    """A dim (or dims) of one sample as a dim of the physical value."""
    if isinstance(d, (list, tuple)):
        return type(d)(_shift(x, rank, new) for x in d)
    n = rank + 1 if new else rank
    if n == 0:
        raise _Fallback()  # a 0-d sample: PyTorch's dim 0 / -1 of a scalar, left to the op itself
    if not isinstance(d, int) or isinstance(d, bool):
        raise _Fallback()  # a named dim, or something the op itself will refuse
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n + 1


class _Args:
    """An op's arguments by name or position, as the rules read and change them."""

    def __init__(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]):
        self.args, self.kwargs = list(args), dict(kwargs)

    def get(self, name: str, pos: int, default: Any = _MISSING) -> Any:
        if name in self.kwargs:
            return self.kwargs[name]
        if pos < len(self.args):
            return self.args[pos]
        return default

    def set(self, name: str, pos: int, value: Any) -> None:
        if name in self.kwargs or pos >= len(self.args):
            self.kwargs[name] = value
        else:
            self.args[pos] = value

    def call(self, op: Op) -> Any:
        return op.call(*self.args, **self.kwargs)


def _others_batched(a: _Args, level: int) -> bool:
    return any(is_batched(x, level) for x in a.args[1:] + list(a.kwargs.values()))


def dims(spec: Dict[str, Tuple[int, Any]], new: Sequence[str] = (), reduce: Optional[str] = None,
         keepdim: Tuple[str, int] = ("keepdim", 2)) -> Rule:
    """The rule of an op of one batched tensor whose dim arguments `spec` ({name: (position,
    default)}) name dims of a sample; those in `new` may be one past the last (unsqueeze). A dim
    without a default must be given (else the op runs per sample, with its own rule or error).
    reduce: "list" (no dim, or dim=None, reduces every dim, and the op takes a list of dims) or
    "flat" (the same, but the op takes one dim: each sample is flattened first)."""
    def rule(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        a = _Args(args, kwargs)
        x = a.args[0]
        v = unwrap(x, level)
        if v is None or _others_batched(a, level):
            raise _Fallback()
        rank = x.dim()
        given = False
        for name, (pos, default) in spec.items():
            d = a.get(name, pos, default)
            if d is _MISSING:
                raise _Fallback()
            if d is None:
                if not reduce:
                    raise _Fallback()  # the op's meaning of None (the flattened tensor), per sample
                continue
            a.set(name, pos, _shift(d, rank, name in new))
            given = True
        a.args[0] = v
        if reduce and not given:
            return _reduce_all(op, level, a, next(iter(spec.items())), reduce, rank, keepdim)
        return wrap(a.call(op), level)
    return rule


_VALUES_OF = {"max", "min", "median", "nanmedian", "mode"}  # x.max() is the values of x.max(dim)


def _reduce_all(op: Op, level: int, a: _Args, dim_spec: Tuple[str, Tuple[int, Any]], kind: str, rank: int,
                keepdim: Tuple[str, int]) -> Any:
    """A reduction of every dim of each sample: over dims 1.. of the physical value ("list"), or
    over dim 1 of each sample flattened ("flat")."""
    name, (pos, _) = dim_spec
    if rank == 0:
        raise _Fallback()
    v = a.args[0]
    if kind == "list":
        a.set(name, pos, list(range(1, rank + 1)))
        return wrap(a.call(op), level)
    keep = bool(a.get(keepdim[0], keepdim[1], False))
    a.args[0] = v.reshape(v.shape[0], -1)
    a.set(name, pos, 1)
    out = a.call(op)
    if op.name in _VALUES_OF and isinstance(out, tuple):
        out = out[0]
    if keep:
        out = out.reshape(v.shape[0], *([1] * rank))
    return wrap(out, level)


_D = {"dim": (1, None)}
register(["sum", "mean", "nansum", "nanmean", "amax", "amin", "logsumexp", "std_mean", "var_mean"],
         dims(_D, reduce="list"))
register(["std", "var"], dims(_D, reduce="list", keepdim=("keepdim", 3)))
_REDUCE_FLAT = dims(_D, reduce="flat")
register(["prod", "all", "any", "argmax", "argmin", "median", "nanmedian", "mode", "count_nonzero", "aminmax"],
         _REDUCE_FLAT)
register(["norm", "linalg.vector_norm"], dims({"dim": (2, None)}, reduce="list", keepdim=("keepdim", 3)))
_ALONG_DIM = dims({"dim": (1, _MISSING)})  # one dim, which must be given
register(["softmax", "log_softmax", "softmin", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp",
          "unflatten", "select", "narrow"], _ALONG_DIM)


def _index_select(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, d, index = a.args[0], a.get("dim", 1), a.get("index", 2)
    if not is_batched(index, level):
        return _ALONG_DIM(op, level, args, kwargs)
    if not isinstance(d, int) or index.dim() != 1:
        raise _Fallback()
    return x.movedim(d, 0)[index].movedim(0, d)  # each sample's rows (_batched_index)


RULES["index_select"] = _index_select
register(["glu"], dims({"dim": (1, -1)}))
register(["sort", "argsort"], dims({"dim": (1, -1)}))
register(["topk", "kthvalue"], dims({"dim": (2, -1)}))
register(["split", "chunk", "tensor_split"], dims({"dim": (2, 0)}))
register(["unbind"], dims({"dim": (1, 0)}))
register(["transpose", "swapaxes", "swapdims"], dims({"dim0": (1, _MISSING), "dim1": (2, _MISSING)}))
register(["movedim", "moveaxis"], dims({"source": (1, _MISSING), "destination": (2, _MISSING)}))
register(["flatten"], dims({"start_dim": (1, 0), "end_dim": (2, -1)}))
register(["unsqueeze"], dims({"dim": (1, _MISSING)}, new=("dim",)))
register(["diagonal"], dims({"dim1": (2, 0), "dim2": (3, 1)}))
register(["normalize"], dims({"dim": (2, 1)}))
register(["repeat_interleave"], dims({"dim": (2, None)}))
register(["fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft", "fft.ihfft"], dims({"dim": (2, -1)}))


def _max_min(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    other = args[1] if len(args) > 1 else kwargs.get("other")
    if _tensor(other):  # the elementwise form
        return pointwise(op, level, args, kwargs)
    return _REDUCE_FLAT(op, level, args, kwargs)


register(["max", "min"], _max_min)


_FLIP = dims({"dims": (1, _MISSING)})


def _flip_varargs(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if len(args) > 2:  # x.flip(0, 1)
        args = (args[0], tuple(args[1:]))
    return _FLIP(op, level, args, kwargs)


RULES["flip"] = _flip_varargs


def trailing(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """An op of one batched tensor that works on its last dims and takes any leading ones."""
    a = _Args(args, kwargs)
    if not is_batched(a.args[0], level) or _others_batched(a, level):
        raise _Fallback()
    a.args[0] = unwrap(a.args[0], level)
    return wrap(a.call(op), level)


register(["tril", "triu", "linalg.inv", "inverse", "det", "logdet", "linalg.det", "linalg.slogdet", "slogdet",
          "linalg.cholesky", "cholesky", "linalg.qr", "qr", "linalg.svd", "svd", "linalg.eigh", "linalg.eigvalsh",
          "linalg.matrix_exp", "matrix_exp", "linalg.pinv", "pinverse", "linalg.svdvals"], trailing)


_ROLL_DIMS = dims({"dims": (2, None)})


def _roll(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, d = a.args[0], a.get("dims", 2, None)
    if d is None:
        v = unwrap(x, level)
        if v is None or _others_batched(a, level):
            raise _Fallback()
        return wrap(v.reshape(v.shape[0], -1).roll(a.get("shifts", 1), 1).reshape(v.shape), level)
    return _ROLL_DIMS(op, level, args, kwargs)


RULES["roll"] = _roll


_SQUEEZE_DIM = dims({"dim": (1, None)})


def _squeeze(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    if a.get("dim", 1, None) is not None:
        return _SQUEEZE_DIM(op, level, args, kwargs)
    x = a.args[0]
    v = unwrap(x, level)
    if v is None:
        raise _Fallback()
    return wrap(v.reshape(v.shape[0], *[s for s in x.shape if s != 1]), level)


RULES["squeeze"] = _squeeze


def _t(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x = args[0]
    if x.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.dim()}D")
    return x if x.dim() < 2 else wrap(unwrap(x, level).transpose(1, 2), level)


RULES["t"] = _t


# ---- views and shapes

def _sizes(rest: Sequence[Any], kwargs: Dict[str, Any], *names: str) -> Tuple[int, ...]:
    for n in names:
        if n in kwargs:
            return tuple(kwargs[n])
    if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
        return tuple(rest[0])
    return tuple(rest)


def _reshape(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x, rest = args[0], args[1:]
    v = unwrap(x, level)
    if v is None or any(is_batched(r, level) for r in rest):
        raise _Fallback()
    if len(rest) == 1 and not isinstance(rest[0], (list, tuple, int)) and not kwargs:  # view(dtype)
        return pointwise(op, level, args, kwargs)
    shape = (v.shape[0],) + _sizes(rest, kwargs, "shape", "size")
    if op.name == "view":
        try:
            return wrap(v.view(*shape), level)
        except RuntimeError:
            pass  # a view of the sample that the batch's layout does not allow: a copy, as reshape
    return wrap(v.reshape(*shape), level)


register(["view", "reshape"], _reshape)


def _reshape_as(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x, other = args[0], args[1] if len(args) > 1 else kwargs["other"]
    return x.reshape(*other.shape) if is_batched(x, level) else loop(op, level, args, kwargs)


register(["view_as", "reshape_as"], _reshape_as)


def _expand(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x = args[0]
    v = unwrap(x, level)
    if v is None:
        raise _Fallback()
    if op.name == "expand_as":
        sizes = tuple((args[1] if len(args) > 1 else kwargs["other"]).shape)
    else:
        sizes = _sizes(args[1:], kwargs, "size", "shape")
    new = len(sizes) - x.dim()
    if new < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({x.dim()})")
    for _ in range(new):
        v = v.unsqueeze(1)
    return wrap(v.expand(v.shape[0], *sizes), level)


register(["expand", "expand_as", "broadcast_to"], _expand)


def _permute(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x = args[0]
    v = unwrap(x, level)
    if v is None:
        raise _Fallback()
    order = _sizes(args[1:], kwargs, "dims")
    if len(order) != x.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {x.dim()} is not equal "
                           f"to len(dims) = {len(order)}")
    return wrap(v.permute(0, *_shift(list(order), x.dim())), level)


RULES["permute"] = _permute


def _repeat(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x = args[0]
    v = unwrap(x, level)
    if v is None:
        raise _Fallback()
    reps = _sizes(args[1:], kwargs, "repeats", "sizes")
    for _ in range(len(reps) - x.dim()):
        v = v.unsqueeze(1)
    return wrap(v.repeat(1, *reps), level)


RULES["repeat"] = _repeat


def _new(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    # new_zeros & co. make a tensor of the given size, the same for every sample
    return op.call(unwrap(args[0], level), *args[1:], **kwargs)


register(["new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"], _new)


def _join(new: bool) -> Rule:
    def rule(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        a = _Args(args, kwargs)
        tensors = list(a.get("tensors", 0))
        if not tensors:
            raise _Fallback()
        rank = tensors[0].dim()
        a.set("tensors", 0, [expanded(t, level) for t in tensors])
        a.set("dim", 1, _shift(a.get("dim", 1, 0), rank, new))
        return wrap(a.call(op), level)
    return rule


register(["cat", "concat", "concatenate"], _join(False))
RULES["stack"] = _join(True)


def _gather_like(tensor_args: Sequence[Tuple[str, int]], dim: Tuple[str, int]) -> Rule:
    """gather, scatter, take_along_dim: every tensor argument has the sample's rank, so all go batched."""
    def rule(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        a = _Args(args, kwargs)
        rank = a.args[0].dim()
        for name, pos in tensor_args:
            t = a.get(name, pos, None)
            if _tensor(t):
                if t.dim() != rank:
                    raise _Fallback()
                a.set(name, pos, expanded(t, level))
        d = a.get(dim[0], dim[1], None)
        if d is None:
            raise _Fallback()
        a.set(dim[0], dim[1], _shift(d, rank))
        return wrap(a.call(op), level)
    return rule


RULES["gather"] = _gather_like([("self", 0), ("index", 2)], ("dim", 1))
register(["scatter", "scatter_add", "scatter_reduce"], _gather_like([("self", 0), ("index", 2), ("src", 3)],
                                                                    ("dim", 1)))
RULES["take_along_dim"] = _gather_like([("self", 0), ("indices", 1)], ("dim", 2))


# ---- products

def _pad_batch(v: Any, to: int) -> Any:
    """A physical value [B, ...] with size-1 dims after the batch dim, to rank `to` (batch included)."""
    while v.dim() < to:
        v = v.unsqueeze(1)
    return v


def _matmul(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    a = _Args(args, kwargs)
    x, y = a.args[0], a.args[1] if len(a.args) > 1 else a.kwargs.get("other", a.kwargs.get("mat2"))
    if kwargs or len(a.args) != 2:
        raise _Fallback()
    rx, ry = x.dim(), y.dim()
    if op.name == "mm" and (rx != 2 or ry != 2) or op.name == "bmm" and (rx != 3 or ry != 3) or \
            op.name == "mv" and (rx != 2 or ry != 1) or op.name == "dot" and (rx != 1 or ry != 1):
        raise _Fallback()  # the op's own error
    X, Y = unwrap(x, level), unwrap(y, level)  # noqa: N806  (the physical operands)
    if rx == 0 or ry == 0:
        raise _Fallback()
    if rx == 1 and ry == 1:
        return (x * y).sum(-1)
    if X is not None and rx == 1:  # a vector times matrices: a row of each
        X = X.unsqueeze(-2)  # noqa: N806
        squeeze = -2
    elif Y is not None and ry == 1:
        Y = Y.unsqueeze(-1)  # noqa: N806
        squeeze = -1
    else:
        squeeze = None
    rank = max(rx if rx > 1 else 2, ry if ry > 1 else 2) + 1
    left = _pad_batch(X, rank) if X is not None else x
    right = _pad_batch(Y, rank) if Y is not None else y
    out = _C.matmul(left, right)
    return wrap(out.squeeze(squeeze) if squeeze is not None else out, level)


register(["matmul", "mm", "bmm", "mv", "dot"], _matmul)


def _outer(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x, y = args[0], args[1]
    return x.unsqueeze(-1) * y.unsqueeze(-2)


register(["outer", "ger"], _outer)


def _einsum(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    equation, operands = args[0], list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(operands):
        raise _Fallback()
    used = set(eq)
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in used)
    if not arrow:  # implicit output: the letters seen once, in order, after the ellipsis dims
        counts = {c: lhs.count(c) for c in set(lhs) if c.isalpha()}
        rhs = ("..." if "..." in lhs else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    new_inputs, physical = [], []
    for spec, t in zip(inputs, operands):
        v = unwrap(t, level)
        new_inputs.append(letter + spec if v is not None else spec)
        physical.append(v if v is not None else t)
    return wrap(_C.einsum(",".join(new_inputs) + "->" + letter + rhs, physical), level)


RULES["einsum"] = _einsum


def _addmm(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """beta * input + alpha * (m1 @ m2), of batched parts (addmm, addmv, baddbmm)."""
    bias, m1, m2 = args[:3]
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    if len(args) > 3 or set(kwargs) - {"beta", "alpha"}:
        raise _Fallback()
    product = _C.matmul(m1, m2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # PyTorch's: input is not read (its NaN does not propagate)
        return product + _C.zeros_like(bias) if is_batched(bias, level) else product
    return (bias if beta == 1 else bias * beta) + product


register(["addmm", "addmv", "baddbmm"], _addmm)


# ---- indexing

def _advanced(index: Tuple[Any, ...]) -> bool:
    return any(isinstance(i, (Tensor, BatchedTensor, list)) or (isinstance(i, bool)) for i in index)


def _index_ok(index: Tuple[Any, ...], level: int) -> bool:
    """Whether `value[:, *index]` indexes each sample as `sample[index]`: no batched index, and the
    advanced indices (tensors, lists) side by side with no int among them (else NumPy's rule
    moves their dims to the front)."""
    if any(is_batched(i, level) for i in index):
        return False
    spots = [k for k, i in enumerate(index) if isinstance(i, (Tensor, BatchedTensor, list, bool))]
    if not spots:
        return True
    if any(isinstance(i, int) and not isinstance(i, bool) for i in index):
        return False
    return spots == list(range(spots[0], spots[-1] + 1))


def _as_tuple(index: Any) -> Tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def _getitem(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x, index = args
    v = unwrap(x, level)
    index = _as_tuple(index)
    if v is not None and _index_ok(index, level):
        return wrap(v[(slice(None),) + index], level)
    return _batched_index(x, v, index, level)


def _batched_index(x: Any, v: Any, index: Tuple[Any, ...], level: int) -> Any:
    """x[i, ...] with a batched integer tensor i first (a table's rows per sample: W[tokens]), the
    rest slices: each sample's rows, taken at once."""
    first, rest = index[0], index[1:]
    w = unwrap(first, level)
    if w is None or w.dtype == _C.bool or not all(isinstance(r, slice) or r is Ellipsis for r in rest):
        raise _Fallback()  # a mask (its shape depends on the values), or more advanced indices
    if v is None:  # one table for every sample: the batch is one more dim of the index
        return wrap(x[(w,) + rest], level)
    rows = _C.arange(w.shape[0], device=w.device).reshape(w.shape[0], *([1] * (w.dim() - 1)))
    return wrap(v[(rows, w) + rest], level)


RULES["__getitem__"] = _getitem


def _setitem(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    x, index, value = args
    v = unwrap(x, level)
    if v is None:
        refuse_inplace(Op("__setitem__", op.call), level)
    index = _as_tuple(index)
    if not _index_ok(index, level):
        raise _Fallback()
    target = (slice(None),) + index
    w = unwrap(value, level)
    if w is not None:
        rank = v[target].dim()
        w = _pad_batch(w, rank) if w.dim() < rank else w
        v[target] = w
    else:
        v[target] = value
    return None


RULES["__setitem__"] = _setitem


# ---- randomness

RANDOM = {"dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "rrelu",
          "rand_like", "randn_like", "randint_like", "bernoulli", "multinomial", "normal", "poisson",
          "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_",
          "log_normal_", "gumbel_softmax"}


def _trains(op: Op, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> bool:
    """Whether a dropout-like call draws: training on and p > 0 (rrelu: training)."""
    if op.name not in ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
                       "rrelu"):
        return True
    a = _Args(args, kwargs)
    if op.name == "rrelu":
        return bool(a.get("training", 3, False))
    return bool(a.get("training", 2, True)) and a.get("p", 1, 0.5) > 0


def _random(base: Optional[Rule]) -> Rule:
    def rule(op: Op, level: int, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        if not _trains(op, args, kwargs):
            return wrap(op.call(unwrap(args[0], level), *args[1:], **kwargs), level) \
                if is_batched(args[0], level) else loop(op, level, args, kwargs)
        mode = level_info(level).randomness
        if mode == "error":
            raise RuntimeError(f"vmap: called random operation {op.name} while in randomness error mode. Please "
                               "either use the 'same' or 'different' randomness flags on vmap or perform the "
                               "randomness operation out of vmap")
        if mode == "same":
            if op.name in ("dropout", "alpha_dropout", "rand_like", "randn_like") and is_batched(args[0], level):
                x = args[0]
                one = _C.ones(*x.shape, dtype=x.dtype, device=x.device)
                if op.name in ("rand_like", "randn_like"):
                    return op.call(one, *args[1:], **kwargs)
                if op.name == "alpha_dropout":
                    raise RuntimeError("vmap(randomness='same'): alpha_dropout is not supported; use 'different'")
                return x * op.call(one, *args[1:], **kwargs)
            raise RuntimeError(f"vmap(randomness='same'): {op.name} is not supported; use 'different', or draw "
                               "outside vmap")
        if base is not None and is_batched(args[0], level) and not _others_batched(_Args(args, kwargs), level):
            out = op.call(unwrap(args[0], level), *args[1:], **kwargs)
            return args[0] if op.name.endswith("_") else wrap(out, level)
        return loop(op, level, args, kwargs)
    return rule


for _n in RANDOM:
    # elementwise draws run on the whole batch at once (each sample its own draws); the rest once per sample
    RULES[_n] = _random(pointwise if _n in ("dropout", "alpha_dropout", "rand_like", "randn_like", "bernoulli",
                                            "rrelu", "uniform_", "normal_", "bernoulli_") else None)
