"""ember.nn: modules and layers with PyTorch's API (torch.nn).

    import ember
    from ember import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))

        def forward(self, x):
            return self.body(x)

The built-in layers are C++ (ember._C.nn); modules written in Python and built-in ones nest in
each other both ways. See ember.nn.modules.module for the registration rules.
"""
from __future__ import annotations

from .. import _C
# Every built-in layer and container (ember._C.nn.__all__); their indexing and iteration are C++.
from .._C.nn import *  # noqa: F401,F403
from .parameter import Parameter  # noqa: F401
from .modules import Module  # noqa: F401  (and torch.nn.modules' submodules: ember.nn.modules.linear.Linear, ...)
from . import functional, init, utils  # noqa: F401,E402
from ._lazy_linear import LazyLinear  # noqa: F401,E402
from ._sync_batchnorm import SyncBatchNorm  # noqa: F401,E402  (statistics over ember.distributed ranks)
from .parameter_containers import ParameterDict, ParameterList  # noqa: F401,E402
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402


__all__ = [name for name in dir() if not name.startswith("_")]
