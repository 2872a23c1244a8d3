"""torch.nn.modules' layout: Module (module.py) and every layer under the submodule PyTorch keeps it
in (ember.nn.modules.dropout.Dropout is ember.nn.Dropout), so that code written for PyTorch's paths
(safe-globals lists, isinstance checks, `from torch.nn.modules.utils import _pair`) finds them."""
from .module import Module
from . import (activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold,  # noqa: F401
               instancenorm, linear, loss, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer,
               upsampling, utils)
from .activation import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403

_TOPICS = (activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm,
           linear, loss, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling)
__all__ = ["Module"] + [name for topic in _TOPICS for name in topic.__all__]
