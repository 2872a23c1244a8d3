"""Reductions (whole tensor, one dim, several dims, keepdim, dtype=), scans, softmax and normalize,
sorting and selection (sort, argsort, topk, kthvalue, median, mode, unique, quantile)."""
from registry import is_bool, is_float, register


def operand(g, float_p=0.85):
    if g.rng.random() < float_p:
        return g.pick(is_float)
    return g.pick(fresh_p=0.3, dtype="any")


def dim_args(g, m, multi=True, none_ok=True):
    """(args, kwargs) for a reduction's dim and keepdim: no dim, dim=None, one dim, or a tuple of dims."""
    rng = g.rng
    kw = {}
    if rng.random() < 0.5:
        kw["keepdim"] = rng.random() < 0.5
    r = rng.random()
    if none_ok and r < 0.2:
        return [], {}
    if none_ok and r < 0.3:
        return [], {"dim": None, **kw}
    if multi and r < 0.5 and len(m.shape) >= 1:
        dims = g.dims(m)
        return [], {"dim": {"tuple": dims} if rng.random() < 0.5 else dims, **kw}
    return [g.dim(m)], kw


def reduction(name, multi=True, none_ok=True, dtype_kw=False, float_only=False):
    def build(g):
        x = g.pick(is_float) if float_only else operand(g)
        m = g.meta(x)
        args, kw = dim_args(g, m, multi, none_ok)
        if dtype_kw and g.rng.random() < 0.15:
            kw["dtype"] = {"dtype": g.rng.choice(("float64", "float32"))}
        if name in ("std", "var") and g.rng.random() < 0.5:
            if g.rng.random() < 0.7:
                kw["correction"] = g.rng.choice((0, 1, 2))
            else:
                kw["unbiased"] = g.rng.random() < 0.5
        if name == "norm" and g.rng.random() < 0.6:
            kw["p"] = g.rng.choice((1, 2, 3, float("inf"), 0.5)) if g.rng.random() < 0.9 else "fro"
            if kw["p"] == float("inf"):
                kw["p"] = {"f": "inf"}
        g.fn_or_method(name, x, *args, kwargs=kw or None)
    return build


for _name, _kw in {"sum": dict(dtype_kw=True), "mean": dict(dtype_kw=True, float_only=True),
                   "prod": dict(multi=False, dtype_kw=True), "amax": {}, "amin": {}, "nansum": {},
                   "nanmean": dict(float_only=True), "logsumexp": dict(none_ok=False, float_only=True),
                   "all": {}, "any": {}, "count_nonzero": {}, "std": dict(float_only=True),
                   "var": dict(float_only=True), "norm": dict(float_only=True)}.items():
    register(_name, reduction(_name, **_kw), 1.5 if _name in ("sum", "mean") else 1.0)


def stat_mean(name):
    def build(g):
        x = g.pick(is_float)
        args, kw = dim_args(g, g.meta(x))
        g.call(name, "L." + name, x, *args, kwargs=kw or None, pick=g.rng.choice((0, 1)))
    return build


register("std_mean", stat_mean("std_mean"), 0.5)
register("var_mean", stat_mean("var_mean"), 0.5)


def max_min(name):
    def build(g):
        rng = g.rng
        x = operand(g)
        m = g.meta(x)
        if rng.random() < 0.35:
            g.fn_or_method(name, x)
            return
        kw = {"keepdim": rng.random() < 0.5} if rng.random() < 0.5 else None
        g.fn_or_method(name, x, g.dim(m), kwargs=kw, pick=rng.choice((0, 0, 1)))
    return build


register("max", max_min("max"))
register("min", max_min("min"))


def arg_extreme(name):
    def build(g):
        x = operand(g)
        m = g.meta(x)
        if g.rng.random() < 0.3:
            g.fn_or_method(name, x)
        else:
            kw = {"keepdim": g.rng.random() < 0.5} if g.rng.random() < 0.5 else None
            g.fn_or_method(name, x, g.dim(m), kwargs=kw)
    return build


register("argmax", arg_extreme("argmax"))
register("argmin", arg_extreme("argmin"))


def untie(g, x, dim=None):
    """x, or x.detach() where x requires grad and has ties along dim: a sort-based op's gradient then
    reaches one of the tied elements, which one unspecified."""
    if g.meta(x).rg and g.has_ties(x, dim):
        return g.call("detach", ".detach", x)
    return x


def values_and_indices(g, name, call, x, dim, *args, kwargs=None, ambiguous=True):
    """A (values, indices) op: its values, or its indices; indices that ties make ambiguous are marked
    (compared by shape and dtype only) and gathered back into values, which are compared. Where ties
    make the gradient's way ambiguous, x is detached first (untie)."""
    if ambiguous:
        x = untie(g, x, dim)
    if g.rng.random() < 0.6:
        return g.call(name, call, x, *args, kwargs=kwargs, pick=0)
    idx = g.call(name, call, x, *args, kwargs=kwargs, pick=1)
    if ambiguous:
        g.nodes[idx["v"]]["ties"] = True
        g.hide(idx)
        keep = (kwargs or {}).get("keepdim", True)
        if keep and len(g.meta(idx).shape) == len(g.meta(x).shape):
            return g.call("gather", ".gather", x, dim, idx)
    return idx


def median(g):
    x = operand(g, 0.9)
    m = g.meta(x)
    if g.rng.random() < 0.4:
        g.fn_or_method("median", untie(g, x))
        return
    d = g.dim(m)
    if g.expanded(x, d):  # NB: PyTorch's median along an expanded dim returns garbage (python/README.md)
        x = g.call("contiguous", ".contiguous", x)
        g.nodes[x["v"]]["keep"] = True
    kw = {"keepdim": g.rng.random() < 0.5}
    values_and_indices(g, "median", ".median", x, d, d, kwargs=kw)


register("median", median)


def mode(g):
    x = g.pick(lambda m: not is_bool(m), fresh_p=0.3, dtype="any")
    d = g.dim(g.meta(x))
    values_and_indices(g, "mode", ".mode", x, d, d, kwargs={"keepdim": True})


register("mode", mode, 0.5)


def kthvalue(g):
    x = operand(g, 0.9)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d] if m.shape else 1
    k = g.rng.randint(1, max(size, 1))
    values_and_indices(g, "kthvalue", ".kthvalue", x, d, k, d, kwargs={"keepdim": g.rng.random() < 0.5})


register("kthvalue", kthvalue)


def sort(g):
    rng = g.rng
    x = operand(g, 0.85)
    m = g.meta(x)
    d = g.dim(m)
    kw = {"dim": d}
    if rng.random() < 0.5:
        kw["descending"] = rng.random() < 0.5
    stable = rng.random() < 0.5
    if stable:
        kw["stable"] = True
    name = rng.choice(("sort", "sort", "argsort", "msort"))
    if name == "msort":
        g.fn_or_method("msort", untie(g, x, 0))
    elif name == "argsort":
        idx = g.fn_or_method("argsort", x, kwargs=kw)
        if not stable:
            g.nodes[idx["v"]]["ties"] = True
            g.hide(idx)
            g.call("gather", ".gather", x, d, idx)
    else:
        values_and_indices(g, "sort", ".sort", x, d, kwargs=kw, ambiguous=not stable)


register("sort", sort, 2)


def topk(g):
    rng = g.rng
    x = operand(g, 0.85)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d] if m.shape else 1
    k = rng.randint(0, size)
    kw = {"dim": d, "largest": rng.random() < 0.6}
    values_and_indices(g, "topk", ".topk", x, d, k, kwargs=kw)


register("topk", topk, 1.5)


def quantile(g):
    rng = g.rng
    x = g.pick(is_float)
    m = g.meta(x)
    q = rng.choice((0.5, 0.0, 1.0, 0.25, 0.9))
    if rng.random() < 0.2:
        q = g.fresh(shape=[rng.randint(1, 3)], dtype=m.dtype, kind="prob", grad=False)
    kw = {}
    if rng.random() < 0.6:
        kw["dim"] = g.dim(m)
        kw["keepdim"] = rng.random() < 0.5
    if rng.random() < 0.4:
        kw["interpolation"] = rng.choice(("linear", "lower", "higher", "midpoint", "nearest"))
    g.fn_or_method("quantile", untie(g, x, kw.get("dim")), q, kwargs=kw or None)


register("quantile", quantile)


def unique(g):
    rng = g.rng
    x = g.pick(fresh_p=0.3, dtype="any")
    kw = {"sorted": True}
    pick = None
    r = rng.random()
    if r < 0.3:
        kw["return_inverse"], pick = True, rng.choice((0, 1))
    elif r < 0.5:
        kw["return_counts"], pick = True, rng.choice((0, 1))
    g.fn_or_method("unique", x, kwargs=kw, pick=pick)


register("unique", unique, 0.7)


def scan(name, dtype_kw=False):
    def build(g):
        x = g.pick(is_float) if name == "logcumsumexp" else operand(g)
        m = g.meta(x)
        kw = {"dtype": {"dtype": "float64"}} if dtype_kw and g.rng.random() < 0.1 else None
        d = g.dim(m)
        if name in ("cummax", "cummin"):
            values_and_indices(g, name, "." + name, x, d, d)
        else:
            g.fn_or_method(name, x, d, kwargs=kw)
    return build


register("cumsum", scan("cumsum", True), 1.5)
register("cumprod", scan("cumprod", True))
register("cummax", scan("cummax"))
register("cummin", scan("cummin"))
register("logcumsumexp", scan("logcumsumexp"))


def softmax(name):
    def build(g):
        rng = g.rng
        x = g.pick(is_float)
        m = g.meta(x)
        d = g.dim(m)
        kw = {"dtype": {"dtype": "float64"}} if rng.random() < 0.1 else {}
        form = rng.random()
        if name == "softmin" or form < 0.4:
            g.call("F." + name, "F." + name, x, d, **({"kwargs": kw} if kw else {}))
        elif form < 0.7:
            g.call(name, "." + name, x, d, kwargs=kw or None)
        else:
            g.call(name, "L." + name, x, d, kwargs=kw or None)
    return build


register("softmax", softmax("softmax"), 2)
register("log_softmax", softmax("log_softmax"), 2)
register("softmin", softmax("softmin"), 0.5)


def normalize(g):
    x = g.pick(is_float)
    m = g.meta(x)
    kw = {"dim": g.dim(m)}
    if g.rng.random() < 0.5:
        kw["p"] = g.rng.choice((1.0, 2.0, 3.0))
    g.call("F.normalize", "F.normalize", x, kwargs=kw)


register("F.normalize", normalize)


def diff(g):
    rng = g.rng
    x = operand(g)
    m = g.meta(x)
    kw = {"dim": g.dim(m)}
    if rng.random() < 0.3:
        kw["n"] = rng.choice((2, 0, 3))
    if rng.random() < 0.2:
        shape = list(m.shape)
        if shape:
            shape[kw["dim"]] = rng.randint(1, 2)
        kw["prepend"] = g.fresh(shape=shape, dtype=m.dtype)
    g.fn_or_method("diff", x, kwargs=kw, fn=False)


register("diff", diff)


def trace(g):
    x = g.pick(lambda m: len(m.shape) == 2, fresh_p=0.4, shape=[g.rng.randint(1, 4), g.rng.randint(1, 4)])
    g.fn_or_method("trace", x)


register("trace", trace, 0.5)


def dist(g):
    a = g.pick(is_float)
    from ops_elementwise import second
    b = second(g, a, scalar_p=0)
    kw = {"p": g.rng.choice((2, 1, 3, 0))} if g.rng.random() < 0.6 else None
    g.fn_or_method("dist", a, b, kwargs=kw)


register("dist", dist, 0.5)
