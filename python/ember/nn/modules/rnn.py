"""torch.nn.modules.rnn: the recurrent layers, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
