"""ember.nn.RNN / LSTM / GRU and their cells as PyTorch scripts use them: outputs and gradients
against PyTorch's (tests/fixtures/rnn.json, from tests/fixtures/make_rnn_fixtures.py), packed
batches (ember.nn.utils.rnn), hx in each of its forms, the attributes scripts read, printing, errors
(type and message), checkpoints, and ember.lstm / ember.lstm_cell & co. as functions."""
import json
import os
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.utils.rnn as rnn_utils
from ember.autograd import gradcheck

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "rnn.json")


def _cases():
    with open(FIXTURES) as f:
        return json.load(f)["cases"]


CASES = _cases()


def _tensor(entry):
    dtype = getattr(ember, entry["dtype"])
    return ember.tensor(np.array(entry["data"], dtype=np.float64).reshape(entry["shape"]), dtype=dtype)


def _build(case):
    s, mode = case["scalars"], case["strings"]["mode"]
    i, h, bias = int(s["input_size"]), int(s["hidden_size"]), bool(s["bias"])
    if mode.startswith("RNNCell"):
        return nn.RNNCell(i, h, bias, nonlinearity="relu" if mode.endswith("RELU") else "tanh")
    if mode in ("LSTMCell", "GRUCell"):
        return getattr(nn, mode)(i, h, bias=bias)
    kwargs = dict(num_layers=int(s["num_layers"]), bias=bias, batch_first=bool(s["batch_first"]),
                  bidirectional=bool(s["bidirectional"]))
    if mode.startswith("RNN_"):
        return nn.RNN(i, h, nonlinearity=mode[4:].lower(), **kwargs)
    return getattr(nn, mode)(i, h, **kwargs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    case = CASES[name]
    tensors = {k: _tensor(v) for k, v in case["tensors"].items()}
    layer = _build(case)
    f64 = tensors["input"].dtype == ember.float64
    if f64:
        layer.double()
    layer.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("param.")})
    x = tensors["input"].clone().requires_grad_()
    states = [tensors[k].clone().requires_grad_() for k in ("h0", "c0") if k in tensors]
    lstm = isinstance(layer, (nn.LSTM, nn.LSTMCell))
    hx = (tuple(states) if lstm else states[0]) if states else None
    if "lengths" in tensors:  # as PyTorch ran it: packed unsorted, the output padded again
        packed = rnn_utils.pack_padded_sequence(x, tensors["lengths"], batch_first=layer.batch_first,
                                                enforce_sorted=False)
        output, hidden = layer(packed, hx)
        assert isinstance(output, rnn_utils.PackedSequence)
        result = (rnn_utils.pad_packed_sequence(output, batch_first=layer.batch_first)[0], hidden)
    else:
        result = layer(x, hx)
    if isinstance(layer, nn.RNNCellBase):
        h, c = result if lstm else (result, None)
        got = {"output": h, "h_n": h, "c_n": c}
    else:
        output, hidden = result
        h_n, c_n = hidden if lstm else (hidden, None)
        got = {"output": output, "h_n": h_n, "c_n": c_n}
    # NB: float32 to 1e-5 relative: the portable build (SSE2, no FMA; the sanitizer one) rounds a
    # few gradients 1.3e-6 away from PyTorch's (tests/nn/rnn_test.cpp likewise).
    tol = dict(rtol=1e-10, atol=1e-12) if f64 else dict(rtol=1e-5, atol=1e-6)
    total = 0
    for key in ("output", "h_n", "c_n"):
        if key in tensors:
            np.testing.assert_allclose(got[key].detach().numpy(), tensors[key].numpy(), err_msg=key, **tol)
            total = total + (got[key] * tensors["grad_output" if key == "output" else f"grad_{key}"]).sum()
    total.backward()
    np.testing.assert_allclose(x.grad.numpy(), tensors["grad.input"].numpy(), err_msg="grad.input", **tol)
    for key, s in zip(("h0", "c0"), states):
        np.testing.assert_allclose(s.grad.numpy(), tensors[f"grad.{key}"].numpy(), err_msg=key, **tol)
    for pname, p in layer.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tensors[f"grad.{pname}"].numpy(), err_msg=pname, **tol)


def test_attributes_scripts_read():
    lstm = nn.LSTM(10, 20, 2, batch_first=True, dropout=0.3, bidirectional=True)
    assert (lstm.input_size, lstm.hidden_size, lstm.num_layers) == (10, 20, 2)
    assert lstm.bias is True and lstm.batch_first is True and lstm.bidirectional is True
    assert lstm.dropout == 0.3 and lstm.proj_size == 0 and lstm.mode == "LSTM"
    assert lstm._flat_weights_names[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert lstm._flat_weights_names[4] == "weight_ih_l0_reverse"
    assert len(lstm.all_weights) == 4 and [tuple(w.shape) for w in lstm.all_weights[2]] == [(80, 40), (80, 20), (80,), (80,)]
    assert isinstance(lstm.weight_hh_l1_reverse, nn.Parameter)
    assert lstm.flatten_parameters() is None
    assert isinstance(lstm, nn.RNNBase) and isinstance(nn.GRU(3, 4), nn.RNNBase)
    assert nn.RNN(3, 4, nonlinearity="relu").nonlinearity == "relu" and nn.RNN(3, 4).mode == "RNN_TANH"
    cell = nn.GRUCell(3, 4, bias=False)
    assert (cell.input_size, cell.hidden_size, cell.bias) == (3, 4, False)
    assert isinstance(cell, nn.RNNCellBase)
    assert [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh"]


def test_printing_matches_pytorch():
    assert repr(nn.LSTM(4, 6, 2, dropout=0.5, bidirectional=True, batch_first=True)) == \
        "LSTM(4, 6, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bias=False)) == "RNN(3, 4, bias=False)"
    assert repr(nn.GRUCell(3, 4, bias=False)) == "GRUCell(3, 4, bias=False)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"


def test_hx_forms_and_defaults():
    ember.manual_seed(0)
    lstm = nn.LSTM(3, 4, 2)
    x = ember.randn(5, 2, 3)
    out, (h, c) = lstm(x)
    out2, (h2, c2) = lstm(x, (ember.zeros(2, 2, 4), ember.zeros(2, 2, 4)))
    assert ember.equal(out, out2) and ember.equal(c, c2)
    out3, _ = lstm(x, [ember.zeros(2, 2, 4), ember.zeros(2, 2, 4)])  # a list works as in PyTorch
    assert ember.equal(out, out3)
    gru = nn.GRU(3, 4)
    out, h = gru(x)
    assert tuple(out.shape) == (5, 2, 4) and tuple(h.shape) == (1, 2, 4)
    out, h = gru(x[:, 0], ember.zeros(1, 4))  # unbatched
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == (1, 4)
    assert ember.allclose(out, gru(x)[0][:, 0], atol=1e-6)


def test_detached_hidden_carries_state_between_batches():
    """Truncated backpropagation through time: two halves with the state carried (detached) give
    the values of the whole sequence, and the second half's backward stops at the detach."""
    ember.manual_seed(1)
    lstm = nn.LSTM(3, 4, 2)
    x = ember.randn(6, 2, 3)
    whole, _ = lstm(x)
    first, hidden = lstm(x[:3])
    hidden = tuple(h.detach() for h in hidden)
    second, _ = lstm(x[3:], hidden)
    assert ember.allclose(ember.cat([first, second]), whole, atol=1e-6)
    second.sum().backward()
    assert lstm.weight_hh_l0.grad is not None


def test_errors_match_pytorchs():
    lstm = nn.LSTM(4, 6)
    x = ember.randn(5, 3, 4)
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D, got 4D"):
        lstm(ember.randn(5, 3, 4, 1))
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 4, got 5"):
        lstm(ember.randn(5, 3, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 6\), got \[2, 3, 6\]"):
        lstm(x, (ember.zeros(2, 3, 6), ember.zeros(1, 3, 6)))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx and cx should also be 3-D"):
        lstm(x, (ember.zeros(3, 6), ember.zeros(3, 6)))
    with pytest.raises(ValueError, match=r"input dtype \(float64\) does not match weight dtype \(float32\)"):
        lstm(x.double())
    with pytest.raises(TypeError, match="hx must be a tuple"):
        lstm(x, (ember.zeros(1, 3, 6),))
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        nn.GRU(4, 6)(ember.randn(0, 3, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 3, 6\), got \[1, 3, 5\]"):
        nn.GRU(4, 6)(x, ember.zeros(1, 3, 5))
    with pytest.raises(TypeError, match="input must be a Tensor or a PackedSequence, got list"):
        lstm([x])
    with pytest.raises(NotImplementedError, match="proj_size"):
        nn.LSTM(4, 6, proj_size=2)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(4, 6, proj_size=2)
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(4, 6, nonlinearity="gelu")
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.LSTM(4, 0)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(4, 6, 2, dropout=1.5)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 4"):
        nn.LSTMCell(4, 6)(ember.randn(3, 5))
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D, got 3D"):
        nn.LSTMCell(4, 6)(ember.randn(2, 3, 4))


def test_dropout_with_one_layer_warns_as_pytorch():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.LSTM(3, 4, 2, dropout=0.5)


def test_dropout_between_layers_in_training_only():
    ember.manual_seed(2)
    lstm = nn.LSTM(3, 4, 3, dropout=0.5)
    x = ember.randn(4, 2, 3)
    lstm.eval()
    a, _ = lstm(x)
    b, _ = lstm(x)
    assert ember.equal(a, b)
    lstm.train()
    ember.manual_seed(9)
    c, _ = lstm(x)
    ember.manual_seed(9)
    d, _ = lstm(x)
    assert ember.equal(c, d) and not ember.allclose(a, c)


def test_functions_match_the_modules():
    ember.manual_seed(3)
    lstm = nn.LSTM(3, 4, 2, bidirectional=True)
    x = ember.randn(5, 2, 3)
    h0, c0 = ember.randn(4, 2, 4), ember.randn(4, 2, 4)
    out, (h, c) = lstm(x, (h0, c0))
    out2, h2, c2 = ember.lstm(x, [h0, c0], lstm._flat_weights, True, 2, 0.0, False, True, False)
    assert ember.equal(out, out2) and ember.equal(h, h2) and ember.equal(c, c2)
    cell = nn.GRUCell(3, 4)
    hx = ember.randn(2, 4)
    assert ember.equal(cell(x[0], hx), ember.gru_cell(x[0], hx, cell.weight_ih, cell.weight_hh, cell.bias_ih,
                                                      cell.bias_hh))
    lcell = nn.LSTMCell(3, 4, bias=False)
    hc = (ember.randn(2, 4), ember.randn(2, 4))
    h1, c1 = lcell(x[0], hc)
    h2, c2 = ember.lstm_cell(x[0], list(hc), lcell.weight_ih, lcell.weight_hh)
    assert ember.equal(h1, h2) and ember.equal(c1, c2)


def test_gradcheck_of_each_cell_function():
    rng = np.random.default_rng(4)

    def t(*shape):
        return ember.tensor(rng.uniform(-0.8, 0.8, shape), dtype=ember.float64, requires_grad=True)

    for name, g in (("rnn_tanh_cell", 1), ("rnn_relu_cell", 1), ("gru_cell", 3)):
        fn = getattr(ember, name)
        assert gradcheck(fn, (t(3, 2), t(3, 4), t(4 * g, 2), t(4 * g, 4), t(4 * g), t(4 * g)))
    assert gradcheck(lambda x, h, c, wi, wh: ember.cat(list(ember.lstm_cell(x, [h, c], wi, wh)), 1),
                     (t(3, 2), t(3, 4), t(3, 4), t(16, 2), t(16, 4)))


def test_saved_and_loaded_as_modules(tmp_path):
    ember.manual_seed(5)
    model = nn.Sequential(nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True))
    path = str(tmp_path / "lstm.ember")
    ember.io.save_module(model, path)
    loaded = ember.io.load_module(path)
    x = ember.randn(2, 5, 3)
    assert isinstance(loaded[0], nn.LSTM) and loaded[0].bidirectional
    assert ember.equal(loaded[0](x)[0], model[0](x)[0])
    assert ember.equal(loaded(x), model[0](x)[0])  # in a Sequential: the output alone


def test_python_subclass_overrides_forward():
    class Last(nn.LSTM):
        def forward(self, x, hx=None):
            out, _ = super().forward(x, hx)
            return out[-1]

    m = Last(3, 4)
    assert tuple(m(ember.randn(5, 2, 3)).shape) == (2, 4)
    assert tuple(nn.Sequential(m)(ember.randn(5, 2, 3)).shape) == (2, 4)


# ---- ember.nn.utils.rnn

def test_packing_round_trips_and_keeps_the_callers_order():
    rng = np.random.default_rng(6)
    seqs = [ember.tensor(rng.normal(size=(n, 3))) for n in (2, 5, 1, 5)]
    padded = rnn_utils.pad_sequence(seqs)
    assert tuple(padded.shape) == (5, 4, 3)
    assert ember.equal(padded[2:, 0], ember.zeros(3, 3))
    left = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=-1.0, padding_side="left")
    assert tuple(left.shape) == (4, 5, 3) and ember.equal(left[0, :3], ember.full((3, 3), -1.0))
    assert ember.equal(left[0, 3:], seqs[0])
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [4, 3, 2, 2, 2]
    assert packed.sorted_indices.tolist() == [1, 3, 0, 2]  # stable: the two of length 5 keep their order
    assert packed.unsorted_indices.tolist() == [2, 0, 3, 1]
    assert tuple(packed.data.shape) == (13, 3)
    back, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=True, total_length=6)
    assert lengths.tolist() == [2, 5, 1, 5] and tuple(back.shape) == (4, 6, 3)
    for s, u in zip(seqs, rnn_utils.unpack_sequence(packed)):
        assert ember.equal(s, u)
    for s, u in zip(seqs, rnn_utils.unpad_sequence(padded, lengths)):
        assert ember.equal(s, u)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn_utils.pack_sequence(seqs)
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        rnn_utils.pack_padded_sequence(padded, [5, 0, 1, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least 5"):
        rnn_utils.pad_packed_sequence(packed, total_length=4)
    # Built by hand from a list of batch sizes (and NumPy lengths), as a user may: the same packing.
    by_hand = rnn_utils.PackedSequence(packed.data, [4, 3, 2, 2, 2], packed.sorted_indices)
    assert by_hand.batch_sizes.dtype == ember.int64 and by_hand.unsorted_indices.tolist() == [2, 0, 3, 1]
    for s, u in zip(seqs, rnn_utils.unpack_sequence(by_hand)):
        assert ember.equal(s, u)
    assert rnn_utils.pack_padded_sequence(padded, np.array([5, 5, 2, 1])).batch_sizes.tolist() == [4, 3, 2, 2, 2]


def test_packed_lstm_runs_each_sequence_for_its_length_and_gradients_reach_the_padded_input():
    ember.manual_seed(7)
    lstm = nn.LSTM(3, 4, 2, bidirectional=True).double()
    rng = np.random.default_rng(7)
    lengths = [3, 5, 2]
    x = ember.tensor(rng.normal(size=(5, 3, 3)), requires_grad=True)
    packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False)
    output, (h_n, c_n) = lstm(packed)
    padded, got_lengths = rnn_utils.pad_packed_sequence(output)
    assert got_lengths.tolist() == lengths
    for b, n in enumerate(lengths):
        alone, (h_b, c_b) = lstm(x[:n, b:b + 1].detach())
        np.testing.assert_allclose(padded[:n, b:b + 1].detach().numpy(), alone.detach().numpy(), atol=1e-12)
        assert np.all(padded[n:, b].detach().numpy() == 0)
        np.testing.assert_allclose(h_n[:, b:b + 1].detach().numpy(), h_b.detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(c_n[:, b:b + 1].detach().numpy(), c_b.detach().numpy(), atol=1e-12)
    padded.sum().backward()
    grad = x.grad.numpy()
    assert np.all(grad[3:, 0] == 0) and np.all(grad[2:, 2] == 0) and np.any(grad[:2, 2] != 0)


def test_packed_gradcheck_through_pack_and_pad():
    rng = np.random.default_rng(8)
    gru = nn.GRU(2, 3).double()
    x = ember.tensor(rng.normal(size=(3, 2, 2)), requires_grad=True)
    h = ember.tensor(rng.normal(size=(1, 2, 3)), requires_grad=True)

    def fn(x, h):
        out, h_n = gru(rnn_utils.pack_padded_sequence(x, [1, 3], enforce_sorted=False), h)
        return ember.cat([rnn_utils.pad_packed_sequence(out)[0].reshape(-1), h_n.reshape(-1)])

    assert gradcheck(fn, (x, h))
