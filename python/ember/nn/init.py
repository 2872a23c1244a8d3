"""ember.nn.init: parameter initialisation in place, as torch.nn.init (each function fills the
tensor without recording a graph and returns it; `generator` defaults to the default one)."""
from .._C.nn.init import (  # noqa: F401  (re-exported)
    _calculate_fan_in_and_fan_out,
    calculate_gain,
    constant_,
    kaiming_normal_,
    kaiming_uniform_,
    normal_,
    ones_,
    trunc_normal_,
    uniform_,
    xavier_normal_,
    xavier_uniform_,
    zeros_,
)
from ._init_extra import dirac_, eye_, orthogonal_, sparse_  # noqa: E402,F401  (written in Python)
from ._init_extra import _deprecated  # noqa: E402

# torch's deprecated names without the underscore (they warn FutureWarning, as torch's).
uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
eye, dirac = _deprecated(eye_), _deprecated(dirac_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)
del _deprecated

__all__ = [name for name in dir() if not name.startswith("__")]
