"""torch.nn.modules.container: the containers, at PyTorch's module path (the classes are ember.nn's)."""
from ..._C.nn import ModuleDict, ModuleList, Sequential
from ..parameter_containers import ParameterDict, ParameterList

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
