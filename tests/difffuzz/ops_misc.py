"""Ops that return Python values (item, equal, allclose) and the binning ops (bucketize, searchsorted,
bincount, histc)."""
from registry import is_float, numel, register


def python_values(g):
    rng = g.rng
    r = rng.random()
    if r < 0.4:
        x = g.pick(lambda m: numel(m) == 1, fresh_p=0.5, shape=rng.choice(([], [1], [1, 1])), dtype="any")
        g.call("item", ".item", x)
        return
    x = g.pick(is_float)
    m = g.meta(x)
    other = g.pick(lambda o: o.shape == m.shape and o.dtype == m.dtype, fresh_p=0.5, shape=list(m.shape), dtype=m.dtype)
    if r < 0.7:
        g.fn_or_method("equal", x, other)
    else:
        g.fn_or_method("allclose", x, other, kwargs={"equal_nan": rng.random() < 0.5})


register("item", python_values, 0.7)


def binning(g):
    rng = g.rng
    name = rng.choice(("bucketize", "searchsorted", "bincount", "histc"))
    if name in ("bucketize", "searchsorted"):
        x = g.pick(fresh_p=0.3, dtype=rng.choice(("float", "int64")))
        m = g.meta(x)
        raw = g.fresh(shape=[rng.randint(0, 5)], dtype=m.dtype, grad=False)
        bounds = g.call("sort", ".sort", raw, pick=0)
        g.nodes[bounds["v"]]["keep"] = True  # shrinking must not bypass it: unsorted bounds are unspecified
        kw = {"right": rng.random() < 0.5} if rng.random() < 0.5 else None
        if name == "bucketize":
            g.call(name, "L.bucketize", x, bounds, kwargs=kw)
        else:
            g.call(name, "L.searchsorted", bounds, x if len(m.shape) <= 1 else g.call("flatten", ".flatten", x),
                   kwargs=kw)
    elif name == "bincount":
        idx = g.index([rng.randint(0, 6)], rng.randint(1, 5))
        kw = {}
        if rng.random() < 0.4:
            kw["weights"] = g.fresh(shape=g.meta(idx).shape, grad=False)
        if rng.random() < 0.4:
            kw["minlength"] = rng.randint(0, 6)
        g.fn_or_method("bincount", idx, kwargs=kw or None)
    else:
        x = g.pick(is_float)
        g.fn_or_method("histc", x, kwargs={"bins": rng.randint(1, 5), "min": rng.choice((0.0, -1.0)),
                                           "max": rng.choice((1.0, 0.0, 2.0))})


register("bucketize", binning)
