"""nn.functional losses, each with reduction 'none', 'mean' or 'sum' and its options: regression
(mse, l1, smooth_l1, huber), binary (bce with probabilities at exactly 0 and 1 sometimes, bce with
logits), classification (cross_entropy with class indices or probabilities, ignore_index, weights,
label smoothing; nll_loss), and the rest (kl_div, poisson/gaussian nll, margin and embedding losses)."""
from registry import is_float, register


def reduction(g, extra=()):
    r = g.rng.random()
    if r < 0.3:
        return {}
    return {"reduction": g.rng.choice(("none", "mean", "sum") + tuple(extra))}


def float_input(g, min_ndim=0, max_ndim=6):
    return g.pick(lambda m: is_float(m) and min_ndim <= len(m.shape) <= max_ndim, fresh_p=0.3, min_ndim=min_ndim)


def like(g, m, kind="normal", shape=None, grad=None):
    """A target for input meta m: its shape (now and then a broadcasting one), its dtype."""
    shape = list(m.shape) if shape is None else shape
    return g.fresh(shape=shape, dtype=m.dtype, kind=kind, grad=grad)


def regression(g):
    rng = g.rng
    name = rng.choice(("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"))
    x = float_input(g)
    m = g.meta(x)
    shape = g.bshape(m.shape) if rng.random() < 0.15 else None
    t = like(g, m, shape=shape) if rng.random() < 0.8 else g.pick(
        lambda o: is_float(o) and o.shape == m.shape and o.dtype == m.dtype, fresh_p=0.5, shape=list(m.shape),
        dtype=m.dtype)
    kw = reduction(g)
    if name == "smooth_l1_loss" and rng.random() < 0.5:
        kw["beta"] = rng.choice((1.0, 0.5, 0.0, 2.0))
    if name == "huber_loss" and rng.random() < 0.5:
        kw["delta"] = rng.choice((1.0, 0.5, 2.0))
    g.call("F." + name, "F." + name, x, t, kwargs=kw or None)


register("F.mse_loss", regression, 3)


def bce(g):
    rng = g.rng
    x = float_input(g)
    m = g.meta(x)
    with_logits = rng.random() < 0.4
    t = like(g, m, kind="prob", grad=rng.random() < 0.3)
    kw = reduction(g)
    if rng.random() < 0.25:
        kw["weight"] = g.fresh(shape=g.bshape(m.shape), dtype=m.dtype, kind="positive", grad=False)
    if with_logits:
        if rng.random() < 0.25 and m.shape:
            kw["pos_weight"] = g.fresh(shape=[m.shape[-1]], dtype=m.dtype, kind="positive", grad=False)
        g.call("F.binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits", x, t, kwargs=kw or None)
        return
    r = rng.random()
    if r < 0.5:
        p = g.call("sigmoid", ".sigmoid", x)
    elif r < 0.9:
        p = g.fresh(shape=list(m.shape), dtype=m.dtype, kind="prob")
    else:
        p = x  # outside [0, 1] torch raises
    g.call("F.binary_cross_entropy", "F.binary_cross_entropy", p, t, kwargs=kw or None)


register("F.binary_cross_entropy", bce, 2)


def classification(g):
    rng = g.rng
    x = float_input(g, 1, 4)
    m = g.meta(x)
    c = m.shape[1] if len(m.shape) >= 2 else m.shape[0]
    tshape = [m.shape[0]] + list(m.shape[2:]) if len(m.shape) >= 2 else []
    kw = reduction(g)
    name = rng.choice(("cross_entropy", "cross_entropy", "nll_loss"))
    probs = name == "cross_entropy" and rng.random() < 0.25
    if probs:
        logits = g.fresh(shape=list(m.shape), dtype=m.dtype, grad=False)
        t = g.call("softmax", ".softmax", logits, 1 if len(m.shape) >= 2 else 0)
    else:
        ignore = rng.choice((-100, -1, c)) if rng.random() < 0.3 else None
        t = g.index(tshape, c, special=ignore)
        if ignore is not None and (ignore != -100 or rng.random() < 0.5):
            kw["ignore_index"] = ignore
    if rng.random() < 0.3:
        kw["weight"] = g.fresh(shape=[c], dtype=m.dtype, kind="positive", grad=False)
    if name == "cross_entropy" and rng.random() < 0.3:
        kw["label_smoothing"] = rng.choice((0.1, 0.5))
    if name == "nll_loss" and rng.random() < 0.7:
        x = g.call("F.log_softmax", "F.log_softmax", x, 1 if len(m.shape) >= 2 else 0)
    g.call("F." + name, "F." + name, x, t, kwargs=kw or None)


register("F.cross_entropy", classification, 3)


def kl_div(g):
    rng = g.rng
    x = float_input(g)
    m = g.meta(x)
    log_input = g.call("F.log_softmax", "F.log_softmax", x, -1) if rng.random() < 0.6 and m.shape else x
    log_target = rng.random() < 0.3
    t = g.fresh(shape=list(m.shape), dtype=m.dtype, kind="normal" if log_target else "prob")
    kw = reduction(g, ("batchmean",))
    kw["log_target"] = log_target
    g.call("F.kl_div", "F.kl_div", log_input, t, kwargs=kw)


register("F.kl_div", kl_div)


def nll_family(g):
    rng = g.rng
    x = float_input(g)
    m = g.meta(x)
    kw = reduction(g)
    if rng.random() < 0.5:
        log_input = rng.random() < 0.5
        inp = x if log_input else g.call("abs", ".abs", x)
        t = like(g, m, kind="positive")
        kw.update({"log_input": log_input, "full": rng.random() < 0.3})
        g.call("F.poisson_nll_loss", "F.poisson_nll_loss", inp, t, kwargs=kw)
    else:
        t = like(g, m)
        var = g.fresh(shape=g.bshape(m.shape) if rng.random() < 0.3 else list(m.shape), dtype=m.dtype,
                      kind="positive")
        kw["full"] = rng.random() < 0.3
        g.call("F.gaussian_nll_loss", "F.gaussian_nll_loss", x, t, var, kwargs=kw)


register("F.poisson_nll_loss", nll_family)


def sign_target(g, shape, dtype):
    t = g.fresh(shape=shape, dtype=dtype, grad=False)
    return g.call("sign", ".sign", t)


def margin_losses(g):
    rng = g.rng
    name = rng.choice(("hinge_embedding_loss", "soft_margin_loss", "margin_ranking_loss",
                       "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
                       "multi_margin_loss"))
    kw = reduction(g)
    if name in ("hinge_embedding_loss", "soft_margin_loss"):
        x = float_input(g)
        m = g.meta(x)
        if name == "hinge_embedding_loss" and rng.random() < 0.5:
            kw["margin"] = rng.choice((1.0, 0.5, 0.0))
        g.call("F." + name, "F." + name, x, sign_target(g, list(m.shape), m.dtype), kwargs=kw or None)
    elif name == "margin_ranking_loss":
        x = float_input(g)
        m = g.meta(x)
        x2 = like(g, m)
        if rng.random() < 0.5:
            kw["margin"] = rng.choice((0.0, 0.5))
        g.call("F." + name, "F." + name, x, x2, sign_target(g, list(m.shape), m.dtype), kwargs=kw or None)
    elif name == "multilabel_soft_margin_loss":
        x = float_input(g, 2, 2)
        m = g.meta(x)
        y = g.call("float", ".float" if m.dtype == "float32" else ".double",
                   g.mask(list(m.shape)))
        g.call("F." + name, "F." + name, x, y, kwargs=kw or None)
    elif name == "multi_margin_loss":
        x = float_input(g, 2, 2)
        m = g.meta(x)
        t = g.index([m.shape[0]], m.shape[1])
        if rng.random() < 0.5:
            kw.update({"p": rng.choice((1, 2)), "margin": rng.choice((1.0, 0.5))})
        g.call("F." + name, "F." + name, x, t, kwargs=kw or None)
    else:
        shape = [rng.randint(1, 3), rng.randint(1, 3)]
        dtype = "float32" if rng.random() < 0.85 else "float64"
        a, b = g.fresh(shape=shape, dtype=dtype), g.fresh(shape=shape, dtype=dtype)
        if name == "cosine_embedding_loss":
            g.call("F." + name, "F." + name, a, b, sign_target(g, shape[:1], dtype), kwargs=kw or None)
        else:
            c = g.fresh(shape=shape, dtype=dtype)
            if rng.random() < 0.5:
                kw.update({"margin": rng.choice((1.0, 0.0)), "p": rng.choice((2.0, 1.0)), "swap": rng.random() < 0.3})
            g.call("F." + name, "F." + name, a, b, c, kwargs=kw or None)


register("F.margin_losses", margin_losses, 2)
