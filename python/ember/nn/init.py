"""ember.nn.init: parameter initialisation in place, as torch.nn.init (C++: nn/init.h). Each function
fills the tensor without recording a graph and returns it; `generator` defaults to the default one.
torch's deprecated names without the underscore (uniform, normal, ...) warn FutureWarning."""
from .._C.nn.init import (  # noqa: F401  (re-exported)
    _calculate_fan_in_and_fan_out,
    calculate_gain,
    constant,
    constant_,
    dirac,
    dirac_,
    eye,
    eye_,
    kaiming_normal,
    kaiming_normal_,
    kaiming_uniform,
    kaiming_uniform_,
    normal,
    normal_,
    ones_,
    orthogonal,
    orthogonal_,
    sparse,
    sparse_,
    trunc_normal_,
    uniform,
    uniform_,
    xavier_normal,
    xavier_normal_,
    xavier_uniform,
    xavier_uniform_,
    zeros_,
)

__all__ = [name for name in dir() if not name.startswith("__")]
