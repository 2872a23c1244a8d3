"""The training loop of tests/python/test_grad_scaler.py and of its fixture's generator
(tests/fixtures/make_grad_scaler_fixtures.py), written over a library L (torch or ember): a GradScaler
on the CPU driving SGD with momentum, with overflowing batches at steps 2 (inf) and 6 (NaN) and
unscale_ plus clip_grad_norm_ at step 4."""
import math

STEPS = 10
BAD = {2: math.inf, 6: math.nan}
CLIP_AT = 4


def inputs(L):
    """The initial parameters (w1 [3, 4], b1 [3], w2 [2, 3], b2 [2]) and STEPS batches (x [8, 4], y [8, 2])."""
    g = L.Generator().manual_seed(5)
    init = {"w1": L.randn(3, 4, generator=g) * 0.5, "b1": L.randn(3, generator=g) * 0.1,
            "w2": L.randn(2, 3, generator=g) * 0.5, "b2": L.randn(2, generator=g) * 0.1}
    batches = []
    for k in range(STEPS):
        x, y = L.randn(8, 4, generator=g), L.randn(8, 2, generator=g)
        if k in BAD:
            x[1, 2] = BAD[k]
        batches.append((x, y))
    return init, batches


def run(L, init, batches, scaler=None, start=0, params=None, opt=None):
    """Trains from step `start` (a fresh model from init unless params and opt are given) and returns
    {"steps": [{"params", "scale", "tracker", "stepped"} per step], "state": the scaler's state_dict,
    "scaler", "params", "opt"}."""
    if params is None:
        params = {k: v.clone().requires_grad_() for k, v in init.items()}
        opt = L.optim.SGD([params["w1"], params["b1"], params["w2"], params["b2"]], lr=0.05, momentum=0.9)
    scaler = scaler or L.amp.GradScaler("cpu", init_scale=2.0 ** 12, growth_factor=2.0, backoff_factor=0.25,
                                        growth_interval=3)
    steps = []
    for k in range(start, len(batches)):
        x, y = batches[k]
        opt.zero_grad()
        h = L.tanh(x @ params["w1"].t() + params["b1"])
        loss = ((h @ params["w2"].t() + params["b2"] - y) ** 2).mean()
        scaler.scale(loss).backward()
        if k == CLIP_AT:
            scaler.unscale_(opt)
            L.nn.utils.clip_grad_norm_(list(params.values()), 0.5)
        before = params["w1"].detach().clone()
        scaler.step(opt)
        stepped = bool((params["w1"].detach() != before).any())
        scaler.update()
        steps.append({"params": {n: p.detach().clone() for n, p in params.items()}, "scale": scaler.get_scale(),
                      "tracker": scaler._get_growth_tracker(), "stepped": float(stepped)})
    return {"steps": steps, "state": scaler.state_dict(), "scaler": scaler, "params": params, "opt": opt}
