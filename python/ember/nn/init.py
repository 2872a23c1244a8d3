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

__all__ = [name for name in dir() if not name.startswith("__")]
