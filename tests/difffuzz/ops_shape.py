"""Views and shape ops: reshape/view/flatten/unflatten/squeeze/unsqueeze, permutes and transposes, flip,
roll, narrow/select/basic indexing, expand/broadcast/repeat/tile/repeat_interleave, chunk/split/unbind,
diagonals and triangles, unfold, cat/stack, pad."""
from registry import is_float, numel, register


def any_operand(g):
    return g.pick(fresh_p=0.15, dtype="float" if g.rng.random() < 0.8 else "any")


def factor_shape(g, n):
    """A random shape with n elements (1s sprinkled in; a 0 somewhere when n is 0)."""
    rng = g.rng
    if n == 0:
        shape = [rng.choice((1, 2, 3)) for _ in range(rng.randint(0, 2))]
        shape.insert(rng.randint(0, len(shape)), 0)
        return shape
    factors, k, m = [], 2, n
    while m > 1:
        while m % k == 0:
            factors.append(k)
            m //= k
        k += 1
    rng.shuffle(factors)
    shape = []
    for f in factors:
        if shape and rng.random() < 0.5:
            shape[-1] *= f
        else:
            shape.append(f)
    for _ in range(rng.choice((0, 0, 1, 2))):
        shape.insert(rng.randint(0, len(shape)), 1)
    if shape and rng.random() < 0.3:
        shape[rng.randrange(len(shape))] = -1
    return shape[:6]


def reshape(g):
    x = any_operand(g)
    m = g.meta(x)
    shape = factor_shape(g, numel(m))
    name = g.rng.choice(("reshape", "view", "reshape"))
    if g.rng.random() < 0.5:
        g.call(name, "." + name, x, shape)
    else:
        g.call(name, "." + name, x, *shape)


register("reshape", reshape, 2.5)


def flatten(g):
    x = any_operand(g)
    m = g.meta(x)
    nd = max(len(m.shape), 1)
    kw = {}
    if g.rng.random() < 0.7:
        a, b = sorted(g.rng.randrange(nd) for _ in range(2))
        kw = {"start_dim": a, "end_dim": b if g.rng.random() < 0.7 else b - nd}
    g.fn_or_method("flatten", x, kwargs=kw or None)


register("flatten", flatten)


def unflatten(g):
    x = g.pick(lambda m: len(m.shape) >= 1, fresh_p=0.2, min_ndim=1)
    m = g.meta(x)
    d = g.dim(m)
    sizes = factor_shape(g, m.shape[d])
    if not sizes:
        sizes = [1]
    g.fn_or_method("unflatten", x, d, sizes)


register("unflatten", unflatten)


def squeeze(g):
    x = any_operand(g)
    m = g.meta(x)
    r = g.rng.random()
    if r < 0.3:
        g.fn_or_method("squeeze", x)
    elif r < 0.75 or len(m.shape) < 2:
        g.fn_or_method("squeeze", x, g.dim(m))
    else:
        g.fn_or_method("squeeze", x, {"tuple": g.dims(m)})


register("squeeze", squeeze)


def unsqueeze(g):
    x = any_operand(g)
    nd = len(g.meta(x).shape)
    g.fn_or_method("unsqueeze", x, g.rng.randint(-nd - 1, nd))


register("unsqueeze", unsqueeze, 1.5)


def permute(g):
    rng = g.rng
    x = any_operand(g)
    m = g.meta(x)
    nd = len(m.shape)
    perm = list(range(nd))
    rng.shuffle(perm)
    r = rng.random()
    if r < 0.3:
        g.fn_or_method("permute", x, perm)
    elif r < 0.5:
        g.call("permute", ".permute", x, *perm)
    elif r < 0.7 and nd >= 1:
        i, j = g.dim(m), g.dim(m)
        g.fn_or_method(rng.choice(("transpose", "swapaxes")), x, i, j)
    elif r < 0.8:
        g.fn_or_method("t", x)  # 0 to 2 dims
    elif r < 0.9:
        g.call("mT" if nd >= 2 else "T", "@mT" if nd >= 2 else "@T", x)
    else:
        src = g.dims(m)
        dst = rng.sample(range(nd), len(src)) if nd else []
        if len(src) == 1 and rng.random() < 0.5:
            src, dst = src[0], dst[0]
        g.fn_or_method(rng.choice(("movedim", "moveaxis")), x, src, dst)


register("permute", permute, 3)


def flip(g):
    x = any_operand(g)
    m = g.meta(x)
    dims = g.dims(m) if m.shape else [g.rng.choice((0, -1))]
    g.fn_or_method("flip", x, dims)


register("flip", flip)


def roll(g):
    rng = g.rng
    x = any_operand(g)
    m = g.meta(x)
    if rng.random() < 0.3 or not m.shape:
        g.fn_or_method("roll", x, rng.randint(-3, 3))
        return
    dims = g.dims(m)
    shifts = [rng.randint(-4, 4) for _ in dims]
    if len(dims) == 1 and rng.random() < 0.5:
        g.fn_or_method("roll", x, shifts[0], dims[0])
    else:
        g.fn_or_method("roll", x, shifts, dims)


register("roll", roll)


def narrow_select(g):
    rng = g.rng
    x = g.pick(lambda m: len(m.shape) >= 1, fresh_p=0.2, min_ndim=1)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d]
    if rng.random() < 0.5:
        start = rng.randint(0, size)
        g.fn_or_method("narrow", x, d, start, rng.randint(0, size - start))
    else:
        g.fn_or_method("select", x, d, rng.randint(-size, max(size - 1, -size)))


register("narrow", narrow_select, 1.5)


def basic_index(g, m):
    """An index of ints, slices (steps, negative bounds), None and Ellipsis for shape m.shape."""
    rng = g.rng
    parts = []
    dims = list(m.shape)
    use_ellipsis = rng.random() < 0.2
    for i, size in enumerate(dims):
        if use_ellipsis and i == len(dims) // 2:
            parts.append({"ellipsis": 1})
            break
        r = rng.random()
        if r < 0.25 and size > 0:
            parts.append(rng.randint(-size, size - 1))
        elif r < 0.8:
            a = rng.choice((None, 0, 1, -1, -2, size))
            b = rng.choice((None, size, -1, 2, 1))
            step = rng.choice((None, 1, 2, 3))
            parts.append({"slice": [a, b, step]})
        elif r < 0.9:
            parts.append(None)
            parts.append({"slice": [None, None, None]})
        else:
            break
    if rng.random() < 0.1:
        parts.append(None)
    return parts[0] if len(parts) == 1 and rng.random() < 0.5 else {"tuple": parts}


def getitem(g):
    x = any_operand(g)
    g.call("getitem", "[]", x, basic_index(g, g.meta(x)))


register("getitem", getitem, 3)


def expand(g):
    rng = g.rng
    x = any_operand(g)
    m = g.meta(x)
    shape = [rng.choice((2, 3)) if s == 1 and rng.random() < 0.6 else (-1 if rng.random() < 0.3 else s)
             for s in m.shape]
    if rng.random() < 0.3:
        shape = [rng.choice((1, 2))] + shape
    r = rng.random()
    if r < 0.5:
        g.call("expand", ".expand", x, *shape) if rng.random() < 0.5 else g.call("expand", ".expand", x, shape)
    elif r < 0.8:
        g.fn_or_method("broadcast_to", x, [abs(s) if s != -1 else m.shape[i - len(shape) + len(m.shape)]
                                           for i, s in enumerate(shape)])
    else:
        other = g.fresh(shape=[abs(s) if s != -1 else m.shape[i - len(shape) + len(m.shape)]
                               for i, s in enumerate(shape)], grad=False)
        g.call("expand_as", ".expand_as", x, other)


register("expand", expand, 2)


def repeat(g):
    rng = g.rng
    x = any_operand(g)
    m = g.meta(x)
    nd = len(m.shape)
    reps = [rng.choice((1, 1, 2, 3, 0)) for _ in range(nd + rng.choice((0, 0, 1)))]
    if rng.random() < 0.5:
        g.call("repeat", ".repeat", x, reps if reps else [])
    else:
        g.fn_or_method("tile", x, reps[:max(nd - 1, 0)] if rng.random() < 0.3 else reps)


register("repeat", repeat)


def repeat_interleave(g):
    rng = g.rng
    x = any_operand(g)
    m = g.meta(x)
    if rng.random() < 0.3 or not m.shape:
        g.fn_or_method("repeat_interleave", x, rng.choice((1, 2, 3)))
        return
    d = g.dim(m)
    if rng.random() < 0.5:
        g.fn_or_method("repeat_interleave", x, rng.choice((0, 1, 2)), kwargs={"dim": d})
    else:
        reps = g.index([m.shape[d]], 3)
        g.fn_or_method("repeat_interleave", x, reps, kwargs={"dim": d})


register("repeat_interleave", repeat_interleave)


def copy_like(g):
    x = any_operand(g)
    name = g.rng.choice(("contiguous", "clone", "detach"))
    g.call(name, "." + name, x)


register("clone", copy_like)


def pieces(g):
    rng = g.rng
    x = g.pick(lambda m: len(m.shape) >= 1, fresh_p=0.2, min_ndim=1)
    m = g.meta(x)
    d = g.dim(m)
    size = m.shape[d]
    r = rng.random()
    if r < 0.25:
        n, pick = rng.randint(1, 4), 0
        g.fn_or_method("chunk", x, n, d, pick=pick)
    elif r < 0.5:
        if rng.random() < 0.5:
            g.fn_or_method("split", x, rng.randint(1, 3), d, pick=0)
        else:
            a = rng.randint(0, size)
            g.fn_or_method("split", x, [a, size - a], d, pick=rng.choice((0, 1)))
    elif r < 0.75:
        if size:
            g.fn_or_method("unbind", x, d, pick=rng.randrange(size))
    else:
        sections = rng.randint(1, 4) if rng.random() < 0.5 else sorted(rng.randint(0, size) for _ in range(2))
        n = sections if isinstance(sections, int) else len(sections) + 1
        g.fn_or_method("tensor_split", x, sections, d, pick=rng.randrange(n))


register("split", pieces, 2)


def diagonal(g):
    rng = g.rng
    r = rng.random()
    if r < 0.4:
        x = g.pick(lambda m: len(m.shape) >= 2, fresh_p=0.3, min_ndim=2)
        m = g.meta(x)
        d1, d2 = rng.sample(range(len(m.shape)), 2)
        kw = {"offset": rng.randint(-2, 2), "dim1": d1, "dim2": d2}
        g.fn_or_method("diagonal", x, kwargs=kw)
    elif r < 0.6:
        x = g.pick(lambda m: 1 <= len(m.shape) <= 2, fresh_p=0.3, shape=[rng.randint(0, 4)])
        g.fn_or_method("diag", x, rng.randint(-1, 1))
    elif r < 0.75:
        x = g.pick(lambda m: len(m.shape) >= 1, fresh_p=0.3, min_ndim=1)
        g.fn_or_method("diag_embed", x, kwargs={"offset": rng.randint(-1, 1)} if rng.random() < 0.5 else None)
    else:
        x = g.pick(lambda m: len(m.shape) >= 2, fresh_p=0.3, min_ndim=2)
        g.fn_or_method(rng.choice(("tril", "triu")), x, rng.randint(-2, 2))


register("diagonal", diagonal, 2)


def unfold(g):
    rng = g.rng
    x = g.pick(lambda m: len(m.shape) >= 1, fresh_p=0.3, min_ndim=1)
    m = g.meta(x)
    d = g.dim(m)
    g.call("unfold", ".unfold", x, d, rng.randint(1, max(m.shape[d], 1)), rng.randint(1, 2))


register("unfold", unfold)


def cat_stack(g):
    rng = g.rng
    x = any_operand(g)
    m = g.meta(x)
    n = rng.choice((1, 2, 2, 3))
    stack = rng.random() < 0.35
    others = []
    d = g.dim(m) if m.shape else 0
    for _ in range(n):
        shape = list(m.shape)
        if not stack and shape:
            shape[d] = rng.choice((0, 1, 2, shape[d]))
        dtype = m.dtype if rng.random() < 0.8 else "any"
        others.append(g.pick(lambda o: list(o.shape) == shape and o.dtype == m.dtype, fresh_p=0.6,
                             shape=shape, dtype=dtype))
    items = [x] + others
    if stack:
        nd = len(m.shape)
        g.fn_or_method("stack", items, rng.randint(-nd - 1, nd), method=False)
    else:
        if rng.random() < 0.1:  # the legacy empty 1-d tensor torch.cat skips
            items.append(g.fresh(shape=[0], dtype=m.dtype if m.dtype != "bool" else "float"))
        kw = {"dim": d} if rng.random() < 0.7 else None
        g.call("cat", "L." + rng.choice(("cat", "cat", "concat")), items, kwargs=kw)


register("cat", cat_stack, 2.5)


def pad(g):
    rng = g.rng
    mode = rng.choice(("constant", "constant", "constant", "reflect", "replicate", "circular"))
    if mode == "constant":
        x = any_operand(g)
    else:
        x = g.pick(lambda m: is_float(m) and 2 <= len(m.shape) <= 4, fresh_p=0.3, min_ndim=2)
    m = g.meta(x)
    k = rng.randint(1, min(max(len(m.shape), 1), 3))
    if mode != "constant":
        k = min(k, len(m.shape) - 1)
    widths = [rng.choice((0, 1, 2, -1)) if mode == "constant" else rng.choice((0, 1, 2)) for _ in range(2 * k)]
    kw = {"mode": mode} if mode != "constant" or rng.random() < 0.3 else {}
    if mode == "constant" and rng.random() < 0.4:
        kw["value"] = rng.choice((1.5, -2.0, 0.0))
    g.call("F.pad", "F.pad", x, widths, kwargs=kw or None)


register("F.pad", pad)
