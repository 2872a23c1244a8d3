"""In-place ops as user code writes them: on a clone (`x.clone().add_(y)`), on a view of a clone (whose
base then shows the change), or straight on an earlier value (torch refuses a leaf that requires grad, and
backward refuses a value an earlier op saved); with the other operand broadcast, of another dtype, or a
view of the same memory (`a.add_(a.t())`, `a[1:].mul_(a[:-1])`, which torch refuses). In-place float ops
on integer tensors are drawn too (torch refuses them). MISSING_* are torch's in-place methods that
Ember did not have when this was written (issue 27); they stay in the table so the run shows them."""
from ops_elementwise import second
from ops_index import value
from registry import is_bool, is_float, register

UNARY = ("abs_ neg_ exp_ log_ sqrt_ sigmoid_ tanh_ ceil_ floor_ round_ trunc_ sign_ square_ relu_ reciprocal_ "
         "erf_ erfc_ erfinv_ lgamma_ digamma_ i0_ logit_ nan_to_num_ zero_").split()
MISSING_UNARY = ("sin_ cos_ tan_ exp2_ expm1_ log1p_ log2_ log10_ rsqrt_ sinh_ cosh_ asin_ acos_ atan_ frac_ "
                 "asinh_ atanh_ acosh_ sinc_ deg2rad_ rad2deg_ fix_ negative_").split()
BINARY = "add_ sub_ mul_ div_ pow_ xlogy_ copy_ clamp_min_ clamp_max_".split()
MISSING_BINARY = "fmod_ remainder_ atan2_ hypot_ floor_divide_ true_divide_ logical_and_ heaviside_ lt_ eq_".split()


# Ops that return their input itself, a view of it or a copy, as the layout happens to allow.
MAYBE_VIEW = {"reshape", "reshape_as", "flatten", "ravel", "contiguous", "to", "float", "double", "long", "bool",
              "type_as"}


def inplace_target(g, float_p=0.85):
    """The tensor an in-place op writes to: an earlier value, a clone of one, or a view of a clone."""
    rng = g.rng
    if rng.random() < float_p:
        x = g.pick(is_float)
    else:
        x = g.pick(lambda m: not is_float(m), fresh_p=0.5, dtype=rng.choice(("int64", "bool")))
    r = rng.random()
    # NB: straight on the value only where both libraries alias it alike: not where the program has an op
    # that may return a view or a copy (PyTorch leaves which unspecified: reshape, flatten, contiguous,
    # .to), nor on windows sharing memory (python/README.md: Ember transforms each location once).
    if r < 0.2 and g.overlap(x) != 2 and not any(n.get("name") in MAYBE_VIEW for n in g.nodes):
        return x
    base = g.call("clone", ".clone", x)
    m = g.meta(base)
    if r < 0.7 or not m.shape:
        return base
    nd = len(m.shape)
    form = rng.choice(("step", "transpose", "select", "diagonal", "narrow"))
    if form == "transpose" and nd >= 2:
        return g.call("transpose", ".transpose", base, 0, nd - 1)
    if form == "diagonal" and nd >= 2:
        return g.call("diagonal", ".diagonal", base)
    if form == "select" and m.shape[0]:
        return g.call("select", ".select", base, 0, rng.randrange(m.shape[0]))
    if form == "narrow":
        return g.call("narrow", ".narrow", base, 0, rng.randint(0, m.shape[0] // 2), (m.shape[0] + 1) // 2)
    return g.call("getitem", "[]", base, {"slice": [rng.choice((None, 1)), None, 2]})


def unary(name):
    def build(g):
        t = inplace_target(g)
        kw = None
        if name == "logit_" and g.rng.random() < 0.5:
            kw = {"eps": 1e-6}
        g.call(name, "." + name, t, kwargs=kw)
    return build


for _name in UNARY + MISSING_UNARY:
    register(_name, unary(_name), 0.5 if _name in MISSING_UNARY else 1.0)


def binary(name):
    def build(g):
        rng = g.rng
        t = inplace_target(g)
        m = g.meta(t)
        if rng.random() < 0.15 and name in ("add_", "mul_", "sub_", "div_", "copy_") and m.shape:
            overlap(g, name)
            return
        other = second(g, t, scalar_p=0.3 if name != "copy_" else 0.1)
        kw = None
        if name in ("add_", "sub_") and rng.random() < 0.2:
            kw = {"alpha": rng.choice((2, -1))}
        if name == "div_" and rng.random() < 0.3:
            kw = {"rounding_mode": rng.choice(("floor", "trunc"))}
        g.call(name, "." + name, t, other, kwargs=kw)
    return build


for _name in BINARY + MISSING_BINARY:
    register(_name, binary(_name), 0.5 if _name in MISSING_BINARY else 1.5)


def overlap(g, name):
    """`base.op_(base.t())` or `base[1:].op_(base[:-1])` (or the other way): operands sharing memory."""
    rng = g.rng
    x = g.pick(lambda m: is_float(m) and len(m.shape) >= 1 and m.shape[0] >= 2, fresh_p=0.4,
               shape=[3, 3] if rng.random() < 0.5 else [3])
    base = g.call("clone", ".clone", x)
    m = g.meta(base)
    if len(m.shape) == 2 and m.shape[0] == m.shape[1] and rng.random() < 0.5:
        g.call(name, "." + name, base, g.call("t", ".t", base), aliased=True)
        return
    a = g.call("getitem", "[]", base, {"slice": [1, None, None]})
    b = g.call("getitem", "[]", base, {"slice": [None, -1, None]})
    if rng.random() < 0.5:
        a, b = b, a
    g.call(name, "." + name, a, b, aliased=True)


def clamp_(g):
    t = inplace_target(g)
    rng = g.rng
    kw = {"min": rng.choice((-0.5, -1.0, 0.0))} if rng.random() < 0.8 else {}
    if rng.random() < 0.7 or not kw:
        kw["max"] = rng.choice((0.5, 1.0, 2.0))
    g.call("clamp_", ".clamp_", t, kwargs=kw)


register("clamp_", clamp_)


def pow_(g):
    t = inplace_target(g)
    m = g.meta(t)
    e = g.rng.choice((2, 1.5, 0.5, -1)) if g.rng.random() < 0.6 else g.pick(
        lambda o: o.dtype == m.dtype and list(o.shape) == list(m.shape), fresh_p=0.6, shape=g.bshape(m.shape),
        dtype=m.dtype)
    g.call("pow_", ".pow_", t, e)


register("pow_", pow_)


def ternary(name):
    def build(g):
        t = inplace_target(g, 0.95)
        a = second(g, t, scalar_p=0)
        if name == "lerp_":
            w = g.rng.choice((0.5, 0.25, 1.0)) if g.rng.random() < 0.6 else second(g, t, scalar_p=0)
            g.call(name, "." + name, t, a, w)
            return
        b = second(g, t, scalar_p=0)
        g.call(name, "." + name, t, a, b, kwargs={"value": g.rng.choice((0.5, 2))} if g.rng.random() < 0.5 else None)
    return build


register("lerp_", ternary("lerp_"))
register("addcmul_", ternary("addcmul_"))
register("addcdiv_", ternary("addcdiv_"))


def fill_(g):
    t = inplace_target(g)
    m = g.meta(t)
    r = g.rng.random()
    if r < 0.3:
        g.call("fill_", ".fill_", t, value(g, m))
    elif r < 0.5:
        g.call("copy_", ".copy_", t, g.scalar())  # copy_ from a Python number
    elif r < 0.75:
        mask = g.mask(g.bshape(m.shape))
        g.call("masked_fill_", ".masked_fill_", t, mask, value(g, m))
    else:
        d = g.dim(m)
        size = m.shape[d] if m.shape else 1
        g.call("index_fill_", ".index_fill_", t, d, g.index([g.rng.randint(0, 3)], size), value(g, m))


register("fill_", fill_, 1.5)


def index_add_(g):
    rng = g.rng
    t = inplace_target(g, 0.95)
    m = g.meta(t)
    d = g.dim(m)
    size = m.shape[d] if m.shape else 1
    if rng.random() < 0.5:
        n = rng.randint(0, 3)
        idx = g.index([n], size)
        shape = list(m.shape)
        if shape:
            shape[d] = n
        src = g.fresh(shape=shape, dtype=m.dtype)
        g.call("index_add_", ".index_add_", t, d, idx, src,
               kwargs={"alpha": rng.choice((2, 0.5))} if rng.random() < 0.3 else None)
    else:
        shape = [rng.randint(0, s) for s in m.shape]
        idx = g.index(shape, size)
        src = g.fresh(shape=shape, dtype=m.dtype)
        name = rng.choice(("scatter_add_", "scatter_reduce_"))
        if name == "scatter_add_":
            g.call(name, "." + name, t, d, idx, src)
        else:
            g.call(name, "." + name, t, d, idx, src, rng.choice(("sum", "prod", "mean", "amax", "amin")),
                   kwargs={"include_self": rng.random() < 0.5})


register("index_add_", index_add_)


def bitwise_(g):
    t = inplace_target(g, 0.0)
    m = g.meta(t)
    name = g.rng.choice(("bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_"))
    if name == "bitwise_not_":
        g.call(name, "." + name, t)
    else:
        g.call(name, "." + name, t, second(g, t, dtype=m.dtype if is_bool(m) else "int64"))


register("bitwise_", bitwise_, 0.5)


def view_inplace(g):
    """The in-place view methods (t_, transpose_, unsqueeze_, squeeze_) on a clone."""
    rng = g.rng
    base = g.call("clone", ".clone", g.pick())
    m = g.meta(base)
    nd = len(m.shape)
    name = rng.choice(("t_", "transpose_", "unsqueeze_", "squeeze_"))
    if name == "t_" or (name == "transpose_" and nd < 1):
        g.call("t_", ".t_", base)
    elif name == "transpose_":
        g.call(name, "." + name, base, g.dim(m), g.dim(m))
    elif name == "unsqueeze_":
        g.call(name, "." + name, base, rng.randint(-nd - 1, nd))
    else:
        g.call(name, "." + name, base, *([g.dim(m)] if rng.random() < 0.6 else []))


register("view_inplace", view_inplace, 0.5)
