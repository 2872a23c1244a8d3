"""nn.RNN (tanh, relu), nn.LSTM and nn.GRU, and their cells, against a NumPy float64 reference
written from PyTorch's documented formulas: any number of layers, either direction, batch_first,
with or without bias and initial states, batches of 0 to 3, unbatched input, packed batches of
sequences of any lengths (each against the reference run on it alone), float32 and float64, the
input in any layout."""
import numpy as np
from hypothesis import given, strategies as st

import ember
import ember.nn as nn
import ember.nn.utils.rnn as rnn_utils
from reference import assert_close
from strategies import FLOAT_DTYPES, layout


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def step_reference(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One step of a cell in float64: (h', c' or None)."""
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "RNN_TANH":
        return np.tanh(gi + gh), None
    if mode == "RNN_RELU":
        return np.maximum(gi + gh, 0), None
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c2 = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c2), c2
    ir, iz, in_ = np.split(gi, 3, axis=-1)
    hr, hz, hn = np.split(gh, 3, axis=-1)
    r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
    n = np.tanh(in_ + r * hn)
    return (1 - z) * n + z * h, None


def stack_reference(mode, x, h0, c0, weights, layers, bidirectional):
    """The whole layer stack on time-major x [T, B, I]: (output, h_n, c_n or None)."""
    D = 2 if bidirectional else 1
    per = len(weights) // (layers * D)
    out, h_n, c_n = x, [], []
    for layer in range(layers):
        outs = []
        for d in range(D):
            k = (layer * D + d) * per
            w = weights[k:k + per] + [None] * (4 - per)
            h, c = h0[layer * D + d], None if c0 is None else c0[layer * D + d]
            steps = [None] * len(out)
            for t in (reversed(range(len(out))) if d else range(len(out))):
                h, c = step_reference(mode, out[t], h, c, *w)
                steps[t] = h
            outs.append(np.stack(steps))
            h_n.append(h)
            c_n.append(c)
        out = np.concatenate(outs, axis=-1)
    return out, np.stack(h_n), None if c0 is None else np.stack(c_n)


MODES = {"RNN_TANH": (nn.RNN, {}), "RNN_RELU": (nn.RNN, {"nonlinearity": "relu"}), "LSTM": (nn.LSTM, {}),
         "GRU": (nn.GRU, {})}


def _weights(layer, dtype):
    return [p.detach().to(ember.float64).numpy() for p in layer._flat_weights]


@given(data=st.data())
def test_recurrent_layers_match_numpy(data):
    mode = data.draw(st.sampled_from(sorted(MODES)))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    T, B, I, H = (data.draw(st.integers(1, 4)), data.draw(st.integers(0, 3)), data.draw(st.integers(1, 4)),
                  data.draw(st.integers(1, 4)))
    layers, bidirectional, batch_first, bias = (data.draw(st.integers(1, 3)), data.draw(st.booleans()),
                                                data.draw(st.booleans()), data.draw(st.booleans()))
    batched, with_state = data.draw(st.booleans()), data.draw(st.booleans())
    cls, extra = MODES[mode]
    ember.manual_seed(data.draw(st.integers(0, 1000)))
    layer = cls(I, H, layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional, **extra).to(dtype)
    D = 2 if bidirectional else 1
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.uniform(-1, 1, (T, B, I) if batched else (T, I))
    shape = (layers * D, B, H) if batched else (layers * D, H)
    h0 = rng.uniform(-1, 1, shape) if with_state else np.zeros(shape)
    c0 = rng.uniform(-1, 1, shape) if with_state else np.zeros(shape)
    x_in = np.swapaxes(x, 0, 1) if batched and batch_first else x
    xt = data.draw(layout(x_in.astype(np.float32 if dtype == ember.float32 else np.float64),
                          layouts=["contiguous", "permuted", "strided"])).tensor
    states = None
    if with_state:
        h = ember.tensor(h0, dtype=dtype)
        states = (h, ember.tensor(c0, dtype=dtype)) if mode == "LSTM" else h
    output, hidden = layer(xt, states)
    seq = x if batched else x[:, None]
    want_out, want_h, want_c = stack_reference(mode, seq.astype(np.float64), h0 if batched else h0[:, None],
                                               (c0 if batched else c0[:, None]) if mode == "LSTM" else None,
                                               _weights(layer, dtype), layers, bidirectional)
    if not batched:
        want_out, want_h = want_out[:, 0], want_h[:, 0]
        want_c = None if want_c is None else want_c[:, 0]
    elif batch_first:
        want_out = np.swapaxes(want_out, 0, 1)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == ember.float32 else dict(rtol=1e-10, atol=1e-12)
    h_n, c_n = hidden if mode == "LSTM" else (hidden, None)
    assert_close(output, want_out, dtype=dtype, what="output", **tol)
    assert_close(h_n, want_h, dtype=dtype, what="h_n", **tol)
    if mode == "LSTM":
        assert_close(c_n, want_c, dtype=dtype, what="c_n", **tol)


CELLS = {"RNN_TANH": (nn.RNNCell, {}), "RNN_RELU": (nn.RNNCell, {"nonlinearity": "relu"}), "LSTM": (nn.LSTMCell, {}),
         "GRU": (nn.GRUCell, {})}


@given(data=st.data())
def test_recurrent_cells_match_numpy(data):
    mode = data.draw(st.sampled_from(sorted(CELLS)))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    B, I, H, bias = data.draw(st.integers(0, 3)), data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)), \
        data.draw(st.booleans())
    batched, with_state = data.draw(st.booleans()), data.draw(st.booleans())
    cls, extra = CELLS[mode]
    ember.manual_seed(data.draw(st.integers(0, 1000)))
    cell = cls(I, H, bias=bias, **extra).to(dtype)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.uniform(-1, 1, (B, I) if batched else (I,))
    h = rng.uniform(-1, 1, (B, H) if batched else (H,)) if with_state else np.zeros((B, H) if batched else (H,))
    c = rng.uniform(-1, 1, h.shape) if with_state else np.zeros(h.shape)
    xt = data.draw(layout(x.astype(np.float32 if dtype == ember.float32 else np.float64),
                          layouts=["contiguous", "permuted", "strided"])).tensor
    state = None
    if with_state:
        state = (ember.tensor(h, dtype=dtype), ember.tensor(c, dtype=dtype)) if mode == "LSTM" else \
            ember.tensor(h, dtype=dtype)
    got = cell(xt, state)
    params = [None if getattr(cell, n, None) is None else getattr(cell, n).detach().to(ember.float64).numpy()
              for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    want_h, want_c = step_reference(mode, x, h, c, *params)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == ember.float32 else dict(rtol=1e-10, atol=1e-12)
    if mode == "LSTM":
        assert_close(got[0], want_h, dtype=dtype, what="h", **tol)
        assert_close(got[1], want_c, dtype=dtype, what="c", **tol)
    else:
        assert_close(got, want_h, dtype=dtype, what="h", **tol)


@given(data=st.data())
def test_packed_batches_run_each_sequence_alone(data):
    mode = data.draw(st.sampled_from(sorted(MODES)))
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    I, H, layers = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2))
    bidirectional, batch_first, with_state = data.draw(st.booleans()), data.draw(st.booleans()), data.draw(st.booleans())
    lengths = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    cls, extra = MODES[mode]
    ember.manual_seed(data.draw(st.integers(0, 1000)))
    layer = cls(I, H, layers, batch_first=batch_first, bidirectional=bidirectional, **extra).to(dtype)
    D, B, T = 2 if bidirectional else 1, len(lengths), max(lengths)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.uniform(-1, 1, (T, B, I))
    h0 = rng.uniform(-1, 1, (layers * D, B, H)) if with_state else np.zeros((layers * D, B, H))
    c0 = rng.uniform(-1, 1, (layers * D, B, H)) if with_state else np.zeros((layers * D, B, H))
    npdtype = np.float32 if dtype == ember.float32 else np.float64
    xt = ember.tensor((np.swapaxes(x, 0, 1) if batch_first else x).astype(npdtype))
    states = None
    if with_state:
        h = ember.tensor(h0.astype(npdtype))
        states = (h, ember.tensor(c0.astype(npdtype))) if mode == "LSTM" else h
    packed = rnn_utils.pack_padded_sequence(xt, lengths, batch_first=batch_first, enforce_sorted=False)
    output, hidden = layer(packed, states)
    padded, got_lengths = rnn_utils.pad_packed_sequence(output, batch_first=batch_first)
    assert got_lengths.tolist() == lengths
    if batch_first:
        padded = padded.transpose(0, 1)
    h_n, c_n = hidden if mode == "LSTM" else (hidden, None)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == ember.float32 else dict(rtol=1e-10, atol=1e-12)
    for b, n in enumerate(lengths):
        want_out, want_h, want_c = stack_reference(mode, x[:n, b:b + 1], h0[:, b:b + 1],
                                                   c0[:, b:b + 1] if mode == "LSTM" else None,
                                                   _weights(layer, dtype), layers, bidirectional)
        want_out = np.concatenate([want_out, np.zeros((T - n, 1, D * H))])  # padding after the sequence
        assert_close(padded[:, b:b + 1], want_out, dtype=dtype, what=f"output of sequence {b}", **tol)
        assert_close(h_n[:, b:b + 1], want_h, dtype=dtype, what=f"h_n of sequence {b}", **tol)
        if mode == "LSTM":
            assert_close(c_n[:, b:b + 1], want_c, dtype=dtype, what=f"c_n of sequence {b}", **tol)
