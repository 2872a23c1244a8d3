"""torch.nn.modules.channelshuffle: the channel shuffle, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import ChannelShuffle

__all__ = ["ChannelShuffle"]
