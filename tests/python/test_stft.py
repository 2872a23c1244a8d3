"""ember.stft / ember.istft and the window functions against PyTorch's values
(tests/fixtures/stft.json, made by make_stft_fixtures.py), round trips, the errors a user meets,
and a spectrogram a user would compute. Gradients are checked in test_complex_autograd.py."""
import json
import pathlib

import numpy as np
import pytest

import ember

FIXTURES = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "stft.json").read_text())["cases"]


def from_entry(e):
    data = np.array(e["data"], dtype=np.float64)
    if e["dtype"].startswith("complex"):
        return data.reshape(*e["shape"], 2).view(np.complex128)[..., 0]
    return data.reshape(e["shape"])


@pytest.mark.parametrize("case", sorted(FIXTURES))
def test_values_match_pytorch(case):
    spec = FIXTURES[case]
    inputs = {k: ember.tensor(from_entry(e)) for k, e in spec["inputs"].items()}
    got = eval(spec["expr"], {"torch": ember}, inputs)
    want = from_entry(spec["value"])
    assert str(got.dtype).replace("ember.", "") == spec["value"]["dtype"] and tuple(got.shape) == want.shape
    tol = 1e-6 if spec["value"]["dtype"] == "float32" else 1e-10
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("n_fft,hop,center,window", [(16, 4, True, "hann"), (15, 5, True, "hamming"),
                                                     (8, 8, False, None), (32, 7, True, "blackman")])
def test_istft_inverts_stft(n_fft, hop, center, window):
    x = ember.randn(3, 97, dtype=ember.float64)
    w = getattr(ember, f"{window}_window")(n_fft, dtype=ember.float64) if window else None
    spec = ember.stft(x, n_fft, hop_length=hop, window=w, center=center, return_complex=True)
    assert spec.shape[:2] == (3, n_fft // 2 + 1)
    back = ember.istft(spec, n_fft, hop_length=hop, window=w, center=center, length=97)
    # Without centring the last samples after the final full frame are not covered.
    covered = 97 if center else n_fft + hop * (spec.shape[-1] - 1)
    np.testing.assert_allclose(back.numpy()[:, :covered], x.numpy()[:, :covered], atol=1e-12)


def test_errors_name_the_argument():
    x = ember.randn(64)
    with pytest.raises(ValueError, match="stft requires the return_complex parameter"):
        ember.stft(x, 16)
    with pytest.raises(ValueError, match="expected a 1-D window tensor of size equal to win_length=16, but got window "
                                         r"with size \[8\]"):
        ember.stft(x, 16, window=ember.hann_window(8), return_complex=True)
    with pytest.raises(ValueError, match="expected 0 < n_fft <= 64"):
        ember.stft(x, 100, center=False, return_complex=True)
    with pytest.raises(ValueError, match="expected hop_length > 0"):
        ember.stft(x, 16, hop_length=0, return_complex=True)
    with pytest.raises(ValueError, match="1-D signal or a 2-D batch"):
        ember.stft(ember.randn(2, 2, 64), 16, return_complex=True)
    spec = ember.stft(x, 16, window=ember.hann_window(16), return_complex=True)
    with pytest.raises(ValueError, match="frequency dim of the input to be n_fft / 2 \\+ 1 = 5"):
        ember.istft(spec, 8)
    with pytest.raises(TypeError, match="istft requires a complex-valued input"):
        ember.istft(spec.real, 16)
    # A Hann window without centring vanishes at the first sample: no inverse there (NOLA).
    with pytest.raises(ValueError, match="window overlap add min"):
        ember.istft(spec, 16, window=ember.hann_window(16), center=False)


def test_a_log_mel_style_spectrogram_trains_a_layer():
    # What an audio script writes: a magnitude spectrogram of a batch, log-compressed, into a Linear.
    ember.manual_seed(0)
    audio = ember.randn(4, 400, requires_grad=True)
    spec = ember.stft(audio, 64, hop_length=16, window=ember.hann_window(64), return_complex=True)
    feats = (spec.abs() ** 2 + 1e-6).log().transpose(1, 2)  # [batch, frames, 33]
    layer = ember.nn.Linear(33, 8)
    loss = layer(feats).pow(2).mean()
    loss.backward()
    assert feats.shape == (4, 26, 33)
    assert audio.grad.shape == (4, 400) and ember.isfinite(audio.grad).all()
    assert layer.weight.grad.abs().sum() > 0
