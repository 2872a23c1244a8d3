"""Elementwise ops against NumPy (float64): unary ops and activations over every dtype and layout,
binary ops and comparisons with broadcasting, every dtype pair, 0-d tensors and Python numbers on
either side (result dtype by PyTorch's promotion rules), where, clamp, and the in-place ops."""
import operator
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
import known_failures
import op_db
import torch_rules
from reference import assert_buffer_written, assert_close, cast_like_torch, category, result_type
from strategies import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NUMPY_OF, broadcastable_shapes, is_float,
                        python_scalars, tensors)

NUMERIC = INT_DTYPES + FLOAT_DTYPES


def _aliases(cases, table, arity):
    """ember.negative is ember.neg: each alias of a database op is checked as the op is."""
    for c in cases:
        if c.ref and c.call == f"{c.python_names[0]}({'x, y' if arity == 2 else 'x'})":
            for alias in c.python_names[1:]:
                table[alias] = (getattr(ember, alias), *table[c.name][1:])


# name -> (ember function, NumPy float64 function, dtypes it accepts, result: "same", "float" or "bool"):
# the op database's unary cases (ops/ops.toml), their aliases, and the operators and the functions
# of ember.nn.functional that are not table ops.
UNARY = {c.name: (op_db.function(c), op_db.reference(c), op_db.DTYPES[c.dtypes], c.result)
         for c in op_db.UNARY if c.ref}
_aliases(op_db.UNARY, UNARY, 1)
UNARY.update({
    "__neg__": (lambda t: -t, np.negative, NUMERIC, "same"),
    "__pos__": (lambda t: +t, lambda x: x, ALL_DTYPES, "same"),
    "__abs__": (abs, np.abs, NUMERIC, "same"),
    "silu": (F.silu, lambda x: x / (1 + np.exp(-x)), FLOAT_DTYPES, "float"),
    "hardshrink": (F.hardshrink, torch_rules.hardshrink, FLOAT_DTYPES, "same"),
    "softshrink": (F.softshrink, torch_rules.softshrink, FLOAT_DTYPES, "same"),
    "relu6": (F.relu6, lambda x: np.minimum(np.maximum(x, 0.0), 6.0), FLOAT_DTYPES, "same"),
    "elu": (F.elu, lambda x: np.where(x > 0, x, np.expm1(x)), FLOAT_DTYPES, "same"),
    "softplus": (F.softplus, lambda x: np.where(x > 20, x, np.log1p(np.exp(x))), FLOAT_DTYPES, "same"),
    "logsigmoid": (F.logsigmoid, lambda x: -np.logaddexp(0, -x), FLOAT_DTYPES, "same"),
})
# name -> (known bug, the inputs that hit it)
UNARY_KNOWN = {"hardshrink": ("shrink-nan", np.isnan), "softshrink": ("shrink-nan", np.isnan)}
# name -> where its values are drawn, for the ops that a float64 oracle cannot follow everywhere:
# mvlgamma(x, 3) sums lgamma(x - j / 2), each x - j / 2 rounded to the dtype as PyTorch's is; below 0.5
# that rounding moves an argument next to one of lgamma's poles (x = 1e-5 in float32: x - 1 is -0.99999
# rounded, and the sum is off in its fifth digit; x = 2.2e-16: x - 1 is -1, a pole, and the sum inf).
# sinc computes pi x in float32 for float32 and narrower (PyTorch's opmath): past 1.08e38 that is inf and
# sinc NaN, in PyTorch too, where float64 gives about 1e-39.
UNARY_RANGE = {"mvlgamma": {"lo": 0.5}, "sinc": {"lo": -1e38, "hi": 1e38}}


def _unary_result_dtype(kind, dtype):
    if kind == "bool":
        return ember.bool
    if kind == "float" and not is_float(dtype):
        return ember.float32
    return dtype


@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data())
def test_unary_matches_numpy(name, data):
    """A unary op gives NumPy's float64 values (rounded to the result dtype) for any dtype, shape and layout."""
    fn, ref, dtypes, kind = UNARY[name]
    x = data.draw(tensors(dtypes=dtypes, **UNARY_RANGE.get(name, {})), label="x")
    bug, hits = UNARY_KNOWN.get(name, (None, None))
    if bug and known_failures.dodge(bug, hits(x.array)):
        return
    out_dtype = _unary_result_dtype(kind, x.tensor.dtype)
    # NB: integer results in int64, which wraps as the op does (abs and neg of the smallest int64 are
    # itself); a float64 detour would round 2**63 - 1 up.
    # An integer input of a float op is converted to float32 first (2**31 - 1 becomes 2**31).
    # A bool input of a "same" op stays bool: ~True is False.
    if kind == "same" and x.tensor.dtype == ember.bool:
        source = x.array
    elif kind == "same" and not is_float(x.tensor.dtype):
        source = x.array.astype(np.int64)
    else:
        source = x.array.astype(NUMPY_OF[out_dtype] if is_float(out_dtype) else np.float64).astype(np.float64)
    with np.errstate(all="ignore"):
        expected = cast_like_torch(ref(source), out_dtype)
    assert_close(fn(x.tensor), expected, dtype=out_dtype, what=name)


@pytest.mark.parametrize("slope", [0.01, 0.2, 1.5, -0.5])
@given(data=st.data())
def test_leaky_relu_matches_numpy(slope, data):
    """leaky_relu(x, slope) is x where x > 0 and slope * x elsewhere."""
    x = data.draw(tensors(dtypes=FLOAT_DTYPES))
    expected = np.where(x.array > 0, x.array, slope * x.array.astype(np.float64))
    assert_close(ember.leaky_relu(x.tensor, slope), expected, dtype=x.tensor.dtype)
    assert_close(F.leaky_relu(x.tensor, negative_slope=slope), expected, dtype=x.tensor.dtype)


# ---- binary ops

# name -> (ember function of two operands, NumPy function, kind of result, dtypes of the operands): the
# op database's binary cases, their aliases and the operators
BINARY = {c.name: (op_db.function(c), op_db.reference(c), c.result, op_db.DTYPES[c.dtypes])
          for c in op_db.BINARY if c.ref}
_aliases(op_db.BINARY, BINARY, 2)
for _op, _name in {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__", "pow": "__pow__",
                   "eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__",
                   "ge": "__ge__"}.items():
    BINARY[_name] = (getattr(operator, _name), *BINARY[_op][1:])
# the ops that take a Python number on the right (an overload in the table; the operators also on the left)
_SCALAR_OPS = {n for c in op_db.BINARY if c.scalar_other for n in (c.name, *c.python_names[1:])}


def binary_oracle(np_fn, a, b, compute, result):
    """NumPy's value of np_fn with both operands first converted to the compute dtype (as PyTorch
    does), computed in float64 (int64 for integer results) and cast to the result dtype."""
    wide = np.float64 if category(compute) == 2 or result in FLOAT_DTYPES else np.int64
    a = np.asarray(a).astype(NUMPY_OF[compute]).astype(wide)
    b = np.asarray(b).astype(NUMPY_OF[compute]).astype(wide)
    with np.errstate(all="ignore"):
        return cast_like_torch(np_fn(a, b), result)


def _excluded(name, dtype_a, dtype_b):
    """Combinations PyTorch itself refuses, or that have no well-defined value in integers."""
    if "sub" in name and ember.bool in (dtype_a, dtype_b):
        return True  # PyTorch: subtraction with a bool tensor is not supported
    if "pow" in name and ember.bool in (dtype_a, dtype_b):
        return True
    return False


@st.composite
def operands(draw, name, dtypes=ALL_DTYPES):
    """Two operands of a binary op: tensors (dimensioned or 0-d, of the dtypes and any layout, shapes
    that broadcast) or a tensor and a Python number on either side."""
    kinds = ["tensors", "scalar_right"] if name in _SCALAR_OPS or name.startswith("__") else ["tensors"]
    if name.startswith("__") or name == "pow":  # ember.add(2, t) is refused, as torch.add(2, t) is
        kinds.append("scalar_left")
    kind = draw(st.sampled_from(kinds))
    sa, sb = draw(broadcastable_shapes(2))
    pow_op = "pow" in name
    if kind == "tensors":
        a = draw(tensors(shape=sa, dtypes=dtypes, **({"lo": 0.5, "hi": 3} if pow_op else {})), label="a")
        b = draw(tensors(shape=sb, dtypes=dtypes, **({"lo": -3, "hi": 3} if pow_op else {})), label="b")
        if pow_op and not is_float(result_type(a.tensor, b.tensor)):
            b = draw(tensors(shape=sb, dtype=b.tensor.dtype, lo=0, hi=3), label="b")
        return a.tensor, b.tensor, a.array, b.array
    x = draw(tensors(shape=sa, dtypes=dtypes, **({"lo": 0.5, "hi": 3} if pow_op and kind == "scalar_right" else
                                                 {"lo": -3, "hi": 3} if pow_op else {})), label="x")
    integral = not any(is_float(d) for d in dtypes)  # the bitwise ops: an int or a bool
    s = draw(python_scalars(int) | python_scalars(bool) if integral else python_scalars(), label="s")
    if pow_op:
        s = draw(st.floats(0.5, 3, width=32) if kind == "scalar_left" else st.integers(0, 3) | st.floats(-3, 3, width=32))
        if kind == "scalar_left" and not is_float(result_type(x.tensor, s)):
            x = draw(tensors(shape=sa, dtype=x.tensor.dtype, lo=0, hi=3), label="x")
    if kind == "scalar_right":
        return x.tensor, s, x.array, np.asarray(s)
    return s, x.tensor, np.asarray(s), x.array


def _dtype_of(v):
    if isinstance(v, bool):
        return ember.bool  # a Python bool operand counts as a bool one (PyTorch refuses it in sub)
    return v.dtype if isinstance(v, ember.Tensor) else None


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data())
def test_binary_matches_numpy(name, data):
    """A binary op broadcasts like NumPy, takes PyTorch's promoted dtype, and gives NumPy's values."""
    fn, ref, kind, dtypes = BINARY[name]
    a, b, xa, xb = data.draw(operands(name, dtypes))
    promoted = result_type(a, b)
    types = [_dtype_of(a) or promoted, _dtype_of(b) or promoted]
    if _excluded(name, *types):
        return
    if kind == "compare" or kind == "logical":
        out_dtype = ember.bool
        compute = promoted  # logical_and(0-d float64 1e-126, float32 tensor): 1e-126 is 0 in float32
    elif kind == "divide":
        out_dtype = promoted if is_float(promoted) else ember.float32
        compute = out_dtype
    else:
        out_dtype = compute = promoted
    if kind == "logical":
        xa = np.asarray(xa).astype(NUMPY_OF[compute]) != 0
        xb = np.asarray(xb).astype(NUMPY_OF[compute]) != 0
    expected = binary_oracle(ref, xa, xb, compute, out_dtype)
    rtol = 1e-4 if "pow" in name and out_dtype == ember.float32 else None
    assert_close(fn(a, b), expected, dtype=out_dtype, rtol=rtol, what=f"{name}({a!r}, {b!r})")


@pytest.mark.parametrize("name", ["add", "sub"])
@given(data=st.data())
def test_add_sub_alpha(name, data):
    """add/sub(a, b, alpha=k) is a + k * b (a - k * b), for tensor and Python-number b."""
    sa, sb = data.draw(broadcastable_shapes(2))
    a = data.draw(tensors(shape=sa, dtypes=FLOAT_DTYPES + [ember.int64]))
    if data.draw(st.booleans()):
        b = data.draw(tensors(shape=sb, dtypes=FLOAT_DTYPES + [ember.int64]))
        other, x_other = b.tensor, b.array
    else:
        other = data.draw(st.integers(-5, 5))
        x_other = np.asarray(other)
    promoted = result_type(a.tensor, other)
    alpha = data.draw(st.floats(-3, 3, width=32) if is_float(promoted) else st.integers(-3, 3))
    sign = 1 if name == "add" else -1
    expected = binary_oracle(lambda x, y: x + sign * alpha * y, a.array, x_other, promoted, promoted)
    got = getattr(ember, name)(a.tensor, other, alpha=alpha)
    assert_close(got, expected, dtype=promoted, rtol=1e-4 if promoted == ember.float32 else None)


@given(data=st.data())
def test_bool_operators(data):
    """&, | and ~ on bool tensors are logical and, or and not (broadcasting)."""
    sa, sb = data.draw(broadcastable_shapes(2))
    a = data.draw(tensors(shape=sa, dtype=ember.bool))
    b = data.draw(tensors(shape=sb, dtype=ember.bool))
    assert_close(a.tensor & b.tensor, a.array & b.array, dtype=ember.bool)
    assert_close(a.tensor | b.tensor, a.array | b.array, dtype=ember.bool)
    assert_close(~a.tensor, ~a.array, dtype=ember.bool)


@given(data=st.data())
def test_where_matches_numpy(data):
    """where(cond, x, y) picks x where cond holds, broadcasting all three; x or y may be a number."""
    sc, sa, sb = data.draw(broadcastable_shapes(3))
    cond = data.draw(tensors(shape=sc, dtype=ember.bool))
    kind = data.draw(st.sampled_from(["tensors", "scalar_right", "scalar_left"]))
    a = data.draw(tensors(shape=sa)) if kind != "scalar_left" else None
    b = data.draw(tensors(shape=sb)) if kind != "scalar_right" else None
    va = a.tensor if a else data.draw(python_scalars())
    vb = b.tensor if b else data.draw(python_scalars())
    out_dtype = result_type(va, vb)
    xa = a.array if a else np.asarray(va)
    xb = b.array if b else np.asarray(vb)
    # NB: an integer result picks in its own dtype: a float64 detour would turn 2**63 - 1 into -2**63
    wide = np.float64 if is_float(out_dtype) else NUMPY_OF[out_dtype]
    expected = cast_like_torch(np.where(cond.array, xa.astype(wide), xb.astype(wide)), out_dtype)
    assert_close(ember.where(cond.tensor, va, vb), expected, dtype=out_dtype)
    if a is not None:
        assert_close(a.tensor.where(cond.tensor, vb), expected, dtype=out_dtype, what="Tensor.where")


@given(data=st.data())
def test_heaviside_matches_torch(data):
    """heaviside(x, values) is values where x == 0 (-0 too), else x > 0: 0 at NaN, as in PyTorch."""
    sa, sb = data.draw(broadcastable_shapes(2))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(tensors(shape=sa, dtype=dtype), label="x")
    v = data.draw(tensors(shape=sb, dtype=dtype), label="values")
    if known_failures.dodge("heaviside-nan", np.isnan(x.array)):
        return
    assert_close(ember.heaviside(x.tensor, v.tensor), torch_rules.heaviside(x.array, v.array), dtype=dtype)


@given(data=st.data())
def test_lerp_matches_torch(data):
    """lerp(start, end, weight) with a number or tensor weight: PyTorch's two formulas (which is what
    gives inf or NaN where start or end is infinite), broadcasting, every layout."""
    ss, se, sw = data.draw(broadcastable_shapes(3))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    start = data.draw(tensors(shape=ss, dtype=dtype), label="start")
    end = data.draw(tensors(shape=se, dtype=dtype), label="end")
    if data.draw(st.booleans()):
        weight = data.draw(tensors(shape=sw, dtype=dtype), label="weight")
        w, xw = weight.tensor, weight.array
    else:
        w = data.draw(python_scalars(float), label="weight")
        xw = np.asarray(w, NUMPY_OF[dtype])
    if known_failures.dodge("lerp-inf", ~np.isfinite(start.array) | ~np.isfinite(end.array)):
        return
    expected = np.broadcast_to(torch_rules.lerp(start.array, end.array, xw), np.broadcast_shapes(ss, se, np.shape(xw)))
    assert_close(ember.lerp(start.tensor, end.tensor, w), expected, dtype=dtype, rtol=1e-5 if dtype == ember.float32
                 else None, what=f"lerp(weight={w!r})")


@pytest.mark.parametrize("fn", ["clamp", "clip", "Tensor.clamp", "clamp_"])
@given(data=st.data())
def test_clamp_matches_numpy(fn, data):
    """clamp(x, min, max) is minimum(maximum(x, min), max) (max wins when min > max); the result
    dtype promotes with the bounds; either bound may be None."""
    x = data.draw(tensors(dtypes=INT_DTYPES + FLOAT_DTYPES))
    bound = python_scalars(int) | python_scalars(float) | st.none()
    lo, hi = data.draw(bound, label="min"), data.draw(bound, label="max")
    if lo is None and hi is None:
        return
    if isinstance(lo, int) and x.tensor.dtype == ember.uint8:
        lo = abs(lo)
    if isinstance(hi, int) and x.tensor.dtype == ember.uint8:
        hi = abs(hi)
    out_dtype = result_type(x.tensor, *[v for v in (lo, hi) if v is not None])
    wide = np.float64 if is_float(out_dtype) else np.int64  # int64 keeps 2**63 - 1, float64 rounds it
    e = x.array.astype(NUMPY_OF[out_dtype]).astype(wide)
    if lo is not None:
        e = np.maximum(e, np.asarray(lo).astype(NUMPY_OF[out_dtype]).astype(wide))
    if hi is not None:
        e = np.minimum(e, np.asarray(hi).astype(NUMPY_OF[out_dtype]).astype(wide))
    expected = cast_like_torch(e, out_dtype)
    if fn == "clamp_":
        if out_dtype != x.tensor.dtype:
            return  # an in-place result keeps its dtype; PyTorch refuses a float bound on an int tensor
        t = x.tensor.clone()
        assert t.clamp_(lo, hi) is t
        assert_close(t, expected, dtype=out_dtype)
        return
    f = {"clamp": ember.clamp, "clip": ember.clip, "Tensor.clamp": ember.Tensor.clamp}[fn]
    assert_close(f(x.tensor, min=lo, max=hi), expected, dtype=out_dtype)


# ---- in-place ops: they write through any view and keep the destination's dtype

_INPLACE = {
    "add_": (lambda t, o: t.add_(o), np.add),
    "sub_": (lambda t, o: t.sub_(o), np.subtract),
    "mul_": (lambda t, o: t.mul_(o), np.multiply),
    "div_": (lambda t, o: t.div_(o), np.divide),
    "__iadd__": (lambda t, o: t.__iadd__(o), np.add),
    "__isub__": (lambda t, o: t.__isub__(o), np.subtract),
    "__imul__": (lambda t, o: t.__imul__(o), np.multiply),
    "__itruediv__": (lambda t, o: t.__itruediv__(o), np.divide),
}


@st.composite
def destinations(draw, dtypes=ALL_DTYPES):
    """A tensor to write into in place: contiguous, permuted, or a strided view of a bigger NumPy
    buffer; returns it with a copy of that buffer as it was (None for the other layouts)."""
    x = draw(tensors(dtypes=dtypes, layouts=("contiguous", "permuted", "strided")))
    return x, (None if x.buffer is None else x.buffer.copy())


@pytest.mark.parametrize("name", sorted(_INPLACE))
@given(data=st.data())
def test_inplace_binary_writes_through_views(name, data):
    """t.op_(other) stores op(t, other) in t (broadcasting other, keeping t's dtype), returns t itself,
    and writes nothing outside t's elements of a buffer it views."""
    fn, ref = _INPLACE[name]
    dest, before = data.draw(destinations(dtypes=FLOAT_DTYPES + INT_DTYPES))
    shape = tuple(dest.tensor.shape)
    other_shape = data.draw(st.sampled_from([shape, shape[1:], tuple(1 for _ in shape), ()]))
    if data.draw(st.booleans()):
        other = data.draw(tensors(shape=other_shape, dtypes=[dest.tensor.dtype, ember.int64, ember.bool]
                                  if is_float(dest.tensor.dtype) else INT_DTYPES + [ember.bool]))
        value, x_other = other.tensor, other.array
    else:
        value = data.draw(python_scalars(float) if is_float(dest.tensor.dtype) else python_scalars(int))
        x_other = np.asarray(value)
    promoted = result_type(dest.tensor, value)
    if "div" in name and not is_float(dest.tensor.dtype):
        return  # PyTorch refuses: a float quotient can't be stored in an integer tensor
    if category(promoted) > category(dest.tensor.dtype) or ("sub" in name and ember.bool in (
            dest.tensor.dtype, getattr(value, "dtype", None))):
        return
    compute = promoted if "div" not in name or is_float(promoted) else ember.float32
    expected = np.broadcast_to(binary_oracle(ref, dest.array, x_other, compute, dest.tensor.dtype), shape)
    t = dest.tensor
    assert fn(t, value) is t
    assert_close(t, expected, dtype=dest.tensor.dtype, rtol=1e-4 if t.dtype == ember.float32 else None)
    assert_buffer_written(dest, before, expected)


@given(data=st.data())
def test_fill_zero_copy_inplace(data):
    """fill_, zero_ and copy_ (broadcasting and converting the source) write every element of any view
    and nothing outside it."""
    dest, before = data.draw(destinations())
    t = dest.tensor
    shape = tuple(t.shape)
    op = data.draw(st.sampled_from(["fill_", "zero_", "copy_"]))
    if op == "fill_":
        v = data.draw(python_scalars(float) if is_float(t.dtype) else python_scalars(bool) if t.dtype == ember.bool
                      else st.integers(0, 15))
        expected = np.full(shape, v).astype(dest.array.dtype)
        assert t.fill_(v) is t
    elif op == "zero_":
        expected = np.zeros(shape, dest.array.dtype)
        assert t.zero_() is t
    else:
        src_shape = data.draw(st.sampled_from([shape, shape[1:], ()]))
        src = data.draw(tensors(shape=src_shape, dtypes=[ember.bool, ember.uint8, ember.int32] + (
            FLOAT_DTYPES if is_float(t.dtype) else [])))
        expected = np.broadcast_to(src.array, shape).astype(dest.array.dtype)
        assert t.copy_(src.tensor) is t
    assert_close(t, expected, dtype=dest.tensor.dtype, what=op)
    assert_buffer_written(dest, before, expected)


# ---- remainder, fmod (%), floor_divide (//), atan2: divisors kept away from 0 (integer division by
# zero is an error)

_MOD = {"remainder": (ember.remainder, np.remainder), "__mod__": (lambda a, b: a % b, np.remainder),
        "fmod": (ember.fmod, np.fmod), "floor_divide": (ember.floor_divide, np.floor_divide),
        "__floordiv__": (lambda a, b: a // b, np.floor_divide),
        "div floor": (lambda a, b: ember.div(a, b, rounding_mode="floor"), np.floor_divide),
        "div trunc": (lambda a, b: a.div(b, rounding_mode="trunc"),
                      lambda x, y: np.trunc(x / y) if np.result_type(x, y).kind == "f" else
                      (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(np.result_type(x, y)))}


@pytest.mark.parametrize("name", sorted(_MOD))
@given(data=st.data())
def test_remainder_and_fmod_match_numpy(name, data):
    """remainder takes the divisor's sign (Python's %), fmod the dividend's (C's), floor_divide rounds
    down (Python's //) and div(rounding_mode="trunc") toward zero, in the promoted dtype, for tensors
    and Python numbers on the right, broadcast, in every layout."""
    fn, ref = _MOD[name]
    sa, sb = data.draw(broadcastable_shapes(2))
    dtypes = FLOAT_DTYPES + [ember.int64, ember.int32]
    a = data.draw(tensors(shape=sa, dtypes=dtypes, lo=-50, hi=50), label="a")
    sign = data.draw(st.sampled_from([1, -1]))
    if data.draw(st.booleans()):
        b = data.draw(tensors(shape=sb, dtypes=dtypes, lo=1, hi=7), label="b")
        other, x_other = b.tensor * sign, b.array * sign
    else:
        other = sign * data.draw(st.integers(1, 7) | st.floats(0.25, 7, width=32))
        x_other = np.asarray(other)
    promoted = result_type(a.tensor, other)
    expected = binary_oracle(ref, a.array, x_other, promoted, promoted)
    assert_close(fn(a.tensor, other), expected, dtype=promoted, what=f"{name}({a.tensor!r}, {other!r})")


@given(data=st.data())
def test_atan2_matches_numpy(data):
    sa, sb = data.draw(broadcastable_shapes(2))
    y = data.draw(tensors(shape=sa, dtypes=ALL_DTYPES), label="y")
    x = data.draw(tensors(shape=sb, dtypes=ALL_DTYPES), label="x")
    promoted = result_type(y.tensor, x.tensor)
    out_dtype = promoted if is_float(promoted) else ember.float32
    expected = binary_oracle(np.arctan2, y.array, x.array, out_dtype, out_dtype)
    assert_close(ember.atan2(y.tensor, x.tensor), expected, dtype=out_dtype, what="atan2")
    assert_close(ember.arctan2(y.tensor, x.tensor), expected, dtype=out_dtype, what="arctan2")


# ---- bitwise ops: integer and bool dtypes, every pair, broadcast, every layout; NumPy's shifts are
# the oracle for counts inside [0, bits) (outside, NumPy's are the C behaviour; PyTorch's rule is
# checked in tests/python/test_api_surface.py and tests/ops/bitwise_test.cpp)

_BITWISE = {"bitwise_and": (ember.bitwise_and, np.bitwise_and), "__and__": (lambda a, b: a & b, np.bitwise_and),
            "bitwise_or": (ember.bitwise_or, np.bitwise_or), "__or__": (lambda a, b: a | b, np.bitwise_or),
            "bitwise_xor": (ember.bitwise_xor, np.bitwise_xor), "__xor__": (lambda a, b: a ^ b, np.bitwise_xor),
            "__lshift__": (lambda a, b: a << b, np.left_shift), "__rshift__": (lambda a, b: a >> b, np.right_shift)}
_BITS = {ember.uint8: 8, ember.int32: 32, ember.int64: 64}


@pytest.mark.parametrize("name", sorted(_BITWISE))
@given(data=st.data())
def test_bitwise_ops_match_numpy(name, data):
    fn, ref = _BITWISE[name]
    shift = "shift" in name
    dtypes = INT_DTYPES if shift else [ember.bool] + INT_DTYPES
    sa, sb = data.draw(broadcastable_shapes(2))
    a = data.draw(tensors(shape=sa, dtypes=dtypes), label="a")
    if data.draw(st.booleans()):
        b = data.draw(tensors(shape=sb, dtypes=dtypes, lo=0, hi=7), label="b")
        other, x_other = b.tensor, b.array
    else:
        other = data.draw(st.integers(0, 7) if shift else st.integers(-300, 300) | st.booleans())
        x_other = np.asarray(other)
    promoted = result_type(a.tensor, other)
    np_type = NUMPY_OF[promoted]
    # NB: the oracle computes in the promoted dtype itself (wrapping as the tensor does).
    expected = ref(a.array.astype(np.int64).astype(np_type) if promoted != ember.bool else a.array.astype(bool),
                   np.asarray(x_other).astype(np.int64).astype(np_type) if promoted != ember.bool
                   else np.asarray(x_other).astype(bool))
    got = fn(a.tensor, other)
    assert got.dtype == promoted, f"{name}: {got.dtype}, expected {promoted}"
    np.testing.assert_array_equal(got.numpy(), np.asarray(expected).astype(np_type), err_msg=f"{name}({a.tensor!r}, {other!r})")


@given(data=st.data())
def test_bitwise_not_matches_numpy(data):
    a = data.draw(tensors(dtypes=[ember.bool] + INT_DTYPES), label="a")
    np_type = NUMPY_OF[a.tensor.dtype]
    expected = np.invert(a.array.astype(np.int64).astype(np_type) if a.tensor.dtype != ember.bool else a.array.astype(bool))
    for got in (~a.tensor, ember.bitwise_not(a.tensor), a.tensor.bitwise_not()):
        assert got.dtype == a.tensor.dtype
        np.testing.assert_array_equal(got.numpy(), expected)


@given(data=st.data())
def test_shift_counts_out_of_range_shift_every_bit_out(data):
    """PyTorch's rule: a count < 0 or >= the width gives 0 (<<) or the sign fill (>>)."""
    dtype = data.draw(st.sampled_from(INT_DTYPES))
    a = data.draw(tensors(dtype=dtype, layouts=("contiguous",)), label="a")
    bits = _BITS[dtype]
    counts = data.draw(st.sampled_from([-1, -7, bits, bits + 1, 1000] if dtype != ember.uint8 else [bits, bits + 3, 200]))
    count = ember.full(tuple(a.tensor.shape), counts, dtype=dtype)
    np.testing.assert_array_equal((a.tensor << count).numpy(), np.zeros(a.array.shape, NUMPY_OF[dtype]))
    fill = np.where(a.array.astype(np.int64).astype(NUMPY_OF[dtype]) < 0, -1, 0).astype(NUMPY_OF[dtype])
    np.testing.assert_array_equal((a.tensor >> count).numpy(), fill)


# ---- every in-place method of the op database: t.op_(...) is t.copy_(op(t, ...)), through any view

def _inplace_form(case):
    """The in-place call of a database case whose call is `name(x, ...)` and whose Tensor has name_:
    (method name, the rest of the call), else None."""
    m = re.match(r"^(\w+)\(x(?:, (.*))?\)$", case.call)
    if not m or not hasattr(ember.Tensor, m.group(1) + "_"):
        return None
    return m.group(1) + "_", m.group(2) or ""


_INPLACE_CASES = {c.name: c for c in op_db.CASES if _inplace_form(c)}


@pytest.mark.parametrize("name", sorted(_INPLACE_CASES))
@given(data=st.data())
def test_every_inplace_table_method_is_its_op_written_into_self(name, data):
    """Over any values, dtype and layout: t.op_(...) returns t holding exactly op(t, ...) in t's dtype,
    written through the view (nothing outside it), or refuses a result t's dtype cannot hold, with
    PyTorch's words. One table entry with `inplace` and `test` puts its op under this test."""
    case = _INPLACE_CASES[name]
    method, rest = _inplace_form(case)
    dtypes = op_db.DTYPES[case.dtypes]
    dest, before = data.draw(destinations(dtypes=dtypes))
    t = dest.tensor
    inputs = {"x": t.clone()}
    if case.arity == 2:
        inputs["y"] = data.draw(tensors(shape=tuple(t.shape), dtypes=dtypes)).tensor
    scope = {**op_db.names(), **inputs}
    call = f"x.{method}({rest})"
    try:
        expected = eval(case.call, scope)
    except Exception as e:  # what op refuses (bool subtraction, ...), op_ refuses alike
        with pytest.raises(type(e)):
            eval(call, {**scope, "x": t})
        return
    if not ember.can_cast(expected.dtype, t.dtype):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            eval(call, {**scope, "x": t})
        return
    assert eval(call, {**scope, "x": t}) is t
    want = expected.to(t.dtype)
    assert ember.equal(ember.isnan(t), ember.isnan(want)) if t.is_floating_point() else True
    assert ember.equal(t.nan_to_num(0.0) if t.is_floating_point() else t,
                       want.nan_to_num(0.0) if want.is_floating_point() else want), (t, want)
    assert_buffer_written(dest, before, want.numpy() if t.dtype != ember.bfloat16 else want.float().numpy())
