"""ember.backends: the flags PyTorch scripts set and the probes they call, one module per backend as
in PyTorch, so that `import ember.backends.cudnn as cudnn` works as well as the attribute.

    ember.backends.cudnn.benchmark = True        # accepted; see each module for what it changes
    if ember.backends.mps.is_available(): ...
"""
from . import cpu, cuda, cudnn, mkldnn, mps, openmp  # noqa: F401
