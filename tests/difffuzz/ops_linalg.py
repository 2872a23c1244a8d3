"""The matmul family (matmul with broadcast batches, mm, bmm, mv, dot, outer, addmm, baddbmm, einsum,
tensordot, kron, F.linear, F.bilinear), cross, cdist, and a few matrix functions (det, inverse)."""
from registry import is_float, register


def mat_dtype(g, m):
    """The other operand's dtype: the same (matmul does not promote), rarely another one."""
    return m.dtype if g.rng.random() < 0.93 else g.rng.choice(("float32", "float64", "int64", "bool"))


def matmul(g):
    rng = g.rng
    a = g.pick(lambda m: 1 <= len(m.shape) <= 4 and (is_float(m) or rng.random() < 0.2), fresh_p=0.3, min_ndim=1)
    m = g.meta(a)
    k = m.shape[-1]
    p = rng.randint(0, 4) if rng.random() < 0.9 else 0
    r = rng.random()
    if r < 0.25:
        shape = [k]
    elif r < 0.7 or len(m.shape) == 1:
        shape = [k, p]
    else:
        batch = list(m.shape[:-2])
        shape = g.bshape(batch) + [k, p]
    b = g.pick(lambda o: list(o.shape) == shape and o.dtype == m.dtype, fresh_p=0.7, shape=shape,
               dtype=mat_dtype(g, m))
    r = rng.random()
    if r < 0.2:
        g.call("matmul", ".__matmul__", a, b)
    else:
        g.fn_or_method("matmul", a, b)


register("matmul", matmul, 3)


def fixed_rank(g):
    rng = g.rng
    name = rng.choice(("mm", "bmm", "mv", "dot", "outer", "ger", "addmm", "baddbmm", "kron"))
    n, k, p, bt = (rng.randint(0, 4) for _ in range(4))
    shapes = {"mm": ([n, k], [k, p]), "bmm": ([bt, n, k], [bt, k, p]), "mv": ([n, k], [k]), "dot": ([k], [k]),
              "outer": ([n], [p]), "ger": ([n], [p]), "addmm": ([n, k], [k, p]), "baddbmm": ([bt, n, k], [bt, k, p]),
              "kron": ([n, k], [rng.randint(1, 3)])}
    sa, sb = shapes[name]
    a = g.pick(lambda m: list(m.shape) == sa and is_float(m), fresh_p=0.6, shape=sa)
    m = g.meta(a)
    b = g.pick(lambda o: list(o.shape) == sb and o.dtype == m.dtype, fresh_p=0.7, shape=sb, dtype=mat_dtype(g, m))
    if name in ("addmm", "baddbmm"):
        out_shape = [n, p] if name == "addmm" else [bt, n, p]
        bias = g.fresh(shape=g.bshape(out_shape), dtype=m.dtype)
        kw = {"beta": rng.choice((1, 0.5, 0)), "alpha": rng.choice((1, 2, -0.5))} if rng.random() < 0.5 else None
        g.fn_or_method(name, bias, a, b, kwargs=kw)
    else:
        g.fn_or_method(name, a, b)


register("mm", fixed_rank, 2)

EINSUM = [("ij,jk->ik", 2, 2), ("bij,bjk->bik", 3, 3), ("i,i->", 1, 1), ("ij->ji", 2, 0), ("ii->i", 2, 0),
          ("ij,ij->i", 2, 2), ("i,j->ij", 1, 1), ("...ij,...jk->...ik", 3, 3), ("ij->", 2, 0), ("bi,bj->bij", 2, 2)]


def einsum(g):
    rng = g.rng
    eq, ra, rb = rng.choice(EINSUM)
    letters = {}
    lhs = eq.split("->")[0].split(",")
    shapes = []
    for term in lhs:
        shape = []
        for ch in term.replace("...", "z"):
            if ch not in letters:
                letters[ch] = rng.randint(1, 3) if rng.random() < 0.9 else 0
            shape.append(letters[ch])
        shapes.append(shape)
    dtype = "float32" if rng.random() < 0.8 else "float64"
    ops = [g.pick(lambda o, s=s: list(o.shape) == s and o.dtype == dtype, fresh_p=0.7, shape=s, dtype=dtype)
           for s in shapes]
    if rng.random() < 0.5:
        g.call("einsum", "L.einsum", eq, *ops)
    else:
        g.call("einsum", "L.einsum", eq, ops)


register("einsum", einsum)


def tensordot(g):
    rng = g.rng
    a = g.pick(lambda m: is_float(m) and 1 <= len(m.shape) <= 3, fresh_p=0.4, min_ndim=1)
    m = g.meta(a)
    k = rng.randint(1, min(2, len(m.shape)))
    shape = list(m.shape[-k:]) + [rng.randint(0, 3) for _ in range(rng.randint(0, 2))]
    b = g.pick(lambda o: list(o.shape) == shape and o.dtype == m.dtype, fresh_p=0.7, shape=shape, dtype=m.dtype)
    if rng.random() < 0.5:
        g.call("tensordot", "L.tensordot", a, b, kwargs={"dims": k})
    else:
        nd = len(m.shape)
        g.call("tensordot", "L.tensordot", a, b,
               kwargs={"dims": [list(range(nd - k, nd)), list(range(k))]})


register("tensordot", tensordot, 0.7)


def linear(g):
    rng = g.rng
    x = g.pick(lambda m: is_float(m) and len(m.shape) >= 1, fresh_p=0.3, min_ndim=1)
    m = g.meta(x)
    out = rng.randint(0, 4)
    w = g.fresh(shape=[out, m.shape[-1]], dtype=m.dtype)
    b = g.fresh(shape=[out], dtype=m.dtype) if rng.random() < 0.6 else None
    if rng.random() < 0.2:
        w2 = g.fresh(shape=[out, m.shape[-1], 2], dtype=m.dtype)
        x2 = g.fresh(shape=list(m.shape[:-1]) + [2], dtype=m.dtype)
        g.call("F.bilinear", "F.bilinear", x, x2, w2, b)
    else:
        g.call("F.linear", "F.linear", x, w, b)


register("F.linear", linear, 1.5)


def cross(g):
    rng = g.rng
    shape = [rng.randint(1, 3), 3] if rng.random() < 0.7 else [3]
    a = g.pick(lambda m: is_float(m) and list(m.shape) == shape, fresh_p=0.7, shape=shape)
    m = g.meta(a)
    b = g.fresh(shape=g.bshape(shape) if rng.random() < 0.3 else shape, dtype=m.dtype)
    g.fn_or_method("cross", a, b, kwargs={"dim": len(shape) - 1 - (rng.random() < 0.5) * len(shape)})


register("cross", cross, 0.5)


def cdist(g):
    rng = g.rng
    d = rng.randint(1, 3)
    a = g.fresh(shape=[rng.randint(0, 3), d])
    b = g.fresh(shape=[rng.randint(1, 3), d], dtype=g.meta(a).dtype)
    g.call("cdist", "L.cdist", a, b, kwargs={"p": rng.choice((2.0, 1.0, 0.0, 3.0))} if rng.random() < 0.5 else None)


register("cdist", cdist, 0.5)


def matrix_fn(g):
    rng = g.rng
    n = rng.randint(1, 3)
    shape = ([rng.randint(1, 2)] if rng.random() < 0.3 else []) + [n, n]
    x = g.pick(lambda m: is_float(m) and list(m.shape) == shape, fresh_p=0.6, shape=shape)
    name = rng.choice(("det", "inverse", "matrix_power"))
    if name == "matrix_power":
        g.fn_or_method(name, x, rng.choice((0, 1, 2, 3)))
    else:
        g.fn_or_method(name, x)


register("det", matrix_fn, 0.7)
