"""Every built-in layer with parameters or buffers takes PyTorch's factory keywords device= and
dtype= (nn.Linear(4, 2, device=device, dtype=torch.float64), as modern PyTorch scripts build
layers): its parameters and floating buffers come out in that dtype, on that device."""
import pytest

import ember
from ember import nn

LAYERS = {
    "Linear": lambda **k: nn.Linear(2, 3, **k),
    "Bilinear": lambda **k: nn.Bilinear(2, 3, 4, **k),
    "Conv1d": lambda **k: nn.Conv1d(2, 3, 3, **k),
    "Conv2d": lambda **k: nn.Conv2d(2, 3, 3, **k),
    "Conv3d": lambda **k: nn.Conv3d(2, 3, 3, **k),
    "ConvTranspose1d": lambda **k: nn.ConvTranspose1d(2, 3, 3, **k),
    "ConvTranspose2d": lambda **k: nn.ConvTranspose2d(2, 3, 3, **k),
    "ConvTranspose3d": lambda **k: nn.ConvTranspose3d(2, 3, 3, **k),
    "Embedding": lambda **k: nn.Embedding(5, 3, **k),
    "EmbeddingBag": lambda **k: nn.EmbeddingBag(5, 3, **k),
    "LayerNorm": lambda **k: nn.LayerNorm(4, **k),
    "GroupNorm": lambda **k: nn.GroupNorm(2, 4, **k),
    "BatchNorm1d": lambda **k: nn.BatchNorm1d(4, **k),
    "BatchNorm2d": lambda **k: nn.BatchNorm2d(4, **k),
    "InstanceNorm2d": lambda **k: nn.InstanceNorm2d(4, affine=True, track_running_stats=True, **k),
    "PReLU": lambda **k: nn.PReLU(**k),
    "RNN": lambda **k: nn.RNN(4, 5, **k),
    "GRU": lambda **k: nn.GRU(4, 5, **k),
    "LSTM": lambda **k: nn.LSTM(4, 5, **k),
    "RNNCell": lambda **k: nn.RNNCell(4, 5, **k),
    "GRUCell": lambda **k: nn.GRUCell(4, 5, **k),
    "LSTMCell": lambda **k: nn.LSTMCell(4, 5, **k),
    "MultiheadAttention": lambda **k: nn.MultiheadAttention(4, 2, **k),
    "TransformerEncoderLayer": lambda **k: nn.TransformerEncoderLayer(8, 2, 16, **k),
    "TransformerDecoderLayer": lambda **k: nn.TransformerDecoderLayer(8, 2, 16, **k),
    "Transformer": lambda **k: nn.Transformer(8, 2, 1, 1, 16, **k),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_takes_device_and_dtype(name):
    m = LAYERS[name](device="cpu", dtype=ember.float64)
    tensors = list(m.parameters()) + [b for b in m.buffers() if b.is_floating_point()]
    assert tensors and all(t.dtype == ember.float64 and t.device.type == "cpu" for t in tensors)
    default = LAYERS[name]()  # None for both: the defaults, as without the keywords
    assert all(p.dtype == ember.float32 for p in default.parameters())
    # the layer computes in the dtype it was built in
    if name == "Linear":
        assert m(ember.randn(3, 2, dtype=ember.float64)).dtype == ember.float64


def test_a_python_subclass_passes_them_on():
    class Head(nn.Linear):
        def __init__(self, device=None, dtype=None):
            super().__init__(4, 2, device=device, dtype=dtype)

    head = Head(dtype=ember.float64)
    assert head.weight.dtype == ember.float64 and isinstance(head, nn.Linear)
    assert head(ember.ones(1, 4, dtype=ember.float64)).shape == (1, 2)
