"""nn.functional layers: layer_norm, group_norm, batch_norm, instance_norm, cosine_similarity,
pairwise_distance, glu, prelu, dropout (deterministic forms), 1-d pooling and convolution, 2-d
convolution (grouped, depthwise, strided, dilated: each of the CPU's convolution paths)."""
from registry import is_float, register


def float_nd(g, lo, hi=6):
    return g.pick(lambda m: is_float(m) and lo <= len(m.shape) <= hi, fresh_p=0.3, min_ndim=lo)


def layer_norm(g):
    rng = g.rng
    x = float_nd(g, 1)
    m = g.meta(x)
    k = rng.randint(1, min(3, len(m.shape)))
    shape = list(m.shape[-k:])
    w = g.fresh(shape=shape, dtype=m.dtype) if rng.random() < 0.5 else None
    b = g.fresh(shape=shape, dtype=m.dtype) if rng.random() < 0.5 else None
    kw = {"eps": rng.choice((1e-5, 1e-3, 0.0))} if rng.random() < 0.3 else {}
    g.call("F.layer_norm", "F.layer_norm", x, shape, w, b, kwargs=kw or None)


register("F.layer_norm", layer_norm, 1.5)


def group_norm(g):
    rng = g.rng
    x = float_nd(g, 2)
    m = g.meta(x)
    c = m.shape[1]
    groups = rng.choice([d for d in range(1, c + 1) if c % d == 0] or [1])
    w = g.fresh(shape=[c], dtype=m.dtype) if rng.random() < 0.5 else None
    b = g.fresh(shape=[c], dtype=m.dtype) if rng.random() < 0.5 else None
    g.call("F.group_norm", "F.group_norm", x, groups, w, b,
           kwargs={"eps": rng.choice((1e-5, 0.0))} if rng.random() < 0.3 else None)


register("F.group_norm", group_norm)


def batch_norm(g):
    rng = g.rng
    x = float_nd(g, 2, 4)
    if not g.contiguous(x):  # NB: PyTorch's backward misreads a strided input's gradient (python/README.md)
        x = g.call("contiguous", ".contiguous", x)
        g.nodes[x["v"]]["keep"] = True
    m = g.meta(x)
    c = m.shape[1]
    training = rng.random() < 0.6
    # NB: running stats are buffers batch_norm writes in training, so never an expand (PyTorch writes
    # through one, Ember refuses); and in eval mode contiguous, weight and bias always, as PyTorch's
    # backward reads strided ones as if contiguous (python/README.md, deliberate differences).
    stats = {"grad": False, "view": False if not training else None, "forms": ("step",)}
    rm = g.fresh(shape=[c], dtype=m.dtype, **stats) if not training or rng.random() < 0.5 else None
    rv = g.fresh(shape=[c], dtype=m.dtype, kind="positive", **stats) if rm is not None else None
    w = g.fresh(shape=[c], dtype=m.dtype, view=False) if rng.random() < 0.5 else None
    b = g.fresh(shape=[c], dtype=m.dtype, view=False) if rng.random() < 0.5 else None
    kw = {"training": training, "momentum": rng.choice((0.1, 0.5)), "eps": rng.choice((1e-5, 1e-3))}
    if rng.random() < 0.3:
        g.call("F.instance_norm", "F.instance_norm", x, rm, rv, w, b,
               kwargs={"use_input_stats": True, "momentum": kw["momentum"], "eps": kw["eps"]})
    else:
        g.call("F.batch_norm", "F.batch_norm", x, rm, rv, w, b, kwargs=kw)


register("F.batch_norm", batch_norm)


def similarity(g):
    rng = g.rng
    from ops_elementwise import broadcastable
    a = float_nd(g, 1)
    m = g.meta(a)
    b = g.pick(lambda o: is_float(o) and o.dtype == m.dtype and broadcastable(o.shape, m.shape) and o.shape,
               fresh_p=0.6, shape=g.bshape(m.shape) or [1], dtype=m.dtype)
    if rng.random() < 0.6:
        nd = max(len(m.shape), len(g.meta(b).shape))
        kw = {"dim": rng.randint(-nd, nd - 1)}
        if rng.random() < 0.3:
            kw["eps"] = rng.choice((1e-8, 0.5))
        g.call("F.cosine_similarity", "F.cosine_similarity", a, b, kwargs=kw)
    else:
        kw = {"p": rng.choice((2.0, 1.0, 3.0)), "keepdim": rng.random() < 0.5} if rng.random() < 0.5 else None
        g.call("F.pairwise_distance", "F.pairwise_distance", a, b, kwargs=kw)


register("F.cosine_similarity", similarity, 1.5)


def glu(g):
    x = g.pick(lambda m: is_float(m) and any(s % 2 == 0 for s in m.shape), fresh_p=0.4, shape=[2, 4])
    m = g.meta(x)
    even = [i for i, s in enumerate(m.shape) if s % 2 == 0]
    g.call("F.glu", "F.glu", x, g.rng.choice(even))


register("F.glu", glu, 0.5)


def prelu(g):
    x = float_nd(g, 1)
    m = g.meta(x)
    c = m.shape[1] if len(m.shape) >= 2 else 1
    w = g.fresh(shape=[g.rng.choice((1, c))], dtype=m.dtype)
    g.call("F.prelu", "F.prelu", x, w)


register("F.prelu", prelu, 0.5)


def dropout(g):
    x = g.pick(is_float)
    kw = {"p": 0.0} if g.rng.random() < 0.5 else {"p": 0.5, "training": False}
    g.call("F.dropout", "F.dropout", x, kwargs=kw)


register("F.dropout", dropout, 0.3)


def pool1d(g):
    rng = g.rng
    x = g.pick(lambda m: is_float(m) and len(m.shape) == 3 and m.shape[-1] >= 2, fresh_p=0.5,
               shape=[rng.randint(1, 2), rng.randint(1, 3), rng.randint(2, 6)])
    k = rng.randint(1, 2)
    kw = {"stride": rng.randint(1, 2)} if rng.random() < 0.5 else {}
    if rng.random() < 0.3:
        kw["padding"] = rng.randint(0, k // 2)
    name = rng.choice(("avg_pool1d", "max_pool1d"))
    if name == "avg_pool1d" and rng.random() < 0.3:
        kw["count_include_pad"] = False
    g.call("F." + name, "F." + name, x, k, kwargs=kw or None)


register("F.pool1d", pool1d, 0.7)


def conv1d(g):
    rng = g.rng
    x = g.pick(lambda m: is_float(m) and len(m.shape) == 3 and m.shape[-1] >= 2, fresh_p=0.5,
               shape=[rng.randint(1, 2), rng.randint(1, 3), rng.randint(2, 6)])
    m = g.meta(x)
    cout, k = rng.randint(1, 3), rng.randint(1, 2)
    w = g.fresh(shape=[cout, m.shape[1], k], dtype=m.dtype)
    b = g.fresh(shape=[cout], dtype=m.dtype) if rng.random() < 0.5 else None
    kw = {"padding": rng.randint(0, 1), "stride": rng.randint(1, 2)} if rng.random() < 0.5 else None
    g.call("F.conv1d", "F.conv1d", x, w, b, kwargs=kw)


register("F.conv1d", conv1d, 0.5)


def conv2d(g):
    """Small 2-d convolutions over few channels: the shapes that take each of the CPU's paths (oneDNN's
    direct kernels for stems and depthwise layers, strided 1x1 layers gathered to stride 1, 1x1 layers
    into one position as one GEMM, im2col for the rest)."""
    rng = g.rng
    c = rng.randint(1, 4)
    groups = rng.choice((1, 1, c))
    cout = groups * rng.randint(1, 2) if groups > 1 else rng.randint(1, 4)
    m_dtype = "float32" if rng.random() < 0.85 else "float64"
    x = g.fresh(shape=[rng.randint(1, 3), c, rng.randint(1, 5), rng.randint(1, 5)], dtype=m_dtype)
    kh, kw = rng.choice((1, 1, 2, 3)), rng.choice((1, 2, 3))
    if rng.random() < 0.6:
        kw = kh
    w = g.fresh(shape=[cout, c // groups, kh, kw], dtype=m_dtype)
    b = g.fresh(shape=[cout], dtype=m_dtype) if rng.random() < 0.5 else None
    kwargs = {}
    if rng.random() < 0.6:
        kwargs["stride"] = rng.choice((1, 2, 3, (1, 2), (2, 1)))
    if rng.random() < 0.5:
        kwargs["padding"] = rng.choice((0, 1, 2, (0, 1), (1, 0)))
    if rng.random() < 0.2:
        kwargs["dilation"] = rng.choice((2, (1, 2)))
    if groups > 1:
        kwargs["groups"] = groups
    kwargs = {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()}
    g.call("F.conv2d", "F.conv2d", x, w, b, kwargs=kwargs or None)


register("F.conv2d", conv2d, 0.8)
