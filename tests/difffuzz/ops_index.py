"""Indexing with index tensors and masks: gather, scatter (with src, a value, reductions), index_select,
index_add/copy/fill/put, masked_fill/select/scatter, put, take, take_along_dim, advanced indexing and
assignment, nonzero/argwhere, embedding and one_hot. Where duplicate indices leave torch's result
unspecified (scatter, index_copy, index_put and put without accumulation), the indices are distinct."""
from registry import is_bool, is_float, register


def target(g, min_ndim=0):
    return g.pick(lambda m: len(m.shape) >= min_ndim, fresh_p=0.2, min_ndim=min_ndim,
                  dtype="float" if g.rng.random() < 0.85 else "any")


def sub_shape(g, shape, d=None, along=None):
    """A shape no bigger than `shape` in every dim (but `along` at dim d)."""
    out = [g.rng.randint(0, s) if g.rng.random() < 0.5 else s for s in shape]
    if d is not None and shape:
        out[d] = along if along is not None else out[d]
    return out


def source(g, shape, dtype):
    return g.pick(lambda o: list(o.shape) == list(shape) and o.dtype == dtype, fresh_p=0.7, shape=shape,
                  dtype=dtype if dtype != "bool" or g.rng.random() < 0.8 else "float")


def value(g, m):
    """A fill value: a Python number or (sometimes) a 0-d tensor, which may require grad."""
    if g.rng.random() < 0.3:
        return g.fresh(shape=[], dtype=m.dtype if m.dtype != "bool" else "float")
    return g.scalar({"float32": "float", "float64": "float"}.get(m.dtype, m.dtype))


def gather(g):
    x = target(g)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d] if m.shape else 1
    idx = g.index(sub_shape(g, m.shape, d, g.rng.randint(0, 4)), size)
    g.fn_or_method("gather", x, d, idx)


register("gather", gather, 1.5)


def take_along_dim(g):
    x = target(g, 1)
    m = g.meta(x)
    d = g.dim(m)
    shape = [1 if g.rng.random() < 0.3 else s for s in m.shape]
    shape[d] = g.rng.randint(0, 3)
    g.fn_or_method("take_along_dim", x, g.index(shape, m.shape[d]), kwargs={"dim": d})


register("take_along_dim", take_along_dim, 0.7)


def scatter(g):
    rng = g.rng
    x = target(g)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d] if m.shape else 1
    kind = rng.choice(("src", "value", "add", "reduce", "reduce"))
    if kind in ("src", "value"):
        shape = sub_shape(g, m.shape, d, rng.randint(0, size))
        idx = g.unique_index(shape, d, size) if shape else g.index([], size)
        if kind == "value":
            g.fn_or_method("scatter", x, d, idx, value(g, m) if rng.random() < 0.7 else g.scalar("int"))
            return
        src_shape = [s + rng.choice((0, 0, 1)) for s in g.meta(idx).shape]
        g.fn_or_method("scatter", x, d, idx, source(g, src_shape, m.dtype))
        return
    shape = sub_shape(g, m.shape, d, rng.randint(0, 4))
    idx = g.index(shape, size)
    src = source(g, shape, m.dtype)
    if kind == "add":
        g.fn_or_method("scatter_add", x, d, idx, src)
    else:
        kw = {"reduce": rng.choice(("sum", "prod", "mean", "amax", "amin"))}
        if rng.random() < 0.5:
            kw["include_self"] = rng.random() < 0.5
        g.fn_or_method("scatter_reduce", x, d, idx, src, kwargs=kw)


register("scatter", scatter, 2)


def index_ops(g):
    rng = g.rng
    x = target(g)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d] if m.shape else 1
    name = rng.choice(("index_select", "index_select", "index_add", "index_copy", "index_fill", "index_reduce"))
    n = rng.randint(0, 4)
    if name in ("index_copy",):
        n = min(n, size)
        idx = g.unique_index([n], 0, size)
    else:
        idx = g.index([n] if m.shape or rng.random() < 0.5 else [], size)
    if name == "index_select":
        g.fn_or_method("index_select", x, d, idx)
        return
    if name == "index_fill":
        g.fn_or_method("index_fill", x, d, idx, value(g, m), fn=False)
        return
    shape = list(m.shape)
    if shape:
        shape[d] = g.meta(idx).shape[0] if g.meta(idx).shape else 1
    src = source(g, shape, m.dtype)
    if name == "index_add":
        kw = {"alpha": rng.choice((2, -1))} if rng.random() < 0.3 else None
        g.fn_or_method("index_add", x, d, idx, src, kwargs=kw)
    elif name == "index_copy":
        g.fn_or_method("index_copy", x, d, idx, src, fn=False)
    else:
        kw = {"include_self": rng.random() < 0.5}
        g.fn_or_method("index_reduce", x, d, idx, src, rng.choice(("prod", "mean", "amax", "amin")), kwargs=kw,
                       fn=False)


register("index_select", index_ops, 2.5)


def index_put(g):
    rng = g.rng
    x = target(g, 1)
    m = g.meta(x)
    k = rng.randint(1, len(m.shape))
    n = rng.randint(0, 3)
    accumulate = rng.random() < 0.5
    if accumulate:
        idxs = [g.index([n], m.shape[i]) for i in range(k)]
    else:
        n = min([n] + [m.shape[i] for i in range(k)])
        idxs = [g.unique_index([n], 0, m.shape[i]) for i in range(k)]
    vshape = [n] + list(m.shape[k:])
    vals = source(g, vshape[rng.randint(0, len(vshape) - 1):] if rng.random() < 0.3 else vshape, m.dtype)
    kw = {"accumulate": True} if accumulate else ({"accumulate": False} if rng.random() < 0.7 else None)
    g.fn_or_method("index_put", x, {"tuple": idxs}, vals, kwargs=kw, fn=False)


register("index_put", index_put)


def masked(g):
    rng = g.rng
    x = target(g)
    m = g.meta(x)
    mshape = g.bshape(m.shape)
    mask = g.pick(lambda o: is_bool(o) and list(o.shape) == mshape, fresh_p=0.6, shape=mshape, dtype="bool")
    r = rng.random()
    if r < 0.5:
        g.fn_or_method("masked_fill", x, mask, value(g, m))
    elif r < 0.75:
        g.fn_or_method("masked_select", x, mask)
    else:
        src = source(g, [s + rng.choice((0, 1)) for s in m.shape], m.dtype)
        g.fn_or_method("masked_scatter", x, mask, src, fn=False)


register("masked_fill", masked, 2)


def take_put(g):
    rng = g.rng
    x = target(g)
    m = g.meta(x)
    n = 1
    for s in m.shape:
        n *= s
    if rng.random() < 0.5:
        idx = g.index([rng.randint(0, 4)], max(n, 1) if n else 0, low=-n)
        g.fn_or_method("take", x, idx)
        return
    accumulate = rng.random() < 0.5
    if accumulate:
        idx = g.index([rng.randint(0, 3)], n, low=-n)
    else:
        idx = g.unique_index([min(rng.randint(0, 3), n)], 0, n)
    src = source(g, g.meta(idx).shape, m.dtype)
    g.call("put", ".put", x, idx, src, kwargs={"accumulate": accumulate})


register("take", take_put)


def advanced_index(g):
    rng = g.rng
    x = target(g, 1)
    m = g.meta(x)
    d0 = m.shape[0]
    assign = rng.random() < 0.3  # x[index] = value on a clone: indices distinct (duplicates are unspecified)
    r = rng.random()
    if r < 0.3:
        if assign:
            index = rng.sample(range(d0), min(d0, rng.randint(0, 3)))
        else:
            index = [rng.randint(-d0, d0 - 1) for _ in range(rng.randint(0, 3))] if d0 else []
    elif r < 0.6:
        n = rng.randint(0, 3)
        index = g.unique_index([min(n, d0)], 0, d0) if assign else g.index([n], d0, low=-d0)
    elif r < 0.8:
        index = g.pick(lambda o: is_bool(o) and list(o.shape) == list(m.shape[:len(o.shape)]) and o.shape,
                       fresh_p=0.6, shape=m.shape[:rng.randint(1, len(m.shape))], dtype="bool")
    else:
        k = min(len(m.shape), 2)
        n = rng.randint(0, 3)
        if assign:  # distinct along the first index tensor: the pairs are distinct
            n = min(n, m.shape[0])
            index = {"tuple": [g.unique_index([n], 0, m.shape[0])] + [g.index([n], m.shape[i]) for i in range(1, k)]}
        else:
            index = {"tuple": [g.index([n], m.shape[i]) for i in range(k)]}
    if assign:
        base = g.call("clone", ".clone", x)
        g.call("setitem", "[]=", base, index, value(g, m))
    else:
        g.call("getitem", "[]", x, index)


register("advanced_index", advanced_index, 1.5)


def setitem_basic(g):
    from ops_shape import basic_index
    x = target(g, 1)
    m = g.meta(x)
    base = g.call("clone", ".clone", x)
    index = basic_index(g, m)
    view = g.call("getitem", "[]", base, index)
    vm = g.meta(view)
    val = value(g, m) if g.rng.random() < 0.5 else source(g, g.bshape(vm.shape), m.dtype)
    g.call("setitem", "[]=", base, index, val)


register("setitem", setitem_basic, 1.5)


def nonzero(g):
    x = g.pick(fresh_p=0.3, dtype="any")
    r = g.rng.random()
    if r < 0.5:
        g.fn_or_method("nonzero", x)
    elif r < 0.7:
        g.fn_or_method("nonzero", x, kwargs={"as_tuple": True}, pick=0)
    else:
        g.fn_or_method("argwhere", x)


register("nonzero", nonzero)


def embedding(g):
    rng = g.rng
    n = rng.randint(1, 5)
    weight = g.pick(lambda o: is_float(o) and len(o.shape) == 2, fresh_p=0.5, shape=[n, rng.randint(1, 4)])
    n = g.meta(weight).shape[0]
    idx = g.index(g.rng.choice(([rng.randint(0, 4)], [2, 2], [])), n)
    kw = {"padding_idx": rng.randrange(n)} if rng.random() < 0.3 and n else None
    g.call("F.embedding", "F.embedding", idx, weight, kwargs=kw)


register("F.embedding", embedding)


def one_hot(g):
    rng = g.rng
    k = rng.randint(1, 4)
    idx = g.pick(lambda o: o.dtype == "int64", fresh_p=0.7, shape=g.rng.choice(([3], [2, 2], [])), dtype="int64",
                 kind="index", high=k)
    g.call("F.one_hot", "F.one_hot", idx, kwargs={"num_classes": k} if rng.random() < 0.7 else None)


register("F.one_hot", one_hot, 0.5)
