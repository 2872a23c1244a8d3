"""Elementwise ops: unary math, activations, binary ops and operators with broadcasting and dtype mixes,
comparisons, where/lerp/addcmul/addcdiv/clamp, conversions."""
from generator import float_arg
from registry import is_bool, is_float, is_int, register

UNARY = ("abs neg exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh "
         "asinh acosh atanh sigmoid erf erfc erfinv lgamma digamma reciprocal ceil floor round trunc frac sign "
         "square sinc deg2rad rad2deg logit i0 signbit isnan isinf isfinite logical_not relu fix nan_to_num").split()
# A transform that brings values into the op's domain, applied half the time (NaN the other half).
DOMAIN = {"log": "abs", "log2": "abs", "log10": "abs", "sqrt": "abs", "rsqrt": "abs", "log1p": "abs",
          "asin": "tanh", "acos": "tanh", "atanh": "tanh", "erfinv": "tanh", "logit": "sigmoid", "acosh": "cosh",
          "lgamma": "abs", "digamma": "abs"}


def operand(g, float_p=0.85):
    if g.rng.random() < float_p:
        return g.pick(is_float)
    return g.pick(fresh_p=0.3, dtype="any")


def unary(name):
    def build(g):
        x = operand(g)
        if name in DOMAIN and g.rng.random() < 0.5:
            x = g.call(DOMAIN[name], "." + DOMAIN[name], x)
        kwargs = {}
        if name == "round" and g.rng.random() < 0.3:
            kwargs["decimals"] = g.rng.choice((0, 1, 2, -1))
        if name == "logit" and g.rng.random() < 0.3:
            kwargs["eps"] = g.rng.choice((1e-6, 0.25))
        if name == "nan_to_num" and g.rng.random() < 0.5:
            kwargs = {"nan": 0.5, "posinf": 9.0, "neginf": -9.0}
        out = g.fn_or_method(name, x, kwargs=kwargs or None)
        if name == "signbit":
            g.hide(out)  # the sign of a NaN is unspecified: nothing may depend on it (compare.NAN_SIGN)
    return build


for _name in UNARY:
    register(_name, unary(_name))


def polygamma(g):
    x = g.call("abs", ".abs", operand(g)) if g.rng.random() < 0.5 else operand(g)
    n = g.rng.choice((0, 1, 2))
    if g.rng.random() < 0.5:
        g.call("polygamma", "L.polygamma", n, x)
    else:
        g.call("polygamma", ".polygamma", x, n)


register("polygamma", polygamma)

# F.<name>(x, **kwargs), the kwargs drawn by the lambda.
ACTIVATIONS = {
    "relu": lambda r: {}, "relu6": lambda r: {}, "selu": lambda r: {}, "silu": lambda r: {},
    "mish": lambda r: {}, "softsign": lambda r: {}, "hardsigmoid": lambda r: {}, "hardswish": lambda r: {},
    "tanhshrink": lambda r: {}, "logsigmoid": lambda r: {}, "sigmoid": lambda r: {}, "tanh": lambda r: {},
    "elu": lambda r: {"alpha": r.choice((1.0, 0.5, 2.0))},
    "celu": lambda r: {"alpha": r.choice((1.0, 0.5, 2.0))},
    "gelu": lambda r: {"approximate": r.choice(("none", "tanh"))},
    "softplus": lambda r: {"beta": r.choice((1.0, 2.0, 0.5)), "threshold": r.choice((20.0, 1.0, 5.0))},
    "hardtanh": lambda r: {"min_val": r.choice((-1.0, -0.5, 0.0)), "max_val": r.choice((1.0, 0.5, 2.0))},
    "hardshrink": lambda r: {"lambd": r.choice((0.5, 0.0, 1.0))},
    "softshrink": lambda r: {"lambd": r.choice((0.5, 0.0, 1.0))},
    "leaky_relu": lambda r: {"negative_slope": r.choice((0.01, 0.2, -0.5))},
    "threshold": lambda r: {"threshold": r.choice((0.0, 0.5, -1.0)), "value": r.choice((0.0, -2.0, 7.0))},
}


def activation(name, kwargs):
    def build(g):
        g.call("F." + name, "F." + name, operand(g, 0.9), kwargs=kwargs(g.rng) or None)
    return build


for _name, _kw in ACTIVATIONS.items():
    register("F." + _name, activation(_name, _kw))


# -- binary ------------------------------------------------------------------------------------------
ARITH = ("add sub mul div true_divide floor_divide remainder fmod pow atan2 hypot maximum minimum fmax fmin "
         "xlogy").split()
COMPARE = "eq ne lt le gt ge".split()
LOGICAL = "logical_and logical_or logical_xor".split()
BITWISE = "bitwise_and bitwise_or bitwise_xor".split()
OPERATORS = {"add": ("__add__", "__radd__"), "sub": ("__sub__", "__rsub__"), "mul": ("__mul__", "__rmul__"),
             "div": ("__truediv__", "__rtruediv__"), "floor_divide": ("__floordiv__", "__rfloordiv__"),
             "remainder": ("__mod__", "__rmod__"), "pow": ("__pow__", "__rpow__"), "eq": ("__eq__", None),
             "ne": ("__ne__", None), "lt": ("__lt__", "__gt__"), "gt": ("__gt__", "__lt__"), "le": ("__le__", "__ge__"),
             "ge": ("__ge__", "__le__"), "bitwise_and": ("__and__", "__rand__"), "bitwise_or": ("__or__", "__ror__"),
             "bitwise_xor": ("__xor__", "__rxor__")}


def is_ref(a):
    return isinstance(a, dict) and "v" in a


def broadcastable(a, b):
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


def second(g, a, dtype=None, scalar_p=0.3):
    """The other operand of a binary op with `a`: a Python number, a 0-d tensor, an earlier value that
    broadcasts with a, or a fresh input of a broadcasting shape (mostly a's dtype, sometimes another)."""
    m = g.meta(a)
    rng = g.rng
    dtype = dtype or (m.dtype if rng.random() < 0.75 else "any")
    r = rng.random()
    if r < scalar_p:
        if dtype == "any":
            kind = rng.choice(("int", "float", "bool"))
        else:
            kind = {"bool": "bool", "int64": "int"}.get(dtype, "float")
        return g.scalar(kind)
    if r < scalar_p + 0.08:
        return g.fresh(shape=[], dtype=dtype)
    return g.pick(lambda o: broadcastable(o.shape, m.shape) and (dtype == "any" or o.dtype == dtype),
                  fresh_p=0.5, shape=g.bshape(m.shape), dtype=dtype)


def binary(name, first_dtype=None, second_dtype=None):
    def build(g):
        rng = g.rng
        if first_dtype:
            a = g.pick(lambda m: m.dtype in first_dtype, fresh_p=0.3, dtype=rng.choice(first_dtype))
        else:
            a = operand(g)
        b = second(g, a, dtype=second_dtype and rng.choice(second_dtype))
        kwargs = {}
        if name in ("add", "sub") and rng.random() < 0.25:
            kwargs["alpha"] = rng.choice((2, -1, 0.5)) if is_float(g.meta(a)) else rng.choice((2, -1))
        if name == "div" and rng.random() < 0.4:
            kwargs["rounding_mode"] = rng.choice(("floor", "trunc"))
        r = rng.random()
        ops = OPERATORS.get(name)
        if ops and r < 0.3 and not kwargs:
            if ops[1] and not is_ref(b) and rng.random() < 0.5:
                g.call(name, "." + ops[1], a, b)  # 2 - x: the reflected operator of the Python number
            else:
                g.call(name, "." + ops[0], a, b)
        elif r < 0.65:
            g.call(name, "." + name, a, b, kwargs=kwargs or None)
        else:
            g.call(name, "L." + name, a, b, kwargs=kwargs or None)
    return build


for _name in ARITH:
    register(_name, binary(_name), 1.5 if _name in ("add", "sub", "mul", "div", "pow") else 1.0)
for _name in COMPARE:
    register(_name, binary(_name))
for _name in LOGICAL:
    register(_name, binary(_name))
for _name in BITWISE:
    register(_name, binary(_name, ("int64", "bool"), ("int64", "bool")))


def shift(name):
    def build(g):
        a = g.pick(is_int, fresh_p=0.5, dtype="int64")
        m = g.meta(a)
        b = g.index(g.bshape(m.shape), 6) if g.rng.random() < 0.6 else g.rng.randint(0, 5)
        g.fn_or_method(name, a, b, fn=is_ref(b))
    return build


register("bitwise_left_shift", shift("bitwise_left_shift"))
register("bitwise_right_shift", shift("bitwise_right_shift"))


def bitwise_not(g):
    a = g.pick(lambda m: is_int(m) or is_bool(m), fresh_p=0.5, dtype=g.rng.choice(("int64", "bool")))
    if g.rng.random() < 0.3:
        g.call("bitwise_not", ".__invert__", a)
    else:
        g.fn_or_method("bitwise_not", a)


register("bitwise_not", bitwise_not)


def heaviside(g):
    a = operand(g, 0.7)
    m = g.meta(a)
    b = g.pick(lambda o: o.dtype == m.dtype and broadcastable(o.shape, m.shape), fresh_p=0.6,
               shape=g.bshape(m.shape), dtype=m.dtype)
    g.fn_or_method("heaviside", a, b)


register("heaviside", heaviside)


def isclose(g):
    a = operand(g, 0.9)
    b = second(g, a, scalar_p=0)
    kw = {"rtol": g.rng.choice((1e-5, 0.1)), "atol": g.rng.choice((1e-8, 0.5)), "equal_nan": g.rng.random() < 0.5}
    g.fn_or_method("isclose", a, b, kwargs=kw)


register("isclose", isclose)


def pow_scalar(g):
    a = operand(g, 0.85)
    e = g.rng.choice((2, 3, 0.5, -1, 0, 1.5, -0.5, 2.0, -2))
    if g.rng.random() < 0.2:
        g.call("pow", "L.pow", g.rng.choice((2.0, 0.5, -1.5, 0.0)), a)
    else:
        g.fn_or_method("pow", a, e)


register("pow_scalar", pow_scalar, 1.5)


def neg_abs_operators(g):
    a = operand(g, 0.8)
    g.call("neg", "." + g.rng.choice(("__neg__", "__abs__", "__pos__")), a)


register("__neg__", neg_abs_operators, 0.5)


# -- ternary -------------------------------------------------------------------------------------------
def condition(g, shape):
    if g.rng.random() < 0.5:
        x = g.pick(lambda m: broadcastable(m.shape, shape) and not is_bool(m), fresh_p=0.4, shape=g.bshape(shape))
        return g.call("gt", ".__gt__", x, g.rng.choice((0, 0.5, -1)))
    return g.pick(lambda m: is_bool(m) and broadcastable(m.shape, shape), fresh_p=0.6, shape=g.bshape(shape),
                  dtype="bool")


def where(g):
    a = operand(g)
    m = g.meta(a)
    cond = condition(g, m.shape)
    b = second(g, a, scalar_p=0.35)
    r = g.rng.random()
    if r < 0.15:
        g.call("where", "L.where", cond, g.scalar(), a)
    elif r < 0.55:
        g.call("where", "L.where", cond, a, b)
    else:
        g.call("where", ".where", a, cond, b)


register("where", where, 2)


def lerp(g):
    a = g.pick(is_float, dtype="float")
    m = g.meta(a)
    b = g.pick(lambda o: o.dtype == m.dtype and broadcastable(o.shape, m.shape), fresh_p=0.5,
               shape=g.bshape(m.shape), dtype=m.dtype)
    w = g.rng.choice((0.25, 0.75, 0.5, 1.0, 0.0, -0.5)) if g.rng.random() < 0.6 else g.fresh(
        shape=g.bshape(m.shape), dtype=m.dtype)
    g.fn_or_method("lerp", a, b, w)


register("lerp", lerp)


def addc(name):
    def build(g):
        t = operand(g, 0.9)
        a = second(g, t, scalar_p=0)
        b = second(g, t, scalar_p=0)
        kw = {"value": g.rng.choice((0.5, 2, -1))} if g.rng.random() < 0.5 else None
        g.fn_or_method(name, t, a, b, kwargs=kw)
    return build


register("addcmul", addc("addcmul"))
register("addcdiv", addc("addcdiv"))


def clamp(g):
    rng = g.rng
    x = operand(g, 0.85)
    m = g.meta(x)
    name = rng.choice(("clamp", "clamp", "clip", "clamp_min", "clamp_max"))
    if name in ("clamp_min", "clamp_max"):
        g.fn_or_method(name, x, second(g, x, scalar_p=0.7))
        return
    r = rng.random()
    if r < 0.6:
        lo = rng.choice((-1.0, -0.5, 0.0, None, 0.5, float("nan")))
        hi = rng.choice((1.0, 0.5, 2.0, None, lo if lo is not None else 0.0))
        if lo is None and hi is None:
            hi = 1.0
        kw = {k: float_arg(v) for k, v in (("min", lo), ("max", hi)) if v is not None}
        if not is_float(m) and rng.random() < 0.5:
            kw = {k: int(v) for k, v in kw.items() if isinstance(v, float)} or {"min": 0}
    else:
        kw = {"min": g.fresh(shape=g.bshape(m.shape), dtype=m.dtype if m.dtype != "bool" else "float")}
        if rng.random() < 0.6:
            kw["max"] = g.fresh(shape=g.bshape(m.shape), dtype=g.meta(kw["min"]).dtype)
    g.fn_or_method(name, x, kwargs=kw)


register("clamp", clamp, 2)


# -- conversions ---------------------------------------------------------------------------------------
def convert(g):
    rng = g.rng
    x = g.pick(fresh_p=0.2, dtype="any")
    r = rng.random()
    if r < 0.4:
        g.call("to", ".to", x, {"dtype": rng.choice(("float32", "float64", "int64", "bool"))})
    elif r < 0.8:
        name = rng.choice(("float", "double", "long", "bool"))
        g.call(name, "." + name, x)
    else:
        other = g.pick(fresh_p=0.5, dtype="any")
        g.call("type_as", ".type_as", x, other)


register("to", convert, 2)
