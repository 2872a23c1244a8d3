"""conv2d's CPU routes that change the arithmetic, through F.conv2d and autograd against a NumPy
float64 oracle on shapes hypothesis draws: Winograd's F(4x4, 3x3) (3x3 stride-1 layers with 64+
channels on 28x28+ planes on AVX2 machines, Ember's own; oneDNN's on AVX-512 from 32 channels), and the per-tap
products of layers into one position (and their weight gradients into up to four). Paddings 0 to 2,
odd planes, strides, 5x5 kernels, bias; an inf or a NaN in any operand must give the oracle's inf
and NaN positions, as the direct sum does (0 * inf in the padding included)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
import ember.nn.functional as F


def oracle(x, w, b, g, stride, padding):
    """Output, input gradient and weight gradient of conv2d by its definition, in float64."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    oh, ow = (h + 2 * p - kh) // s + 1, (wd + 2 * p - kw) // s + 1
    out = np.zeros((n, o, oh, ow)) + (0 if b is None else b[None, :, None, None])
    gxp = np.zeros_like(xp)
    gw = np.zeros_like(w)
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, :, i:i + s * oh:s, j:j + s * ow:s]
                out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
                gxp[:, :, i:i + s * oh:s, j:j + s * ow:s] += np.einsum("nohw,oc->nchw", g, w[:, :, i, j])
                gw[:, :, i, j] = np.einsum("nohw,nchw->oc", g, patch)
    return out, gxp[:, :, p:p + h, p:p + wd], gw


def run(x, w, b, g, stride, padding):
    xr = ember.tensor(x, dtype=ember.float32, requires_grad=True)
    wr = ember.tensor(w, dtype=ember.float32, requires_grad=True)
    br = None if b is None else ember.tensor(b, dtype=ember.float32)
    y = F.conv2d(xr, wr, br, stride, padding)
    y.backward(ember.tensor(g, dtype=ember.float32))
    return [t.detach().numpy().astype(np.float64) for t in (y, xr.grad, wr.grad)]


def check(x, w, b, g, stride, padding, tol):
    # the operands as float32 sees them, so the oracle multiplies the same values
    x, w, g = (a.astype(np.float32).astype(np.float64) for a in (x, w, g))
    b = None if b is None else b.astype(np.float32).astype(np.float64)
    for name, got, want in zip(("output", "input gradient", "weight gradient"), run(x, w, b, g, stride, padding),
                               oracle(x, w, b, g, stride, padding)):
        assert got.shape == want.shape, name
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name + ": NaN positions")
        np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want), err_msg=name + ": +inf positions")
        np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want), err_msg=name + ": -inf positions")
        finite = np.isfinite(want)
        scale = max(np.abs(want[finite]).max(initial=0.0), 1e-30)
        assert np.abs(got[finite] - want[finite]).max(initial=0.0) <= tol * scale, name


def draw_case(data, n, c, o, h, wd, k, stride, padding):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    x = rng.standard_normal((n, c, h, wd))
    w = rng.standard_normal((o, c, k, k)) * 0.1
    b = rng.standard_normal(o) if data.draw(st.booleans(), label="bias") else None
    oh, ow = (h + 2 * padding - k) // stride + 1, (wd + 2 * padding - k) // stride + 1
    g = rng.standard_normal((n, o, oh, ow))
    return x, w, b, g


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_winograd_shapes_match_the_definition(data):
    n = data.draw(st.integers(1, 3), label="batch")
    # 32 and 48 channels: oneDNN's kernels on AVX-512 only (elsewhere another route, the same answer)
    c = data.draw(st.sampled_from([32, 48, 64, 96, 128]), label="c")
    o = data.draw(st.sampled_from([32, 64, 80, 128]), label="o")
    padding = data.draw(st.integers(0, 2), label="padding")
    h, wd = data.draw(st.integers(28, 35), label="h"), data.draw(st.integers(28, 35), label="w")
    # F(4x4, 3x3): about 1.5e-5 of the output's scale (Ember's), 2e-6 (oneDNN's); the direct sum 4e-7
    check(*draw_case(data, n, c, o, h + 2 - 2 * padding, wd + 2 - 2 * padding, 3, 1, padding), 1,
          padding, 5e-5)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_tiny_planes_match_the_definition(data):
    n = data.draw(st.sampled_from([1, 4, 15, 16, 17, 32]), label="batch")
    c, o = data.draw(st.integers(1, 48), label="c"), data.draw(st.integers(1, 48), label="o")
    k = data.draw(st.sampled_from([3, 5]), label="k")
    stride = data.draw(st.integers(1, 2), label="stride")
    padding = data.draw(st.integers(k // 2, k - 1), label="padding")
    h, wd = data.draw(st.integers(1, 3), label="h"), data.draw(st.integers(1, 3), label="w")
    check(*draw_case(data, n, c, o, h, wd, k, stride, padding), stride, padding, 1e-5)


@pytest.mark.parametrize("where", ["x", "w", "g"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("shape", ["winograd", "winograd32", "tiny"])
def test_an_inf_or_nan_lands_where_the_definition_puts_it(where, value, shape):
    rng = np.random.default_rng(7)
    if shape == "winograd":
        n, c, o, h, k, stride, padding = 2, 64, 64, 28, 3, 1, 1
    elif shape == "winograd32":  # oneDNN's Winograd on AVX-512 from 32 channels
        n, c, o, h, k, stride, padding = 2, 32, 32, 28, 3, 1, 1
    else:  # a 3x3 layer on a 1x1 plane: its corner taps read only padding
        n, c, o, h, k, stride, padding = 16, 8, 6, 1, 3, 1, 1
    x = rng.standard_normal((n, c, h, h))
    w = rng.standard_normal((o, c, k, k)) * 0.1
    g = rng.standard_normal((n, o, h, h))
    target = {"x": x, "w": w, "g": g}[where]
    target[tuple(rng.integers(0, s) for s in target.shape)] = value
    if shape == "tiny" and where == "w":
        w[1, 2, 0, 0] = value  # a tap that reads only padding: 0 * inf must still be NaN
    check(x, w, None, g, stride, padding, 5e-5)
