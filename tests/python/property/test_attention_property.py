"""scaled_dot_product_attention against a NumPy reference in float64: query, key and value of any
layout with broadcasting leading dims (0 to 3 of them, 0-size included), sequence lengths 0 to 5,
every kind of mask (none, bool and floating of any broadcastable shape, with fully masked rows,
and the causal triangle), custom scales and grouped key/value heads."""
import math

import numpy as np
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
from reference import assert_close
from strategies import FLOAT_DTYPES, broadcastable_shapes, layout


def sdpa_reference(q, k, v, mask=None, causal=False, scale=None, gqa=False):
    """float64 softmax(q k^T * scale + mask) v with PyTorch's conventions: bool masks say which keys
    take part, floating masks are added, the causal triangle is aligned top-left, and a query that
    sees no key gets zeros."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    visible = np.ones(s.shape[-2:], dtype=bool)
    if causal:
        visible = np.tril(visible)
    if mask is not None and mask.dtype == np.bool_:
        visible = visible & mask
    elif mask is not None:
        s = s + mask
        visible = visible & (mask != -np.inf)
    s, visible = np.broadcast_arrays(s, visible)
    s = np.where(visible, s, -np.inf)
    top = np.where(visible.any(-1, keepdims=True), s.max(-1, keepdims=True, initial=-np.inf), 0)
    e = np.where(visible, np.exp(s - top), 0)
    total = e.sum(-1, keepdims=True)
    p = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return p @ v


@st.composite
def attention_inputs(draw):
    """(q, k, v arrays, mask array or None, is_causal, scale, enable_gqa)."""
    batch_q, batch_k, batch_v, batch_m = draw(broadcastable_shapes(4, max_dims=3))
    L, S, E, Ev = (draw(st.integers(lo, 5)) for lo in (0, 0, 1, 0))
    gqa = False
    if draw(st.integers(0, 5)) == 0:  # grouped heads: key/value heads divide query heads
        kv_heads, groups = draw(st.integers(1, 2)), draw(st.integers(1, 3))
        lead = batch_q[:-1] if batch_q else ()
        batch_q, batch_k, batch_v = lead + (kv_heads * groups,), lead + (kv_heads,), lead + (kv_heads,)
        batch_m, gqa = (), True
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    q = rng.normal(size=batch_q + (L, E))
    k = rng.normal(size=batch_k + (S, E))
    v = rng.normal(size=batch_v + (S, Ev))
    kind = draw(st.sampled_from(["none", "causal", "bool", "float"]))
    mask = None
    mask_shape = batch_m + (draw(st.sampled_from([1, L])), draw(st.sampled_from([1, S])))
    if kind == "bool":
        mask = rng.uniform(size=mask_shape) > draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    elif kind == "float":
        mask = rng.normal(size=mask_shape)
        mask[rng.uniform(size=mask_shape) < draw(st.sampled_from([0.0, 0.3, 1.0]))] = -np.inf
    scale = draw(st.none() | st.floats(0.05, 2.0))
    return q, k, v, mask, kind == "causal", scale, gqa


@given(data=st.data(), inputs=attention_inputs(), dtype=st.sampled_from(FLOAT_DTYPES))
def test_sdpa_matches_numpy(data, inputs, dtype):
    """Any shapes, layouts and masks: the NumPy reference, rows without a visible key zero."""
    q, k, v, mask, causal, scale, gqa = inputs
    npdt = np.float32 if dtype == ember.float32 else np.float64
    q, k, v = (a.astype(npdt) for a in (q, k, v))
    tq, tk, tv = (data.draw(layout(a), label=n).tensor for a, n in zip((q, k, v), "qkv"))
    tm = None
    if mask is not None:
        mask = mask if mask.dtype == np.bool_ else mask.astype(npdt)
        tm = data.draw(layout(mask), label="mask").tensor
        mask = tm.numpy(force=True)  # an expanded layout may repeat values
    got = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=causal, scale=scale, enable_gqa=gqa)
    expected = sdpa_reference(tq.numpy(force=True), tk.numpy(force=True), tv.numpy(force=True), mask, causal, scale, gqa)
    assert_close(got, expected, dtype=dtype, rtol=1e-4 if dtype == ember.float32 else 1e-10,
                 atol=1e-5 if dtype == ember.float32 else 1e-10)
